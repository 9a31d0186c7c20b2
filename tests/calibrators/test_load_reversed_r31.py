"""Loading a reversed PlattScaling words its warning by what the fit found, not always "check the sign".

Before, ``vc.load`` warned "this PlattScaling reverses the score order (slope a < 0); check the score's
sign convention before applying it" for every saved map of negative slope, although the fit itself had
told a reversal beyond noise from signal-free scores and from a working ranking pulled backwards by far
rows (tests/calibrators/test_reversed_vs_noise_r30b.py). Now the fit records its verdict in the artifact
(``state.association_``: the rows' AUC and DeLong interval) and ``load`` words the warning by it; an
artifact written before keeps the old words.
"""

from __future__ import annotations

import copy
import json
import warnings

import numpy as np
import pytest
from scipy import stats

import veracity as vc


def _quiet(fit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fit()


def _loaded(doc) -> str:
    with pytest.warns(UserWarning, match="reverses the score order") as rec:
        vc.load(doc)
    assert len(rec) == 1
    return str(rec[0].message)


def _delong_oracle(s: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """AUC and DeLong's 95 % interval from the O(n²) placements, on the logit scale with Student's t on the
    smaller class's rows less one (r32: the AUC-scale interval on Welch–Satterthwaite df under-covered near
    AUC 0 and 1; tests/calibrators/test_association_interval_r32.py)."""
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = float(psi.mean())
    v1 = psi.mean(axis=1).var(ddof=1) / pos.size
    v0 = psi.mean(axis=0).var(ddof=1) / neg.size
    half = stats.t.ppf(0.975, min(pos.size, neg.size) - 1) * np.sqrt(v1 + v0) / (auc * (1 - auc))
    centre = np.log(auc / (1 - auc))
    return auc, 1 / (1 + np.exp(half - centre)), 1 / (1 + np.exp(-centre - half))


def _noise():
    """Seed 3 of signal-free rows: the slope comes out negative, AUC 0.45 with an interval holding 1/2."""
    rng = np.random.default_rng(3)
    return rng.uniform(0.01, 0.99, 200), rng.integers(0, 2, 200)


def _reversed(n: int = 2000):
    """Binormal logits of AUC 0.30 (positives score lower)."""
    rng = np.random.default_rng(0)
    y = np.r_[np.ones(n // 2), np.zeros(n - n // 2)].astype(int)
    return rng.normal(0.0, 1.0, n) - 0.7416 * y, y


def _far_rows():
    """A good model (AUC ~0.82) plus one row at logit 1e10 labelled 0: the slope comes out ~ -1.7e-9."""
    rng = np.random.default_rng(3)
    z = rng.normal(0.0, 2.0, 500)
    y = (rng.random(500) < 1.0 / (1.0 + np.exp(-z / 1.3))).astype(int)
    return np.r_[z, 1e10], np.r_[y, 0]


def test_a_map_fit_on_noise_is_not_called_a_sign_error_on_load(tmp_path):
    p, y = _noise()
    cal = _quiet(lambda: vc.PlattScaling().fit(p, y))
    text = _loaded(cal.save(tmp_path / "cal.json"))
    # old: "...(slope a = -0.2 < 0); check the score's sign convention before applying it"
    assert "sign convention" not in text, text
    auc, lo, hi = _delong_oracle(np.log(p / (1 - p)), y)
    said = f"no association of the scores with the labels (AUC {auc:.3f}, 95% interval [{lo:.3f}, {hi:.3f}])"
    assert said in text, text
    assert "so the map means nothing; check the score column it was fit on, or re-fit it" in text
    assert cal.reversed_ and cal.association_.verdict == "noise"


def test_a_true_reversal_keeps_the_sign_advice_on_load():
    s, y = _reversed()
    cal = _quiet(lambda: vc.PlattScaling(score_type="logit").fit(s, y, sample_weight=np.ones(y.size)))
    assert cal.association_.verdict == "reversed"
    text = _loaded(cal.to_dict())
    auc = vc.auc(s, y, score_type="logit")  # about 0.29 on these rows
    assert f"ranked the labels backwards beyond noise (AUC {auc:.3f}, 95% interval [" in text, text
    assert text.endswith("check the score's sign convention before applying it")


def test_a_working_ranking_pulled_by_far_rows_is_not_told_to_negate_on_load():
    s, y = _far_rows()
    cal = _quiet(lambda: vc.PlattScaling(score_type="logit").fit(s, y))
    assert cal.association_.verdict == "forward"
    text = _loaded(cal.to_dict())
    assert "ranked the labels the right way" in text and "far from the rest" in text, text
    assert "sign convention" not in text and "negating the scores would reverse a working ranking" in text


def test_too_few_rows_of_a_class_are_said_on_load(tmp_path):
    s = np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0])
    y = np.array([1, 1, 0, 1, 0, 0])
    cal = _quiet(lambda: vc.PlattScaling(score_type="logit").fit(s, y))
    text = _loaded(json.loads(cal.save(tmp_path / "cal.json").read_text()))
    assert "too few rows of a class" in text and "3 positive and 3 negative rows" in text, text
    assert "sign convention" not in text


def test_on_reversed_error_on_load_names_the_cause():
    p, y = _noise()
    doc = _quiet(lambda: vc.PlattScaling().fit(p, y)).to_dict()
    doc["params"]["on_reversed"] = "error"
    with pytest.raises(vc.VeracityError, match=r"no association of the scores.*re-fit it, or save it with "
                                               r"on_reversed='allow'$") as err:
        vc.load(doc)
    assert "sign convention" not in str(err.value)


def test_an_artifact_without_the_verdict_keeps_the_old_words():
    p, y = _noise()
    doc = _quiet(lambda: vc.PlattScaling().fit(p, y)).to_dict()
    del doc["state"]["association_"]
    text = _loaded(doc)
    a = doc["state"]["a_"]
    assert text == (f"the dict: this PlattScaling reverses the score order (slope a = {a:.4g} < 0); check "
                    "the score's sign convention before applying it")


def test_the_verdict_round_trips_and_is_recorded_only_for_a_negative_slope(tmp_path):
    p, y = _noise()
    cal = _quiet(lambda: vc.PlattScaling().fit(p, y))
    state = cal.to_dict()["state"]["association_"]
    assert set(state) == {"auc", "low", "high", "level", "few"} and state["level"] == 0.95
    again = _quiet(lambda: vc.load(cal.save(tmp_path / "cal.json")))
    assert again.to_dict() == cal.to_dict()
    assert again.association_ == cal.association_
    forward = vc.PlattScaling().fit(p, 1 - y)  # the same rows, labels swapped: a positive slope
    assert forward.association_ is None and "association_" not in forward.to_dict()["state"]
    # a refit that comes out positive forgets the old verdict
    _quiet(lambda: cal.fit(p, 1 - y))
    assert cal.association_ is None and "association_" not in cal.to_dict()["state"]
    few = _quiet(lambda: vc.PlattScaling(score_type="logit").fit(
        np.array([-3.0, -2.0, -1.0, 1.0, 2.0, 3.0]), np.array([1, 1, 0, 1, 0, 0])))
    assert few.to_dict()["state"]["association_"]["few"] == "3 positive and 3 negative rows"


@pytest.mark.parametrize("change, rule", [
    (lambda d: d["state"]["association_"].update(low=0.6, high=0.4), "low <= high"),
    (lambda d: d["state"]["association_"].update(high=None), "low <= high"),
    (lambda d: d["state"]["association_"].update(auc=1.5), "association_.auc"),
    (lambda d: d["state"]["association_"].update(level=95), "association_.level"),
    (lambda d: d["state"]["association_"].update(extra=1), "extra"),
])
def test_a_damaged_verdict_is_refused_in_one_line(change, rule):
    p, y = _noise()
    doc = copy.deepcopy(_quiet(lambda: vc.PlattScaling().fit(p, y)).to_dict())
    change(doc)
    with pytest.raises(vc.VeracityError, match="not a valid calibrator artifact") as err:
        vc.load(doc)
    assert rule in str(err.value) and "\n" not in str(err.value), str(err.value)
