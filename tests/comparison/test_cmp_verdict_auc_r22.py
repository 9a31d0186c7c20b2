"""Session 22 (notebook read): compare_models' verdict contradicted its own AUC row.

On the demo's test rows, 'score' against 'score' + N(0, 0.05) noise, the table printed
``auc ... -0.0184 [-0.0252, -0.0117] <0.0001 DeLong`` while the verdict said "score has the lower Brier
score ..., but neither its ranking nor its calibration alone differs by more than noise (DSC ...)"; in the
comparison notebook the reverse: "logreg ranks better (DSC ...)" beside an AUC with p = 0.09. The verdict
called DSC (the discrimination/resolution term of the CORP decomposition) "ranking", which is what the AUC
row measures. The verdict must be true of every row it speaks about: DSC is named as resolution, and where
the AUC's interval tells otherwise than the DSC part, the verdict says what the AUC says.

The checks read the verdict against the rows and intervals handed to it (their definitions: an interval
clear of 0 on one side is a difference), for every branch of ``_verdict`` and every state of the AUC row
(favours the model DSC favours, favours the other, holds 0, n/a), then end to end on data built to land
in the branches.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.comparison._compare import ComparisonRow, CORPDifference, _verdict

NAN = float("nan")


def _row(metric: str, diff: float, low: float, high: float, p: float = 0.5) -> ComparisonRow:
    return ComparisonRow("a", "b", metric, 0.5, 0.5 + diff, diff, low, high, p, 0.01, "x")


def _diff(dsc: tuple[float, float, float], mcb: tuple[float, float, float]) -> CORPDifference:
    return CORPDifference("a", "b", mcb[0] - dsc[0], mcb[0], dsc[0], 0.0, mcb[1], mcb[2], dsc[1], dsc[2],
                          0.5, 0.5)


def _clear(low: float, high: float) -> int:
    """+1: the interval (b - a) is clear of 0 above (b ahead for DSC and AUC); -1: below; 0: holds 0
    or n/a."""
    return 1 if low > 0 else -1 if high < 0 else 0


def check_verdict(text: str, d: CORPDifference, brier: ComparisonRow, auc: ComparisonRow | None) -> None:
    """The verdict against the rows: every claim it makes holds on them, and the AUC row is never
    contradicted (an AUC clear of 0 is said, by its name, unless the verdict gives the same model the
    higher resolution; a DSC claim beside an AUC that holds 0 says the AUC does not differ)."""
    a, b = d.model_a, d.model_b
    assert "ranking" not in text, text  # DSC is resolution; ranking is what the AUC row reads
    # "ranks better" only as the AUC's claim, and only where the AUC's interval says it
    for who in re.findall(r"(\w+) ranks better", text):
        after = text.split(f"{who} ranks better", 1)[1]
        assert after.startswith(" (AUC "), text
        assert auc is not None and _clear(auc.ci_low, auc.ci_high) == (1 if who == b else -1), text
    # "higher resolution" only for the model the DSC part favours (its interval, or its point estimate
    # when there is no interval)
    bootstrap = d.dsc_low == d.dsc_low
    dsc_side = _clear(d.dsc_low, d.dsc_high) if bootstrap else int(np.sign(d.dsc))
    resolved = re.findall(r"(\w+) (?:is better: it )?has the higher resolution", text)
    for who in resolved:
        assert dsc_side == (1 if who == b else -1), text
    if auc is None or auc.ci_low != auc.ci_low:
        return
    auc_side = _clear(auc.ci_low, auc.ci_high)
    if auc_side:
        better = b if auc_side > 0 else a
        assert f"{better} ranks better (AUC " in text or resolved == [better], text
        if resolved and resolved != [better]:
            assert "yet the AUC says" in text, text
    elif resolved:
        assert "the AUC does not differ beyond noise (AUC " in text, text
    else:
        assert "AUC" not in text, text  # nothing to add: neither part nor the AUC differs


# (value, low, high) of a difference b - a: clear above, clear below, holds 0
UP, DOWN, ZERO = (0.02, 0.01, 0.03), (-0.02, -0.03, -0.01), (0.004, -0.01, 0.02)
AUCS = {"up": _row("auc", 0.02, 0.01, 0.03, 1e-5), "down": _row("auc", -0.02, -0.03, -0.01, 0.001),
        "zero": _row("auc", -0.0066, -0.0142, 0.0011, 0.0917), "n/a": _row("auc", 0.01, NAN, NAN, NAN),
        "none": None}
BRIERS = {"clear": _row("brier", 0.0019, 0.0005, 0.0032), "zero": _row("brier", 0.001, -0.002, 0.004)}


@pytest.mark.parametrize("dsc, mcb, brier, auc", list(itertools.product(
    [UP, DOWN, ZERO], [UP, DOWN, ZERO], BRIERS, AUCS)))
def test_every_branch_is_true_of_the_auc_row(dsc, mcb, brier, auc):
    d, b, a = _diff(dsc, mcb), BRIERS[brier], AUCS[auc]
    text = _verdict(d, b, False, auc=a)
    check_verdict(text, d, b, a)


@pytest.mark.parametrize("dsc, mcb, auc", list(itertools.product([UP, DOWN, ZERO], [UP, ZERO], AUCS)))
def test_point_estimate_branches_too(dsc, mcb, auc):
    """No resamples (or too few): the DSC and MCB parts are read as point estimates, the AUC still has
    DeLong's interval; the verdict must not contradict it either."""
    d = _diff((dsc[0], NAN, NAN), (mcb[0], NAN, NAN))
    for few in (False, True):
        text = _verdict(d, BRIERS["zero"], False, few=few, auc=AUCS[auc])
        check_verdict(text, d, BRIERS["zero"], AUCS[auc])
        assert "point estimates" in text


