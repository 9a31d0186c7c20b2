"""Session 25 bug hunt: ``veracity fit`` / ``veracity apply`` of temperature scaling on hostile logits.

Expected values come from the Python API on the same rows (the CLI is a front end to it) or from the
definition; the CSV is written with ``repr`` so the rows read back bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit

import veracity as vc


def _write(path, s, y) -> None:
    path.write_text("s,y\n" + "".join(f"{float(a)!r},{int(b)}\n" for a, b in zip(s, y)))


def _off_centre(tmp_path):
    rng = np.random.default_rng(0)
    z = rng.normal(-3.0, 1.0, 3000)
    y = (rng.uniform(size=z.size) < expit(z)).astype(int)
    path = tmp_path / "off.csv"
    _write(path, z + 6.0, y)  # ranks well, shifted by +6 (a model trained on down-sampled negatives)
    return path


def test_fit_calls_off_centre_logits_off_centre(cli, tmp_path):
    # old: "the scores are reversed (higher scores go with FEWER positives) ... pass -scores, or 1 - p"
    res = cli(["fit", _off_centre(tmp_path), "--method", "temperature", "--score", "s", "--label", "y",
               "--score-type", "logit", "--engine", "memory", "--out", tmp_path / "t.json"])
    assert res.code == 0, res.err
    assert "off-centre, not reversed" in res.err and "scores are reversed" not in res.err


def test_fit_of_off_centre_logits_on_duckdb_finishes(cli, tmp_path):
    # guard: the off-centre words read the rows' arrays; a lazy frame's objective has none (it must not crash)
    res = cli(["fit", _off_centre(tmp_path), "--method", "temperature", "--score", "s", "--label", "y",
               "--score-type", "logit", "--engine", "duckdb", "--out", tmp_path / "t.json"])
    assert res.code == 0, res.err
    assert vc.load(tmp_path / "t.json").clamped_ == "upper"


def test_fit_on_duckdb_calls_off_centre_logits_off_centre(cli, tmp_path):
    res = cli(["fit", _off_centre(tmp_path), "--method", "temperature", "--score", "s", "--label", "y",
               "--score-type", "logit", "--engine", "duckdb", "--out", tmp_path / "t.json"])
    assert "off-centre, not reversed" in res.err and "scores are reversed" not in res.err


def test_fit_and_apply_temperature_with_logits_near_max_float(cli, tmp_path):
    # two wrongly labelled logits of +-1e308: old, nll_before_ was inf and saving the artifact raised json's
    # "Out of range float values are not JSON compliant" (a traceback from veracity fit)
    rng = np.random.default_rng(2)
    x = rng.normal(0.0, 2.0, 200)
    s = np.r_[1e308, -1e308, x]
    y = np.r_[0, 1, (rng.uniform(size=200) < expit(x)).astype(int)]
    data = tmp_path / "huge.csv"
    _write(data, s, y)
    art, out = tmp_path / "t.json", tmp_path / "o.csv"
    res = cli(["fit", data, "--method", "temperature", "--score", "s", "--label", "y", "--score-type", "logit",
               "--engine", "memory", "--out", art])
    assert res.code == 0, res.err
    res = cli(["apply", art, data, "-o", out, "-q"])
    assert res.code == 0, res.err
    got = np.array([float(line.split(",")[-1]) for line in out.read_text().splitlines()[1:]])
    with pytest.warns(UserWarning, match="dominate"):
        want = vc.TemperatureScaling(score_type="logit").fit(s, y).transform(s)
    np.testing.assert_array_equal(got, want)
    assert np.isfinite(vc.load(art).nll_before_)
