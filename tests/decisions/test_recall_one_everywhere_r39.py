"""A target recall of 1 is refused with the reason (no finite-sample guarantee) wherever a target recall is
taken: the thresholds, simulate_redraws, plot_thresholds, vc.report and `veracity report` (the last three
said only "must lie in (0, 1)", and vc.report(target_recall='x') raised a TypeError)."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

import veracity as vc  # noqa: E402


RNG = np.random.default_rng(39)
P = RNG.uniform(size=300)
Y = (RNG.uniform(size=300) < P).astype(int)
WHY = "target recall of 1 has no finite-sample guarantee"


@pytest.mark.parametrize("call", [
    lambda: vc.recall_threshold(P, Y, target=1.0),
    lambda: vc.simulate_redraws(P, Y, target=1.0, n_calib=100),
    lambda: vc.plot_thresholds(P, Y, target_recall=1.0),
    lambda: vc.report(P, Y, target_recall=1.0),
], ids=["recall_threshold", "simulate_redraws", "plot_thresholds", "report"])
def test_a_recall_of_1_is_refused_with_the_reason(call):
    with pytest.raises(vc.VeracityError, match=WHY):
        call()


def test_report_refuses_a_target_that_is_no_number_in_one_line():
    with pytest.raises(vc.VeracityError, match=r"target_recall must be a number in \(0, 1\)"):
        vc.report(P, Y, target_recall="x")


def test_the_cli_report_says_why(tmp_path, cli, refused):
    path = tmp_path / "s.csv"
    path.write_text("score,label\n" + "".join(f"{p},{y}\n" for p, y in zip(P, Y)))
    refused(cli(["report", path, "--score", "score", "--label", "label", "--target-recall", "1",
                            "-o", tmp_path / "r.html"]), WHY)
