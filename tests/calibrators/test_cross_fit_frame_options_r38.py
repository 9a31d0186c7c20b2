"""The frame form of ``vc.cross_fit`` equals its array form (session 38).

Before: ``role=`` and ``metadata=`` on the frame form raised a raw ``TypeError: Calibrator.fit() got an
unexpected keyword argument 'fit_kwargs'`` (the ``**fit_kwargs`` entry of the bound arguments was passed
as one keyword); ``cross_fit(frame, calibrator, score=, label=)`` was refused as "takes no labels array"
(``vc.compare`` reads its second argument as the calibrator); a keyword no fit takes, and ``score_type=``,
raised a raw ``TypeError`` from each fold's fit on the array form; the frame form's fits recorded no
``pos_label`` (the frame's labels reach them as 0/1), so ``vc.compare`` measured a ``pos_label=0`` fit
against label 1 (AUC 0.21 for 0.79), and with ``pos_label=0`` its folds were not the array form's.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")
pl = pytest.importorskip("polars")

RNG = np.random.default_rng(38)
N = 300
P = RNG.uniform(0.03, 0.97, N)
Y = (RNG.random(N) < P ** 1.3).astype(int)
W = RNG.uniform(0.5, 2.0, N)
TEXT = np.where(Y == 1, "yes", "no")
FRAME = pd.DataFrame({"p": P, "y": TEXT, "w": W, "z": np.log(P / (1 - P))})
FORMS = {"pandas": lambda: FRAME, "polars": lambda: pl.from_pandas(FRAME)}


def _same(framed, arrays, score="p", label="y"):
    """Same folds and numbers; the frame's fits record its columns besides what the array fits record."""
    np.testing.assert_array_equal(framed.oof, arrays.oof)
    np.testing.assert_array_equal(framed.fold, arrays.fold)
    for a, b in zip((framed.final, *framed.calibrators), (arrays.final, *arrays.calibrators), strict=True):
        got = a.to_dict()
        assert (got["metadata"].pop("score_column"), got["metadata"].pop("label_column")) == (score, label)
        assert got == b.to_dict()


@pytest.mark.parametrize("form", list(FORMS))
@pytest.mark.parametrize("options", [{"role": "calib"}, {"metadata": {"model_revision": "r7"}},
                                     {"role": "test", "allow_role": "test"}])
def test_fit_options_reach_each_fit_on_the_frame_form(form, options):
    framed = vc.cross_fit(FORMS[form](), score="p", label="y", sample_weight="w", pos_label="yes",
                          calibrator=vc.PlattScaling(), folds=4, random_state=3, **options)
    _same(framed, vc.cross_fit(P, TEXT, calibrator=vc.PlattScaling(), sample_weight=W, pos_label="yes",
                               folds=4, random_state=3, **options))
    record = framed.final.to_dict()["metadata"]
    assert record["pos_label"] == "yes"
    for key, value in options.get("metadata", {}).items():
        assert record[key] == value


def test_a_role_per_row_is_split_by_fold_on_the_frame_form():
    role = np.where(np.arange(N) % 2 == 0, "calib", "val")
    framed = vc.cross_fit(FRAME, score="p", label="y", pos_label="yes", calibrator=vc.PlattScaling(),
                          role=role, random_state=1)
    _same(framed, vc.cross_fit(P, TEXT, calibrator=vc.PlattScaling(), role=role, pos_label="yes",
                               random_state=1))


