"""Every public result: readable repr, valid escaped HTML, to_frame round trip, plot (issue 14)."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

import veracity as vc

N = 600
_rng = np.random.default_rng(7)
P = _rng.uniform(size=N)
Y = (_rng.uniform(size=N) < P ** 1.4).astype(int)
SEG = np.where(_rng.uniform(size=N) < 0.5, "<b>bold</b>", "a&b")
T = _rng.integers(0, 4, size=N)
EVIL = '<script>alert("x")</script>'


def _results():
    return {
        "audit": lambda: vc.audit(P, Y, by=SEG),
        "reliability": lambda: vc.reliability(P, Y),
        "brier_decomposition": lambda: vc.brier_decomposition(P, Y),
        "ledger": lambda: vc.compare(P, Y, vc.PlattScaling().fit(P, Y)),
        "threshold_table": lambda: vc.threshold_table(P, Y, [0.1, 0.3, 0.5, 0.7, 0.9]),
        "risk_coverage": lambda: vc.risk_coverage(P, Y),
        "selective": lambda: vc.selective_threshold(P, Y, target_risk=0.3),
        "coverage_law": lambda: vc.conformal_coverage_law(1000, 0.1),
        "bootstrap": lambda: vc.bootstrap_intervals(P, Y, n_resamples=30),
        "slope": lambda: vc.calibration_slope(P, Y),
        "tests": lambda: vc.calibration_tests(P, Y),
        "estimates": lambda: vc.ece_estimates(P, Y),
        "noise_floor": lambda: vc.ece_noise_floor(P, Y, n_resamples=30),
        "corp": lambda: vc.corp(P, Y),
        "spiegelhalter": lambda: vc.spiegelhalter(P, Y),
        "hosmer_lemeshow": lambda: vc.hosmer_lemeshow(P, Y),
        "monitor": lambda: vc.monitor(P, Y, np.array([f"{EVIL}{t}" for t in T]), min_count=50),
        "prior": lambda: vc.estimate_prior(P, 0.4),
        "redraws": lambda: vc.simulate_redraws(P, Y, n_calib=200, n_resamples=20),
    }


RESULTS = _results()
#: the result types that have a picture
PICTURES = {"audit", "reliability", "ledger", "threshold_table", "risk_coverage", "monitor"}


class _Checker(HTMLParser):
    """Parses the fragment, checks tags balance and collects text and tag names."""

    VOID = {"br", "hr", "img", "meta", "input", "col", "wbr"}

    def __init__(self):
        super().__init__()
        self.stack: list[str] = []
        self.tags: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, f"</{tag}> closes {self.stack[-1:]}"
        self.stack.pop()

    def handle_data(self, data):
        self.text.append(data)


def _parse(fragment: str) -> _Checker:
    c = _Checker()
    c.feed(fragment)
    c.close()
    assert c.stack == [], f"unclosed tags {c.stack}"
    return c


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_repr_is_the_readable_text(name):
    r = RESULTS[name]()
    assert repr(r) == str(r)
    assert not repr(r).startswith(type(r).__name__ + "(")


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_repr_html_is_valid_and_self_contained(name):
    r = RESULTS[name]()
    page = r._repr_html_()
    checked = _parse(page)
    assert "table" in checked.tags or name in ("coverage_law",)
    assert "http" not in page and "<link" not in page and "src=" not in page  # no external assets


def test_html_escapes_user_strings():
    audit = RESULTS["audit"]()
    page = audit._repr_html_()
    assert "<b>bold</b>" not in page and "&lt;b&gt;bold&lt;/b&gt;" in page
    mon = RESULTS["monitor"]()
    page = mon._repr_html_()
    assert "<script>" not in page
    checked = _parse(page)
    assert "script" not in checked.tags
    assert any(EVIL in t for t in checked.text)  # shown literally


def test_html_flags_and_intervals_visible():
    table = vc.reliability(P, Y, bins=15, min_count=50)
    page = table._repr_html_()
    insufficient = sum(not r.sufficient for r in table.rows)
    assert insufficient > 0
    assert page.count("<tr class=vc-flag>") == insufficient
    r = table.rows[0]
    assert f"[{r.ci_low:.4f}, {r.ci_high:.4f}]" in page


def test_report_displays_inline():
    rep = vc.report(P, Y)
    page = rep._repr_html_()
    checked = _parse(page)
    assert checked.tags == ["iframe"]
    assert repr(rep) == str(rep)


@pytest.mark.parametrize("kind", ["pandas", "polars"])
def test_to_frame_round_trips_reliability(kind):
    table = vc.reliability(P, Y)
    frame = table.to_frame(kind)
    assert frame.shape[0] == len(table.rows)
    for col in ("lo", "hi", "n", "conf", "acc", "gap", "ci_low", "ci_high"):
        got = np.asarray(frame[col].to_list() if kind == "polars" else frame[col], dtype=float)
        np.testing.assert_array_equal(got, [getattr(r, col) for r in table.rows])
    assert list(np.asarray(frame["sufficient"].to_list() if kind == "polars" else frame["sufficient"])) == [
        r.sufficient for r in table.rows]


def test_to_frame_round_trips_other_tables():
    tt = RESULTS["threshold_table"]()
    f = tt.to_frame()
    np.testing.assert_array_equal(f["recall"].to_numpy(), tt.recall)
    np.testing.assert_array_equal(f["cost"].to_numpy(), tt.cost)
    led = RESULTS["ledger"]()
    f = led.to_frame()
    assert list(f["metric"]) == [r.metric for r in led.rows]
    np.testing.assert_array_equal(f["after"].to_numpy(), [r.after for r in led.rows])
    audit = vc.audit(P, Y)
    np.testing.assert_array_equal(audit.to_frame()["acc"].to_numpy(), [r.acc for r in audit.table.rows])
    mon = RESULTS["monitor"]()
    np.testing.assert_array_equal(mon.to_frame()["ece"].to_numpy(), [r.ece for r in mon.rows])
    boot = RESULTS["bootstrap"]()
    f = boot.to_frame()
    np.testing.assert_array_equal(f["low"].to_numpy(), [i.low for i in boot.intervals])


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_to_frame_every_type(name):
    r = RESULTS[name]()
    f = r.to_frame()
    assert f.shape[0] >= 1 and f.shape[1] >= 1


def test_to_frame_bad_kind():
    with pytest.raises(vc.VeracityError, match="'pandas' or 'polars'"):
        vc.reliability(P, Y).to_frame("excel")


def test_to_frame_without_pandas(monkeypatch):
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "pandas":
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(vc.VeracityError, match="pip install pandas"):
        vc.reliability(P, Y).to_frame()


@pytest.mark.parametrize("name", sorted(PICTURES))
def test_plot_returns_a_figure(name):
    from matplotlib.figure import Figure

    r = RESULTS[name]()
    fig = r.plot()
    assert isinstance(fig, Figure)
    assert fig.axes and any(ax.has_data() for ax in fig.axes)
    other = Figure()
    ax = other.subplots()
    assert r.plot(ax=ax) is other
    assert ax.has_data()


@pytest.mark.parametrize("name", sorted(set(RESULTS) - PICTURES))
def test_no_picture_says_so(name):
    with pytest.raises(vc.VeracityError, match="has no picture"):
        RESULTS[name]().plot()


def test_store_results_display(tmp_path):
    """The monitoring store's results (issue 12) get the same display."""
    pytest.importorskip("duckdb")
    import pyarrow as pa
    from matplotlib.figure import Figure

    from veracity.monitoring import MonitorStore

    rng = np.random.default_rng(0)
    n = 600
    t = np.datetime64("2026-03-02", "s") + rng.integers(0, 28 * 86400, n).astype("timedelta64[s]")
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < p).astype(np.int64)
    store = MonitorStore(tmp_path / "m.duckdb")
    ingest = store.log(pa.table({"id": np.arange(n), "ts": t, "p": p, "seg": rng.choice([EVIL, "b"], n)}),
                       id="id", time="ts", score="p", by="seg")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "t": ["2026-04-20"] * n}), id="id", label="y", time="t")
    status = store.status(freq="W", as_of="2026-05-01", by="seg")
    for r in (ingest, status):
        assert repr(r) == str(r)
        page = r._repr_html_()
        checked = _parse(page)
        assert "script" not in checked.tags
        assert r.to_frame().shape[0] >= 1
    np.testing.assert_array_equal(status.to_frame()["ece"].to_numpy(), [r.ece for r in status.rows])
    assert isinstance(status.plot(), Figure)


