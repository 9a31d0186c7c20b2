"""A target precision of 1 -- no false alarm on these data -- is taken; a target recall of 1 stays refused,
saying why (session 39).

``precision_threshold(target=1.0)`` and ``veracity threshold --target-precision 1`` were refused by the
open interval (0, 1) of every target, though "the lowest threshold whose empirical precision is 1" is a
legitimate ask. It is now the lowest observed score with no negative row of positive weight at or above it
(FP = 0 exactly: a false alarm of tiny weight, whose precision rounds to within 1e-12 of 1, does not count
as none). A target recall of 1 is still refused (the +1 rule's rank n + 1 exceeds n for every n), the
message now saying so. The tests fail before and pass now.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main


def _oracle(s: np.ndarray, y: np.ndarray) -> float:
    """The lowest score above every negative's: the lowest threshold flagging no negative."""
    return float(s[s > s[y == 0].max()].min())


def test_precision_one_is_the_lowest_threshold_above_every_negative() -> None:
    rng = np.random.default_rng(39)
    for _ in range(50):
        n = int(rng.integers(5, 200))
        s = np.round(rng.uniform(size=n), 2)  # ties included
        y = (rng.uniform(size=n) < s).astype(int)
        if not y.any() or y.all() or s[y == 1].max() <= s[y == 0].max():
            continue
        assert vc.precision_threshold(s, y, target=1) == _oracle(s, y)
        assert vc.precision_threshold(s, y, target=1.0, sample_weight=np.full(n, 2.5)) == _oracle(s, y)
    assert vc.precision_threshold([.1, .3, .4, .6, .8, .9], [0, 0, 1, 0, 1, 1], target=1) == 0.8


def test_precision_one_counts_a_false_alarm_of_tiny_weight() -> None:
    """TP/(TP+FP) = 1 - 1e-15 rounds to within 1e-12 of 1; the tiny false alarm still is one."""
    s, y = [0.2, 0.5, 0.7, 0.9], [0, 1, 0, 1]
    w = [1.0, 1e6, 1e-9, 1e6]
    assert vc.precision_threshold(s, y, target=1, sample_weight=w) == 0.9
    assert vc.precision_threshold(s, y, target=1 - 1e-13, sample_weight=w) == 0.5  # a plain target: rounding


def test_precision_one_out_of_reach_and_the_frame_form() -> None:
    with pytest.raises(vc.VeracityError, match=r"no threshold reaches precision 1; the best is 0.5 at "):
        vc.precision_threshold([0.2, 0.8], [1, 0], target=1)
    import pandas as pd

    df = pd.DataFrame({"p": [.1, .3, .4, .6, .8, .9], "y": ["n", "n", "p", "n", "p", "p"]})
    assert vc.precision_threshold(df, score="p", label="y", target=1, pos_label="p") == 0.8


@pytest.mark.parametrize("target", [True, 1.5, 0.0])
def test_precision_targets_outside_zero_one_stay_refused(target) -> None:
    with pytest.raises(vc.VeracityError, match=r"target must be (a number )?in \(0, 1\) or be 1 \(no false "):
        vc.precision_threshold([0.2, 0.8], [0, 1], target=target)


def test_recall_one_is_refused_saying_why() -> None:
    from veracity.decisions._thresholds import min_positives, recall_rank

    for call in (lambda: vc.recall_threshold([0.2, 0.8], [1, 1], target=1.0),
                 lambda: vc.recall_threshold([0.2, 0.8], [1, 1], target=1, correction=False),
                 lambda: min_positives(1.0), lambda: recall_rank(10, 1.0)):
        with pytest.raises(vc.VeracityError, match=r"target must be in \(0, 1\), e.g. 0.95; got 1(\.0)?: a "
                                                   r"target recall of 1 has no finite-sample guarantee"):
            call()


def test_cli_target_precision_one_and_target_recall_one(capsys, tmp_path) -> None:
    rng = np.random.default_rng(3)
    p = rng.uniform(size=400)
    y = (rng.uniform(size=400) < p).astype(int)
    role = np.where(np.arange(400) % 2 == 0, "calib", "test")
    f = tmp_path / "d.csv"
    f.write_text("p,y,role\n" + "".join(f"{a!r},{b},{r}\n" for a, b, r in zip(p.tolist(), y.tolist(), role)))
    argv = ["threshold", str(f), "--score", "p", "--label", "y"]
    assert main([*argv, "--target-precision", "1", "--json", "-"]) == 0
    got = json.loads(capsys.readouterr().out)
    calib = role == "calib"
    assert got["threshold"] == _oracle(p[calib], y[calib])
    assert got["threshold"] == vc.precision_threshold(p[calib], y[calib], target=1)
    assert main([*argv, "--target-recall", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(
        "veracity threshold: input error: --target-recall must be in (0, 1), e.g. 0.95; got 1.0: a target "
        "recall of 1 has no finite-sample guarantee"), err
