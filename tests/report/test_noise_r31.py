"""The report does not contradict itself about noise (session 31).

1. On a few rows the ECE card showed a bootstrap interval of [0.0000, ...] beside a noise-floor badge
   "above noise", with no word of why: the card now says which decides (the noise floor, the test of
   calibration) and why the bias-aware interval reaches 0; the badge reads the interval's level.
2. The ``by=`` slices table scaled its bars to the largest plug-in ECE, so a small slice within noise was
   drawn as the worst: each slice now stands beside its own noise floor (the library's), with BH q-values
   over the slices, and only a slice above noise gets a bar.
3. "2.35 σ" printed before a max-corrected p = 0.725: the p-value comes first, the sigma with words that say
   it is not corrected for the maximum.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import veracity as vc

from .conftest import section, table_rows


def _mild(n: int, seed: int, gap: float = 0.12) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.05, 0.95, n)
    return p, (rng.random(n) < np.clip(p + gap, 0, 1)).astype(int)


def _p_cell(p: float, r: int) -> str:
    """A slice's p-value as the table should print it: a bound where no redraw of r reached the ECE."""
    return f"≤ {1 / (r + 1):.3f}" if p <= 1 / (r + 1) + 1e-15 else f"{p:.3f}"


def _ece_card(page: str) -> str:
    m = re.search(r'<div class="card" data-metric="ece">(.*?)</div></div>', page, re.S)
    assert m
    return m.group(1)


# -- 1. the ECE card -------------------------------------------------------------------------------
def test_ece_card_says_which_decides_when_the_interval_reaches_zero():
    p, y = _mild(60, 7)  # 60 rows, a gap of 0.12: ECE 0.2363, interval [0.0000, 0.3229], p = 0.020
    audit = vc.audit(p, y, bootstrap=True, noise_floor=True, random_state=0, n_resamples=200)
    iv, nf = audit.extras["intervals"]["ece"], audit.extras["noise_floor"]
    assert iv.low == 0.0 and nf.p_value <= 0.05  # the case: an interval with 0 beside a significant test
    card = _ece_card(vc.report(p, y, n_resamples=200, figures=False).html)
    assert "95% CI [0.0000, " in card and "above noise" in card
    m = re.search(r"<span class=\"note\" data-ece-reconcile>(.*?)</span>", card)
    assert m, card
    text = m.group(1)
    bias = float(iv.note.split("bias up to ")[1].split()[0])
    assert text == (f"The noise-floor test decides. The interval allows for up to {bias:.4f} of plug-in "
                    "bias, so its low end 0 does not mean calibrated."), text


def test_ece_card_is_quiet_where_interval_and_test_agree():
    p, y = _mild(400, 3, gap=0.12)  # clearly off: the interval excludes 0 and the test rejects
    card = _ece_card(vc.report(p, y, n_resamples=200, figures=False).html)
    assert "above noise" in card and "95% CI [0.0000" not in card and "data-ece-reconcile" not in card
    rng = np.random.default_rng(5)
    q = rng.uniform(0.05, 0.95, 400)
    card = _ece_card(vc.report(q, (rng.random(400) < q).astype(int), n_resamples=200, figures=False).html)
    assert "within noise" in card and "95% CI [0.0000" in card and "data-ece-reconcile" not in card


def test_ece_badge_reads_the_interval_level():
    """At level 0.9 the interval beside it is a 90 % one: the badge flags at p <= 0.10, not 0.05."""
    for seed in range(40):
        p, y = _mild(150, seed, gap=0.06)
        nf = vc.ece_noise_floor(p, y, n_resamples=200, random_state=0)
        if 0.05 < nf.p_value <= 0.10:
            break
    else:  # pragma: no cover - the seeds hold such a case
        pytest.fail("no seed with 0.05 < p <= 0.10")
    card = _ece_card(vc.report(p, y, n_resamples=200, level=0.9, figures=False).html)
    assert "90% CI" in card and "above noise" in card, card
    card = _ece_card(vc.report(p, y, n_resamples=200, level=0.95, figures=False).html)
    assert "within noise" in card, card


# -- 2. the slices' noise floors ---------------------------------------------------------------------
SIZES = (400, 150, 50, 20)  # unequal slices


def _sliced(seed: int, gap: float = 0.0, where: int = 1) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    keys = np.repeat(np.array(["a", "b", "c", "d"]), SIZES)
    p = rng.uniform(0.05, 0.95, keys.size)
    truth = np.where(keys == "abcd"[where], np.clip(p + gap, 0, 1), p)
    return p, (rng.random(keys.size) < truth).astype(int), keys


def _floors(p: np.ndarray, y: np.ndarray, keys: np.ndarray, r: int = 200):
    from veracity.reporting._slice_noise import slice_floors
    from veracity.core._validation import prepare_binary

    audit = vc.audit(p, y, by=keys)
    return slice_floors(prepare_binary(p, y), keys, audit.groups, edges=audit.table.stats.edges,
                        strategy="uniform", max_groups=None, n_resamples=r, alpha=0.05), audit


