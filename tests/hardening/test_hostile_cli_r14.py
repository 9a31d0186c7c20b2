"""A hostile user of the command line, round 14: silent wrong answers, overwritten data and flags
that did nothing.

Before: ``veracity conformal --score-type logit`` on a column of probabilities read them through
the sigmoid (every p in [0.5, 0.73]) and printed a q̂, where fit, audit and threshold refuse it;
``veracity fit --method platt --out scores.csv`` (the file forgotten before the flag: the demo data
was read) wrote the calibrator JSON over scores.csv, as ``report --out`` wrote HTML and ``export
--onnx`` a model; ``--by label`` / ``--features label`` sliced the rows by their answers and
``segments`` flagged every slice (p < 1e-300); ``apply -o out.csv.gz`` / ``out.tsv`` wrote plain
comma-separated CSV that read back as an error or a single column; ``threshold --also ,,`` added
nothing, silently, ``--also nan`` named the library's ``thresholds``, ``--cost-fp -0`` printed
"threshold -0"; ``--memory-limit`` with ``--engine memory`` and ``--spark-master`` without ``--engine
spark`` changed nothing, and ``--memory-limit lots`` blamed the data file ("could not read ... as CSV");
``demo --json PATH`` sent the narrative to stderr, ``demo --plots ""`` wrote into the current folder;
``compare --calibrator`` on the very rows the calibrator was fit on printed its ledger without a word.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest


def _scores(path: Path, n: int = 400) -> Path:
    rng = np.random.default_rng(14)
    p = np.round(rng.uniform(0.02, 0.98, n), 4)
    y = (rng.uniform(size=n) < p).astype(np.int64)
    table = pa.table({"score": p, "label": y, "logit": np.round(np.log(p / (1 - p)) * 1.7, 4),
                      "segment": np.where(np.arange(n) % 3 == 0, "web", "app"),
                      "role": np.where(np.arange(n) % 2 == 0, "calib", "test")})
    if path.suffix == ".parquet":
        pq.write_table(table, path)
    else:
        pacsv.write_csv(table, path)
    return path


# -- silent wrong answers ------------------------------------------------------------------------

def test_conformal_probabilities_declared_logits_are_refused(tmp_path, cli, refused):
    f = _scores(tmp_path / "s.csv")
    refused(cli(["conformal", f, "--score-type", "logit"]),
            r"^veracity conformal: input error: scores were declared --score-type logit but all 200 lie in "
            r"\[0, 1\].*look like probabilities")
    # real logits declared as such still give the sets of sigmoid(logit), as probabilities do
    as_logits = json.loads(cli(["conformal", f, "--score", "logit", "--score-type", "logit", "--json", "-"]).out)
    s = np.asarray(pacsv.read_csv(f).column("logit").to_numpy(), dtype=float)
    probs = tmp_path / "p.csv"
    table = pacsv.read_csv(f).append_column("p", pa.array(1.0 / (1.0 + np.exp(-s))))
    pacsv.write_csv(table, probs)
    as_probs = json.loads(cli(["conformal", probs, "--score", "p", "--json", "-"]).out)
    assert as_logits["conformal"]["qhat"] == pytest.approx(as_probs["conformal"]["qhat"], abs=1e-6)


@pytest.mark.parametrize("argv", [
    ["audit", "{f}", "--by", "label"],
    ["report", "{f}", "--by", "label", "--out", "{d}/r.html"],
    ["report", "{f}", "--features", "segment,label", "--out", "{d}/r.html"],
    ["segments", "{f}", "--features", "label"],
    ["segments", "{f}", "--feature", "segment", "--feature", "label"],
    ["compare", "{f}", "--score", "score", "--against", "logit", "--by", "label"],
], ids=["audit-by", "report-by", "report-features", "segments-features", "segments-feature", "compare-by"])
def test_slicing_by_the_label_is_refused(tmp_path, cli, refused, argv):
    f = _scores(tmp_path / "s.csv")
    argv = [a.format(f=f, d=tmp_path) for a in argv]
    refused(cli(argv), r"^veracity \w+: input error: --(?:by|features?) names the --label column 'label': each "
                       r"slice of it holds one label value")
    assert not (tmp_path / "r.html").exists()


def test_slicing_by_another_column_still_works(tmp_path, cli):
    f = _scores(tmp_path / "s.csv")
    got = cli(["segments", f, "--features", "segment", "--json", "-"])
    assert got.code == 0, got.err
    assert {s["n"] for s in json.loads(got.out)["segments"]} == {134, 266}


# -- outputs that overwrote the data -------------------------------------------------------------

@pytest.mark.parametrize("argv, flag", [
    (["fit", "--method", "platt", "--out", "{f}"], "--out"),
    (["report", "--out", "{f}"], "--out"),
    (["export", "{cal}", "--onnx", "{f}"], "--onnx"),
    (["monitor", "recalibrate", "{d}/m.duckdb", "--method", "platt", "--out", "{f}"], "--out"),
], ids=["fit", "report", "export", "monitor"])
def test_an_output_over_a_data_file_is_refused(tmp_path, cli, refused, argv, flag):
    f = _scores(tmp_path / "scores.csv")
    cal = tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal]).code == 0
    before = f.read_bytes()
    got = cli([a.format(f=f, cal=cal, d=tmp_path) for a in argv])
    refused(got, rf"input error: {flag} \S*scores.csv is a data file, and {flag} PATH writes ")
    assert f.read_bytes() == before


def test_apply_still_overwrites_its_own_output(tmp_path, cli):
    f = _scores(tmp_path / "scores.csv")
    cal, out = tmp_path / "cal.json", tmp_path / "out.csv"
    assert cli(["fit", f, "--method", "platt", "--out", cal]).code == 0
    out.write_text("old\n")
    assert cli(["apply", cal, f, "-o", out]).code == 0
    assert "calibrated" in pacsv.read_csv(out).column_names


# -- apply: the file written is the file its name says -------------------------------------------

def _calibrated(cli, f: Path, cal: Path, out: Path) -> np.ndarray:
    got = cli(["apply", cal, f, "-o", out])
    assert got.code == 0, got.err
    return np.asarray(pacsv.read_csv(out).column("calibrated"))


@pytest.mark.parametrize("name, delimiter", [("out.csv.gz", ","), ("out.tsv", "\t"), ("out.tsv.gz", "\t")])
def test_apply_writes_compressed_and_tab_separated_files(tmp_path, cli, name, delimiter):
    f = _scores(tmp_path / "scores.csv")
    cal = tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal]).code == 0
    plain = _calibrated(cli, f, cal, tmp_path / "plain.csv")
    out = tmp_path / name
    assert cli(["apply", cal, f, "-o", out]).code == 0
    raw = out.read_bytes()
    assert (raw[:2] == b"\x1f\x8b") == name.endswith(".gz")
    text = (gzip.decompress(raw) if name.endswith(".gz") else raw).decode()
    assert text.splitlines()[0].count(delimiter) == 5  # six columns
    back = pacsv.read_csv(pa.py_buffer(text.encode()), parse_options=pacsv.ParseOptions(delimiter=delimiter))
    np.testing.assert_array_equal(np.asarray(back.column("calibrated")), plain)
    # and the command line reads it back
    got = cli(["audit", out, "--score", "calibrated", "--json", "-"])
    assert got.code == 0, got.err
    assert json.loads(got.out)["n"] == 400


@pytest.mark.parametrize("source, name", [("scores.csv", "out.parq"), ("scores.parquet", "out.parq"),
                                          ("scores.parquet", "out.csv.gz"), ("scores.parquet", "out.tsv")])
def test_apply_output_is_read_back_as_named(tmp_path, cli, source, name):
    """Before: a .parq output was read back as CSV in memory (Parquet by DuckDB), and streamed Parquet input
    wrote .csv.gz and .tsv outputs as plain comma-separated CSV; now each is written and read as named."""
    import veracity as vc
    from veracity.calibrators import load as load_calibrator

    f = _scores(tmp_path / source)
    cal = tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal]).code == 0
    assert cli(["apply", cal, f, "-o", tmp_path / name]).code == 0
    back = vc.audit(str(tmp_path / name), score="calibrated", label="label")
    want = load_calibrator(cal).transform(pacsv.read_csv(f).column("score").to_numpy() if source.endswith(".csv")
                                  else pq.read_table(f).column("score").to_numpy())
    label = (pacsv.read_csv(f) if source.endswith(".csv") else pq.read_table(f)).column("label").to_numpy()
    assert back.n == 400 and back.brier == pytest.approx(float(np.mean((want - label) ** 2)), abs=1e-12)


# -- threshold --also and -0 costs ----------------------------------------------------------------

@pytest.mark.parametrize("value, match", [("nan", r"--also must be comma-separated numbers.*not NaN"),
                                          (",,", r"--also needs comma-separated numbers"),
                                          ("", r"--also needs comma-separated numbers")])
def test_threshold_also_in_the_flag_s_words(tmp_path, cli, refused, value, match):
    f = _scores(tmp_path / "s.csv")
    refused(cli(["threshold", f, f"--also={value}"]), rf"^veracity threshold: input error: {match}")


def test_threshold_also_shows_each_threshold_once(tmp_path, cli):
    f = _scores(tmp_path / "s.csv")
    got = json.loads(cli(["threshold", f, "--also", "0.3,0.3,-0,0.5", "--json", "-"]).out)
    shown = [row["threshold"] for row in got["roles"]["test"]["table"]]
    assert shown == [0.5, 0.3, 0.0]
    assert all(not str(t).startswith("-") for t in shown)


def test_threshold_negative_zero_cost_reads_zero(tmp_path, cli):
    f = _scores(tmp_path / "s.csv")
    got = cli(["threshold", f, "--cost-fp", "-0"])
    assert got.code == 0, got.err
    first, *_, last = got.out.splitlines()
    assert first.startswith("threshold 0 (flag score >= threshold)") and "= 0 (" in first, first
    assert last == "(cost = 0·FP + 1·FN)"


# -- engine options that change nothing ------------------------------------------------------------

@pytest.mark.parametrize("argv, match", [
    (["--engine", "memory", "--memory-limit", "2GB"], r"--memory-limit caps DuckDB's memory, and --engine memory"),
    (["--spark-master", "local[2]"], r"--spark-master sets the Spark session of --engine spark, and --engine is auto"),
    (["--engine", "duckdb", "--spark-master", "local[2]"], r"--spark-master .* --engine is duckdb"),
    (["--engine", "duckdb", "--memory-limit", "lots"], r"--memory-limit must be a positive amount of memory .*'lots'"),
    (["--engine", "duckdb", "--memory-limit", "100"], r"--memory-limit must be .*'100'"),
    (["--engine", "duckdb", "--memory-limit", "0GB"], r"--memory-limit must be .*'0GB'"),
], ids=["memory-limit-memory", "spark-master-auto", "spark-master-duckdb", "lots", "no-unit", "zero"])
@pytest.mark.parametrize("command", ["audit", "fit"])
def test_engine_options_that_change_nothing_are_refused(tmp_path, cli, refused, argv, match, command):
    f = _scores(tmp_path / "s.csv")
    extra = ["--method", "platt", "--out", tmp_path / "c.json"] if command == "fit" else []
    refused(cli([command, f, *extra, *argv]), rf"^veracity {command}: input error: {match}")


def test_memory_limit_with_its_unit_still_runs_and_its_remedy_is_a_flag(tmp_path, cli, refused, monkeypatch):
    from veracity.sources import _duckdb

    for key, value in _duckdb.DEFAULTS.items():  # --memory-limit sets the process's DuckDB default: restored after
        monkeypatch.setitem(_duckdb.DEFAULTS, key, value)
    f = _scores(tmp_path / "s.csv")
    plain = json.loads(cli(["audit", f, "--json", "-"]).out)
    got = cli(["audit", f, "--engine", "duckdb", "--memory-limit", "1.5GiB", "--json", "-"])
    assert got.code == 0, got.err
    assert json.loads(got.out)["metrics"]["ece"] == pytest.approx(plain["metrics"]["ece"])
    small = cli(["audit", f, "--engine", "duckdb", "--memory-limit", "1KB"])
    refused(small, r"DuckDB ran out of its memory limit \(1KB\).*raise it with --memory-limit 4GB ")
    assert "configure_duckdb" not in small.err


def test_an_empty_output_path_says_so(tmp_path, cli, refused):
    f = _scores(tmp_path / "s.csv")
    refused(cli(["audit", f, "--json="]), r"--json needs a file path, got an empty one$")


# -- demo ------------------------------------------------------------------------------------------

def test_demo_json_path_keeps_the_narrative_on_stdout(tmp_path, cli):
    out = tmp_path / "d.json"
    got = cli(["demo", "audit", "--json", out])
    assert got.code == 0, got.err
    assert got.out.startswith("veracity demo audit — the bundled data")  # it went to stderr
    assert json.loads(out.read_text())["demos"] == ["audit"]
    to_stdout = cli(["demo", "audit", "--json", "-"])
    assert json.loads(to_stdout.out)["demos"] == ["audit"]  # --json -: stdout is only the JSON
    assert "veracity demo audit" in to_stdout.err


def test_demo_empty_plots_folder_is_refused(tmp_path, cli, refused, monkeypatch):
    monkeypatch.chdir(tmp_path)
    refused(cli(["demo", "audit", "--plots", ""]), r"^veracity demo: input error: --plots needs a folder path")
    assert list(tmp_path.iterdir()) == []  # the figures landed in the current folder


# -- compare: a calibrator measured on the rows it was fit on ------------------------------------------

def test_compare_calibrator_on_its_own_fit_rows_warns(tmp_path, cli):
    f = _scores(tmp_path / "s.csv")
    cal, held = tmp_path / "cal.json", tmp_path / "calib.json"
    # a file without a role column (fit takes a column named "role" as its --role-col): every row is fit on
    norole = tmp_path / "norole.csv"
    pacsv.write_csv(pacsv.read_csv(f).drop_columns(["role"]), norole)
    assert cli(["fit", norole, "--method", "platt", "--out", cal, "-q"]).code == 0
    same = cli(["compare", norole, "--calibrator", cal, "-q"])
    assert same.code == 0, same.err
    assert same.err.startswith("veracity compare: warning: the calibrator was fit on these very rows (400 rows")
    assert "optimistic" in same.err and len(same.err.splitlines()) == 1
    # fit on the calib rows, measured on the test rows: no warning
    assert cli(["fit", f, "--method", "platt", "--role-col", "role", "--out", held, "-q"]).code == 0
    other = cli(["compare", f, "--calibrator", held, "--role-col", "role", "--eval-role", "test", "-q"])
    assert other.code == 0 and other.err == "", other.err


# -- stdout carries one thing ------------------------------------------------------------------------

@pytest.mark.parametrize("argv, match", [
    (["fit", "{f}", "--method", "platt", "--out", "/dev/stdout"], r"--out /dev/stdout would mix the output with "
                                                                  r"the summary veracity fit prints"),
    (["report", "{f}", "--no-bootstrap", "--out", "/dev/stdout"], r"--out /dev/stdout would mix"),
    (["audit", "{f}", "--json", "/dev/stdout"], r"--json /dev/stdout prints the JSON after the table; pass --json -"),
    (["apply", "{cal}", "{f}", "-o", "/dev/stdout", "--json", "-"], r"--out /dev/stdout and --json - both write "
                                                                    r"to stdout"),
    (["export", "{cal}", "--onnx", "/dev/fd/1", "--json", "-"], r"--onnx /dev/fd/1 and --json - both write"),
    (["fit", "{f}", "--method", "platt", "--out", "-"], r"--out - would write a file named '-'; pass a file path$"),
], ids=["fit-out", "report-out", "audit-json", "apply-json", "export-json", "fit-dash"])
def test_two_outputs_on_stdout_are_refused(tmp_path, cli, refused, argv, match):
    f = _scores(tmp_path / "s.csv")
    cal = tmp_path / "cal.json"
    assert cli(["fit", f, "--method", "platt", "--out", cal, "-q"]).code == 0
    got = cli([a.format(f=f, cal=cal) for a in argv])
    refused(got, rf"^veracity \w+: input error: {match}")
    assert got.out == ""
