"""Round 41: the slices of ``vc.compare_models(..., by=...)`` say what the same rows alone say.

* A slice whose every row weighs 0 was dropped without a word (in neither ``.groups``, ``.too_small`` nor
  the notes), where ``vc.audit`` says "left out, every row weighing 0: 1 (100 rows)".
* A slice with fewer than 10 rows of a class (the batched route, ``._slices.LightSlices``) lost its Kish
  effective size: its header read "20 rows" where the same rows compared alone read "20 rows, weighted
  (Kish effective size 12.8)".
* Two models scoring a slice's rows alike (though not every row) read "no clear difference between a and b:
  Brier +0.0000 [+0.0000, +0.0000], q = 1.0000 ..." with, on a few rows, a note of how the t intervals "run
  short where two models differed"; the same rows alone read "a and b have identical scores: no difference".
"""

import json

import numpy as np
import pandas as pd
import polars as pl
import pytest

import veracity as vc


def _data(n=300, seed=10):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.clip(rng.beta(2, 2, n) * 0.5 + 0.3 * y, 0.01, 0.99)
    b = np.clip(a + rng.normal(0, 0.1, n), 0.001, 0.999)
    return y, a, b, rng.exponential(1, n)


@pytest.mark.parametrize("route", ["arrays", "pandas", "polars_lazy"])
def test_a_slice_of_weightless_rows_is_named_as_left_out(route):
    y, a, b, w = _data()
    g = np.arange(y.size) % 3
    w[g == 1] = 0.0
    if route == "arrays":
        r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, by=g, random_state=0)
    else:
        frame = pd.DataFrame({"a": a, "b": b, "y": y, "w": w, "g": g})
        src = frame if route == "pandas" else pl.from_pandas(frame).lazy()
        r = vc.compare_models(src, scores=["a", "b"], label="y", sample_weight="w", by="g", random_state=0)
    assert list(r.groups) == ["0", "2"] and not r.too_small
    note = "slice left out, every row weighing 0: 1 (100 rows)"
    assert note in r.notes and f"note: {note}" in str(r)
    assert note in json.loads(json.dumps(r.to_dict()))["notes"]
    # a slice some of whose rows weigh 0 is compared on the others, and no note is added
    w2 = w.copy()
    w2[g == 1] = 1.0
    w2[(g == 2) & (np.arange(y.size) < 150)] = 0.0
    r2 = vc.compare_models({"a": a, "b": b}, y, sample_weight=w2, by=g, random_state=0)
    assert list(r2.groups) == ["0", "1", "2"] and not any("left out" in t for t in r2.notes)


def test_the_command_line_names_the_weightless_slice(cli, tmp_path):
    y, a, b, w = _data()
    g = np.where(np.arange(y.size) % 3 == 1, "gone", "kept")
    w[g == "gone"] = 0.0
    path = tmp_path / "w.csv"
    pd.DataFrame({"a": a, "b": b, "y": y, "w": w, "g": g}).to_csv(path, index=False)
    r = cli(["compare", path, "--score", "a", "--against", "b", "--label", "y", "--sample-weight", "w",
             "--by", "g", "--json"])
    assert r.code == 0, r.err
    assert "slice left out, every row weighing 0: gone (100 rows)" in json.loads(r.out)["notes"]


def test_a_light_weighted_slice_keeps_its_effective_size():
    y, a, b, w = _data()
    g = np.where(np.arange(y.size) < 20, "small", "big")
    r = vc.compare_models({"a": a, "b": b}, y, sample_weight=w, by=g, random_state=0)
    alone = vc.compare_models({"a": a[:20], "b": b[:20]}, y[:20], sample_weight=w[:20], random_state=0)
    small = r.groups["small"]
    assert small.n_effective == alone.n_effective == pytest.approx(w[:20].sum() ** 2 / (w[:20] ** 2).sum())
    assert str(small).splitlines()[0] == str(alone).splitlines()[0]
    assert "weighted (Kish effective size 12.8)" in str(small).splitlines()[0]
    assert r.groups["big"].n_effective == pytest.approx(w[20:].sum() ** 2 / (w[20:] ** 2).sum())
    # unweighted: no effective size, on either route
    u = vc.compare_models({"a": a, "b": b}, y, by=g, random_state=0)
    assert u.groups["small"].n_effective is None and "weighted" not in str(u.groups["small"])


def test_a_slice_where_two_models_agree_reads_as_those_rows_alone():
    rng = np.random.default_rng(3)
    n = 400
    y = rng.integers(0, 2, n)
    y[:5] = [0, 1, 0, 1, 1]
    a = np.clip(rng.uniform(size=n) * 0.6 + 0.3 * y, 0, 1)
    b = a.copy()
    b[200:] = np.clip(b[200:] + rng.normal(0, 0.1, 200), 0, 1)  # b differs from a on the "diff" rows only
    g = np.where(np.arange(n) < 200, "same", "diff")
    g[:5] = "tiny"  # too few of a class: the batched route (._slices.LightSlices); "same": compare_of's
    r = vc.compare_models({"a": a, "b": b}, y, by=g, random_state=0)
    for key, rows in (("same", slice(5, 200)), ("tiny", slice(0, 5))):
        alone = vc.compare_models({"a": a[rows], "b": b[rows]}, y[rows], random_state=0)
        got = r.groups[key]
        assert got.verdict == alone.verdict == "a and b have identical scores: no difference"
        assert got.notes == alone.notes == (
            "models 'a' and 'b' have identical scores: every difference between them is exactly 0",)
        said = f"  {key} ({rows.stop - rows.start} rows): a and b have identical scores: no difference"
        assert said in str(r)
    assert "identical" not in r.groups["diff"].verdict and not r.groups["diff"].notes
    assert not r.notes  # all the rows: not identical
