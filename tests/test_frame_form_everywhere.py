"""The frame form on every public function that reads scores and labels (issue 22: "the frame form
and pos_label on every public function").

A signature check walks every public callable: one that takes ``labels`` also takes the frame
form's column names (``score=``/``label=``, or ``scores=``/``label=`` where several score columns
are compared) unless listed in :data:`EXEMPT` with the reason. Then each such function called on a
pandas, polars or pyarrow frame with ``sample_weight=`` and ``pos_label=`` column semantics equals the
same function on the columns' arrays.
"""

from __future__ import annotations

import inspect

import numpy as np
import pytest

import veracity as vc

from .display.test_vocabulary import _public_callables

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")

#: functions that read labels but whose first argument is not one score column: reason
EXEMPT = {
    "ppi_mean": "labelled and unlabelled scores are two arrays of different lengths",
    "ppi_audit": "labelled and unlabelled scores are two arrays of different lengths",
    "split": "reads labels only (which rows go to which role)",
    "plot_multiclass_reliability": "(N, K) class scores with class-index labels",
    "plot_reliability_overlay": "a mapping name -> scores, several curves against one labels array",
    "ConformalClassifier.fit": "(N, K) class probabilities with class-index labels",
    "ConformalClassifier.coverage": "(N, K) class probabilities with class-index labels",
}


def _missing_frame_form():
    missing = []
    for name, f in _public_callables():  # the vocabulary test's walk over every public name
        try:
            ps = inspect.signature(f).parameters
        except (TypeError, ValueError):
            continue
        if "labels" not in ps or name in EXEMPT:
            continue
        if "label" not in ps or not ({"score", "scores"} & set(ps)):
            missing.append(name)
    return sorted(missing)


def test_every_function_that_reads_labels_takes_the_frame_form():
    assert _missing_frame_form() == []


# ---------------------------------------------------------------------------------------------
# the frame form equals the arrays
# ---------------------------------------------------------------------------------------------
RNG = np.random.default_rng(11)
N = 2000
P = RNG.uniform(0.01, 0.99, N)
Y = (RNG.random(N) < P ** 1.2).astype(int)
W = RNG.uniform(0.5, 2.0, N)
FRAME = pd.DataFrame({"p": P, "y": np.where(Y == 1, "yes", "no"), "w": W})
FORMS = {"pandas": lambda: FRAME, "polars": lambda: pl.from_pandas(FRAME),
         "pyarrow": lambda: pa.Table.from_pandas(FRAME, preserve_index=False)}


def _text(result):
    """What a result says (its dict, or its value): equal calls give equal text."""
    if isinstance(result, vc.CrossFit):  # the frame form's fits record their columns and pos_label (session 38)
        d = result.to_dict()
        for key in ("score_column", "label_column", "pos_label"):
            d["final"]["metadata"].pop(key, None)
        return repr((d, result.oof.tolist()))
    if hasattr(result, "to_dict"):
        return repr(result.to_dict())
    return repr(result)


#: name -> (options shared by both forms, whether sample_weight applies)
CALLS = {
    "calibration_slope": {},
    "calibration_tests": {"bins": 8},
    "corp": {},
    "ece_estimates": {"bins": 10},
    "ece_noise_floor": {"n_resamples": 30, "random_state": 0},
    "hosmer_lemeshow": {"bins": 8},
    "spiegelhalter": {},
    "bootstrap_intervals": {"n_resamples": 30, "random_state": 0, "method": "percentile"},
    "precision_threshold": {"target": 0.6},
    "simulate_redraws": {"n_calib": 500, "n_resamples": 20, "random_state": 0},
    "confidence_sequence": {},
    "binned_sequences": {"bins": 5},
    "cross_fit": {"random_state": 0},
}


def _call(name, *args, **kwargs):
    fn = getattr(vc, name)
    options = dict(CALLS[name])
    if name == "cross_fit":
        options["calibrator"] = vc.PlattScaling()
    return _text(fn(*args, **options, **kwargs))


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("name", sorted(CALLS))
def test_the_frame_form_equals_the_arrays(name, form):
    got = _call(name, FORMS[form](), score="p", label="y", sample_weight="w", pos_label="yes")
    assert got == _call(name, P, Y, sample_weight=W)


@pytest.mark.parametrize("name", ["plot_reliability", "plot_risk_coverage", "plot_thresholds"])
def test_the_plots_take_the_frame_form(name):
    pytest.importorskip("matplotlib")
    import matplotlib.pyplot as plt

    fn = getattr(vc, name)
    framed = fn(FRAME, score="p", label="y", sample_weight="w", pos_label="yes")
    arrays = fn(P, Y, sample_weight=W)

    def lines(fig):
        return [np.asarray(line.get_xydata()) for ax in fig.axes for line in ax.get_lines()]

    try:
        assert len(lines(framed)) == len(lines(arrays)) > 0
        for a, b in zip(lines(framed), lines(arrays), strict=True):
            np.testing.assert_array_equal(a, b)  # NaN where a curve is undefined, on both
    finally:
        plt.close(framed)
        plt.close(arrays)


@pytest.mark.parametrize("name", sorted(CALLS))
def test_bad_frame_calls_are_one_line(name):
    cases = [
        (lambda: _call(name, pl.from_pandas(FRAME).lazy(), score="p", label="y", pos_label="yes"),
         "needs the rows in memory"),
        (lambda: _call(name, FRAME, score="nope", label="y", pos_label="yes"), "'nope' not found"),
        (lambda: _call(name, FRAME, score="p", pos_label="yes"), "both column names"),
    ]
    for call, match in cases:
        with pytest.raises(vc.VeracityError, match=match) as err:
            call()
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("name", ["TemperatureScaling", "PlattScaling", "IsotonicCalibration", "HistogramBinning",
                                  "BetaCalibration", "VennAbers"])
def test_fit_transform_takes_the_frame_form(name):
    cls = getattr(vc, name)
    framed = cls().fit_transform(FRAME, score="p", label="y", sample_weight="w", pos_label="yes")
    np.testing.assert_array_equal(framed, cls().fit_transform(P, Y, sample_weight=W))


def test_segment_calibration_fit_transform_takes_the_frame_form():
    region = np.where(RNG.random(N) < 0.5, "EU", "US")
    frame = FRAME.assign(region=region)
    cal = vc.SegmentCalibration(base="platt", features=["region"], depth=1, min_count=20)
    framed = cal.fit_transform(frame, score="p", label="y", pos_label="yes")
    arrays = cal.fit(P, Y, features={"region": region}).transform(P, features={"region": region})
    np.testing.assert_array_equal(framed, arrays)


@pytest.mark.parametrize("fn", [vc.audit, vc.ece, vc.brier, vc.auc, vc.reliability, vc.risk_coverage,
                                vc.calibration_tests, vc.spiegelhalter])
@pytest.mark.parametrize("column", ["label", "sample_weight"])
def test_score_naming_the_label_or_weight_column_is_refused(fn, column):
    """``vc.audit(df, score="y", label="y")`` audited the answers as a perfect model (ECE 0, AUC 1)
    on in-memory frames; the CLI and the database form already refused it."""
    import pandas as pd

    rng = np.random.default_rng(0)
    df = pd.DataFrame({"p": rng.uniform(size=60), "y": rng.integers(0, 2, 60), "w": np.ones(60)})
    named = "y" if column == "label" else "w"
    with pytest.raises(vc.VeracityError, match=f"score= names the {column}= column '{named}'"):
        fn(df, score=named, label="y", sample_weight="w")