def test_tables_align_wide_and_combining_characters_by_terminal_columns():
    # a Korean model name counted 4 characters but takes 8 columns: the numbers after it slid right
    from veracity.core._text import display_width, render_table

    assert [display_width(t) for t in ("abc", "기존모델", "café", "cafe\u0301", "ｘ")] == [3, 8, 4, 4, 2]
    lines = render_table(["model", "ece"], [["기존모델", "0.1"], ["abc", "0.22"], ["cafe\u0301", "0.3"]]).splitlines()
    assert len({display_width(line) for line in lines}) == 1  # every row ends in the same column


def test_negative_zero_prints_as_zero_and_a_tiny_negative_keeps_its_sign_in_text_only():
    """A log loss of exactly 0 is -0.0 (-log 1): the comparison table printed "-0.0000"."""
    from veracity.core._display import fmt_cell
    from veracity.core._text import fmt

    assert fmt(-0.0) == "0.0000" and fmt(-0.0, sign=True) == "+0.0000" and fmt_cell(-0.0) == "0.0000"
    # a table cell no longer keeps the sign of a value that prints as zero (session 26: "-0.0000" beside a
    # verdict of no difference read as a difference); fmt keeps it for the text forms that choose their sign
    assert fmt(-1e-9) == "-0.0000" and fmt_cell(-1e-9) == "0.0000"
    table = str(vc.compare_models({"p": [0.2, 0.8, 0.3], "y": [0.0, 1.0, 1.0]}, [0, 1, 1], n_resamples=0))
    assert "-0.0000" not in table


def test_huge_weighted_counts_print_in_scientific_notation():
    from veracity.core._text import fmt_count

    assert fmt_count(6e301) == "6e+301" and fmt_count(1234.0) == "1234" and fmt_count(2.5) == "2.5"
    rng = np.random.default_rng(0)
    s = rng.uniform(size=300)
    y = (rng.random(300) < s).astype(int)
    text = str(vc.monitor(s, y, periods=np.repeat(["a", "b"], 150), sample_weight=np.full(300, 1e300)))
    assert max(len(word) for word in text.split()) < 40
