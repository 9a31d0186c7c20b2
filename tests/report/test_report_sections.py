"""The report's question sections and issue 22's report items.

* "Where it is miscalibrated" (issue 24): ``features=`` / ``--features``: the numbers on the page are
  ``vc.segments``'s own (MCE, sigma, tested / insufficient counts, every discovery's n, mean score,
  rate, gap, interval and q-value); nothing discovered is said plainly with the tested count.
* "Which model?" (issue 25): ``against=`` / ``--against``: the numbers are ``vc.compare_models``'s
  (every paired difference, interval and p-value, CORP, the verdict sentence), with the Murphy
  diagram and the decision curve.
* Issue 22: the recall label comes from the threshold used; ``store=`` takes a path (bad path: one
  line); the explorer opens where the declared costs point, or says what it assumes; the notebook
  display is a compact preview; ``by_name=`` is a deprecated alias (the name comes from ``by=``).

Hostile feature levels and model names are escaped; the CLI refuses bad input in one line (exit 2).
"""

from __future__ import annotations

import html
import json
import re
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main
from veracity.core._compat import VeracityDeprecationWarning

from .conftest import section, table_rows

# its tests share expensive module fixtures: one worker builds them once (tests/conftest.py)
pytestmark = pytest.mark.xdist_group(__name__)

XSS = "<script>alert(1)</script>"
XSS_IMG = '<img src=x onerror="alert(2)">'


# -- helpers --------------------------------------------------------------------------------------
def card(fragment: str, key: str) -> str:
    m = re.search(rf'data-metric="{key}"><div class="card-label">[^<]*</div><div class="card-value">([^<]*)<',
                  fragment)
    assert m, key
    return m.group(1)


def explorer_data(page: str) -> dict:
    m = re.search(r'<script type="application/json" id="vc-explorer-data">(.*?)</script>', page, re.S)
    assert m, "no explorer data"
    return json.loads(m.group(1))


def sgn(x: float, d: int = 4) -> str:
    text = f"{x:+.{d}f}"
    return "+" + text[1:] if text.startswith("-") and float(text) == 0 else text


def pval(v: float) -> str:
    return f"{v:.2g}" if v < 0.001 else f"{v:.3f}"


@pytest.fixture(scope="module")
def planted():
    """Scores calibrated except in region=EU (gap +0.10) and in the interaction web ∧ young."""
    rng = np.random.default_rng(3)
    n = 12_000
    p = rng.uniform(0.05, 0.9, n)
    region = rng.choice(["EU", "US", "APAC"], n)
    channel = rng.choice(["web", "app"], n)
    age = rng.integers(18, 80, n).astype(float)
    truth = p + np.where(region == "EU", 0.10, 0.0) + np.where((channel == "web") & (age < 30), -0.12, 0.0)
    y = (rng.uniform(size=n) < truth.clip(0, 1)).astype(int)
    # a second model: the same signal, a little noisier, slightly overconfident
    logit = np.log(p / (1 - p))
    p_b = 1 / (1 + np.exp(-(1.3 * logit + rng.normal(0, 0.4, n))))
    return dict(p=p, y=y, region=region, channel=channel, age=age, p_b=p_b)


# -- where it is miscalibrated ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def seg_report(planted):
    d = planted
    feats = {"region": d["region"], "channel": d["channel"], "age": d["age"]}
    rep = vc.report(d["p"], d["y"], features=feats, bootstrap=False)
    want = vc.segments(d["p"], d["y"], features=feats)
    return rep, want


def test_segments_section_numbers_equal_vc_segments(seg_report):
    rep, want = seg_report
    assert "segments" in rep.sections
    frag = section(rep.html, "segments")
    assert card(frag, "mce") == f"{want.mce:.4f}"
    assert f"{want.mce_sigma:.2f} σ" in frag
    # the planted segments, not the whole population, set the maximum here
    assert want.mce > want.global_ecce and f"set by a segment: all rows alone give {want.global_ecce:.4f}" in frag
    assert card(frag, "n_tested") == f"{want.n_tested:,}"
    assert card(frag, "n_insufficient") == f"{want.n_segments - want.n_tested:,}"
    assert card(frag, "n_discoveries") == str(len(want.discoveries)) and len(want.discoveries) >= 2
    rows = table_rows(frag, "segments")
    assert len(rows) == len(want.discoveries)
    for got, r in zip(rows, want.discoveries):
        assert got == [r.segment, f"{r.n:,}", f"{r.conf:.4f}", f"{r.rate:.4f}", sgn(r.gap),
                       f"[{sgn(r.ci_low, 3)}, {sgn(r.ci_high, 3)}]", pval(r.p_value), pval(r.q_value),
                       f"{r.min_detectable_gap:.3f}"]
    found = [r.segment for r in want.discoveries]
    assert "region=EU" in found and any("channel=web" in s and "age=" in s for s in found)
    # the figure (drawn through plotting's dispatch) and the finding in the summary
    assert '<svg role="img" aria-label="gap per segment with its interval"' in frag
    assert rep.summary["segments"].startswith(f"{len(want.discoveries)} segments miscalibrated at FDR 0.05")


