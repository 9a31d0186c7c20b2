"""What a reader of the report reads (session 25): the words beside the numbers, checked against the numbers.

* the operating curves labelled a target-recall threshold fit on other rows ``t = 0.0277 (recall ≥ 0.95)``
  while the explorer beside it said ``recall here 0.936``: the legend claimed a recall the drawn rows do
  not reach;
* a multiclass report's summary showed the top-label accuracy twice (``top-label accuracy 0.5200`` and
  ``accuracy (argmax) 0.5200``), and nothing of the mean confidence set against it;
* the "Over time" lead said ``each window runs three tests with a family-wise level of 0.99`` — read as a
  99% chance of an alert; the status text says ``three tests per window at 0.0033 each, so a calibrated,
  stationary window alerts with probability <= 0.01``;
* "3 segments ... are miscalibrated; the largest gap is -0.0501 in segment=partner" beside a plot whose
  largest gap (-0.095, not a discovery) is twice that: the largest among the discoveries;
* the comparison table's *reading* column and the ledger's *why* column ran out of the card at 1200 px.
"""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

import veracity as vc


def _section(page: str, sid: str) -> str:
    m = re.search(rf'<section id="{sid}">(.*?)</section>', page, re.S)
    assert m, f"no section {sid}"
    return m.group(1)


def _svg_texts(fragment: str) -> list[str]:
    """The legend and label strings of the inline SVG figures (matplotlib writes each as a comment)."""
    return [html.unescape(t).strip() for t in re.findall(r"<!-- (.*?) -->", fragment, re.S)]


# -- the target-recall line -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def short_of_target():
    """A threshold fit for recall 0.95 on the calib half that reaches less on the test half."""
    rng = np.random.default_rng(1)
    n = 4000
    p = rng.beta(2, 5, n)
    y = (rng.random(n) < p).astype(int)
    calib = np.arange(n) < n // 2
    t = vc.recall_threshold(p[calib], y[calib], target=0.95)
    test = ~calib
    here = float(np.mean(p[test][y[test] == 1] >= t))  # recall: caught positives over all positives
    assert here < 0.95
    return p[test], y[test], t, here


def test_recall_line_names_the_recall_it_reaches_here(short_of_target):
    pytest.importorskip("matplotlib")
    p, y, t, here = short_of_target
    fig = vc.plot_thresholds(p, y, recall_threshold=t, target_recall=0.95)
    (line,) = [ln for ln in fig.axes[0].lines if ln.get_gid() == "t_recall"]
    assert "recall ≥ 0.95" not in line.get_label()
    assert line.get_label() == f"t = {t:.3g} (target recall 0.95; {here:.3g} here)"
    # where it holds (fit on the rows drawn), the claim stays
    t_own = vc.recall_threshold(p, y, target=0.95)
    assert np.mean(p[y == 1] >= t_own) >= 0.95
    (own,) = [ln for ln in vc.plot_thresholds(p, y).axes[0].lines if ln.get_gid() == "t_recall"]
    assert own.get_label() == f"t = {t_own:.3g} (recall ≥ 0.95)"


def test_report_curves_and_explorer_say_the_same_recall(short_of_target):
    pytest.importorskip("matplotlib")
    p, y, t, here = short_of_target
    page = vc.report(p, y, recall_threshold=t, target_recall=0.95, bootstrap=False).html
    curves = html.unescape(_section(page, "curves"))
    assert "recall ≥ 0.95" not in curves
    assert f"{here:.3g} here" in curves
    data = json.loads(re.search(r'<script type="application/json" id="vc-explorer-data">(.*?)</script>',
                                page, re.S).group(1))
    assert data["recall_label"].endswith(f"(recall here {here:.3f})")  # the explorer's mark


# -- a multiclass summary -------------------------------------------------------------------------
def test_multiclass_summary_shows_mean_confidence_not_the_accuracy_twice():
    from scipy.special import softmax

    rng = np.random.default_rng(0)
    z = rng.normal(size=(600, 3)) * 2
    y = rng.integers(0, 3, 600)
    z[np.arange(600), y] += 2
    page = vc.report(z, y, score_type="logit", bootstrap=False, figures=False).html
    cards = dict(re.findall(r'<div class="card-label">([^<]*)</div><div class="card-value">([^<]*)<',
                            _section(page, "summary")))
    P = softmax(z, axis=1)
    accuracy = float(np.mean(P.argmax(axis=1) == y))
    assert list(cards.values()).count(f"{accuracy:.4f}") == 1, cards  # one accuracy card
    conf = float(P.max(axis=1).mean())  # the mean top-label confidence, from the definition
    assert cards["mean confidence"] == f"{conf:.4f}"
    summary = html.unescape(_section(page, "summary"))
    assert f"gap {accuracy - conf:+.4f}, over-confident on average" in summary


