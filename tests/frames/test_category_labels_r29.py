"""Category and dictionary columns of a pandas frame read as the array form reads them (round 29).

* an ordered pandas category of numbers (narwhals' ``Enum``: ``categories=[1, 0], ordered=True``) was
  refused as a label column ("must hold 0/1 numbers or booleans, got Enum(categories=[1, 0])"), and as a
  score or weight column, where the same Series in the array form, the same frame as a pyarrow table,
  polars or DuckDB read its values;
* a pandas ``ArrowDtype`` dictionary of numbers (``pd.ArrowDtype(pa.dictionary(pa.int32(), pa.int64()))``)
  was refused likewise ("got Categorical"): its dtype has no ``.categories``;
* a pandas ``ArrowDtype`` dictionary of text labels with ``pos_label=`` raised pyarrow's raw
  ``ArrowNotImplementedError`` (pyarrow cannot sort a dictionary column);
* an ordered text category listed its values in the categories' order, so the refusal without
  ``pos_label=`` suggested ``pos_label='no'`` for ``categories=['yes', 'no']`` where every other route
  (and the unordered category) lists ``'no', 'yes'`` and suggests ``'yes'``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

pa = pytest.importorskip("pyarrow")

N = 300


@pytest.fixture(scope="module")
def rows():
    rng = np.random.default_rng(29)
    p = np.round(rng.uniform(0.02, 0.98, N), 3)
    y = (rng.uniform(size=N) < p).astype(np.int64)
    w = rng.integers(1, 5, N).astype(np.float64)
    g = rng.choice(["a", "b"], N)
    return p, y, w, g


def _arrow_dict(values, value_type):
    array = pa.array(values, value_type).dictionary_encode()
    return pd.Series(array, dtype=pd.ArrowDtype(array.type))


def _ordered(values, categories):
    return pd.Series(pd.Categorical(values, categories=categories, ordered=True))


LABEL_COLUMNS = {
    "ordered-category-1-first": lambda y: _ordered(y, [1, 0]),
    "ordered-category-0-first": lambda y: _ordered(y, [0, 1]),
    "ordered-category-floats": lambda y: _ordered(y.astype(float), [1.0, 0.0]),
    "arrow-dictionary-int": lambda y: _arrow_dict(y, pa.int64()),
}


@pytest.mark.parametrize("kind", sorted(LABEL_COLUMNS))
def test_numeric_category_labels_read_as_their_values(rows, kind):
    p, y, w, g = rows
    frame = pd.DataFrame({"p": p, "y": LABEL_COLUMNS[kind](y), "w": w, "g": g})
    want = vc.audit(p, y, sample_weight=w, by=g)
    got = vc.audit(frame, score="p", label="y", sample_weight="w", by="g")
    for key in ("ece", "brier", "nll", "auc", "accuracy"):
        assert got.metrics[key] == pytest.approx(want.metrics[key], rel=1e-12), key
    assert list(got.groups) == list(want.groups)
    for name, group in want.groups.items():
        assert got.groups[name].ece == pytest.approx(group.ece, rel=1e-12)
    assert vc.auc(frame, score="p", label="y") == pytest.approx(vc.auc(p, y), rel=1e-12)
    fitted = vc.PlattScaling().fit(frame, score="p", label="y").transform(p)
    np.testing.assert_allclose(fitted, vc.PlattScaling().fit(p, y).transform(p), rtol=1e-9)


def test_ordered_category_pos_label_names_a_value_not_a_position(rows):
    """pos_label=0 on categories [1, 0]: the rows whose label is 0, never the second category."""
    p, y, _, _ = rows
    frame = pd.DataFrame({"p": p, "y": _ordered(y, [1, 0])})
    assert vc.ece(frame, score="p", label="y", pos_label=0) == pytest.approx(vc.ece(p, 1 - y), rel=1e-12)
    assert vc.ece(frame, score="p", label="y", pos_label=1) == pytest.approx(vc.ece(p, y), rel=1e-12)


@pytest.mark.parametrize("column", ["score", "weight"])
def test_numeric_category_scores_and_weights(rows, column):
    p, y, w, _ = rows
    frame = pd.DataFrame({"p": p, "y": y, "w": w})
    if column == "score":
        frame["p"] = _ordered(p, sorted(set(p.tolist()), reverse=True))
        want = vc.ece(p, y)
        assert vc.ece(frame, score="p", label="y") == pytest.approx(want, rel=1e-12)
        frame["p"] = _arrow_dict(p, pa.float64())
        assert vc.ece(frame, score="p", label="y") == pytest.approx(want, rel=1e-12)
    else:
        frame["w"] = _ordered(w, [4.0, 3.0, 2.0, 1.0])
        want = vc.ece(p, y, sample_weight=w)
        assert vc.ece(frame, score="p", label="y", sample_weight="w") == pytest.approx(want, rel=1e-12)
        frame["w"] = _arrow_dict(w, pa.float64())
        assert vc.ece(frame, score="p", label="y", sample_weight="w") == pytest.approx(want, rel=1e-12)


def test_arrow_dictionary_text_labels_with_pos_label(rows):
    p, y, _, g = rows
    frame = pd.DataFrame({"p": p, "y": _arrow_dict(np.where(y == 1, "yes", "no"), pa.string()), "g": g})
    want = vc.audit(p, y, by=g)
    got = vc.audit(frame, score="p", label="y", pos_label="yes", by="g")
    assert got.ece == pytest.approx(want.ece, rel=1e-12)
    assert got.auc == pytest.approx(want.auc, rel=1e-12)
    negatives = vc.brier(frame, score="p", label="y", pos_label="no")
    assert negatives == pytest.approx(vc.brier(p, 1 - y), rel=1e-12)


def test_arrow_dictionary_text_labels_without_pos_label_name_the_values(rows):
    p, y, _, _ = rows
    frame = pd.DataFrame({"p": p, "y": _arrow_dict(np.where(y == 1, "yes", "no"), pa.string())})
    with pytest.raises(vc.VeracityError, match=r"got text \(values 'no', 'yes'\).*pos_label='yes'"):
        vc.ece(frame, score="p", label="y")


@pytest.mark.parametrize("categories", [["yes", "no"], ["no", "yes"]])
def test_ordered_text_category_listed_by_value(rows, categories):
    """Whatever the categories' order, the refusal lists the values sorted and suggests the last, as the
    array form, pyarrow, polars and DuckDB do."""
    p, y, _, _ = rows
    labels = np.where(y == 1, "yes", "no")
    frame = pd.DataFrame({"p": p, "y": _ordered(labels, categories)})
    with pytest.raises(vc.VeracityError) as frame_error:
        vc.ece(frame, score="p", label="y")
    with pytest.raises(vc.VeracityError) as array_error:
        vc.ece(p, labels)
    assert "(values 'no', 'yes'); pass pos_label= naming the positive class, e.g. pos_label='yes'" in str(
        frame_error.value)
    assert "(values 'no', 'yes')" in str(array_error.value)


def test_ordered_polars_enum_listed_by_value(rows):
    pl = pytest.importorskip("polars")
    p, y, _, _ = rows
    frame = pl.DataFrame({"p": p, "y": pl.Series(np.where(y == 1, "yes", "no")).cast(pl.Enum(["yes", "no"]))})
    for data in (frame, frame.lazy()):
        with pytest.raises(vc.VeracityError, match=r"\(values 'no', 'yes'\); .* e\.g\. pos_label='yes'"):
            vc.ece(data, score="p", label="y")