def test_the_branches_read_as_meant():
    """One pinned line per kind of disagreement (the wording the notebook reader asked for)."""
    zero = _diff(ZERO, ZERO)
    text = _verdict(zero, BRIERS["clear"], False, auc=AUCS["down"])
    assert text.startswith("a has the lower Brier score"), text
    assert "neither its resolution (DSC) nor its calibration (MCB) alone differs by more than noise" in text
    assert text.endswith("; the AUC differs: a ranks better (AUC -0.0200 [-0.0300, -0.0100] for b - a, "
                         "DeLong p = 0.0010)"), text
    text = _verdict(_diff(DOWN, ZERO), BRIERS["zero"], False, auc=AUCS["zero"])
    # session 25: every verdict number in the table's orientation (b - a), and says so
    assert text.startswith("a has the higher resolution (DSC -0.0200 [-0.0300, -0.0100] for b - a)"), text
    assert text.endswith("; the AUC does not differ beyond noise (AUC -0.0066 [-0.0142, +0.0011] for b - a, "
                         "DeLong p = 0.0917)"), text
    text = _verdict(_diff(DOWN, ZERO), BRIERS["zero"], False, auc=AUCS["up"])
    assert "; yet the AUC says b ranks better (AUC +0.0200 [+0.0100, +0.0300] for b - a, DeLong p < 0.0001)" \
        in text, text
    # the AUC differs where nothing else does: "no clear difference" says of what, and the AUC is said
    text = _verdict(zero, BRIERS["zero"], False, auc=AUCS["up"])
    head = "no clear difference in Brier score, resolution or calibration between a and b: "
    assert text.startswith(head), text
    assert text.endswith("; the AUC differs: b ranks better (AUC +0.0200 [+0.0100, +0.0300] for b - a, "
                         "DeLong p < 0.0001)"), text
    text = _verdict(zero, BRIERS["zero"], False, auc=AUCS["zero"])
    assert text.startswith("no clear difference between a and b:"), text
    # agreement adds nothing
    assert "AUC" not in _verdict(_diff(UP, UP), BRIERS["zero"], False, auc=AUCS["up"])
    assert "AUC" not in _verdict(zero, BRIERS["zero"], False, auc=AUCS["zero"])


def test_identical_and_few_rows_say_nothing_of_ranking():
    d = _diff(ZERO, ZERO)
    assert _verdict(d, BRIERS["zero"], True, auc=AUCS["up"]) == "a and b have identical scores: no difference"
    for brier in BRIERS.values():
        text = _verdict(d, brier, False, few_rows="3 positive and 97 negative rows",
                        auc=_row("auc", 0.02, NAN, NAN, NAN))
        assert "to tell resolution from calibration" in text and "ranking" not in text, text


@pytest.fixture(scope="module")
def demo_test():
    d = pd.DataFrame(vc.load_demo())
    return d[d["role"] == "test"].copy()


def _checked(res: vc.ModelComparison) -> str:
    d = res.corp_differences[0]
    check_verdict(res.verdict, d, res.row("brier"), res.row("auc"))
    return res.verdict


def test_demo_score_against_noisy_score(demo_test):
    """The reader's case: the AUC row says 'score' ranks better beyond noise; the verdict now says so."""
    t = demo_test
    rng = np.random.default_rng(0)
    t["other"] = np.clip(t["score"] + rng.normal(0, 0.05, len(t)), 0.001, 0.999)
    res = vc.compare_models(t, scores=["score", "other"], label="label", random_state=0)
    auc = res.row("auc")
    assert auc.ci_high < 0
    text = _checked(res)
    assert "neither its ranking" not in text and "score ranks better (AUC " in text, text


def test_end_to_end_branches():
    """Data built to land in the branches: a recalibration (MCB only, the same ranking: AUC [0, 0]), truth
    against a noisy ranking (DSC and AUC agree), a shifted truth (MCB), two equal models (none)."""
    rng = np.random.default_rng(5)
    n = 4000
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < p).astype(int)
    logit = np.log(p / (1 - p))
    models = {
        "recalibrated": {"a": 1 / (1 + np.exp(-2 * logit)), "b": p},
        "noisier": {"a": p, "b": 1 / (1 + np.exp(-(logit + rng.normal(0, 1.5, n))))},
        "equal": {"a": np.clip(p + rng.normal(0, 0.02, n), 0.001, 0.999),
                  "b": np.clip(p + rng.normal(0, 0.02, n), 0.001, 0.999)},
    }
    seen = {}
    for name, scores in models.items():
        res = vc.compare_models(scores, y, random_state=0)
        seen[name] = _checked(res)
    assert seen["recalibrated"].startswith("b is better calibrated"), seen
    assert "a has the higher resolution" in seen["noisier"] or "a is better: it has the higher resolution" \
        in seen["noisier"], seen
    # without resamples the verdict reads point estimates; the AUC row still holds it to account
    _checked(vc.compare_models(models["equal"], y, n_resamples=0))
