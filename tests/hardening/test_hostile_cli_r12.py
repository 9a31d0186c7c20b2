"""A hostile user of the command line, round 12: options that silently did nothing, outputs that
overwrote their input, a metric printed under another metric's name, and messages in Python words.

Before: ``veracity audit --n-resamples 5`` (no bootstrap) ran as if it were not given;
``--max-groups 0`` said "(or None for no cap)"; ``veracity apply cal.json 'logs/*.parquet' --out
logs/a.parquet`` overwrote one of the files it read; ``veracity compare --against`` printed the
debiased ECE as "ece" (``veracity audit`` prints the plug-in ECE as "ECE": 0.0386 and 0.0678 on the
same rows); ``veracity compare --calibrator --level 0.8`` printed a 95% interval; a Mondrian error
said "or --mondrian False"; a score column named "p,1" was read as the columns "p" and "1" by the
DuckDB/Dask routes of audit, fit and apply.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest

import veracity as vc
from veracity.cli import cli_message
from veracity.core._validation import VeracityError


def _data(n: int = 300, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(0.01, 0.99, n), 4)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    q = np.round(np.clip(p + rng.normal(0, 0.1, n), 0.01, 0.99), 4)
    return p, y, q


def _csv(path: Path, n: int = 300) -> Path:
    p, y, q = _data(n)
    seg = np.where(np.arange(n) % 2 == 0, "a", "b")
    pacsv.write_csv(pa.table({"score": p, "label": y, "p2": q, "seg": seg}), path)
    return path


# -- options that changed nothing -----------------------------------------------------------------

@pytest.mark.parametrize("extra, named", [
    (["--n-resamples", "5"], "--n-resamples has no effect without --bootstrap, --noise-floor, --tests or"),
    (["--random-state", "3"], "--random-state has no effect without --bootstrap, --noise-floor, --tests or"),
    (["--resamples", "50", "--seed", "1"], "--n-resamples and --random-state have no effect without"),
    # the tests' Monte-Carlo Hosmer-Lemeshow p-value always redraws 2,000 times (--random-state seeds it)
    (["--n-resamples", "5", "--tests"], "--n-resamples has no effect without --bootstrap, --noise-floor or --honest"),
])
def test_audit_resampling_options_without_resampling_are_refused(tmp_path, cli, refused, extra, named):
    f = _csv(tmp_path / "d.csv")
    refused(cli(["audit", f, *extra]), named)


def test_random_state_seeds_the_monte_carlo_hosmer_lemeshow_of_tests(tmp_path, cli):
    """--tests draws labels for the Hosmer-Lemeshow p-value where a bin expects fewer than 5 events: its
    seed is --random-state (it was refused with --tests alone, and vc.audit(tests=True) ignored random_state)."""
    import json

    import veracity as vc

    f = _csv(tmp_path / "d.csv")
    got = {}
    for seed in ("1", "2"):
        r = cli(["audit", f, "--tests", "--random-state", seed, "--json", "-"])
        assert r.code == 0, r.err
        got[seed] = json.loads(r.out)["tests"]["hosmer_lemeshow"]
    d = pacsv.read_csv(f).to_pandas()
    for seed, hl in got.items():
        want = vc.hosmer_lemeshow(d["score"], d["label"], random_state=int(seed))
        assert hl["method"] == want.method == "monte-carlo"
        assert hl["p_value"] == want.p_value
    assert got["1"]["p_value"] != got["2"]["p_value"]


def test_audit_resampling_options_still_work_with_resampling(tmp_path, cli):
    f = _csv(tmp_path / "d.csv")
    r = cli(["audit", f, "--noise-floor", "--n-resamples", "30", "--random-state", "2", "--json", "-"])
    assert r.code == 0, r.err
    p, y, _ = _data()
    floor = vc.audit(p, y, noise_floor=True, n_resamples=30, random_state=2).to_dict()["noise_floor"]
    assert json.loads(r.out)["noise_floor"] == pytest.approx(floor)
    assert cli(["audit", f, "--bootstrap", "percentile", "--n-resamples", "20"]).code == 0


def test_report_n_resamples_with_no_bootstrap_is_refused(tmp_path, cli, refused):
    f = _csv(tmp_path / "d.csv")
    out = tmp_path / "r.html"
    refused(cli(["report", f, "--no-bootstrap", "--n-resamples", "50", "--out", out]),
            "--n-resamples has no effect with --no-bootstrap")
    assert not out.exists()


@pytest.mark.parametrize("command", ["audit", "report"])
def test_max_groups_speaks_cli(tmp_path, cli, refused, command):
    f = _csv(tmp_path / "d.csv")
    extra = ["--out", tmp_path / "r.html", "--no-bootstrap"] if command == "report" else []
    r = cli([command, f, "--by", "seg", "--max-groups", "0", *extra])
    refused(r, r"--max-groups must be a whole number >= 2")
    assert "None" not in r.err and "max_groups" not in r.err
    # without --by it capped nothing, silently
    refused(cli([command, f, "--max-groups", "5", *extra]), "--max-groups caps the slices of --by")
    assert cli([command, f, "--by", "seg", "--max-groups", "2", *extra]).code == 0


def test_compare_calibrator_ledger_takes_level_and_resamples(tmp_path, cli):
    f = _csv(tmp_path / "d.csv")
    cal = tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal, "--quiet"]).code == 0
    r = cli(["compare", f, "--calibrator", cal, "--level", "0.8", "--n-resamples", "0", "--json", "-"])
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    p, y, _ = _data()
    ledger = vc.compare(p, y, vc.load(cal), level=0.8, n_resamples=0).to_dict()
    fields = ("metric", "before", "after", "verdict")
    assert [[r[k] for k in fields] for r in doc["rows"]] == [[r[k] for k in fields] for r in ledger["rows"]]
    assert doc["rows"][0]["metric"] == "ECE" and doc["rows"][0]["ci_low"] is None  # 0 resamples: none
    text = cli(["compare", f, "--calibrator", cal, "--level", "0.8"]).out
    assert "80% CI" in text and "95% CI" not in text


# -- an output that is an input ----------------------------------------------------------------------

def _parts(folder: Path) -> Path:
    folder.mkdir()
    p, y, q = _data()
    table = pa.table({"score": p, "label": y})
    pq.write_table(table.slice(0, 150), folder / "a.parquet")
    pq.write_table(table.slice(150), folder / "b.parquet")
    return folder


@pytest.mark.parametrize("source, out", [
    ("{d}/*.parquet", "{d}/a.parquet"),    # one of the files the glob reads: overwritten
    ("{d}", "{d}/b.parquet"),              # one of the folder's files
    ("{d}/*.parquet", "{d}/c.parquet"),   # a new file the glob would read next time
    ("{d}", "{d}/c.parquet"),              # a new Parquet file in the folder read
])
def test_apply_out_among_the_input_files_is_refused(tmp_path, cli, refused, source, out):
    d = _parts(tmp_path / "logs")
    cal = tmp_path / "cal.json"
    assert cli(["fit", d / "a.parquet", "--method", "platt", "--out", cal, "--quiet"]).code == 0
    before = {f.name: f.read_bytes() for f in d.iterdir()}
    r = cli(["apply", cal, source.format(d=d), "--out", out.format(d=d), "--column", "cal"])
    refused(r, r"--out .* (is one of|would land among) the files of the input file")
    assert {f.name: f.read_bytes() for f in d.iterdir()} == before


def test_apply_out_beside_the_input_still_written(tmp_path, cli):
    d = _parts(tmp_path / "logs")
    cal = tmp_path / "cal.json"
    assert cli(["fit", d / "a.parquet", "--method", "platt", "--out", cal, "--quiet"]).code == 0
    out = tmp_path / "calibrated.parquet"
    assert cli(["apply", cal, d, "--out", out, "--quiet"]).code == 0
    assert pq.read_table(out).num_rows == 300
    # a CSV in the folder is not read by it (a folder is read for its Parquet files)
    assert cli(["apply", cal, d, "--out", d / "calibrated.csv", "--quiet"]).code == 0


# -- the compared ECE is the debiased one --------------------------------------------------------------

def test_compare_labels_the_debiased_ece(tmp_path, cli):
    f = _csv(tmp_path / "d.csv")
    p, y, q = _data()
    r = cli(["compare", f, "--score", "score", "--against", "p2", "--n-resamples", "0"])
    assert r.code == 0, r.err
    line = next(row for row in r.out.splitlines() if row.startswith("ece"))
    assert line.split()[0] == "ece_debiased"
    debiased = vc.ece(p, y, bins=15, estimator="debiased")
    assert float(line.split()[1]) == pytest.approx(debiased, abs=1e-4)
    assert abs(debiased - vc.ece(p, y, bins=15)) > 0.02  # not the plug-in ECE audit prints
    doc = json.loads(cli(["compare", f, "--score", "score", "--against", "p2", "--n-resamples", "0",
                          "--by", "seg", "--json", "-"]).out)
    rows = [row for row in doc["comparison"] if row["metric"] == "ece"]  # the old key's value kept
    assert len(rows) == 3 and all(row["metric_label"] == "ece_debiased" for row in rows)
    assert rows[0]["value_a"] == pytest.approx(debiased)
    assert {row["metric_label"] for row in doc["comparison"]} == {"brier", "log_loss", "ece_debiased", "auc"}


# -- messages in the command line's words ----------------------------------------------------------------

def test_flags_spell_score_and_label():
    assert cli_message(VeracityError("pass {param} naming one column", param="score")) == \
        "pass --score naming one column"
    assert cli_message(VeracityError("pass {param}", param="label")) == "pass --label"
    assert cli_message(VeracityError("{setting} is too small", param="max_groups", value=1)) == \
        "--max-groups 1 is too small"


def test_conformal_mondrian_error_says_drop_the_flag(tmp_path, cli, refused):
    f = tmp_path / "m.csv"
    f.write_text("score,label\n" + "0.9,1\n" * 38 + "0.2,0\n" * 2)
    r = cli(["conformal", f, "--mondrian"])
    refused(r, "or drop --mondrian")
    assert "False" not in r.err and "mondrian=" not in r.err


def test_missing_weights_name_their_flag(tmp_path, cli, refused):
    g = tmp_path / "w.csv"
    g.write_text("score,label,w\n0.1,0,1\n0.8,1,2\n0.7,1,\n0.3,0,1\n")
    # before: "column 'w' has 1 missing/NaN and 0 infinite values" (which flag chose 'w'?)
    refused(cli(["audit", g, "--sample-weight", "w", "--engine", "memory"]),
            r"column 'w' \(--sample-weight\) has 1 missing, NaN or infinite values of 4 rows, first at data row 3")
    refused(cli(["audit", g, "--sample-weight", "w", "--engine", "duckdb"]),
            r"column 'w' \(--sample-weight\) has 1 missing, NaN or infinite values of 4 rows")
    # missing labels: the labels' own line on every kind of label (0/1, text with --pos-label), round 27
    h = tmp_path / "t.csv"
    h.write_text("score,label\n0.1,no\n0.8,\n0.7,yes\n0.3,no\n")
    refused(cli(["audit", h, "--pos-label", "yes"]),
            r"column 'label' \(labels\) has 1 missing value \(None/NaN\) of 4 rows, first at data row 2")


# -- a score column named with a comma ------------------------------------------------------------------

@pytest.fixture
def comma(tmp_path) -> Path:
    p, y, _ = _data()
    path = tmp_path / "comma.parquet"
    pq.write_table(pa.table({"p,1": p, "label": y}), path)
    return path


@pytest.mark.parametrize("engine", ["duckdb", "dask"])
def test_audit_lazy_reads_a_column_named_with_a_comma(comma, cli, engine):
    p, y, _ = _data()
    r = cli(["audit", comma, "--score", "p,1", "--engine", engine, "--json", "-"])
    assert r.code == 0, r.err
    assert json.loads(r.out)["metrics"]["ece"] == pytest.approx(vc.ece(p, y, bins=15))


def test_fit_apply_export_read_a_column_named_with_a_comma(comma, tmp_path, cli):
    p, y, _ = _data()
    cal = tmp_path / "c.json"
    r = cli(["fit", comma, "--score", "p,1", "--method", "platt", "--engine", "duckdb", "--out", cal, "--json", "-"])
    assert r.code == 0, r.err
    ref = vc.PlattScaling().fit(p, y)
    fitted = vc.load(cal)
    assert fitted.a_ == pytest.approx(ref.a_, rel=1e-6) and fitted.b_ == pytest.approx(ref.b_, rel=1e-6)
    out = tmp_path / "out.parquet"
    r = cli(["apply", cal, comma, "--out", out])  # Parquet: streamed batch by batch
    assert r.code == 0, r.err
    assert pq.read_table(out).column("calibrated").to_numpy() == pytest.approx(ref.transform(p))
    r = cli(["export", cal, "--sql", "duckdb"])
    assert r.code == 0, r.err
    assert '"p,1"' in r.out


@pytest.mark.parametrize("command, extra", [
    ("threshold", []), ("conformal", []), ("report", ["--no-bootstrap", "--out", "{tmp}/r.html"]),
])
def test_role_flags_without_a_role_column_are_refused(tmp_path, cli, refused, command, extra):
    f = _csv(tmp_path / "d.csv")  # no 'role' column: every row was fit and measured on, whatever the flags said
    extra = [str(e).format(tmp=tmp_path) for e in extra]
    refused(cli([command, f, "--fit-role", "train", *extra]), "--fit-role picks rows by their role, and .* has no "
                                                             "'role' column; pass --role-col")
    refused(cli([command, f, "--eval-role", "holdout", *extra]), "--eval-role picks rows")
    assert cli([command, f, *extra]).code == 0
    r = cli([command, f, "--role-col", "seg", "--fit-role", "a", "--eval-role", "b", *extra])
    assert r.code == 0, r.err


def test_monitor_scan_freq_with_period_keys_is_refused(tmp_path, cli, refused):
    f = _csv(tmp_path / "d.csv")  # --freq cuts timestamps; with --period it cut nothing, silently
    refused(cli(["monitor", "scan", f, "--period", "seg", "--freq", "D"]), "--freq cuts --time COL's timestamps")
    r = cli(["monitor", "scan", f, "--period", "seg", "--json", "-"])
    assert r.code == 0, r.err


@pytest.mark.parametrize("extra, flag", [(["--method", "platt", "--bins", "20"], "--bins"),
                                         (["--method", "temperature", "--ties", "strict"], "--ties")])
def test_fit_options_of_another_method_are_refused(tmp_path, cli, refused, extra, flag):
    f = _csv(tmp_path / "d.csv")  # --bins sets histogram's bins, --ties isotonic's ties: elsewhere they did nothing
    out = tmp_path / "c.json"
    refused(cli(["fit", f, *extra, "--out", out]), f"{flag} sets the .* calibrator and has no effect on --method")
    assert not out.exists()
    assert cli(["fit", f, "--method", "histogram", "--bins", "5", "--out", out, "--quiet"]).code == 0
    assert vc.load(out).get_params()["bins"] == 5
    assert cli(["fit", f, "--method", "histogram", "--out", out, "--quiet"]).code == 0
    assert vc.load(out).get_params()["bins"] == 10  # the default when not given
    assert cli(["fit", f, "--method", "isotonic", "--ties", "strict", "--out", out, "--quiet"]).code == 0
    assert vc.load(out).get_params()["ties"] == "strict"