def test_segments_section_says_plainly_when_nothing_is_found():
    rng = np.random.default_rng(5)
    n = 6000
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.uniform(size=n) < p).astype(int)
    feats = {"region": rng.choice(["EU", "US"], n), "tier": rng.choice(["a", "b", "c"], n)}
    want = vc.segments(p, y, features=feats)
    assert not want.discoveries
    frag = section(vc.report(p, y, features=feats, bootstrap=False, figures=False).html, "segments")
    text = html.unescape(re.sub(r"<[^>]+>", "", frag))
    assert (f"No segment is distinguishable from calibrated at a false-discovery rate of 0.05: "
            f"{want.n_tested} segments were tested and none was discovered") in text
    assert "Closest to a discovery (not discoveries)" in text
    assert card(frag, "n_discoveries") == "0"


def test_segments_frame_form_equals_array_form(planted):
    pd = pytest.importorskip("pandas")
    d = planted
    df = pd.DataFrame({"p": d["p"], "y": d["y"], "region": d["region"], "channel": d["channel"]})
    frame = vc.report(df, score="p", label="y", features=["region", "channel"], depth=1, bootstrap=False)
    arrays = vc.report(d["p"], d["y"], features={"region": d["region"], "channel": d["channel"]}, depth=1,
                       bootstrap=False)
    assert section(frame.html, "segments") == section(arrays.html, "segments")
    # a frame of feature columns works as the array form's features too
    framed = vc.report(d["p"], d["y"], features=df[["region", "channel"]], depth=1, bootstrap=False)
    assert section(framed.html, "segments") == section(arrays.html, "segments")


def test_hostile_feature_names_and_levels_are_escaped():
    rng = np.random.default_rng(8)
    n = 4000
    p = rng.uniform(0.05, 0.95, n)
    level = rng.choice([XSS, XSS_IMG], n)
    y = (rng.uniform(size=n) < np.where(level == XSS, p + 0.15, p).clip(0, 1)).astype(int)
    rep = vc.report(p, y, features={XSS_IMG: level}, bootstrap=False)
    frag = section(rep.html, "segments")
    assert XSS not in rep.html and XSS_IMG not in rep.html and "<img" not in rep.html
    # the feature name holds '=' and '"': the segment text quotes it (JSON escapes) so it parses one way
    shown = f"{json.dumps(XSS_IMG)}={XSS}"
    assert html.escape(shown, quote=True) in frag
    assert table_rows(frag, "segments")[0][0] == shown


# -- which model -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cmp_report(planted):
    d = planted
    rep = vc.report(d["p"], d["y"], against={"challenger": d["p_b"]}, n_resamples=60)
    want = vc.compare_models({"scores": d["p"], "challenger": d["p_b"]}, d["y"], n_resamples=60, random_state=0)
    return rep, want


def test_comparison_section_numbers_equal_compare_models(cmp_report):
    rep, want = cmp_report
    assert "comparison" in rep.sections
    frag = section(rep.html, "comparison")
    rows = table_rows(frag, "comparison")
    assert len(rows) == 4
    for got, r in zip(rows, want.rows):
        assert got[1:6] == [f"{r.value_a:.4f}", f"{r.value_b:.4f}", sgn(r.diff),
                            f"[{sgn(r.ci_low)}, {sgn(r.ci_high)}]", pval(r.p_value)], r.metric
        assert got[6] == r.method
    # Brier and log loss: the slightly overconfident, noisier challenger is worse beyond noise
    assert rows[0][7] == "challenger worse" and want.row("brier").ci_low > 0
    corp = table_rows(frag, "corp")
    for got, (name, c) in zip(corp, want.corp.items()):
        assert got[:5] == [name, f"{c.brier.score:.4f}", f"{c.brier.mcb:.4f}", f"{c.brier.dsc:.4f}",
                           f"{c.brier.unc:.4f}"]
    d = want.corp_differences[0]
    assert corp[2][1:6] == [sgn(d.score), sgn(d.mcb), sgn(d.dsc), sgn(d.unc),
                            f"MCB [{sgn(d.mcb_low)}, {sgn(d.mcb_high)}] · DSC [{sgn(d.dsc_low)}, {sgn(d.dsc_high)}]"]
    assert f'<p class="verdict" data-finding="comparison">{html.escape(want.verdict)}</p>' in frag
    assert 'aria-label="Murphy diagram: mean elementary score by threshold"' in frag
    assert 'aria-label="decision curve: net benefit by threshold probability"' in frag
    assert rep.summary["comparison"] == f"challenger vs scores: {want.verdict}"


