"""Session 27: the verdict named a winner on point estimates, beside a Brier interval that held 0.

Without resamples (``n_resamples=0``, the fast path the docs advise at 10^7 rows, and the command line's
``--n-resamples 0``) or with too few to place an interval's ends, ΔDSC and ΔMCB have no interval, and the
verdict read their signs: two equally good models got "b is better: it has the higher resolution and is
better calibrated (DSC +0.0102, MCB -0.0009 for b - a) (point estimates; intervals need resamples)" while
the table's Brier row read [-0.0287, +0.0065]. It now reads the Brier interval alone (as it does on too few
rows of a class) and gives the two parts as point estimates; with one order of the scores (a
recalibration) ΔMCB is ΔBrier, so the Brier interval is the MCB difference's and the verdict says so.

Also: a Murphy diagram of three models printed "a is better at no threshold" and, two lines on, "a is better
... at theta in [0.200, 0.200]" — each line about another pair, none saying which; the lines now name it.
"""

from __future__ import annotations

import re

import numpy as np

import veracity as vc

# a verdict that names a winner: a better model, a better-resolved one, a better-calibrated one
WINNER = re.compile(r"\b(?:is better|has the higher resolution|is better calibrated|"
                    r"has the lower Brier score)\b")


def _equal_models(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Two models of the same quality (the truth's logit plus independent noise of one size) and labels."""
    x = rng.normal(size=n)
    y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
    a = 1 / (1 + np.exp(-(x + rng.normal(0, 0.7, n))))
    b = 1 / (1 + np.exp(-(x + rng.normal(0, 0.7, n))))
    return a, b, y


def test_equally_good_models_without_resamples_get_no_winner():
    """60 seeded draws of two equally good models on 300 rows: the verdict names a winner about as often
    as the Brier test rejects (5 % at 95 %), not in every draw (60 of 60 before)."""
    rng = np.random.default_rng(27)
    named = 0
    for _ in range(60):
        a, b, y = _equal_models(rng, 300)
        for resamples in (0, 10):  # none, and too few to place a 95 % interval's ends
            r = vc.compare_models({"a": a, "b": b}, y, n_resamples=resamples)
            brier = r.row("brier")
            text = r.verdict
            if WINNER.search(text):
                named += 1
                # a winner only where the Brier interval excludes 0, and then the one with the lower Brier
                assert brier.ci_low > 0 or brier.ci_high < 0, text
                better = "a" if brier.diff > 0 else "b"
                assert text.startswith(f"{better} has the lower Brier score (Brier "), text
            else:
                assert text.startswith("no clear difference"), text
            assert "point estimates" in text, text
            assert not re.search(r"(?:DSC|MCB) [+-]\d\.\d{4} \[", text), text  # no interval the parts lack
    assert named <= 12, named  # 120 verdicts, about 6 expected


def test_a_real_difference_without_resamples_names_the_lower_brier():
    """A clearly better model is still named — by its Brier interval, not by the parts' signs."""
    rng = np.random.default_rng(0)
    n = 1000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    q = np.clip(p + rng.normal(scale=0.1, size=n), 0, 1)
    r = vc.compare_models({"a": p, "b": q}, y, n_resamples=0)
    brier = r.row("brier")
    assert brier.ci_low > 0  # the premise: a has the lower Brier score beyond noise
    text = r.verdict
    head = f"a has the lower Brier score (Brier +{brier.diff:.4f} [+{brier.ci_low:.4f}, "
    assert text.startswith(head), text
    assert "resolution and calibration are not told apart" in text, text
    auc = r.row("auc")
    assert auc.ci_high < 0 and "the AUC differs: a ranks better (AUC " in text, text


def test_one_order_of_the_scores_reads_the_brier_interval_as_the_mcb_difference():
    """A recalibration: ΔDSC is exactly 0, so ΔMCB is ΔBrier and has its paired t interval."""
    rng = np.random.default_rng(3)
    n = 2000
    p = rng.beta(2, 3, n)
    y = (rng.random(n) < p).astype(int)
    logit = np.log(p / (1 - p))
    sharp = 1 / (1 + np.exp(-2.0 * logit))  # same order, overconfident
    r = vc.compare_models({"sharp": sharp, "true": p}, y, n_resamples=0)
    brier, d = r.row("brier"), r.corp_differences[0]
    assert d.dsc == 0 and brier.ci_high < 0
    assert abs(d.mcb - brier.diff) < 1e-12
    text = r.verdict
    interval = f"[{brier.ci_low:+.4f}, {brier.ci_high:+.4f}]"
    assert text.startswith(f"true is better calibrated (MCB {d.mcb:+.4f} {interval} for true - sharp)"), text
    assert "their resolution is the same" in text and "paired t interval" in text, text
    # two recalibrations of one ranking that the data cannot tell apart: no winner
    mild = 1 / (1 + np.exp(-1.02 * logit))
    r = vc.compare_models({"true": p, "mild": mild}, y, n_resamples=0)
    assert r.row("brier").ci_low < 0 < r.row("brier").ci_high
    assert r.verdict.startswith("no clear difference between true and mild"), r.verdict


def test_slices_without_resamples_name_no_winner_by_the_parts_signs():
    """Each slice's verdict reads its Brier q-value, not the signs of DSC and MCB."""
    rng = np.random.default_rng(11)
    a, b, y = _equal_models(rng, 3000)
    key = np.repeat(np.arange(10), 300).astype(str)
    r = vc.compare_models({"a": a, "b": b}, y, by=key, n_resamples=0)
    for name, g in r.groups.items():
        q = g.row("brier").q_value
        for text in g.verdicts:
            if q is not None and q > 0.05:
                assert not WINNER.search(text), (name, text)
            assert "point estimates" in text, text


def test_murphy_lines_of_several_pairs_name_their_pair():
    rng = np.random.default_rng(14)
    n = 400
    p = rng.uniform(size=n)
    y = (rng.random(n) < p).astype(int)
    scores = {"a": p, "b": np.clip(p + rng.normal(0, 0.1, n), 0, 1), "c": p ** 2}
    m = vc.murphy_diagram(scores, y, theta=[0.2, 0.5, 0.8])
    lines = [line for line in str(m).splitlines()[1:] if " is better " in line]  # after the title
    assert len(lines) == 2 * len(m.differences) == 6
    for line, d in zip(lines, [d for d in m.differences for _ in (0, 1)]):
        assert line.startswith(f"{d.model_b} vs {d.model_a}: "), line
    assert "the table's difference is b - a" in str(m)
    # one pair: the lines read as before, without a pair in front
    single = str(vc.murphy_diagram({"a": p, "b": scores["b"]}, y, theta=[0.2, 0.5, 0.8]))
    assert not any(line.startswith("b vs a") for line in single.splitlines())
    assert "table's difference" not in single


# -- "no clear difference between a and b" beside a log-loss or ECE row clear of 0 ----------------------
def _row(metric: str, diff: float, low: float, high: float) -> "vc.ComparisonRow":
    from veracity.comparison._compare import ComparisonRow

    return ComparisonRow("a", "b", metric, 0.5, 0.5 + diff, diff, low, high, 0.01, 0.01, "x")


def _parts(dsc: tuple[float, float, float], mcb: tuple[float, float, float]):
    from veracity.comparison._compare import CORPDifference

    return CORPDifference("a", "b", mcb[0] - dsc[0], mcb[0], dsc[0], 0.0, mcb[1], mcb[2], dsc[1], dsc[2],
                          0.5, 0.5)


HOLDS = (0.001, -0.002, 0.004)  # a difference b - a whose interval holds 0
UP = (0.02, 0.01, 0.03)  # clear of 0 above: b's is higher


def test_no_clear_difference_says_the_log_loss_and_ece_rows_that_differ():
    """The table read "log_loss +0.0205 [+0.0023, +0.0388]" and "ece_debiased +0.0528 [+0.0039, +0.1052]"
    under a verdict "no clear difference between a and b: Brier ..., DSC ..., MCB ..." (seeded draws of
    2,000 rows: 3 in 38 where the ECE row was clear of 0)."""
    from veracity.comparison._compare import _verdict

    brier, auc = _row("brier", *HOLDS), _row("auc", *HOLDS)
    others = (_row("log_loss", *UP), _row("ece", *UP))
    text = _verdict(_parts(HOLDS, HOLDS), brier, False, auc=auc, others=others)
    assert text.startswith("no clear difference in Brier score, resolution or calibration between a and b"), \
        text
    shown = "+0.0200 [+0.0100, +0.0300] for b - a"
    assert f"; the log loss differs: a has the lower log loss (log loss {shown})" in text, text
    assert f"; the debiased ECE differs: a has the lower debiased ECE (ECE {shown})" in text, text
    # rows that hold 0 add nothing, and the line reads as before
    quiet = (_row("log_loss", *HOLDS), _row("ece", *HOLDS))
    assert _verdict(_parts(HOLDS, HOLDS), brier, False, auc=auc, others=quiet).startswith(
        "no clear difference between a and b: Brier")
    # the ECE row is said where the verdict calls the other model better calibrated, not where it agrees
    down = (-0.02, -0.03, -0.01)
    calibrated_b = _verdict(_parts(HOLDS, down), brier, False, auc=auc, others=(_row("ece", *UP),))
    assert calibrated_b.startswith("b is better calibrated") and "debiased ECE differs: a has" in calibrated_b
    calibrated_a = _verdict(_parts(HOLDS, UP), brier, False, auc=auc, others=(_row("ece", *UP),))
    assert calibrated_a.startswith("a is better calibrated") and "ECE differs" not in calibrated_a
    # the log loss is said where it favours the other model than the lower Brier score
    clear = _row("brier", -0.002, -0.003, -0.001)
    text = _verdict(_parts(HOLDS, HOLDS), clear, False, auc=auc, others=(_row("log_loss", *UP),))
    assert text.startswith("b has the lower Brier score") and "the log loss differs: a has" in text, text


def test_no_verdict_denies_a_row_clear_of_zero():
    """Seeded draws of two models of varied quality and calibration: wherever the verdict says "no clear
    difference", every row whose interval is clear of 0 is said by name."""
    rng = np.random.default_rng(4)
    names = {"log_loss": "the log loss differs", "ece": "the debiased ECE differs", "auc": "the AUC differs"}
    quiet = 0
    for _ in range(30):
        n = int(rng.choice([400, 1000]))
        x = rng.normal(size=n)
        y = (rng.random(n) < 1 / (1 + np.exp(-x))).astype(int)
        a = 1 / (1 + np.exp(-(x + rng.normal(0, rng.uniform(0.3, 1.0), n))))
        b = 1 / (1 + np.exp(-(rng.uniform(0.7, 1.4) * (x + rng.normal(0, rng.uniform(0.3, 1.0), n))
                               + rng.normal(0, 0.3))))
        for resamples in (0, 100):
            r = vc.compare_models({"a": a, "b": b}, y, n_resamples=resamples)
            if not r.verdict.startswith("no clear difference"):
                continue
            quiet += 1
            for metric, said in names.items():
                row = r.row(metric)
                if row.ci_low > 0 or row.ci_high < 0:
                    assert said in r.verdict, (metric, r.verdict)
    assert quiet >= 5  # the premise: the draws reach the branch


# -- slices: a bootstrap difference that B resamples cannot read beyond noise in a slice of its own ---------
def test_slices_say_when_too_few_resamples_can_find_no_lone_slice():
    """Across m slices the Benjamini-Hochberg q-value of the one slice that differs is at least 2m/(B + 1) for
    the bootstrap differences (ΔECE, ΔMCB, ΔDSC): with 200 resamples and 10 slices, 0.0995 > 0.05, so a slice
    whose own MCB interval excludes 0 reads "no more than noise across the slices" whatever its data. A note
    now says so, and how many resamples would do."""
    rng = np.random.default_rng(27)
    n, m = 2000, 10
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    key = np.repeat(np.arange(m), n // m).astype(str)
    q = np.where(key == "0", np.clip(p + 0.25, 0, 1), p)  # b far off in slice 0 only
    r = vc.compare_models({"a": p, "b": q}, y, by=key, n_resamples=200)
    lone = r.groups["0"].corp_differences[0]
    assert lone.mcb_low > 0  # its own interval: b worse calibrated there
    assert lone.mcb_q > 0.05 and lone.mcb_q >= m * 2 / 201 - 1e-12  # the floor, not the data
    notes = [t for t in r.notes if "a bootstrap p-value is at least" in t]
    assert len(notes) == 1, r.notes
    need = int(np.ceil(2 * m / 0.05 - 1))
    assert f"across the {m} slices" in notes[0] and f"at least {need:,} to find one slice's" in notes[0]
    assert "note: with 200 resamples" in str(r)
    # with that many resamples the lone slice can be found, and no note is printed
    r = vc.compare_models({"a": p, "b": q}, y, by=key, n_resamples=need)
    assert not any("a bootstrap p-value is at least" in t for t in r.notes), r.notes
    assert r.groups["0"].corp_differences[0].mcb_q <= 0.05
    # two slices at 200 resamples: 4/201 < 0.05, nothing to say
    two = vc.compare_models({"a": p, "b": q}, y, by=np.where(key == "0", "x", "y"), n_resamples=200)
    assert not any("a bootstrap p-value is at least" in t for t in two.notes)


def test_a_model_flagging_no_row_is_told_as_such():
    """At thresholds above every score a model's net benefit is exactly 0 (it treats none); its note said
    "every row has the same net benefit (it flags no row there, or every row and the labels are all one
    class) ...; more rows (of both classes) give one" — the rows' classes do not matter there."""
    p = np.array([0.1, 0.4, 0.35, 0.8, 0.6])
    dc = vc.decision_curve({"m": p}, np.array([0, 1, 0, 1, 1.0]), thresholds=[0.3, 0.9, 0.95])
    assert dc.tp["m"][1] == dc.fp["m"][1] == 0 and dc.net_benefit["m"][1] == 0.0
    note = [t for t in dc.notes if t.startswith("'m': zero-width interval at 2 of 3 thresholds (e.g. 0.9)")]
    assert len(note) == 1 and "it flags no row there, so its net benefit is exactly 0" in note[0], dc.notes
    assert "both classes" not in note[0]
    # every row flagged and one class only: the general note stays
    one = vc.decision_curve({"m": p}, np.ones(5), thresholds=[0.05])
    assert any(t.startswith("'m': zero-width interval") and "more rows" in t for t in one.notes), one.notes