# -- the "Over time" lead -------------------------------------------------------------------------
@pytest.fixture(scope="module")
def store(tmp_path_factory):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(4)
    n = 3000
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 21 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(np.int64)
    seg = np.where(np.arange(n) % 2 == 0, "web", "app")
    store = vc.MonitorStore(tmp_path_factory.mktemp("store") / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p",
              by="seg")
    store.outcomes(pa.table({"id": np.arange(n), "y": y}), id="id", label="y")
    return store


def _lead(status) -> str:
    from veracity.reporting._store import store_section

    section = store_section(status, source="m.duckdb", plots=False)
    return html.unescape(re.search(r'<p class="lead">(.*?)</p>', section, re.S).group(1))


@pytest.mark.parametrize("by", [None, "seg"])
def test_over_time_lead_gives_each_tests_level_and_the_false_alarm_bound(store, by):
    status = store.status(freq="W", by=by)
    alpha = 1 - status.alert_level  # three tests at alpha / 3 each: a calibrated window alerts w.p. <= alpha
    lead = _lead(status)
    assert "family-wise level" not in lead
    who = "window" if by is None else "row"
    assert (f"three tests at {alpha / 3:.2g} each, so a calibrated, stationary {who} alerts with probability "
            f"at most {alpha:.2g}") in lead
    # the status text says the same numbers
    assert f"at {alpha / 3:.2g} each" in str(status) and f"probability <= {alpha:.2g}" in str(status)


def test_over_time_lead_counts_alerted_windows_not_rows(tmp_path):
    """With slices, one window can alert in (all) and in each slice: the lead counts windows (distinct
    periods), and the alerted rows beside them (before: the rows, called windows)."""
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(11)
    n = 6000
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 14 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < np.clip(p + 0.3, 0, 1)).astype(np.int64)  # every row under-confident by ~0.3
    seg = np.where(np.arange(n) % 2 == 0, "web", "app")
    store = vc.MonitorStore(tmp_path / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": seg}), id="id", time="ts", score="p",
              by="seg")
    store.outcomes(pa.table({"id": np.arange(n), "y": y}), id="id", label="y")
    status = store.status(freq="W", by="seg")
    rows = status.alert_rows
    windows = {r.period for r in rows}
    assert len(rows) > len(windows) >= 1  # the case: several alerted rows per window
    lead = _lead(status)
    plural = "s" if len(windows) != 1 else ""
    assert f"{len(windows)} window{plural} alerted ({len(rows)} rows)." in lead, lead


# -- the segments verdict -------------------------------------------------------------------------
def test_segments_verdict_names_the_largest_gap_among_the_discoveries():
    import pandas as pd

    d = pd.DataFrame(vc.load_demo())
    test = d[d["role"] == "test"]
    result = vc.segments(test, score="score", label="label", features=["segment", "month"])
    found = list(result.discoveries)
    assert found
    worst = max(found, key=lambda r: abs(r.gap))
    tested = [r for r in result.rows if r.sufficient]
    assert max(abs(r.gap) for r in tested) > abs(worst.gap)  # a larger gap that is no discovery
    page = vc.report(test, score="score", label="label", features=["segment", "month"], bootstrap=False,
                     figures=False)
    verdict = re.sub(r"<[^>]+>", "", html.unescape(_section(page.html, "segments")))
    assert f"the largest gap among them is {worst.gap:+.4f} in {worst.segment}" in verdict
    assert "the largest gap is" not in verdict


# -- the tables fit the card ----------------------------------------------------------------------
@pytest.mark.browser
def test_comparison_and_ledger_tables_fit_their_card(tabs, tmp_path):
    import pandas as pd

    from veracity.calibrators import TemperatureScaling

    d = pd.DataFrame(vc.load_demo())
    calib = d["role"] == "calib"
    temperature = TemperatureScaling(score_type="logit").fit(d.loc[calib, "logit"], d.loc[calib, "label"])
    d["p_old"] = d["score"]
    d["p_new"] = temperature.transform(d["logit"])
    test = d[d["role"] == "test"]
    questions = vc.report(test, score="p_old", label="label", against="p_new", bootstrap=False, figures=False)
    rng = np.random.default_rng(3)
    z = rng.normal(size=(900, 3)) * 3
    k = rng.integers(0, 3, 900)
    z[np.arange(900), k] += 2
    cal = TemperatureScaling(score_type="logit").fit(z[:450], k[:450])
    multi = vc.report(z[450:], k[450:], score_type="logit", calibrator=cal, bootstrap=False, figures=False)
    page = tabs.page(width=1200, height=900)
    for rep, cls in ((questions, "comparison"), (multi, "ledger")):
        path = tmp_path / f"{cls}.html"
        rep.save(path)
        page.goto(path.as_uri())
        wide = page.evaluate(f"""() => {{ const w = document.querySelector('table.{cls}').parentElement;
                               return [w.scrollWidth, w.clientWidth]; }}""")
        assert wide[0] <= wide[1], (cls, wide)
