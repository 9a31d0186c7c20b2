"""vc.label_plan(..., by=...) names its groups as vc.audit names its slices (round 29): a nullable integer
column's keys are 0, 1 (not 0.0, 1.0) and missing keys (None, NaN, NaT, Arrow and polars nulls) are the group
``(missing)``; they were refused ("by has N missing group keys")."""
import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest

import veracity as vc

polars = pytest.importorskip("polars")


def _keys():
    return [("pandas Int64", pd.Series([0, 1, None] * 100, dtype="Int64")),
            ("pyarrow ints", pa.array([0, 1, None] * 100)),
            ("polars ints", polars.Series([0, 1, None] * 100)),
            ("numpy floats", np.array([0.0, 1.0, np.nan] * 100)),
            ("objects", np.array(["a", "b", None] * 100, dtype=object)),
            ("zoned times",
             pa.array(pd.to_datetime(["2024-01-01", "2024-01-02", None] * 100).tz_localize("UTC")))]


@pytest.mark.parametrize("name, by", _keys(), ids=[n for n, _ in _keys()])
def test_label_plan_names_groups_as_audit_names_slices(name, by):
    rng = np.random.default_rng(0)
    p = rng.uniform(0.1, 0.9, 300)
    y = (rng.uniform(size=300) < p).astype(int)
    audit_names = list(vc.audit(p, y, by=by).to_dict()["groups"])
    plan = vc.label_plan(p, width=0.3, by=by)
    assert [str(r["group"]) for r in plan.rows] == audit_names
    assert audit_names[-1] == "(missing)" and [r["rows"] for r in plan.rows] == [100, 100, 100]
    lines = str(plan).splitlines()[2:5]
    assert [line.split("  ")[0].strip() for line in lines] == audit_names
    json.dumps(plan.to_dict())


def test_missing_group_counts_its_own_rows():
    p = np.r_[np.full(200, 0.1), np.full(100, 0.5)]
    plan = vc.label_plan(p, width=0.2, by=pd.Series([3] * 200 + [None] * 100, dtype="Int64"))
    assert [(r["group"], r["rows"], r["mean_score"]) for r in plan.rows] == \
        [(3, 200, pytest.approx(0.1)), ("(missing)", 100, pytest.approx(0.5))]
    assert plan.rows[1]["labels_ppi"] == vc.labels_needed(np.full(100, 0.5), width=0.2)


def test_a_missing_key_beside_the_text_missing_is_refused():
    with pytest.raises(vc.VeracityError, match="both named '\\(missing\\)'") as info:
        vc.label_plan(np.full(3, 0.2), width=0.5, by=np.array(["(missing)", None, "a"], dtype=object))
    assert info.value.param == "by"