def test_comparison_frame_form_names_models_by_column(planted):
    pd = pytest.importorskip("pandas")
    d = planted
    df = pd.DataFrame({"p_old": d["p"], "p_new": d["p_b"], "y": d["y"]})
    rep = vc.report(df, score="p_old", label="y", against="p_new", bootstrap=False, figures=False)
    want = vc.compare_models(df, scores=["p_old", "p_new"], label="y", n_resamples=0)
    frag = section(rep.html, "comparison")
    assert "<th class=\"num\">p_new − p_old</th>" in frag
    assert [r[3] for r in table_rows(frag, "comparison")] == [sgn(r.diff) for r in want.rows]


def test_hostile_model_names_are_escaped(planted):
    d = planted
    rep = vc.report(d["p"][:3000], d["y"][:3000], against={XSS_IMG: d["p_b"][:3000]}, bootstrap=False)
    assert XSS_IMG not in rep.html and "<img" not in rep.html
    assert html.escape(XSS_IMG, quote=True) in section(rep.html, "comparison")


def test_a_model_named_like_a_decision_curve_strategy_is_renamed_not_refused(planted):
    # vc.decision_curve refuses a model named "all" or "none" (its curve would be the strategy's):
    # the page names the pair "p (A)" / "all (B)" instead of failing
    pytest.importorskip("matplotlib")
    d = planted
    rep = vc.report(d["p"][:2000], d["y"][:2000], against={"all": d["p_b"][:2000]}, bootstrap=False)
    assert html.escape("all (B)") in section(rep.html, "comparison")


def test_identical_models_compare_without_crashing(planted):
    d = planted
    rep = vc.report(d["p"][:2000], d["y"][:2000], against={"same": d["p"][:2000].copy()}, bootstrap=False,
                    figures=False)
    rows = table_rows(section(rep.html, "comparison"), "comparison")
    assert [r[3] for r in rows] == ["+0.0000"] * 4 and all(r[7] in ("within noise", "no interval", "same")
                                                           for r in rows)
    # one ranking: the AUC difference is exactly 0 with a zero-width interval, read "same" (session 25)
    auc = next(r for r in rows if r[0].startswith("AUC"))
    assert auc[4] == "[+0.0000, +0.0000]" and auc[7] == "same", auc


def test_logits_with_weights_compare_like_compare_models():
    rng = np.random.default_rng(6)
    n = 3000
    z = rng.normal(-1, 1.5, n)
    y = (rng.uniform(size=n) < 1 / (1 + np.exp(-z))).astype(int)
    z2 = 1.3 * z + rng.normal(0, 0.3, n)
    w = rng.uniform(0.5, 2, n)
    rep = vc.report(z, y, score_type="logit", sample_weight=w, against={"b": z2}, n_resamples=30,
                    figures=False)
    want = vc.compare_models({"scores": z, "b": z2}, y, score_type="logit", sample_weight=w, n_resamples=30,
                             random_state=0)
    rows = table_rows(section(rep.html, "comparison"), "comparison")
    # 30 resamples are too few for a 95% bootstrap interval: compare_models gives none (NaN), the page says so
    assert [r[1:6] for r in rows] == [[f"{r.value_a:.4f}", f"{r.value_b:.4f}", sgn(r.diff),
                                        f"[{sgn(r.ci_low)}, {sgn(r.ci_high)}]" if np.isfinite(r.ci_low)
                                        else "no interval", pval(r.p_value)] for r in want.rows]
    seg = vc.segments(z, y, features={"g": z > 0}, score_type="logit", sample_weight=w)
    page = vc.report(z, y, score_type="logit", sample_weight=w, features={"g": z > 0}, bootstrap=False,
                     figures=False).html
    assert card(section(page, "segments"), "mce") == f"{seg.mce:.4f}"


