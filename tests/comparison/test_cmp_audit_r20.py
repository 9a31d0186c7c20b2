"""Round-20 audit of the comparison functions as a user meets them: a frame's ``by=`` given as a list of
columns, column arguments that are not names, the per-slice verdicts of three or more models, and the
decision-curve and comparison pictures (thresholds given out of order, every net benefit below 0, a
ranking-only comparison)."""

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _data(n=200, seed=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.clip(rng.random(n) * 0.5 + 0.4 * y, 0.01, 0.99)
    b = np.clip(a + rng.normal(0, 0.1, n), 0.01, 0.99)
    return a, b, y


def _frames():
    a, b, y = _data(60)
    df = pd.DataFrame({"a": a, "b": b, "y": y, "g": ["x", "y"] * 30, "h": ["u"] * 30 + ["v"] * 30,
                       "w": np.linspace(0.5, 2.0, 60)})
    out = [("pandas", df)]
    try:
        import polars as pl

        out += [("polars", pl.from_pandas(df)), ("polars-lazy", pl.from_pandas(df).lazy())]
    except ImportError:  # pragma: no cover - polars is a test dependency
        pass
    return out


@pytest.mark.parametrize("kind,frame", _frames(), ids=[k for k, _ in _frames()])
def test_by_a_list_of_columns_is_refused_in_one_line_on_every_frame(kind, frame):
    # by=["g", "h"] raised AttributeError (pandas), TypeError (polars: "'list' object is not an instance of
    # 'str'"; lazy: "unhashable type: 'list'") from inside narwhals, where vc.audit refuses it in one line
    with pytest.raises(vc.VeracityError) as info:
        vc.compare_models(frame, scores=["a", "b"], label="y", by=["g", "h"], n_resamples=0)
    text = str(info.value)
    assert "\n" not in text and "by=" in text and "one column" in text


@pytest.mark.parametrize("fn", ["compare_models", "murphy_diagram", "decision_curve", "realised_cost"])
@pytest.mark.parametrize("role", ["label", "sample_weight"])
def test_a_column_argument_that_is_not_a_name_is_refused_in_one_line_naming_the_function(fn, role):
    # the frame form with an array for label= printed the whole array in the error (several lines), and
    # one for sample_weight= pointed the user at "the array form vc.audit(scores, labels, ...)", another
    # function
    a, b, y = _data(60)
    df = pd.DataFrame({"a": a, "b": b, "y": y})
    kwargs = {"scores": ["a", "b"], "label": "y"}
    kwargs[role] = np.linspace(0.5, 2.0, 60) if role == "sample_weight" else y
    if fn == "realised_cost":
        kwargs["threshold"] = 0.5
    with pytest.raises(vc.VeracityError) as info:
        getattr(vc, fn)(df, **kwargs)
    text = str(info.value)
    assert "\n" not in text and f"{role}=" in text and "vc.audit" not in text
    assert f"vc.{fn}" in text


def test_each_slice_verdict_names_its_pair_when_three_models_are_compared():
    # with three models each slice printed three verdict lines that did not say which pair each was about
    # ("x (100 rows): a ranks better ..." -- than b or than c?), and the notebook view showed only the first
    a, b, y = _data()
    c = np.clip(a * 0.7 + 0.2, 0.0, 1.0)
    r = vc.compare_models({"a": a, "b": b, "c": c}, y, by=np.array(["x", "y"] * 100), n_resamples=0)
    lines = str(r).splitlines()
    start = lines.index("by slice:")
    slice_lines = lines[start + 1:]
    assert len(slice_lines) == 6
    for key in ("x", "y"):
        group = r.groups[key]
        for (model_a, model_b), verdict in zip(group._pairs, group.verdicts):
            assert f"  {key} ({group.n:,} rows, {model_b} vs {model_a}): {verdict}" in slice_lines
    html = r._repr_html_().split("<details")[0]  # the notes, not the printout the page carries below them
    for key in ("x", "y"):
        for text in r.groups[key].verdicts:
            assert text.split(" (")[0] in html
        assert html.count(f"{key} (100 rows, ") == 3


def test_two_model_slice_lines_are_unchanged():
    a, b, y = _data()
    r = vc.compare_models({"a": a, "b": b}, y, by=np.array(["x", "y"] * 100), n_resamples=0)
    lines = str(r).splitlines()
    assert f"  x (100 rows): {r.groups['x'].verdict}" in lines


def _lines(fig, label):
    ax = fig.axes[0]
    return [line for line in ax.get_lines() if line.get_label() == label]


def test_the_decision_curve_plot_draws_thresholds_in_increasing_order():
    # thresholds given out of order were drawn in that order: each curve zig-zagged back and forth
    # across the axis, and the bands were filled between the wrong points
    plt = pytest.importorskip("matplotlib.pyplot")
    a, b, y = _data()
    grid = [0.5, 0.1, 0.3, 0.7, 0.2]
    dc = vc.decision_curve({"m": a}, y, thresholds=grid)
    fig = dc.plot()
    try:
        for label in ("m", "treat all", "treat none"):
            (line,) = _lines(fig, label)
            x = np.asarray(line.get_xdata(), dtype=float)
            assert np.all(np.diff(x) > 0), (label, x)
        (line,) = _lines(fig, "m")
        order = np.argsort(grid)
        assert np.allclose(line.get_ydata(), dc.net_benefit["m"][order])
    finally:
        plt.close(fig)


def test_the_decision_curve_axis_is_not_upside_down_when_every_net_benefit_is_below_0():
    # a rare outcome and a model flagging every row at high thresholds: every model's and "treat all"'s
    # net benefit is negative; the y-axis ran from -0.01 at the bottom to -1.03 at the top (inverted),
    # and "treat none" (0), the best strategy there, was off the picture
    plt = pytest.importorskip("matplotlib.pyplot")
    y = np.zeros(200)
    y[:5] = 1
    p = np.full(200, 0.9)
    dc = vc.decision_curve({"m": p}, y, thresholds=[0.5, 0.6, 0.7])
    assert max(float(dc.net_benefit[k].max()) for k in ("m", "all")) < 0
    fig = dc.plot()
    try:
        low, high = fig.axes[0].get_ylim()
        assert low < 0.0 < high
    finally:
        plt.close(fig)


def test_a_ranking_only_comparison_plot_says_why_it_has_no_corp_curves():
    # score_type="score" compares AUC only: the left panel, titled "CORP reliability", was drawn empty
    # (the diagonal alone), as if the curves had been lost
    plt = pytest.importorskip("matplotlib.pyplot")
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200)
    a = rng.normal(size=200) + y
    r = vc.compare_models({"a": a, "b": a + rng.normal(size=200)}, y, score_type="score")
    fig = r.plot()
    try:
        texts = " ".join(t.get_text() for t in fig.axes[0].texts)
        assert "score_type='score'" in texts
    finally:
        plt.close(fig)


def test_murphy_to_frame_keeps_the_thresholds_and_every_curve_whatever_the_models_are_named():
    # models named "theta" and "diff": to_frame()'s theta column held the first model's elementary scores
    # (the thresholds were lost) and the "diff" column the difference (the second model's curve was lost)
    a, b, y = _data(100)
    m = vc.murphy_diagram({"theta": a, "diff": b}, y, theta=[0.2, 0.5])
    frame = m.to_frame()
    assert np.allclose(frame["theta"], [0.2, 0.5])
    assert np.allclose(frame["theta (elementary)"], m.elementary["theta"])
    assert np.allclose(frame["diff (elementary)"], m.elementary["diff"])
    assert np.allclose(frame["diff"], m.difference.diff)
    plain = vc.murphy_diagram({"a": a, "b": b}, y, theta=[0.2, 0.5]).to_frame()
    assert list(plain.columns) == ["theta", "a", "b", "diff", "ci_low", "ci_high"]
