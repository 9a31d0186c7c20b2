"""A calibrator's refusal of logits read as probabilities says to set ``score_type`` on the constructor.

``score_type`` is a constructor parameter: "pass score_type='logit'" led a user to ``fit(..., score_type=
'logit')``, a TypeError. The Python message names the constructor; the command line still says
``--score-type logit``; and following the advice works.
"""

import numpy as np
import pandas as pd
import pytest

import veracity as vc

rng = np.random.default_rng(20)
LOGITS = rng.normal(0.0, 2.0, size=(400, 3))
CLASSES = (rng.random(400)[:, None] > np.cumsum(np.exp(LOGITS) / np.exp(LOGITS).sum(1, keepdims=True), 1)).sum(1)
BINARY = (rng.random(400) < 1 / (1 + np.exp(-LOGITS[:, 0]))).astype(int)

BINARY_CALIBRATORS = [vc.TemperatureScaling, vc.PlattScaling, vc.IsotonicCalibration, vc.BetaCalibration,
                      vc.HistogramBinning]
MULTICLASS_CALIBRATORS = [vc.TemperatureScaling, vc.VectorScaling, vc.MatrixScaling, vc.PlattScaling]


def _refusal(call) -> str:
    with pytest.raises(vc.VeracityError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("cls", BINARY_CALIBRATORS, ids=lambda c: c.__name__)
def test_binary_fit_names_the_constructor_and_its_advice_works(cls):
    message = _refusal(lambda: cls().fit(LOGITS[:, 0], BINARY))
    assert message.endswith(f"If these are logits, pass {cls.__name__}(score_type='logit')"), message
    with pytest.raises(TypeError):  # what the old words led to
        cls().fit(LOGITS[:, 0], BINARY, score_type="logit")
    p = cls(score_type="logit").fit(LOGITS[:, 0], BINARY).transform(LOGITS[:, 0])
    assert p.shape == (400,) and np.all((p >= 0) & (p <= 1))


@pytest.mark.parametrize("cls", MULTICLASS_CALIBRATORS, ids=lambda c: c.__name__)
def test_multiclass_fit_names_the_constructor_the_user_called(cls):
    # PlattScaling on (N, K) fits its one-vs-rest form: the message still names PlattScaling
    message = _refusal(lambda: cls().fit(LOGITS, CLASSES))
    assert f"pass {cls.__name__}(score_type='logit')" in message, message
    p = cls(score_type="logit").fit(LOGITS, CLASSES).transform(LOGITS)
    assert p.shape == (400, 3) and np.allclose(p.sum(axis=1), 1.0)


def test_frame_form_and_transform_name_the_constructor():
    frame = pd.DataFrame({"s": LOGITS[:, 0], "y": BINARY})
    message = _refusal(lambda: vc.PlattScaling().fit(frame, score="s", label="y"))
    assert "pass PlattScaling(score_type='logit')" in message, message
    fitted = vc.PlattScaling().fit(1 / (1 + np.exp(-LOGITS[:, 0])), BINARY)
    message = _refusal(lambda: fitted.transform(LOGITS[:, 0]))
    assert "fit a calibrator with PlattScaling(score_type='logit')" in message, message


def test_other_errors_keep_their_words():
    # an error about a parameter that is not the calibrator's own (pos_label is fit's) is unchanged
    message = _refusal(lambda: vc.PlattScaling().fit([0.2, 0.7, 0.4], ["a", "b", "a"], pos_label="c"))
    assert "pos_label='c'" in message and "PlattScaling(pos_label" not in message, message


def test_the_command_line_still_spells_the_flag(tmp_path, cli, refused):
    path = tmp_path / "scores.csv"
    pd.DataFrame({"s": LOGITS[:, 0], "y": BINARY}).to_csv(path, index=False)
    result = cli(["fit", str(path), "--method", "platt", "--score", "s", "--label", "y",
                      "--out", str(tmp_path / "cal.json")])
    refused(result, r"If these are logits, pass --score-type logit$")