def test_multiclass_leaves_the_question_sections_out_with_a_note():
    rng = np.random.default_rng(7)
    P = rng.dirichlet(np.ones(3), 900)
    y = rng.integers(0, 3, 900)
    rep = vc.report(P, y, features={"g": rng.choice(["a", "b"], 900)}, against=P[::-1], bootstrap=False,
                    figures=False)
    assert "segments" not in rep.sections and "comparison" not in rep.sections
    assert "'Where it is miscalibrated' omitted: vc.segments needs binary scores" in rep.notes
    assert "'Which model?' omitted: the comparison needs binary scores" in rep.notes


def test_lazy_frames_are_refused_in_one_line(tmp_path):
    pytest.importorskip("duckdb")
    path = tmp_path / "s.csv"
    path.write_text("p,y\n0.2,0\n0.7,1\n0.4,1\n")
    with pytest.raises(vc.VeracityError, match="reads every row into memory") as exc:
        vc.report(str(path), score="p", label="y", bootstrap=False)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("kwargs, match", [
    (dict(features=["region"]), "with arrays, features= maps names to arrays"),
    (dict(features={"region": np.array(["a"] * 5)}), "feature 'region' has shape"),
    (dict(against="p_new"), "needs the frame form"),
    (dict(against={"a": np.zeros(3), "b": np.zeros(3)}), "compares one second model"),
    (dict(by="segment"), "needs the frame form"),
    (dict(depth=2), "depth= bounds the segment search: pass features= too"),
])
def test_array_form_mistakes_are_one_line(planted, kwargs, match):
    d = planted
    with pytest.raises(vc.VeracityError, match=match) as exc:
        vc.report(d["p"][:500], d["y"][:500], bootstrap=False, figures=False, **kwargs)
    assert "\n" not in str(exc.value)


def test_frame_form_missing_columns_are_one_line(planted):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"p": planted["p"][:300], "y": planted["y"][:300]})
    for kwargs in (dict(features=["regoin"]), dict(against="p_nwe"), dict(by="sgment")):
        with pytest.raises(vc.VeracityError, match="not found") as exc:
            vc.report(df, score="p", label="y", bootstrap=False, figures=False, **kwargs)
        assert "\n" not in str(exc.value)


# -- issue 22: the recall label, the store path, the explorer's start, the notebook, by_name --------
@pytest.fixture(scope="module")
def rare():
    """A 5 % base-rate model (the case where 1:1 costs put t* = 0.5 somewhere useless)."""
    rng = np.random.default_rng(21)
    n = 8000
    logit = rng.normal(-3.6, 1.4, n)
    p = 1 / (1 + np.exp(-logit))
    y = (rng.uniform(size=n) < p).astype(int)
    calib = np.arange(n) < n // 2
    return p, y, calib


def test_recall_label_comes_from_the_threshold_used(rare):
    p, y, calib = rare
    t90 = vc.recall_threshold(p[calib], y[calib], target=0.90)
    test = ~calib
    here = float(np.mean(p[test][y[test] == 1] >= t90))
    rep = vc.report(p[test], y[test], recall_threshold=t90, bootstrap=False)
    data = explorer_data(rep.html)
    assert data["t_recall"] == t90 and data["recall_target"] is None
    assert data["recall_label"] == f"given recall t → {t90:.3f} (recall here {here:.3f})"
    assert "0.95" not in data["recall_label"]
    curves = section(rep.html, "curves")
    assert "recall ≥ 0.95" not in curves and "(target recall)" in curves
    # the target is named when the caller says it
    told = explorer_data(vc.report(p[test], y[test], recall_threshold=t90, target_recall=0.9, bootstrap=False,
                                   figures=False).html)
    assert told["recall_label"] == f"recall 0.9 → {t90:.3f} (recall here {here:.3f})"
    # computed here: the default target, and what it reaches here
    own = explorer_data(vc.report(p[test], y[test], bootstrap=False, figures=False).html)
    t95 = vc.recall_threshold(p[test], y[test], target=0.95)
    assert own["recall_label"].startswith(f"recall 0.95 → {t95:.3f} (recall here ")