def test_slice_floors_are_the_library_noise_floor_and_bh():
    p, y, keys = _sliced(0, gap=0.15)
    floors, audit = _floors(p, y, keys)
    assert set(floors.floors) == set(audit.groups)
    ps = []
    for k, f in floors.floors.items():
        rows = keys == k
        nf = vc.ece_noise_floor(p[rows], y[rows], bins=15, n_resamples=200, random_state=0)
        assert f.ece == pytest.approx(audit.groups[k].ece, abs=1e-12) and f.p_value == nf.p_value
        assert f.expected == nf.expected
        ps.append(nf.p_value)
    # Benjamini-Hochberg by hand: q_(i) = min_{j >= i} p_(j) K / j
    order = np.argsort(ps)
    k = len(ps)
    ranked = np.array(ps)[order] * k / np.arange(1, k + 1)
    q = np.minimum.accumulate(ranked[::-1])[::-1]
    want = dict(zip(np.array(list(floors.floors))[order], np.minimum(q, 1)))
    for name, f in floors.floors.items():
        assert f.q_value == pytest.approx(want[name]) and f.above == (want[name] <= 0.05)


def test_slice_flags_false_alarm_and_power_simulated():
    """Seeded simulation, 150 data sets each: calibrated slices of 400/150/50/20 rows are flagged (any slice)
    in at most 10 % of data sets (BH at 0.05 controls the family-wise rate under the global null: about 5 %);
    a gap of +0.20 in the 150-row slice is flagged in at least 85 % (seen: 95 %), the others rarely (seen:
    5 %).
    (Seen: 3 of 150 calibrated data sets flagged; +0.15 was flagged in half.)"""
    false_alarm = sum(any(f.above for f in _floors(*_sliced(s))[0].floors.values()) for s in range(150))
    assert false_alarm <= 15, false_alarm
    hits = others = 0
    for s in range(150):
        floors = _floors(*_sliced(1000 + s, gap=0.20))[0].floors
        hits += floors["b"].above
        others += any(floors[k].above for k in "acd")
    assert hits >= 128 and others <= 15, (hits, others)


def test_small_noisy_slice_is_not_drawn_as_the_worst():
    """A 20-row calibrated slice has the largest plug-in ECE, the 400-row slice with a planted gap is the
    one off: the bar is the big slice's; the small one reads "within noise" (the old bar: 100 % on the small
    one)."""
    for seed in range(60):
        p, y, keys = _sliced(seed, gap=0.15, where=0)
        audit = vc.audit(p, y, by=keys)
        a = vc.ece_noise_floor(p[keys == "a"], y[keys == "a"], n_resamples=200, random_state=0)
        if max(audit.groups, key=lambda k: audit.groups[k].ece) == "d" and a.p_value <= 0.05 / 4:  # q <= 4 p
            break
    else:  # pragma: no cover
        pytest.fail("no seed where the small slice has the largest ECE")
    page = vc.report(p, y, by={"seg": keys}, n_resamples=200, figures=False).html
    frag = section(page, "slices")
    rows = {r[0]: r for r in table_rows(frag, "slices")}
    assert rows["d"][7] == "within noise"
    bars = dict(re.findall(r'<span class="key">(\w)</span>.*?(?:width:([0-9.]+)%|within noise)', frag))
    assert float(bars["a"]) == 100.0 and bars["d"] == "", bars
    assert rows["a"][4:6] == [f"{a.expected:.4f}", _p_cell(a.p_value, 200)]
    assert "the largest ECE is not the worst slice" in frag


def test_without_bootstrap_the_slices_say_they_are_not_a_ranking():
    p, y, keys = _sliced(1)
    frag = section(vc.report(p, y, by={"seg": keys}, bootstrap=False, figures=False).html, "slices")
    assert "floor" not in frag[: frag.index("<tbody>")] and len(table_rows(frag, "slices")[0]) == 11
    assert "this is not a ranking of miscalibration" in frag


def test_cli_report_by_shows_slice_floors(cli, tmp_path):
    p, y, keys = _sliced(2, gap=0.3)
    path = tmp_path / "s.csv"
    path.write_text("p,y,seg\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(p, y, keys)))
    out = tmp_path / "r.html"
    res = cli(["report", path, "--score", "p", "--label", "y", "--by", "seg", "--n-resamples", "200",
               "-o", out])
    assert res.code == 0, res.err
    rows = {r[0]: r for r in table_rows(section(out.read_text(), "slices"), "slices")}
    floors = _floors(p, y, keys)[0].floors
    assert rows["b"][5] == "≤ 0.005"  # the planted slice: no redraw of 200 reached its ECE
    for k in "abcd":
        assert rows[k][5] == _p_cell(floors[k].p_value, 200)
        assert (rows[k][7] == "within noise") == (not floors[k].above)


# -- 3. the MCE's sigma ------------------------------------------------------------------------------
def test_mce_sigma_is_said_to_be_uncorrected():
    for seed in range(40):
        rng = np.random.default_rng(seed)
        p = rng.uniform(0.05, 0.95, 800)
        y = (rng.random(800) < p).astype(int)
        feats = {"region": rng.choice(list("ABCDE"), 800), "age": rng.uniform(0, 1, 800)}
        seg = vc.segments(p, y, features=feats)
        if seg.mce_sigma > 2 and seg.mce_family_pvalue > 0.5:
            break
    else:  # pragma: no cover
        pytest.fail("no calibrated seed with sigma > 2")
    frag = section(vc.report(p, y, features=feats, bootstrap=False, figures=False).html, "segments")
    card = frag[frag.index('data-metric="mce"'):]
    card = re.sub(r"<[^>]+>", "", card[: card.index("MCGrad")])
    sigma = f"{seg.mce_sigma:.2f} σ"
    p_text = seg.mce_p_text()
    assert card.index(p_text) < card.index(sigma), card  # the corrected p-value first
    assert f"corrected for the maximum ({p_text} in 199 draws under calibration" in card
    assert f"{sigma} is the largest segment's deviation alone, not corrected for the maximum" in card
