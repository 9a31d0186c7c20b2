"""A hostile user of the command line, round 4: every error names the flag, never the Python keyword.

Before: ``veracity conformal --method raps --lam -1`` said "lam must be a number >= 0",
``veracity audit --level 1`` "level must be in (0, 1)", ``veracity threshold --target-recall 1.5``
"target must be in (0, 1)", ``veracity export --prior-shift 0 0.2`` "prior_shift old must be ...",
``veracity threshold --cost-fp 0 --cost-fn 0`` "cost_fp and cost_fn are both 0", ``veracity conformal
--randomized`` "randomized=True applies to score='aps' only", a lazy audit's negative weights
"column 'w' (sample_weight) must be non-negative". Also: ``segments --features`` could not name a
column with a comma; ``export --onnx CAL.json`` overwrote the calibrator it read; ``demo --plots FILE``
ended in a traceback; a file piped into ``-`` was named by its deleted temporary copy in ``--json``
and in a fitted artifact's provenance; gzip-compressed CSV on stdin was read as plain text.
"""

from __future__ import annotations

import gzip
import io
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from veracity.cli import main
from veracity.datasets import demo_path

#: the module's tests in one worker under ``make test`` (``-n 2 --dist loadgroup``):
#: the fitted calibrator is made once; spread over both workers, each made it (r43)
pytestmark = pytest.mark.xdist_group(__name__)