def test_explorer_opens_where_the_declared_costs_point(rare):
    p, y, _ = rare
    undeclared = vc.report(p, y, bootstrap=False, figures=False)
    data = explorer_data(undeclared.html)
    t95 = vc.recall_threshold(p, y, target=0.95)
    assert data["costs_declared"] is False and data["t_start"] == t95 and data["opens_at"] == "recall-target t"
    assert "no costs declared" in section(undeclared.html, "explorer-section")
    assert any(n.startswith("no costs declared: the cost readouts assume 1:1 (t* = 0.5) and the explorer opens at the "
                   f"recall-target t = {t95:.4g}") for n in undeclared.notes)
    assert "(not declared: 1:1 assumed)" in section(undeclared.html, "about")
    declared = explorer_data(vc.report(p, y, cost_fn=19, bootstrap=False, figures=False).html)
    assert declared["costs_declared"] is True and declared["t_start"] == pytest.approx(0.05)
    assert declared["cost_fp"] == 1.0 and declared["cost_fn"] == 19.0
    # no positives to set a recall target: it opens at t* and says it assumes 1:1
    none = vc.report(p, np.zeros_like(y), bootstrap=False, figures=False)
    assert explorer_data(none.html)["t_start"] == 0.5


@pytest.fixture()
def store_path(tmp_path):
    pa = pytest.importorskip("pyarrow")
    pytest.importorskip("duckdb")
    rng = np.random.default_rng(4)
    n = 600
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(np.int64)
    path = tmp_path / "m.duckdb"
    store = vc.MonitorStore(path)
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y}), id="id", label="y")
    return path, p, y


def test_store_accepts_a_path(store_path):
    path, p, y = store_path
    rep = vc.report(store=str(path), bootstrap=False, figures=False)
    assert "over-time" in rep.sections and rep.summary["n"] == p.size
    assert rep.summary["metrics"]["brier"] == pytest.approx(vc.brier(p, y), rel=1e-12)
    # with the caller's own rows, the store adds the section
    mine = vc.report(p[:100], y[:100], store=path, bootstrap=False, figures=False)
    assert "over-time" in mine.sections and mine.summary["n"] == 100
    # a MonitorStore and a StoreStatus work too
    assert "over-time" in vc.report(store=vc.MonitorStore(path), bootstrap=False, figures=False).sections
    status = vc.MonitorStore(path).status()
    assert "over-time" in vc.report(p, y, store=status, bootstrap=False, figures=False).sections


def test_bad_store_is_one_line(tmp_path):
    junk = tmp_path / "junk.duckdb"
    junk.write_text("not a database")
    for store, match in [(str(tmp_path / "missing.duckdb"), "no monitoring store at"),
                         (junk, "not a veracity monitoring store"),
                         (42, "store= takes a monitoring store's path")]:
        with pytest.raises(vc.VeracityError, match=match) as exc:
            vc.report(store=store, bootstrap=False, figures=False)
        assert "\n" not in str(exc.value)
    with pytest.raises(vc.VeracityError, match="needs scores and labels"):
        vc.report(bootstrap=False)


def test_notebook_display_is_compact_and_the_file_self_contained(planted):
    d = planted
    rep = vc.report(d["p"], d["y"], features={"region": d["region"]}, against={"b": d["p_b"]}, n_resamples=50)
    shown = rep._repr_html_()
    page = rep.html
    # before (issue 22): the whole page, escaped into an iframe's srcdoc — larger than the page itself
    assert len(html.escape(page).encode()) > rep.size > 400_000
    assert len(shown.encode()) < 100_000 < rep.size // 4
    preview = html.unescape(re.search(r'srcdoc="(.*?)"', shown, re.S).group(1))
    assert 'data-metric="ece"' in preview and "vc-explorer-data" not in preview and "<script" not in preview
    assert "Where it is miscalibrated" in preview and "Which model?" in preview
    assert rep.summary["segments"] in html.unescape(preview)
    assert 'aria-label="reliability diagram"' in preview
    # the saved file is the whole page
    assert "vc-explorer-data" in page and page.count('<svg role="img"') >= 5


