"""Honest sections in vc.audit and `veracity audit` (text and --json), and bad input."""

import json

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main
from veracity.datasets import load_demo


def _seed000():
    # seed 000's BEFORE table: 54 rows near 0.004 with one positive (at 0.0001),
    # one false triple at 0.1697, (bob, advises, dave) true at 0.4281, 7 memorised at ~0.9976.
    low = np.r_[0.0001, np.full(53, (0.0040 * 54 - 0.0001) / 53)]
    p = np.r_[low, 0.1697, 0.4281, np.full(7, 0.9976)]
    y = np.r_[1, np.zeros(53), 0, 1, np.ones(7)]
    return p, y


def test_seed000_ece_is_not_distinguishable_from_noise():
    p, y = _seed000()
    nf = vc.ece_noise_floor(p, y, bins=10, random_state=0)
    assert nf.ece == pytest.approx(0.0245, abs=5e-5)  # seed 000: ECE = 0.0245
    assert nf.p_value > 0.05
    assert nf.expected > 0.5 * nf.ece  # the floor is of the same size as the "error"
    assert "not distinguishable from noise" in str(nf)


def test_audit_sections_and_json():
    p, y = _seed000()
    r = vc.audit(p, y, bins=10, bootstrap=True, n_resamples=200, noise_floor=True, estimators=True,
                 tests=True, corp=True)
    assert set(r.extras) == {"estimators", "noise_floor", "intervals", "tests", "corp"}
    assert r.extras["intervals"].method == "bca"
    assert r.extras["noise_floor"].ece == pytest.approx(r.ece, rel=1e-12)
    text = str(r)
    for needle in ("noise floor", "ECE estimators", "debiased", "smooth", "Bootstrap intervals",
                   "Spiegelhalter", "Hosmer-Lemeshow", "calibration slope", "CORP"):
        assert needle in text
    doc = json.loads(json.dumps(r.to_dict()))
    assert doc["noise_floor"]["p_value"] == r.extras["noise_floor"].p_value
    assert set(doc["intervals"]["intervals"]) == {"ece", "mce", "brier", "nll", "auc", "accuracy"}
    assert doc["estimators"]["smooth"]["l1"] == pytest.approx(vc.ece(p, y, estimator="smooth"))
    assert doc["estimators"]["debiased"]["l2"] == pytest.approx(
        vc.ece(p, y, bins=10, estimator="debiased", norm="l2"))
    assert doc["corp"]["brier"]["score"] == pytest.approx(vc.brier(p, y))


def test_audit_is_seeded_and_default_has_no_sections():
    d = load_demo()
    a = vc.audit(d["score"], d["label"], bootstrap="percentile", n_resamples=100, noise_floor=True, random_state=7)
    b = vc.audit(d["score"], d["label"], bootstrap="percentile", n_resamples=100, noise_floor=True, random_state=7)
    assert a.extras["intervals"].to_dict() == b.extras["intervals"].to_dict()
    assert a.extras["noise_floor"].to_dict() == b.extras["noise_floor"].to_dict()
    assert vc.audit(d["score"], d["label"]).extras == {}


def test_bins_auto_uses_the_cube_root_rule_and_prints_m():
    p, y = _seed000()
    r = vc.audit(p, y, bins="auto")
    assert r.table.bins == 4  # ceil(63 ** (1/3))
    assert "4 uniform bins" in str(r)
    assert vc.reliability(p, y, bins="auto").bins == 4