def _run(capsys, argv) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture(scope="module")
def calibrator(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("cal") / "cal.json"
    assert main(["fit", "--method", "platt", "--role-col", "role", "--out", str(path), "--quiet"]) == 0
    return path


DEMO = str(demo_path())

#: argv, what the one line must say (the flag), and the Python spelling it said before
FLAG_CASES = [
    (["audit", "--bins", "0"], "--bins must be a positive integer", "input error: bins "),
    (["audit", "--level", "1"], "--level must be in (0, 1)", "input error: level "),
    (["audit", "--min-count", "-1"], "--min-count must be", "min_count"),
    (["audit", "--by", "segment", "--max-groups", "1"], "--max-groups must be", "max_groups"),
    (["audit", "--noise-floor", "--n-resamples", "0"], "--n-resamples must be", "n_resamples"),
    (["audit", "--noise-floor", "--random-state", "-1"], "--random-state must be", "random_state"),
    (["audit", "--score", "score", "--sample-weight", "logit", "--engine", "duckdb"],
     "column 'logit' (--sample-weight) must be non-negative", "(sample_weight)"),
    (["fit", "--method", "histogram", "--bins", "0", "--out", "{tmp}/c.json"], "--bins must be", "input error: bins "),
    (["conformal", "--method", "raps", "--lam", "-1"], "--lam must be a number >= 0", "error: lam "),
    (["conformal", "--method", "raps", "--k-reg", "-1"], "--k-reg must be a whole number >= 0", "k_reg"),
    (["conformal", "--alpha", "0"], "--alpha must be in (0, 1)", "input error: alpha "),
    (["conformal", "--randomized"], "--randomized applies to --method aps or raps", "randomized=True"),
    (["threshold", "--cost-fp", "0", "--cost-fn", "0"], "--cost-fp and --cost-fn are both 0", "cost_fp"),
    (["threshold", "--cost-fn", "nan"], "--cost-fn must be a finite non-negative cost", "cost_fn"),
    (["threshold", "--target-recall", "1.5"], "--target-recall must be in (0, 1)", "error: target "),
    (["threshold", "--target-precision", "0"], "--target-precision must be in (0, 1)", "error: target "),
    (["threshold", "--budget", "-3"], "--budget must be a positive number of rows", "top_k"),
    (["threshold", "--budget", "200%"], "--budget 200% must be a share of the rows", "fraction"),
    (["compare", "--score", "score", "--against", "logit", "--level", "2"], "--level must be", "input error: level "),
    (["compare", "--score", "score", "--against", "logit"], "If these are logits, pass --score-type logit",
     "score_type="),
    (["segments", DEMO, "--features", "segment", "--fdr", "0"], "--fdr must be in (0, 1)", "input error: fdr "),
    (["segments", DEMO, "--features", "segment", "--depth", "0"], "--depth must be a positive integer", "error: depth "),
    (["report", "--out", "{tmp}/r.html", "--no-bootstrap", "--cost-fp", "-1"], "got --cost-fp -1.0, --cost-fn 1.0",
     "cost_fp="),
    (["report", "--out", "{tmp}/r.html", "--no-bootstrap", "--target-recall", "1.5"], "--target-recall must be in",
     "target_recall"),
    (["export", "{cal}", "--sql", "duckdb", "--prior-shift", "0", "0.2"], "--prior-shift old must be one number",
     "prior_shift"),
]


@pytest.mark.parametrize("argv, says, before", FLAG_CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else "")
def test_errors_name_the_flag_not_the_python_keyword(argv, says, before, capsys, tmp_path, calibrator):
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{cal}", str(calibrator)) for a in argv]
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith(f"veracity {argv[0]}: input error: "), err
    assert says in err, err
    assert before not in err, err


@pytest.mark.parametrize("argv, says", [
    # a word that is a flag elsewhere stays a word where the command has no such flag or means the thing
    (["threshold", "--score", "score,logit"], "input error: threshold needs one --score column"),
    (["apply", "{cal}", DEMO, "--column", "label", "--out", "{tmp}/o.csv"], "input error: column 'label' already"),
])
def test_words_that_are_not_the_flag_stay(argv, says, capsys, tmp_path, calibrator):
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{cal}", str(calibrator)) for a in argv]
    code, _, err = _run(capsys, argv)
    assert code == 2 and says in err, err


def _comma_csv(tmp_path: Path) -> Path:
    rng = np.random.default_rng(0)
    n = 2000
    p = rng.uniform(0.05, 0.95, n)
    region = rng.choice(["EU", "US"], n)
    age = rng.integers(18, 80, n)
    y = (rng.uniform(size=n) < np.clip(p + np.where(region == "EU", 0.15, 0.0), 0, 1)).astype(int)
    path = tmp_path / "comma.csv"
    path.write_text('score,label,region,"age,years",p2\n' + "".join(
        f"{a:.4f},{b},{c},{d},{a * 0.9:.4f}\n" for a, b, c, d in zip(p, y, region, age)))
    return path


def test_segments_names_a_column_with_a_comma(tmp_path, capsys):
    path = _comma_csv(tmp_path)
    code, out, err = _run(capsys, ["segments", path, "--features", "age,years", "--json"])  # as --score reads it
    assert code == 0, err
    assert {tuple(r["features"]) for r in json.loads(out)["segments"]} == {("age,years",)}
    code, out, err = _run(capsys, ["segments", path, "--features", "region", "--feature", "age,years", "--json"])
    assert code == 0, err
    names = {name for r in json.loads(out)["segments"] for name in r["features"]}
    assert names == {"region", "age,years"}
    code, _, err = _run(capsys, ["segments", path])
    assert code == 2 and "--features region,age (or --feature NAME" in err


def test_report_and_compare_name_a_column_with_a_comma(tmp_path, capsys):
    path = _comma_csv(tmp_path)
    code, out, err = _run(capsys, ["report", path, "--out", tmp_path / "r.html", "--no-bootstrap", "--features",
                                   "age,years", "--json"])
    assert code == 0, err
    code, out, err = _run(capsys, ["report", path, "--out", tmp_path / "r.html", "--no-bootstrap", "--feature",
                                   "age,years", "--feature", "region", "--json"])
    assert code == 0, err
    path.write_text(path.read_text().replace("p2\n", '"p,new"\n', 1))
    code, out, err = _run(capsys, ["compare", path, "--score", "score", "--against", "p,new", "--n-resamples", "0",
                                   "--json"])
    assert code == 0, err
    assert {r["model_b"] for r in json.loads(out)["comparison"]} == {"p,new"}


def test_export_onnx_never_overwrites_the_calibrator(tmp_path, capsys, calibrator):
    cal = tmp_path / "cal.json"
    cal.write_bytes(calibrator.read_bytes())
    code, _, err = _run(capsys, ["export", cal, "--onnx", cal])
    assert code == 2 and "--onnx" in err and "overwrite an input" in err
    assert cal.read_bytes() == calibrator.read_bytes()


def test_demo_plots_naming_a_file_is_one_line(tmp_path, capsys):
    path = tmp_path / "figures"
    path.write_text("not a folder")
    code, out, err = _run(capsys, ["demo", "kg", "--plots", path])
    assert code == 2 and err.count("\n") == 1 and "--plots" in err and "is a file" in err


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))


@pytest.mark.parametrize("argv", [["audit", "-"], ["threshold", "-"], ["conformal", "-"],
                                  ["fit", "-", "--method", "platt", "--out", "{tmp}/c.json"],
                                  ["fit", "-", "--method", "platt", "--engine", "duckdb", "--out", "{tmp}/c.json"]])
def test_stdin_is_named_stdin_not_its_temporary_copy(argv, tmp_path, capsys, monkeypatch):
    _stdin(monkeypatch, Path(DEMO).read_bytes())
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _run(capsys, [*argv, "--json"])
    assert code == 0, err
    assert json.loads(out)["file"] == "<stdin>"
    assert "veracity-stdin" not in err
    if argv[0] == "fit":
        assert json.loads((tmp_path / "c.json").read_text())["metadata"]["source_file"] == "<stdin>"


def test_gzip_csv_on_stdin(capsys, monkeypatch):
    _stdin(monkeypatch, gzip.compress(Path(DEMO).read_bytes()))
    code, out, err = _run(capsys, ["audit", "-", "--json"])
    assert code == 0, err
    assert json.loads(out)["n"] == 6000


def test_a_value_starting_with_a_dash_gets_the_equals_form(capsys):
    with pytest.raises(SystemExit) as info:
        main(["audit", "--score", "--x"])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1
    assert "join it with '=': --score=VALUE" in err


