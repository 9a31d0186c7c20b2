"""Round 22: a comparison row whose interval is n/a carries no standard error or p-value either, and the
text tables print such an interval as one "n/a", as the notebook's tables do.

Below :data:`veracity.core._delong.MIN_CLASS_ROWS` rows of a class DeLong's normal law is refused (the
interval and p-value of the AUC difference are n/a, with a note), yet the row still carried DeLong's
``se``, computed from those few rows — in the dataclass, ``to_dict``, ``to_frame`` and the command line's
JSON: a standard error for a quantity whose interval the same row refuses. And the printed tables showed
``[n/a, n/a]`` (the main table, the CORP decomposition, the decision curve) where the HTML shows ``n/a``.
"""

import json
import math

import numpy as np
import pytest

import veracity as vc
from veracity.core._delong import MIN_CLASS_ROWS


def _na(v):
    return v is None or (isinstance(v, float) and math.isnan(v))


def _few_positives(n=60, positives=4, seed=1):
    rng = np.random.default_rng(seed)
    y = np.r_[np.ones(positives), np.zeros(n - positives)].astype(int)
    a = rng.uniform(0.02, 0.98, n)
    b = np.clip(a + rng.normal(0, 0.2, n), 0.01, 0.99)
    return {"a": a, "b": b}, y


@pytest.mark.parametrize("score_type", ["probability", "score"])
def test_auc_row_on_too_few_of_a_class_has_no_se_or_p_value(score_type):
    models, y = _few_positives()
    assert y.sum() < MIN_CLASS_ROWS
    r = vc.compare_models(models, y, n_resamples=50, score_type=score_type)
    auc = r.row("auc")
    assert auc.diff != 0.0  # a real difference (not the exact 0 of one ranking, which keeps its exact fields)
    # the interval is refused ...
    assert _na(auc.ci_low) and _na(auc.ci_high)
    # ... so is every other reading of DeLong's normal law: its p-value and its standard error
    assert _na(auc.p_value) and _na(auc.se)
    d = [row for row in r.to_dict()["comparison"] if row["metric"] == "auc"][0]
    assert all(_na(d[k]) for k in ("ci_low", "ci_high", "p_value", "se"))
    assert _na(d["diff"]) is False  # the point estimate stays
    frame = r.to_frame()
    shown = frame[frame["metric"] == "auc"].iloc[0]
    assert all(_na(shown[k]) for k in ("ci_low", "ci_high", "p_value", "se"))
    # and the ECE row, whose bootstrap is refused as well, agrees
    if score_type == "probability":
        ece = r.row("ece")
        assert all(_na(getattr(ece, k)) for k in ("ci_low", "ci_high", "p_value", "se"))


def test_auc_row_on_enough_rows_keeps_delong_se_and_p_value():
    """The gate acts only below the minimum: with 30 of each class the row is DeLong's (se > 0, p in (0, 1])."""
    models, y = _few_positives(n=60, positives=30)
    auc = vc.compare_models(models, y, n_resamples=0).row("auc")
    assert auc.se > 0 and 0 < auc.p_value <= 1 and auc.ci_low < auc.diff < auc.ci_high


def test_cli_json_auc_row_on_too_few_of_a_class_has_no_se(tmp_path, capsys):
    from veracity.cli import main

    models, y = _few_positives()
    path = tmp_path / "few.csv"
    lines = ["a,b,y"] + [f"{float(a)!r},{float(b)!r},{t}" for a, b, t in zip(models["a"], models["b"], y)]
    path.write_text("\n".join(lines) + "\n")
    code = main(["compare", str(path), "--score", "a", "--against", "b", "--label", "y", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    row = [r for r in json.loads(out)["comparison"] if r["metric"] == "auc"][0]
    assert row["ci_low"] is None and row["p_value"] is None and row["se"] is None


def test_text_tables_print_a_missing_interval_as_one_n_a():
    models, y = _few_positives()
    r = vc.compare_models(models, y, n_resamples=50)
    text = str(r)
    assert "[n/a, n/a]" not in text
    auc_line = next(line for line in text.splitlines() if line.startswith("auc "))
    ece_line = next(line for line in text.splitlines() if line.startswith("ece_debiased "))
    for line in (auc_line, ece_line):
        # the interval column and the p-value column: each one n/a
        assert line.split().count("n/a") == 2, line
    assert "MCB n/a  DSC n/a" in text
    # the notebook's tables say the same: no "[n/a, n/a]" there either (CORP intervals included)
    assert "[n/a, n/a]" not in r._repr_html_()


def test_decision_curve_text_prints_a_missing_interval_as_one_n_a():
    # one row carries nearly all the weight: no interval of the net benefit (n/a), as the HTML shows it
    m = {"a": [0.2, 0.7, 0.4], "b": [0.3, 0.6, 0.5]}
    d = vc.decision_curve(m, [0, 1, 1], sample_weight=[1e9, 1, 1], thresholds=[0.1, 0.5])
    assert all(_na(row.ci_low) for row in d.rows if row.model != "none")
    assert "[n/a, n/a]" not in str(d)
    assert "-0.1111 n/a" in str(d)