def test_pos_label_0_gives_the_array_forms_folds_and_is_recorded():
    negated = 1 - Y  # class 0 is the positive class: P is its probability
    frame = pd.DataFrame({"p": P, "y": negated})
    framed = vc.cross_fit(frame, score="p", label="y", calibrator=vc.PlattScaling(), pos_label=0,
                          random_state=0)
    arrays = vc.cross_fit(P, negated, calibrator=vc.PlattScaling(), pos_label=0, random_state=0)
    _same(framed, arrays)
    assert framed.final.to_dict()["metadata"]["pos_label"] == 0
    rng = np.random.default_rng(1)
    p_test = rng.uniform(0.03, 0.97, 2000)
    y_test = 1 - (rng.random(2000) < p_test ** 1.3).astype(int)
    ledger = vc.compare(p_test, y_test, framed.final).to_dict()
    assert ledger == vc.compare(p_test, y_test, arrays.final).to_dict()
    auc = next(row for row in ledger["rows"] if row["metric"] == "AUC")
    assert auc["after"] > 0.75  # measured against class 0 (against class 1: 1 - AUC, about 0.2)


def test_the_calibrator_may_be_the_second_argument_of_the_frame_form():
    framed = vc.cross_fit(FRAME, vc.IsotonicCalibration(), score="p", label="y", pos_label="yes",
                          random_state=2)
    _same(framed, vc.cross_fit(P, TEXT, vc.IsotonicCalibration(), pos_label="yes", random_state=2))
    cal = vc.PlattScaling().fit(P, Y)  # as vc.compare(frame, calibrator, score=, label=) reads it
    assert vc.compare(FRAME, cal, score="p", label="y", pos_label="yes").to_dict() == \
        vc.compare(P, Y, cal).to_dict()


@pytest.mark.parametrize("frame", [False, True])
def test_an_option_no_fit_takes_is_one_line_on_both_forms(frame):
    def call(score="p", **kw):
        if frame:
            return vc.cross_fit(FRAME, vc.PlattScaling(), score=score, label="y", pos_label="yes", **kw)
        return vc.cross_fit(FRAME[score].to_numpy(), Y, vc.PlattScaling(), **kw)

    with pytest.raises(vc.VeracityError, match=r"^cross_fit passes bogus= to PlattScaling\.fit, which takes "
                       r"no such option; its options are sample_weight, role, allow_role, metadata, "
                       r"pos_label$"):
        call(bogus=1)
    with pytest.raises(vc.VeracityError, match=r"\(PlattScaling has score_type='probability'\); set it on "
                       r"the calibrator: vc\.PlattScaling\(score_type='logit'\)$") as err:
        call(score="z", score_type="logit")
    assert err.value.param == "score_type"


def test_the_calibrators_own_score_type_is_accepted_on_both_forms():
    cal = vc.TemperatureScaling(score_type="logit")
    framed = vc.cross_fit(FRAME, cal, score="z", label="y", pos_label="yes", score_type="logit",
                          random_state=0)
    _same(framed, vc.cross_fit(FRAME["z"].to_numpy(), TEXT, cal, pos_label="yes", score_type="logit",
                               random_state=0), score="z")


def test_a_refusal_of_the_rows_counts_the_callers_rows():
    with pytest.raises(vc.VeracityError, match=r"^scores must be probabilities in \[0, 1\]; \d+ of 300 are "
                       r"not .*pass PlattScaling\(score_type='logit'\)$"):
        vc.cross_fit(P * 1.5, Y, vc.PlattScaling())  # was "... of 240": the first fold's fit rows


def test_a_role_series_on_another_index_is_refused_on_both_forms():
    role = pd.Series(np.where(np.arange(N) % 2 == 0, "calib", "val"), index=np.arange(N)[::-1])
    for call in (lambda: vc.cross_fit(FRAME, vc.PlattScaling(), score="p", label="y", pos_label="yes",
                                      role=role),
                 lambda: vc.cross_fit(scores=FRAME, calibrator=vc.PlattScaling(), score="p", label="y",
                                      pos_label="yes", role=role),
                 lambda: vc.cross_fit(FRAME["p"], FRAME["y"], vc.PlattScaling(), pos_label="yes", role=role)):
        with pytest.raises(vc.VeracityError,
                           match=r"(frame|scores) and role are pandas objects with different indexes") as err:
            call()
        assert err.value.param == "role"
