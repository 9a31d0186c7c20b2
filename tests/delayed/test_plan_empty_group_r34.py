"""Session 34: a group without rows in vc.plan_from_group_sums (a window with no scores) printed its plan with
numpy's "invalid value encountered in scalar divide" warnings (an error under warnings-as-errors): now n/a."""

from __future__ import annotations

import math
import warnings

from veracity.delayed import plan_from_group_sums


def test_a_group_without_rows_is_n_a_without_warnings() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        plan = plan_from_group_sums(["empty", "w2"], rows=[0, 5000], sum_f=[0.0, 500.0], sum_ff=[0.0, 100.0],
                                    width=0.05)
    empty, full = plan.rows
    assert empty["rows"] == 0 and empty["labels_ppi"] is None and empty["labels_classical"] is None
    assert math.isnan(empty["mean_score"]) and math.isnan(empty["sd_score"])
    assert full["mean_score"] == 0.1 and full["labels_ppi"] is not None
    assert str(plan).splitlines()[2].split()[:3] == ["empty", "0", "n/a"]