def test_by_name_is_a_deprecated_alias_and_by_names_the_slices(planted):
    from veracity.core import _compat

    d = planted
    keys = d["region"][:2000]
    new = vc.report(d["p"][:2000], d["y"][:2000], by={"region": keys}, bootstrap=False, figures=False)
    assert "Slices by region" in new.html
    _compat._WARNED.discard(("report", "by_name"))
    with pytest.warns(VeracityDeprecationWarning, match=r"vc.report\(by_name=\) is deprecated"):
        old = vc.report(d["p"][:2000], d["y"][:2000], by=keys, by_name="region", bootstrap=False, figures=False)
    assert old.html == new.html
    pd = pytest.importorskip("pandas")
    series = vc.report(d["p"][:2000], d["y"][:2000], by=pd.Series(keys, name="region"), bootstrap=False,
                       figures=False)
    assert series.html == new.html
    df = pd.DataFrame({"p": d["p"][:2000], "y": d["y"][:2000], "region": keys})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        framed = vc.report(df, score="p", label="y", by="region", bootstrap=False, figures=False)
    assert framed.html == new.html
    import inspect

    assert "by_name" not in inspect.signature(vc.report).parameters


# -- CLI ---------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_models_csv(tmp_path_factory, planted):
    pd = pytest.importorskip("pandas")
    d = planted
    path = tmp_path_factory.mktemp("cli") / "two.csv"
    pd.DataFrame({"p_old": d["p"], "p_new": d["p_b"], "y": d["y"], "region": d["region"],
                  "channel": d["channel"], "age": d["age"]}).to_csv(path, index=False)
    return path


def test_cli_features_and_against(two_models_csv, tmp_path, capsys, planted):
    d = planted
    out = tmp_path / "r.html"
    code = main(["report", str(two_models_csv), "--score", "p_old", "--label", "y", "--features", "region,channel",
                 "--depth", "1", "--against", "p_new", "--n-resamples", "40", "--out", str(out), "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["sections"][:4] == ["summary", "reliability", "segments", "comparison"]
    page = out.read_text(encoding="utf-8")
    seg = vc.segments(d["p"], d["y"], features={"region": d["region"], "channel": d["channel"]}, depth=1)
    assert card(section(page, "segments"), "mce") == f"{seg.mce:.4f}"
    cmp = vc.compare_models({"p_old": d["p"], "p_new": d["p_b"]}, d["y"], n_resamples=40, random_state=0)
    rows = table_rows(section(page, "comparison"), "comparison")
    assert [r[3] for r in rows] == [sgn(r.diff) for r in cmp.rows]
    assert [r[4] for r in rows] == [f"[{sgn(r.ci_low)}, {sgn(r.ci_high)}]" for r in cmp.rows]
    assert payload["summary"]["comparison"] == f"p_new vs p_old: {cmp.verdict}"


@pytest.mark.parametrize("argv, match", [
    (["--features", "region,regoin"], r"column 'regoin' not found in .*two\.csv \(did you mean 'region'\?\); available columns: p_old"),
    (["--features", "region,region"], "--features names a column twice"),
    (["--depth", "2"], "--depth needs --features"),
    (["--features", "region", "--depth", "3"], "--depth 3 needs at least 3 features"),
    (["--against", "p_nwe"], "column 'p_nwe' not found"),
    (["--against", "region"], "column 'region' must be numeric scores"),
    (["--against", "p_new,p_old"], "--against names one score column"),
    (["--against", "p_old"], "is the --score column itself"),
])
def test_cli_bad_input_is_one_line(two_models_csv, tmp_path, capsys, argv, match):
    out = tmp_path / "r.html"
    code = main(["report", str(two_models_csv), "--score", "p_old", "--label", "y", "--no-bootstrap", *argv,
                 "--out", str(out)])
    assert code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and err.startswith("veracity report: input error: ")
    assert re.search(match, err), err
    assert not out.exists()


def test_segments_section_shows_an_infinite_mce_and_a_vanishing_p_value_as_such():
    """Certain scores (0 or 1) contradicted by labels: the text result says MCE inf with a note;
    the page said "n/a" for the MCE and its sigma, and printed a p-value of 0 as "0"."""
    rng = np.random.default_rng(0)
    n = 2000
    group = np.where(rng.random(n) < 0.5, "a", "b")
    p = np.where(rng.random(n) < 0.5, 0.0, 1.0)
    y = (p == 1.0).astype(int)
    y[:3] = 1 - y[:3]  # three certain scores that their labels contradict
    rep = vc.report(p, y, features={"group": group}, bootstrap=False)
    seg = rep.html.split('data-metric="mce"', 1)[1].split("</div></div>", 1)[0]
    assert "∞" in seg and "n/a" not in seg
    # p and q of the contradicted segment: an exact 0 (a certain score its label contradicts), printed as the
    # text table prints it (session 27), not as an underflow "<1e-300"
    assert '<td class="num">0</td>' in rep.html and "&lt;1e-300" not in rep.html
