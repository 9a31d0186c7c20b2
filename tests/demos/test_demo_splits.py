"""``veracity demo splits`` (seed 003): the role of each split, checked as directions.

The demo runs once per module (fixture, with --plots); assertions are the seed's
qualitative claims, theory (k/(n+1), t* = c_FP/(c_FP + c_FN)) and identities —
never numbers copied from the demo's output.
"""

from __future__ import annotations

import argparse

import numpy as np
import pytest

from veracity.cli import main as cli_main
from veracity.demos import _synth, splits


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> splits.SplitsDemo:
    return splits.run(plots=tmp_path_factory.mktemp("splits_plots"))


NONE = "none (T = 1)"


# -- the generator -------------------------------------------------------------------------
def test_true_probabilities_are_the_bayes_posterior() -> None:
    # oracle: scipy's Gaussian log-density, equal priors -> posterior ∝ N(x; μ_k, σ²I)
    from scipy.stats import multivariate_normal

    gen = _synth.Gaussians.make(separation=0.55, seed=11)
    x, _, p = gen.sample(5, np.random.default_rng(0), noise=1.3)
    sigma = gen.sigma * 1.3
    logpdf = np.stack([multivariate_normal(mean=m, cov=sigma**2).logpdf(x) for m in gen.means], 1)
    expected = np.exp(logpdf - logpdf.max(1, keepdims=True))
    expected /= expected.sum(1, keepdims=True)
    np.testing.assert_allclose(p, expected, rtol=1e-9, atol=1e-12)


# -- [1] train fits, val picks -------------------------------------------------------------
def test_twelve_networks_fit_the_training_set_and_val_picks(demo: splits.SplitsDemo) -> None:
    assert len(demo.val_accuracy) == 12
    assert demo.chosen == int(np.argmax(demo.val_accuracy))
    assert demo.train_accuracy[demo.chosen] == 1.0
    assert np.median(demo.train_accuracy) == 1.0
    # they memorise: training accuracy far above what they achieve on val
    assert (demo.train_accuracy - demo.val_accuracy > 0.1).all()


# -- [2] temperature by role -----------------------------------------------------------------
def test_T_from_train_is_far_below_one_and_hurts(demo: splits.SplitsDemo) -> None:
    assert demo.temperatures["train"] < 0.5
    assert demo.ece["train"]["deploy"] > demo.ece[NONE]["deploy"]
    assert demo.confidence["train"]["deploy"] > demo.confidence[NONE]["deploy"]


def test_T_from_calib_fixes_confidence_on_deployment(demo: splits.SplitsDemo) -> None:
    assert demo.temperatures["calib"] > 1.0  # overconfident networks
    assert demo.ece["calib"]["deploy"] < demo.ece[NONE]["deploy"] / 3
    assert abs(demo.confidence["calib"]["deploy"] - demo.accuracy["deploy"]) < 0.02
    assert demo.confidence[NONE]["deploy"] > demo.accuracy["deploy"] + 0.05


def test_true_probabilities_are_honest(demo: splits.SplitsDemo) -> None:
    assert demo.ece_true["deploy"] < demo.ece[NONE]["deploy"]
    assert demo.ece_true["deploy"] < 0.01  # 27,000 points: only estimator noise remains


# -- [3] thresholds --------------------------------------------------------------------------
def test_cost_optimal_threshold_is_the_seed_value(demo: splits.SplitsDemo) -> None:
    assert demo.thresholds["t* = c_FP/(c_FP+c_FN)"] == pytest.approx(0.1)  # miss 9x -> 0.1


def test_recall_thresholds_hit_target_on_calib_and_plus1_is_lower(demo: splits.SplitsDemo) -> None:
    t_plain = demo.thresholds["95% on calib"]
    t_plus1 = demo.thresholds["95% on calib, +1"]
    assert t_plus1 <= t_plain
    calib = demo.tables["calib"]
    assert calib.recall[0] >= 0.95 and calib.recall[1] >= calib.recall[0]


def test_t_star_costs_less_than_half_on_deployment(demo: splits.SplitsDemo) -> None:
    deploy = demo.tables["deploy"]
    assert deploy.cost_per_1000[2] < deploy.cost_per_1000[3]  # t* = 0.1 vs 0.5
    # lower thresholds always raise recall and false alarms (same rows, s >= t)
    order = np.argsort(deploy.threshold)
    assert np.all(np.diff(deploy.recall[order]) <= 0)
    assert np.all(np.diff(deploy.false_alarm_rate[order]) <= 0)


# -- [4] redraws -----------------------------------------------------------------------------
def test_redraws_plus1_raises_recall_to_the_target_on_average(demo: splits.SplitsDemo) -> None:
    r = demo.redraws
    assert len(r["reported_plain"]) == splits.REDRAWS
    assert r["expected_plain"].mean() < 0.95 <= r["expected_plus1"].mean()  # k/(n+1) theory
    assert r["deployed_plus1"].mean() > r["deployed_plain"].mean()
    assert (r["deployed_plus1"] >= r["deployed_plain"]).all()  # same draws, lower threshold
    # test is honest but noisy: it wobbles around deployment, it is not biased far off
    assert abs(r["reported_plain"].mean() - r["deployed_plain"].mean()) < 0.02
    assert r["reported_plain"].std() > 0


# -- [5] conformal -----------------------------------------------------------------------------
def test_conformal_coverage_near_one_minus_alpha(demo: splits.SplitsDemo) -> None:
    # seed 003: with n = 1,000 calib points coverage is mostly 0.88-0.92 at alpha = 0.1
    assert 0.88 <= demo.coverage["deploy"].marginal <= 0.92
    assert 0.85 <= demo.coverage["test"].marginal <= 0.95


# -- [6] shift ---------------------------------------------------------------------------------
def test_shift_drops_recall_and_refitting_recovers(demo: splits.SplitsDemo) -> None:
    s = demo.shift
    assert s["stale"]["recall"] < s["before"]["recall"] - 0.05
    assert s["refit"]["recall"] > s["stale"]["recall"] + 0.05
    assert s["refit"]["recall"] >= 0.9
    assert s["refit"]["T"] > s["stale"]["T"]  # noisier data: softer probabilities
    assert s["refit"]["ece"] < s["stale"]["ece"]


# -- printout, plots, CLI --------------------------------------------------------------------
def test_printout_sections_and_claims(demo: splits.SplitsDemo) -> None:
    text = demo.text
    positions = [text.index(f"[{k}]") for k in range(1, 7)]
    assert positions == sorted(positions)
    assert "insufficient" in text  # bins under 20 points flagged
    assert all(demo.claims.values())
    assert "[ok]" in text and "failed" not in text


def test_plots_written(demo: splits.SplitsDemo) -> None:
    names = sorted(p.name for p in demo.figures)
    assert names == ["splits_redraws.png", "splits_reliability.png"]
    for path in demo.figures:
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_cli_dispatches_to_the_demo(demo: splits.SplitsDemo, monkeypatch: pytest.MonkeyPatch,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    seen: list[object] = []

    def fake_run(plots: object = None) -> splits.SplitsDemo:
        seen.append(plots)
        return demo

    monkeypatch.setattr(splits, "run", fake_run)
    assert cli_main(["demo", "splits", "--plots", "figs"]) == 0
    assert seen == ["figs"]
    assert capsys.readouterr().out.strip() == demo.text.strip()
    assert splits.main(argparse.Namespace(plots=None)) == 0
