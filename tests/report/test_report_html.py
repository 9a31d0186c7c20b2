"""vc.report / `veracity report`: content, escaping, determinism, size, aggregates, bad input."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators import TemperatureScaling
from veracity.cli import main

# its tests share expensive module fixtures: one worker builds them once (tests/conftest.py)
pytestmark = pytest.mark.xdist_group(__name__)

XSS = "<script>alert(1)</script>"
XSS_IMG = '<img src=x onerror="alert(2)">'


def explorer_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="vc-explorer-data">(.*?)</script>', page, re.S)
    assert m, "no explorer data"
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def demo():
    return vc.load_demo()


@pytest.fixture(scope="module")
def full(demo):
    """A report with every section: calibrator, slices, explorer."""
    calib = demo["role"] == "calib"
    test = ~calib
    cal = TemperatureScaling(score_type="logit").fit(
        demo["logit"][calib], demo["label"][calib],
        metadata={"model_revision": f"rev {XSS}", "cohort": XSS, "fit_window": "2026-01..2026-06"})
    kwargs = dict(score_type="logit", calibrator=cal, by={"segment": demo["segment"][test]},
                  cost_fp=1.0, cost_fn=9.0, source="demo.csv", details={"model": "v3"}, n_resamples=100)
    first = vc.report(demo["logit"][test], demo["label"][test], **kwargs)
    second = vc.report(demo["logit"][test], demo["label"][test], **kwargs)
    return first, second, cal, demo["logit"][test], demo["label"][test]


def test_sections(full):
    rep = full[0]
    assert rep.sections == ("summary", "reliability", "calibration", "explorer", "curves", "slices", "about")
    page = rep.html
    for sid in ("summary", "reliability", "calibration", "explorer-section", "curves", "slices", "about"):
        assert f'<section id="{sid}">' in page
    # reliability diagram, before/after, curves and slices as inline SVG (no image files)
    assert page.count('<svg role="img"') == 5
    assert "<img" not in page


def test_summary_numbers_equal_audit(full):
    rep, _, _, s, y = full
    result = vc.audit(s, y, score_type="logit")
    page = rep.html
    for key, value in [("ece", result.ece), ("brier", result.brier), ("nll", result.nll), ("auc", result.auc),
                       ("accuracy", result.accuracy), ("base_rate", result.base_rate)]:
        m = re.search(rf'data-metric="{key}"><div class="card-label">[^<]*</div><div class="card-value">([^<]*)<', page)
        assert m and m.group(1) == f"{value:.4f}", key
    assert f"reliability {result.decomposition.reliability:.4f}" in page


def test_summary_shows_bootstrap_interval_and_noise_floor(full):
    rep, _, _, s, y = full
    result = vc.audit(s, y, score_type="logit", bootstrap=True, noise_floor=True, random_state=0, n_resamples=100)
    ece = result.extras["intervals"].to_dict()["intervals"]["ece"]
    # the ECE row's own method (bias-aware: the plug-in bias it allows for named), not the section's bca
    m = re.search(r'<span data-ece-interval title="bootstrap \(bias-aware\), 100 resamples; plug-in bias up to '
                  r'[0-9.]+ allowed for">95% CI \[([0-9.]+), ([0-9.]+)\]</span>', rep.html)
    assert m and (m.group(1), m.group(2)) == (f"{ece['low']:.4f}", f"{ece['high']:.4f}")
    floor = result.extras["noise_floor"]
    assert f"noise floor {floor.expected:.4f}" in rep.html


def test_full_reliability_table(full):
    rep, _, _, s, y = full
    table = vc.reliability(s, y, score_type="logit")
    page = rep.html
    body = page[page.index('<table class="reliability">'):]
    body = body[: body.index("</table>")]
    assert body.count("<tr") == len(table.rows) + 1
    for r in table.rows:
        assert f"[{r.ci_low:.3f}, {r.ci_high:.3f}]" in body
        assert f"{r.gap:+.4f}" in body


def test_ledger_and_metadata(full):
    rep, _, cal, s, y = full
    ledger = vc.compare(s, y, cal) if hasattr(vc, "compare") else __import__(
        "veracity.calibrators", fromlist=["compare"]).compare(s, y, cal)
    page = rep.html
    for row in ledger.rows:
        assert f"<strong>{html.escape(row.metric)}</strong>" in page
        assert f"{row.before:.4f}" in page and f"{row.after:.4f}" in page
        # the report's verdict is the ledger's own (noise-aware), with its paired interval
        cells = page[page.index(f"<strong>{html.escape(row.metric)}</strong>"):]
        cells = cells[: cells.index("</tr>")]
        assert html.escape(row.verdict) in cells and html.escape(row.interval_text()) in cells
        if not row.regression and row.worse:
            assert ">better<" not in cells
    assert f"{cal.temperature_:.6g}" in page or str(cal.temperature_) in page
    assert "2026-01..2026-06" in page


def test_user_strings_are_escaped():
    rng = np.random.default_rng(1)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    cohort = np.where(np.arange(400) % 2 == 0, XSS, "x$^$y")  # '$' is not mathtext
    rep = vc.report(p, y, by={XSS_IMG: cohort}, title=XSS, source=XSS_IMG, details={XSS: XSS_IMG},
                    bootstrap=False)
    page = rep.html
    assert XSS not in page and XSS_IMG not in page
    assert not re.search(r"<img\b", page) and "<script>alert" not in page
    assert html.escape(XSS) in page and html.escape(XSS_IMG) in page
    # title of its slice panel, literally (the long column name XSS_IMG is dropped to fit: "x$^$y" alone)
    assert ">x$^$y</text>" in page
    # exactly one executable script block (the explorer) and one JSON data block
    assert len(re.findall(r"<script>", page)) == 1
    assert len(re.findall(r"<script\b", page)) == 2


def test_json_block_cannot_close_the_script():
    from veracity.reporting._html import _json_script

    text = _json_script({"k": "</script><script>alert(1)</script>&"})
    assert "<" not in text and ">" not in text and "&" not in text
    assert json.loads(text) == {"k": "</script><script>alert(1)</script>&"}


def test_deterministic_without_timestamp(full):
    first, second = full[0], full[1]
    assert first.html == second.html
    assert "generated" not in first.html


def test_timestamp_only_when_asked():
    rep = vc.report([.1, .4, .6, .9], [0, 0, 1, 1], min_count=1, timestamp="2026-11-30 06:00 UTC")
    assert re.search(r"<td[^>]*>generated</td><td[^>]*>2026-11-30 06:00 UTC</td>", rep.html)


def test_self_contained(full):
    page = full[0].html
    assert "Content-Security-Policy" in page and "default-src 'none'" in page
    assert not re.search(r"<(link|iframe|object|embed|img)\b", page)
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", page)
    assert "@import" not in page and not re.search(r"url\(\s*['\"]?(https?:|//)", page)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("max_cuts", [4000, 150])
def test_explorer_counts_equal_threshold_table(weighted, max_cuts):
    rng = np.random.default_rng(7)
    p = np.round(rng.beta(2, 5, 3000), 3)  # ties
    y = (rng.uniform(size=p.size) < p).astype(int)
    w = rng.uniform(0.5, 2.0, p.size) if weighted else None
    rep = vc.report(p, y, sample_weight=w, cost_fp=1, cost_fn=4, max_cuts=max_cuts, bootstrap=False, figures=False)
    data = explorer_data(rep.html)
    t = np.array(data["thresholds"])
    assert data["exact"] == (np.unique(p).size <= max_cuts)
    table = vc.threshold_table(p, y, t, sample_weight=w, cost_fp=1, cost_fn=4)
    np.testing.assert_allclose(data["tp"], table.tp, rtol=1e-12)
    np.testing.assert_allclose(data["fp"], table.fp, rtol=1e-12)
    assert data["positives"] == pytest.approx(table.positives)
    assert data["t_star"] == 0.2 and 0.2 in data["thresholds"]
    assert data["t_recall"] == vc.recall_threshold(p, y, target=0.95, sample_weight=w)
    assert data["t_recall"] in data["thresholds"]


def test_million_rows_stays_small():
    rng = np.random.default_rng(0)
    n = 1_000_000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p ** 1.3).astype(np.int8)
    rep = vc.report(p, y, by=rng.integers(0, 4, n), bootstrap=False)
    assert rep.size < 2_000_000
    data = explorer_data(rep.html)
    assert len(data["thresholds"]) <= 4000 // 2 + 1001 + 4  # aggregates, not rows
    assert data["positives"] + data["negatives"] == n


def test_many_slices_are_capped():
    from veracity.reporting._sections import MAX_SLICES

    rng = np.random.default_rng(4)
    n = 6000
    p = rng.uniform(size=n)
    y = (rng.uniform(size=n) < p).astype(int)
    keys = np.where(np.arange(n) < 3000, "big", np.arange(n).astype(str))  # 3,001 slices
    # issue 13: only the slices shown are computed; the smallest are pooled as "(other ...)"
    page = vc.report(p, y, by=keys, bootstrap=False, figures=False).html
    assert page.count('<span class="key">') == MAX_SLICES
    assert '<span class="key">big</span>' in page
    assert f'<span class="key">(other {3001 - MAX_SLICES + 1:,} values)</span>' in page
    page = vc.report(p, y, by=keys, bootstrap=False, figures=False, max_groups=None).html
    assert page.count('<span class="key">') == MAX_SLICES
    assert f"{3001 - MAX_SLICES:,} smaller slices are not listed" in page


def test_recall_threshold_given_is_used():
    p = np.linspace(0.01, 0.99, 200)
    y = (np.arange(200) % 3 == 0).astype(int)
    data = explorer_data(vc.report(p, y, recall_threshold=0.4321, bootstrap=False, figures=False).html)
    assert data["t_recall"] == 0.4321 and 0.4321 in data["thresholds"]


def test_multiclass_report():
    rng = np.random.default_rng(0)
    z = rng.normal(size=(600, 3)) * 2
    y = rng.integers(0, 3, 600)
    z[np.arange(600), y] += 2
    rep = vc.report(z, y, score_type="logit", bootstrap=False)
    assert "explorer" not in rep.sections and "vc-explorer-data" not in rep.html
    assert any("explorer omitted" in n for n in rep.notes)
    assert 'aria-label="per-class reliability"' in rep.html
    assert "curves" in rep.sections and 'aria-label="risk-coverage curve"' in rep.html


def test_report_object(tmp_path):
    rep = vc.report([.1, .4, .6, .9], [0, 0, 1, 1], min_count=1, out=tmp_path / "r.html")
    assert (tmp_path / "r.html").read_text(encoding="utf-8") == rep.html
    assert rep.to_dict()["bytes"] == rep.size == len(rep.html.encode())
    assert str(rep).startswith("Calibration report:")
    assert "<html" not in repr(rep) and repr(rep) == str(rep)  # a REPL does not print the page
    json.dumps(rep.to_dict())


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(cost_fp=-1.0), "costs must be non-negative"),
        (dict(cost_fp=0.0, cost_fn=0.0), "not both 0"),
        (dict(target_recall=1.5), r"target_recall must be in \(0, 1\)"),
        (dict(recall_threshold=3.0), "recall_threshold must be a probability threshold"),
        (dict(bins=0), "bins must be a positive integer"),
    ],
)
def test_report_bad_options(kwargs, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.report([.1, .4, .6, .9], [0, 0, 1, 1], **kwargs)


def test_report_calibrator_score_type_mismatch(full):
    cal = full[2]
    with pytest.raises(vc.VeracityError, match="the calibrator takes logit scores .* pass score_type='logit'"):
        vc.report([.1, .4, .6, .9], [0, 0, 1, 1], calibrator=cal)


# -- command line ---------------------------------------------------------------------------------
def test_cli_writes_report(tmp_path, capsys):
    out = tmp_path / "report.html"
    code = main(["report", "--score", "logit", "--score-type", "logit", "--by", "segment", "--cost-fn", "9",
                 "--detail", "model=v3", "--resamples", "50", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"wrote {out}")
    page = out.read_text(encoding="utf-8")
    assert "role = test" in page and "<strong>partner</strong>" not in page
    assert '<span class="key">partner</span>' in page
    data = explorer_data(page)
    d = vc.load_demo()
    calib = d["role"] == "calib"
    # the explorer shows the test rows; the recall target was chosen on the calib rows
    assert data["positives"] == int(d["label"][~calib].sum())
    p_calib = 1 / (1 + np.exp(-d["logit"][calib]))
    assert data["t_recall"] == pytest.approx(vc.recall_threshold(p_calib, d["label"][calib], target=0.95))


def test_cli_with_calibrator(tmp_path, capsys):
    d = vc.load_demo()
    calib = d["role"] == "calib"
    cal_path = tmp_path / "cal.json"
    TemperatureScaling(score_type="logit").fit(d["logit"][calib], d["label"][calib]).save(cal_path)
    out = tmp_path / "r.html"
    assert main(["report", "--score", "logit", "--score-type", "logit", "--calibrator", str(cal_path),
                 "--no-ci", "--out", str(out)]) == 0
    assert "calibration" in capsys.readouterr().out
    assert "Before / after ledger" in out.read_text(encoding="utf-8")


@pytest.fixture()
def csv_without_label(tmp_path):
    path = tmp_path / "nolabel.csv"
    path.write_text("score,segment\n0.1,a\n0.7,b\n0.4,a\n")
    return path


@pytest.mark.parametrize(
    "argv,match",
    [
        (["{nolabel}"], "column 'label' not found"),
        (["--by", "nope"], "column 'nope' not found"),
        (["--role-col", "segment"], "no rows with segment == 'calib'"),
        (["--detail", "oops"], "--detail must look like KEY=VALUE"),
        (["--cost-fp", "-2"], "costs must be non-negative"),
        (["--score", "logit"], "probabilities in \\[0, 1\\].*--score-type logit"),
        (["--calibrator", "{cal}"], "the calibrator takes logit scores .* pass --score-type logit with"),
        (["--calibrator", "missing.json"], "calibrator file not found"),
    ],
)
def test_cli_bad_input(argv, match, csv_without_label, tmp_path, capsys):
    cal = tmp_path / "cal.json"
    if "{cal}" in argv:
        TemperatureScaling(score_type="logit").fit([-2.0, -1.0, 0.5, 2.0], [0, 1, 0, 1]).save(cal)
    argv = [a.format(nolabel=csv_without_label, cal=cal) for a in argv]
    out = tmp_path / "r.html"
    assert main(["report", *argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("veracity report: input error: ")
    assert re.search(match, err)
    assert not out.exists()


def test_many_classes_show_the_worst_classes_and_say_so():
    # with more than 11 classes the page drew classes 0..10 and said nothing of the rest, so a badly
    # calibrated class 12 was never seen: now the worst classes by one-vs-rest ECE, named in a note
    pytest.importorskip("matplotlib")
    rng = np.random.default_rng(3)
    alpha = np.ones(14)
    alpha[12] = 6.0  # class 12 gets much probability ...
    P = rng.dirichlet(alpha, size=700)
    y = np.array([rng.choice(14, p=np.r_[r[:12], 0.0, r[13:]] / (1 - r[12])) for r in P])  # ... never the label
    per_class = [vc.ece(P[:, k], (y == k).astype(int)) for k in range(14)]
    worst = [int(k) for k in np.argsort(-np.array(per_class), kind="stable")[:11]]
    assert worst[0] == 12
    page = vc.report(P, y).html
    note = re.search(r'<p class="note">The 11 of 14 classes with the largest one-vs-rest ECE, worst first '
                     r'\(classes ([0-9, ]+)\)', page)
    assert note is not None and [int(c) for c in note.group(1).split(", ")] == worst
    few = vc.report(P[:, :4] / P[:, :4].sum(1, keepdims=True), np.minimum(y, 3)).html
    assert '<p class="note">One panel per class, that class against the rest.</p>' in few


def test_multiclass_auc_card_does_not_claim_calibration_leaves_it_unchanged():
    # the top-label AUC of (N, K) scores moves with temperature (0.730, 0.734, 0.727 at T = 0.5, 1, 3
    # here), so the binary card's "unchanged by monotone calibration" was false for it
    from scipy.special import softmax

    rng = np.random.default_rng(0)
    Z = 2 * rng.normal(size=(2000, 4))
    y = (Z + rng.gumbel(size=Z.shape)).argmax(1)
    assert len({round(vc.auc(softmax(Z / T, axis=1), y), 6) for T in (0.5, 1, 3)}) == 3
    page = vc.report(softmax(Z, axis=1), y, figures=False).html
    assert "unchanged by monotone calibration" not in page
    assert "right answers ranked above wrong ones (a calibrator can change it)" in page
    binary = vc.report(softmax(Z, axis=1)[:, 0], (y == 0).astype(int), figures=False).html
    assert "ranking; unchanged by monotone calibration" in binary


def test_saving_to_a_missing_folder_or_a_directory_is_one_line(tmp_path):
    # a missing folder raised FileNotFoundError naming the temporary file ('.r.html.6tetnvs2.tmp')
    rep = vc.report([0.2, 0.8, 0.4, 0.6], [0, 1, 0, 1], figures=False, bootstrap=False)
    with pytest.raises(vc.VeracityError, match="the folder .*missing does not exist; create it first"):
        rep.save(tmp_path / "missing" / "r.html")
    with pytest.raises(vc.VeracityError, match="is a directory; pass a file name"):
        rep.save(tmp_path)
