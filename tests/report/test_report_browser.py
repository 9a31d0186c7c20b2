"""The report in headless Chromium (Debian's /usr/bin/chromium via Playwright): it loads with no
console errors and no network requests, the slider shows vc.threshold_table's counts, and
user-supplied strings render as text."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pytestmark = pytest.mark.browser

XSS = "<script>alert(1)</script>"
XSS_IMG = '<img src="https://example.invalid/x.png" onerror="alert(2)">'


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(11)
    n = 2500
    p = np.round(rng.beta(2, 4, n), 3)  # ties: ~ 900 distinct scores
    y = (rng.uniform(size=n) < p).astype(int)
    cohort = np.where(np.arange(n) % 3 == 0, XSS, np.where(np.arange(n) % 3 == 1, XSS_IMG, "web"))
    return p, y, cohort


def open_page(tabs, tmp_path, rep, name="report.html"):
    """Load the page in a tab lent to the test (tests/report/conftest.py); collect console errors, page
    errors, dialogs and every request."""
    path = tmp_path / name
    rep.save(path)
    page = tabs.page(width=1280, height=900)
    seen = {"errors": [], "requests": [], "dialogs": []}
    tabs.on(page, "console", lambda m: seen["errors"].append(m.text) if m.type == "error" else None)
    tabs.on(page, "pageerror", lambda e: seen["errors"].append(str(e)))
    tabs.on(page, "request", lambda r: seen["requests"].append(r.url))
    tabs.on(page, "dialog", lambda d: (seen["dialogs"].append(d.message), d.dismiss()))
    url = path.as_uri()
    page.goto(url)
    page.wait_for_selector('#explorer[data-ready="1"]', timeout=10_000)
    page.wait_for_load_state("networkidle")
    seen["requests"] = [u for u in seen["requests"] if u != url]
    return page, seen


SHOWN = [("threshold", "ex-t"), ("tp", "ex-tp"), ("fp", "ex-fp"), ("fn", "ex-fn"), ("tn", "ex-tn"),
         ("recall", "ex-recall"), ("false_alarm_rate", "ex-far"), ("precision", "ex-precision"),
         ("alerts", "ex-alerts"), ("cost", "ex-cost"), ("cost_per_1000", "ex-cost1000")]


def shown(page):
    """Numbers the explorer shows, from the data-value attributes beside the text (every element read in
    one round trip: its ``data-value`` attribute and its ``textContent``)."""
    read = page.evaluate("""ids => ids.map(id => {
        const el = document.getElementById(id);
        if (el === null) throw new Error(`no element #${id}`);
        return [el.getAttribute("data-value"), el.textContent];
    })""", [el for _, el in SHOWN])
    out = {}
    for (key, _), (value, text) in zip(SHOWN, read):
        out[key] = float(value) if value else float("nan")
        out[key + "_text"] = text
    return out


def assert_matches_table(page, p, y, *, cost_fp, cost_fn, w=None):
    s = shown(page)
    table = vc.threshold_table(p, y, [s["threshold"]], cost_fp=cost_fp, cost_fn=cost_fn, sample_weight=w)
    row = table.rows[0]
    for key in ("tp", "fp", "fn", "tn", "alerts"):
        assert s[key] == pytest.approx(getattr(row, key), rel=1e-12, abs=1e-9), key
    if w is None:
        assert s["tp_text"].replace(",", "") == str(int(row.tp))
        assert s["fp_text"].replace(",", "") == str(int(row.fp))
    for key in ("recall", "false_alarm_rate", "precision", "cost", "cost_per_1000"):
        assert s[key] == pytest.approx(getattr(row, key), rel=1e-9, abs=1e-12, nan_ok=True), key
    assert s["recall_text"] == f"{row.recall:.4f}"
    assert s["precision_text"] == ("n/a" if np.isnan(row.precision) else f"{row.precision:.4f}")
    return s


def test_loads_offline_without_errors_and_escapes(tabs, tmp_path, data):
    p, y, cohort = data
    rep = vc.report(p, y, by={XSS_IMG: cohort}, title=XSS, source=XSS_IMG, details={"model": XSS},
                    cost_fn=4, bootstrap=False)
    page, seen = open_page(tabs, tmp_path, rep)
    assert seen["errors"] == []
    assert seen["requests"] == []
    assert seen["dialogs"] == []
    # the strings render as text, not as elements
    assert page.title() == XSS
    assert page.text_content("h1") == XSS
    keys = page.locator("table.slices .key").all_text_contents()
    assert XSS in keys and XSS_IMG in keys
    assert page.locator("main img").count() == 0
    assert page.locator("script").count() == 2  # the explorer and its JSON data, nothing injected
    for sid in ("summary", "reliability", "explorer-section", "curves", "slices", "about"):
        assert page.locator(f"section#{sid}").is_visible()
    assert page.locator("svg.plot").count() == 4


def test_slider_counts_equal_threshold_table(tabs, tmp_path, data):
    p, y, _ = data
    rep = vc.report(p, y, cost_fp=1, cost_fn=4, bootstrap=False, figures=False)
    page, seen = open_page(tabs, tmp_path, rep)
    # starts at t* = c_FP / (c_FP + c_FN)
    assert assert_matches_table(page, p, y, cost_fp=1, cost_fn=4)["threshold"] == 0.2
    # drag with the keyboard: each arrow press moves the slider one step
    page.focus("#ex-slider")
    for _ in range(137):
        page.keyboard.press("ArrowRight")
    s = assert_matches_table(page, p, y, cost_fp=1, cost_fn=4)
    assert s["threshold"] == pytest.approx(0.337)
    before = s["tp"]
    # set the slider directly to a few positions
    for value in ("0", "0.05", "0.4321", "0.999", "1"):
        page.fill("#ex-slider", value)
        s = assert_matches_table(page, p, y, cost_fp=1, cost_fn=4)
    assert s["tp"] != before
    # typed threshold, between two distinct scores
    page.fill("#ex-tinput", "0.2505")
    page.dispatch_event("#ex-tinput", "change")
    assert assert_matches_table(page, p, y, cost_fp=1, cost_fn=4)["threshold"] == 0.2505
    # editing the costs re-prices the same counts and moves t*
    page.fill("#ex-cfp", "2")
    page.fill("#ex-cfn", "3")
    assert_matches_table(page, p, y, cost_fp=2, cost_fn=3)
    page.click("#ex-go-star")
    assert assert_matches_table(page, p, y, cost_fp=2, cost_fn=3)["threshold"] == pytest.approx(0.4)
    # the target-recall threshold button lands on vc.recall_threshold
    page.click("#ex-go-recall")
    s = assert_matches_table(page, p, y, cost_fp=2, cost_fn=3)
    assert s["threshold"] == vc.recall_threshold(p, y, target=0.95)
    assert s["recall"] >= 0.95
    # lowest cost here is the minimum of threshold_table's cost over the cut points
    page.click("#ex-go-best")
    s = assert_matches_table(page, p, y, cost_fp=2, cost_fn=3)
    grid = np.unique(np.r_[p, 0.0, 1.0, 0.2, vc.recall_threshold(p, y, target=0.95)])
    assert s["cost"] == pytest.approx(vc.threshold_table(p, y, grid, cost_fp=2, cost_fn=3).cost.min())
    marks = page.locator("#ex-marks .mark").all_text_contents()
    t_r = vc.recall_threshold(p, y, target=0.95)
    here = float(np.mean(p[y == 1] >= t_r))  # the label says the recall the threshold reaches here
    assert "t* = 0.400" in marks and f"recall 0.95 → {t_r:.3f} (recall here {here:.3f})" in marks
    assert seen["errors"] == [] and seen["requests"] == []


def test_slider_on_compressed_grid_with_weights(tabs, tmp_path):
    rng = np.random.default_rng(5)
    p = rng.uniform(size=5000)  # 5,000 distinct scores > max_cuts: the page keeps a grid
    y = (rng.uniform(size=p.size) < p ** 1.5).astype(int)
    w = rng.uniform(0.2, 3.0, p.size)
    rep = vc.report(p, y, sample_weight=w, max_cuts=300, cost_fp=1, cost_fn=2, bootstrap=False, figures=False)
    page, seen = open_page(tabs, tmp_path, rep)
    for value in ("0.123", "0.5", "0.877"):
        page.fill("#ex-slider", value)
        s = assert_matches_table(page, p, y, cost_fp=1, cost_fn=2, w=w)
        assert s["threshold"] == float(value)  # the 0.001 grid is always a cut point
    page.fill("#ex-tinput", "0.12345")
    page.dispatch_event("#ex-tinput", "change")
    s = assert_matches_table(page, p, y, cost_fp=1, cost_fn=2, w=w)
    assert 0.12345 <= s["threshold"] <= 0.124  # snapped up to the next cut point
    assert seen["errors"] == [] and seen["requests"] == []


def _single_class():
    rng = np.random.default_rng(2)
    return vc.report(rng.uniform(size=300), np.zeros(300), bootstrap=False)


def _multiclass_with_calibrator():
    from veracity.calibrators import TemperatureScaling

    rng = np.random.default_rng(3)
    z = rng.normal(size=(900, 3)) * 3
    k = rng.integers(0, 3, 900)
    z[np.arange(900), k] += 2
    cal = TemperatureScaling(score_type="logit").fit(z[:450], k[:450])
    return vc.report(z[450:], k[450:], score_type="logit", calibrator=cal, bootstrap=False)


@pytest.mark.parametrize("build", [_single_class, _multiclass_with_calibrator], ids=["single-class", "multiclass"])
def test_other_pages_load_cleanly(tabs, tmp_path, build):
    rep = build()
    path = tmp_path / "report.html"
    rep.save(path)
    page = tabs.page()
    errors, requests = [], []
    tabs.on(page, "console", lambda m: errors.append(m.text) if m.type == "error" else None)
    tabs.on(page, "pageerror", lambda e: errors.append(str(e)))
    tabs.on(page, "request", lambda r: requests.append(r.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("networkidle")
    assert errors == [] and requests == [path.as_uri()]
    if "explorer" in rep.sections:
        page.wait_for_selector('#explorer[data-ready="1"]')
        page.fill("#ex-slider", "0.5")
        assert page.text_content("#ex-recall") == "n/a"  # no positives: recall undefined
        assert page.text_content("#ex-tp") == "0"
    assert errors == []


def test_question_sections_render_and_the_explorer_opens_at_the_recall_target(tabs, tmp_path, data):
    """'Where it is miscalibrated' and 'Which model?' load with no error and no request; hostile names
    are text; with no costs declared the slider starts at the recall-target threshold, and with costs
    at the t* they imply."""
    p, y, cohort = data
    rng = np.random.default_rng(2)
    other = np.clip(p + rng.normal(0, 0.05, p.size), 0.001, 0.999)
    rep = vc.report(p, y, features={XSS: cohort}, against={XSS_IMG: other}, n_resamples=30)
    page, seen = open_page(tabs, tmp_path, rep)
    assert seen["errors"] == [] and seen["requests"] == [] and seen["dialogs"] == []
    for sid in ("segments", "comparison"):
        assert page.locator(f"section#{sid}").is_visible()
    assert page.locator("section#segments svg.plot").count() == 1
    assert page.locator("section#comparison svg.plot").count() == 2
    assert XSS in page.text_content("section#segments") and XSS_IMG in page.text_content("section#comparison")
    assert page.locator("main img").count() == 0 and page.locator("script").count() == 2
    t_r = vc.recall_threshold(p, y, target=0.95)
    assert shown(page)["threshold"] == t_r
    assert page.locator("#ex-assumed").is_visible()
    rep = vc.report(p, y, cost_fn=4, bootstrap=False, figures=False)
    page, _ = open_page(tabs, tmp_path, rep)
    assert shown(page)["threshold"] == 0.2 and page.locator("#ex-assumed").count() == 0