def test_cli_audit_honest_text_and_json(capsys):
    assert main(["audit", "--honest", "--resamples", "100", "--bins", "auto"]) == 0
    out = capsys.readouterr().out
    assert "19 uniform bins" in out  # 6000 demo rows -> ceil(6000^(1/3)) = 19
    for needle in ("noise floor", "plugin", "debiased", "smooth", "Bootstrap intervals (bca",
                   "Spiegelhalter", "CORP"):
        assert needle in out
    assert main(["audit", "--ci", "percentile", "--noise-floor", "--estimators", "--tests",
                 "--resamples", "50", "--seed", "3", "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["intervals"]["method"] == "percentile"
    assert doc["intervals"]["random_state"] == 3
    assert {"plugin", "debiased", "smooth"} <= set(doc["estimators"])
    assert 0 < doc["noise_floor"]["p_value"] <= 1
    assert doc["tests"]["spiegelhalter"]["p_value"] < 0.05


@pytest.mark.parametrize(
    "kwargs,match",
    [
        ({"estimator": "fancy"}, "estimator must be"),
        ({"estimator": "debiased", "norm": "max"}, "supports norm"),
        ({"estimator": "smooth", "norm": "l2"}, "supports norm"),
        ({"bins": "many"}, "positive integer or 'auto'"),
        ({"bins": 0}, "positive integer or 'auto'"),
        ({"strategy": "equal"}, "strategy must be"),
    ],
)
def test_ece_bad_options(kwargs, match):
    with pytest.raises(vc.VeracityError, match=match):
        vc.ece([0.2, 0.8], [0, 1], **kwargs)


@pytest.mark.parametrize(
    "call,match",
    [
        (lambda: vc.ece_noise_floor([0.2, 0.8], [0, 1], n_resamples=0), "n_resamples must be"),
        (lambda: vc.ece_noise_floor([0.2, 0.8], [0, 1], random_state=-1), "random_state must be"),
        (lambda: vc.ece_noise_floor([0.2, 0.8], [0, 1], norm="l3"), "norm must be"),
        (lambda: vc.bootstrap_intervals([0.2, 0.8], [0, 1], method="basic"), "method must be"),
        (lambda: vc.bootstrap_intervals([0.2, 0.8], [0, 1], metrics=["f1"]), "metrics must be"),
        (lambda: vc.bootstrap_intervals([0.2, 0.8], [0, 1], level=95), "level must be"),
        (lambda: vc.bootstrap_intervals([0.2, 0.8], [0, 1], n_resamples=1), "n_resamples must be"),
        (lambda: vc.spiegelhalter([0.5, 0.5], [0, 1]), "zero variance"),
        (lambda: vc.hosmer_lemeshow([0.2, 0.3], [0, 1], df=0), "df must be an integer >= 1"),
        (lambda: vc.hosmer_lemeshow([0.2, 0.3, 0.4], [0, 1, 1], bins=1), "bins must be"),
        (lambda: vc.calibration_slope([0.2, 0.3], [1, 1]), "both classes"),
        (lambda: vc.calibration_slope([0.2, 0.8], [0, 1]), "separated"),
        (lambda: vc.audit([0.2, 0.8], [0, 1], bootstrap="yes"), "bootstrap must be"),
        (lambda: vc.audit([0.2, 0.8], [0, 1], noise_floor="yes"), "noise_floor must be"),
        (lambda: vc.audit([0.2, 0.8], [0, 1], bootstrap=True, n_resamples=1), "n_resamples must be"),
        (lambda: vc.corp([0.2, np.nan], [0, 1]), "NaN"),
    ],
)
def test_bad_input_python(call, match):
    with pytest.raises(vc.VeracityError, match=match):
        call()


def test_tests_section_lists_undefined_tests_instead_of_failing():
    t = vc.calibration_tests([0.5, 0.5, 0.5, 0.5], [0, 1, 0, 1])
    assert t.spiegelhalter is None and "zero variance" in t.skipped["spiegelhalter"]
    assert "not computed" in str(t)


@pytest.mark.parametrize(
    "argv,match",
    [
        (["audit", "--ci", "--resamples", "1"], "--n-resamples must be"),
        (["audit", "--noise-floor", "--random-state", "-4"], "--random-state must be"),
    ],
)
def test_bad_input_cli(argv, match, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert match in err and "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv,match",
    [(["audit", "--ci", "basic"], "invalid choice"), (["audit", "--bins", "lots"], "'auto'")],
)
def test_bad_arguments_cli(argv, match, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert match in capsys.readouterr().err


def test_report_layer_shows_the_noise_floor_next_to_ece():
    # the report (issue 7) reads AuditResult.extras["noise_floor"] produced here
    p, y = _seed000()
    rep = vc.report(p, y, bins=10, min_count=1, n_resamples=50, figures=False)
    html = rep.html
    assert "noise floor" in html and "within noise" in html


def test_bins_auto_rule_is_a_printed_and_exported_section(capsys):
    p, y = _seed000()
    r = vc.audit(p, y, bins="auto")
    assert "bins='auto': M = ceil(N_eff^(1/3)) = 4 (N_eff = 63)" in str(r)
    assert r.to_dict()["auto_bins"] == {"rule": "ceil(n_eff ** (1/3))", "bins": 4, "n_eff": 63.0, "bins_used": 4}
    assert "auto_bins" not in vc.audit(p, y, bins=4).extras