def test_export_prior_shift_of_a_multiclass_calibrator(tmp_path, capsys):
    """Before: --prior-shift took exactly OLD NEW, and a 3-class calibrator answered "prior_shift old
    must be 3 class priors" — a request the flag could not meet."""
    import veracity as vc

    rng = np.random.default_rng(0)
    logits = rng.normal(size=(600, 3))
    probs = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    labels = np.array([rng.choice(3, p=p) for p in probs])
    cal = vc.TemperatureScaling().fit(probs, labels)
    path = tmp_path / "mc.json"
    cal.save(path)
    code, out, err = _run(capsys, ["export", path, "--sql", "duckdb", "--column", "p0,p1,p2",
                                   "--prior-shift", "0.2", "0.3", "0.5", "0.3", "0.3", "0.4"])
    assert code == 0, err
    assert out.strip() == cal.to_sql(["p0", "p1", "p2"], dialect="duckdb",
                                      prior_shift=([0.2, 0.3, 0.5], [0.3, 0.3, 0.4])).strip()
    code, _, err = _run(capsys, ["export", path, "--sql", "duckdb", "--prior-shift", "0.2", "0.3", "0.5"])
    assert code == 2 and err.count("\n") == 1 and "--prior-shift takes OLD NEW" in err


@pytest.mark.parametrize("command", ["audit", "threshold", "conformal"])
def test_json_never_overwrites_a_data_file_named_after_it(command, tmp_path, capsys):
    """Before: `veracity audit --json scores.csv` took scores.csv as --json's PATH, audited the bundled
    demo data and wrote its JSON over scores.csv."""
    data = tmp_path / "scores.csv"
    data.write_text("score,label\n0.1,0\n0.9,1\n0.8,1\n0.3,0\n")
    before = data.read_bytes()
    code, out, err = _run(capsys, [command, "--json", data])
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"veracity {command} {data} --json" in err
    assert data.read_bytes() == before
    assert main([command, "--json", str(tmp_path / "out.json"), "--quiet"]) == 0  # a .json path is written


def test_a_file_given_to_a_flag_with_choices_says_where_it_goes(tmp_path, capsys):
    data = tmp_path / "scores.csv"
    data.write_text("score,label\n0.1,0\n0.9,1\n")
    with pytest.raises(SystemExit) as info:
        main(["audit", "--bootstrap", str(data)])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1
    assert f"to read {data}, name it before --bootstrap" in err


@pytest.mark.parametrize("argv, flag", [
    (["threshold", "--sample-weight", ""], "--sample-weight"),  # ran unweighted, rc 0
    (["audit", "--by", ""], "--by"),  # ran without slices, rc 0
    (["audit", "--label", ""], "--label"),  # "available columns: score" (only the columns read)
    (["fit", "--method", "platt", "--sample-weight", "", "--out", "{tmp}/c.json"], "--sample-weight"),
])
def test_an_empty_column_name_is_refused_in_the_flag_s_words(argv, flag, tmp_path, capsys):
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{flag} needs a column name" in err


@pytest.mark.parametrize("argv, says", [
    # Before: rc 0, the flag ignored: fit on all 6,000 demo rows (its test rows too), measured on all rows,
    # the ledger printed without slices
    # (a file without a role column: fit takes a column named "role" as its --role-col, as threshold does)
    (["fit", "{norole}", "--method", "platt", "--fit-role", "calib", "--out", "{tmp}/c.json"],
     "--fit-role needs --role-col"),
    (["fit", "{norole}", "--method", "platt", "--allow-role", "test", "--out", "{tmp}/c.json"],
     "--allow-role needs --role-col"),
    (["compare", "{norole}", "--calibrator", "{cal}", "--eval-role", "test"], "--eval-role needs --role-col"),
    (["compare", "--calibrator", "{cal}", "--by", "segment"], "--by slices the comparison of two models"),
])
def test_a_flag_that_would_be_ignored_is_refused(argv, says, tmp_path, capsys, calibrator):
    norole = tmp_path / "norole.csv"
    lines = Path(DEMO).read_text().splitlines()
    at = lines[0].split(",").index("role")
    norole.write_text("\n".join(",".join(c for i, c in enumerate(line.split(",")) if i != at) for line in lines))
    argv = [a.replace("{tmp}", str(tmp_path)).replace("{cal}", str(calibrator)).replace("{norole}", str(norole))
            for a in argv]
    code, out, err = _run(capsys, argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and says in err, err
    assert not (tmp_path / "c.json").exists()
    assert main(["fit", "--method", "platt", "--role-col", "role", "--out", str(tmp_path / "ok.json"), "-q"]) == 0


def test_a_path_the_system_refuses_is_one_line(tmp_path, capsys):
    # a file name longer than the file system allows was an OSError traceback
    from veracity.cli import main

    code = main(["audit", "x" * 5000 + ".csv", "--score", "p", "--label", "y"])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and err.count("\n") == 1
    assert "input error: cannot read" in err and "File name too long" in err
