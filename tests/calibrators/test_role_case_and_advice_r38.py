"""The fit-role policy and a refusal's constructor advice, as a user writes them (session 38).

- A role written ``'Test'``, ``'TEST'`` or ``' test'`` (a role column typed by hand, a spreadsheet's
  capitals) named the test rows but was fit on in silence: only the exact ``'test'``/``'train'`` were
  refused. They are refused now, in the user's spelling, with the same reason; ``allow_role`` matches
  case-blind too. A numpy ``str_`` role read ``role is np.str_('test')`` in the message; now ``'test'``.
- Multiclass Venn–ABERS refused unnormalised rows with the advice "pass
  VennAbers(multiclass='ovo')(score_type='logit')" (not Python), and its one-vs-rest form "pass
  OneVsRest(score_type='logit')" (a class the user did not build; following it fits isotonic maps). A loaded
  one-vs-rest artifact advised ``OneVsRest(score_type='logit')`` whatever its method: Platt's then fit
  isotonic. Each advice now names a constructor that builds the same form, and following it works.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

from .conftest import informative_logits

rng = np.random.default_rng(38)
P = rng.uniform(0.01, 0.99, 300)
Y = (rng.uniform(size=300) < P).astype(int)
Z3, Y3 = informative_logits(300, 3, seed=38)
P3 = np.exp(Z3) / np.exp(Z3).sum(axis=1, keepdims=True)
UNNORMALISED = P3.copy()
UNNORMALISED[0] = [0.5, 0.5, 0.5]


def _message(call) -> str:
    with pytest.raises(vc.VeracityError) as info:
        call()
    return str(info.value)


@pytest.mark.parametrize("role", ["Test", "TEST", " test", "test\n", "Train", "TRAIN "])
def test_a_test_or_train_role_in_other_case_is_refused(role):
    message = _message(lambda: vc.PlattScaling().fit(P, Y, role=role))
    assert f"on rows whose role is {role!r}" in message, message
    why = ("test rows decide nothing" if role.strip().lower() == "test" else
           "train rows already set the model's weights")
    assert why in message, message
    assert f"pass allow_role={role!r} to override" in message, message


@pytest.mark.parametrize("allow", ["test", "TEST", ["Test"]])
def test_allow_role_matches_case_blind_and_is_recorded(allow):
    assert "role is 'Test'" in _message(lambda: vc.PlattScaling().fit(P, Y, role="Test"))  # old: fit silently
    cal = vc.PlattScaling().fit(P, Y, role="Test", allow_role=allow)
    assert cal.metadata["role"] == "Test"
    assert np.array_equal(cal.transform(P), vc.PlattScaling().fit(P, Y).transform(P))


def test_per_row_roles_in_capitals_are_refused_and_calib_ones_fit():
    roles = np.array(["calib"] * 299 + ["TEST"])
    assert "role is 'TEST'" in _message(lambda: vc.IsotonicCalibration().fit(P, Y, role=roles))
    assert vc.IsotonicCalibration().fit(P, Y, role=np.array(["Calib"] * 300)).metadata["role"] == "Calib"


def test_a_numpy_text_role_reads_as_text():
    message = _message(lambda: vc.PlattScaling().fit(P, Y, role=np.str_("test")))
    assert "role is 'test'" in message and "np.str_" not in message, message


@pytest.mark.parametrize("make, advice", [
    (lambda: vc.VennAbers(), "VennAbers(score_type='logit')"),
    (lambda: vc.VennAbers(multiclass="ovr"), "VennAbers(multiclass='ovr', score_type='logit')"),
    (lambda: vc.OneVsRest(method="platt"), "OneVsRest(method='platt', score_type='logit')"),
], ids=["venn-abers-ovo", "venn-abers-ovr", "one-vs-rest-platt"])
def test_the_multiclass_fit_advice_is_a_constructor_that_builds_the_same_form(make, advice):
    message = _message(lambda: make().fit(UNNORMALISED, Y3))
    assert f"or pass {advice} for raw logits" in message, message
    assert ")(" not in message, message
    following = eval(advice, {"VennAbers": vc.VennAbers, "OneVsRest": vc.OneVsRest})  # the advice, as code
    reference = make().set_params(score_type="logit")
    got, want = following.fit(Z3, Y3).transform(Z3), reference.fit(Z3, Y3).transform(Z3)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("make, kind", [
    (lambda: vc.VennAbers(), "venn-abers-ovo"),
    (lambda: vc.PlattScaling(), "one-vs-rest"),
], ids=["venn-abers-ovo", "platt-ovr"])
def test_a_loaded_multiclass_artifact_advises_its_own_form(tmp_path, make, kind):
    make().fit(P3, Y3).save(tmp_path / "cal.json")
    loaded = vc.load(tmp_path / "cal.json")
    assert loaded.kind == kind
    message = _message(lambda: loaded.transform(UNNORMALISED))
    assert ")(" not in message, message
    if kind == "one-vs-rest":  # OneVsRest(score_type='logit') alone fits isotonic maps
        assert "fit a calibrator with OneVsRest(method='platt', score_type='logit'))" in message, message
    else:
        assert "fit a calibrator with VennAbers(score_type='logit'))" in message, message


@pytest.mark.parametrize("role", ["test", None])
@pytest.mark.parametrize("allow", [True, 1, b"test"])
def test_allow_role_that_names_no_role_is_one_line(role, allow):
    # before: TypeError "'bool' object is not iterable" (with role='test', or when the artifact was recorded)
    message = _message(lambda: vc.PlattScaling().fit(P, Y, role=role, allow_role=allow))
    assert message.startswith("allow_role names the role(s) a fit may use, e.g. allow_role='test'"), message


def test_allow_role_as_an_array_of_roles():
    # before: ValueError "The truth value of an array with more than one element is ambiguous" (raw)
    roles = np.array(["test", "TRAIN"] * 150)
    cal = vc.PlattScaling().fit(P, Y, role=roles, allow_role=np.array(["test", "train"]))
    assert (cal.metadata["role"], cal.metadata["allow_role"]) == ("TRAIN,test", ["test", "train"])
