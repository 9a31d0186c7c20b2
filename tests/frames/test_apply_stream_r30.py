"""``veracity apply`` on Parquet (streamed batch by batch) words a calibrator's refusal as the in-memory apply
does (round 30).

The streamed route rebuilt the calibrator's error from ``str(exc)``: its ``param``/``hint``/``value`` were
lost, so the command line printed the Python advice "IsotonicCalibration(score_type='logit')" where the
in-memory route says "--score-type logit"; the score column and the first offending row were not named; a
multiclass row was named by its position in the batch ("row 24 sums to 1.1"); and in a glob the rows of the
second file were counted from the first file's ("part-1.parquet, rows 101..160" for its rows 1..60). The
oracle is the in-memory apply of the same rows (a CSV file) and the rows written into the files.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.frames._apply import apply_stream

N = 300
BAD = 137  # the first data row (from 1) holding a logit where the calibrator reads probabilities


@pytest.fixture
def isotonic(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 1, 400)
    y = (rng.uniform(size=p.size) < p).astype(int)
    path = tmp_path / "cal.json"
    vc.IsotonicCalibration().fit(p, y, metadata={"score_column": "p"}).save(path)
    return path


def _scores(n: int = N, bad: int | None = BAD) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, n)
    if bad is not None:
        p[bad - 1:] = rng.uniform(1.5, 3.0, n - bad + 1)  # logits, none in [0, 1], from data row `bad` on
        p[bad - 1] = 3.5
    return pd.DataFrame({"p": p, "y": np.arange(n) % 2})


def _advice(line: str) -> str:
    return line[line.index("; this IsotonicCalibration"):]


def test_streamed_apply_names_the_column_first_row_and_flag(tmp_path, isotonic, cli, refused):
    df = _scores()
    df.to_parquet(tmp_path / "s.parquet", index=False)
    df.to_csv(tmp_path / "s.csv", index=False)
    memory = cli(["apply", isotonic, tmp_path / "s.csv", "-o", tmp_path / "m.csv"])
    refused(memory, r"first at data row 137;.*--score-type logit\)$")
    streamed = cli(["apply", isotonic, tmp_path / "s.parquet", "-o", tmp_path / "o.parquet",
                    "--batch-rows", "100"])
    refused(streamed, r"s\.parquet, rows 101\.\.200: column 'p' \(scores\) must be probabilities in "
                      r"\[0, 1\]; 64 of 100 are not \(min=.*, max=3\.5\), first at data row 137; ")
    assert "IsotonicCalibration(" not in streamed.err and "score_type=" not in streamed.err  # old: both
    assert _advice(streamed.err) == _advice(memory.err)  # "... fit a calibrator with --score-type logit)"
    assert not (tmp_path / "o.parquet").exists()


def test_streamed_apply_in_python_keeps_the_param_and_its_spelling(tmp_path, isotonic):
    _scores().to_parquet(tmp_path / "s.parquet", index=False)
    with pytest.raises(vc.VeracityError) as info:
        apply_stream(vc.load(isotonic), tmp_path / "s.parquet", tmp_path / "o.parquet", score="p",
                     batch_rows=100)
    exc = info.value
    assert (exc.param, exc.value) == ("score_type", "logit")  # old: None and no value: nothing to spell
    assert "first at data row 137" in str(exc) and "\n" not in str(exc)
    assert "fit a calibrator with IsotonicCalibration(score_type='logit'))" in str(exc)  # Python's own words
    flags = exc.render(lambda param, *value: "--" + param.replace("_", "-") + "".join(f" {v}" for v in value))
    assert flags.endswith("fit a calibrator with --score-type logit)")


def test_a_globs_rows_are_counted_in_the_file_that_holds_them(tmp_path, isotonic, cli, refused):
    _scores(100, bad=None).to_parquet(tmp_path / "part-0.parquet", index=False)
    _scores(100, bad=7).to_parquet(tmp_path / "part-1.parquet", index=False)
    r = cli(["apply", isotonic, tmp_path / "part-*.parquet", "-o", tmp_path / "o.parquet",
             "--batch-rows", "60"])
    # old: "part-1.parquet, rows 101..160" (rows of the first file counted on) and no data row
    refused(r, r"part-1\.parquet, rows 1\.\.60: column 'p' \(scores\) must be probabilities in \[0, 1\]; "
               r"54 of 60 are not \(.*\), first at data row 7; ")


def test_a_multiclass_row_is_named_by_its_data_row(tmp_path, cli, refused):
    rng = np.random.default_rng(2)
    fit_p, fit_y = rng.dirichlet([1, 1, 1], 200), rng.integers(0, 3, 200)
    vc.TemperatureScaling().fit(fit_p, fit_y, metadata={"score_column": "p0,p1,p2"}).save(tmp_path / "t.json")
    P = rng.dirichlet([1, 1, 1], N)
    P[74] = [0.5, 0.3, 0.3]  # data row 75 sums to 1.1
    df = pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": rng.integers(0, 3, N)})
    df.to_parquet(tmp_path / "mc.parquet", index=False)
    df.to_csv(tmp_path / "mc.csv", index=False)
    memory = cli(["apply", tmp_path / "t.json", tmp_path / "mc.csv", "-o", tmp_path / "m.csv"])
    refused(memory, r"\(data row 75 sums to 1\.1\)")
    r = cli(["apply", tmp_path / "t.json", tmp_path / "mc.parquet", "-o", tmp_path / "o.parquet",
             "--batch-rows", "50"])
    refused(r, r"mc\.parquet, rows 51\.\.100: multiclass probability rows must sum to 1; 1 of 50 do not "
               r"\(data row 75 sums to 1\.1\)")  # old: "(row 24 sums to 1.1)", the batch's position
    assert re.sub(r"^.*?: (?=multiclass)", "", r.err.split("input error: ", 1)[1]).split("; this")[1] == \
        memory.err.split("; this")[1]
