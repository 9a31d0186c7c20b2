"""(N, K) multiclass scores given to the model comparison: the refusal's advice can be followed (r33).

It said "pass the column of one class (with pos_label=) for each model", but ``pos_label=`` on labels of
three values is itself refused ("needs a binary label set"): the advice led to a second refusal. A class is
compared one at a time, its column for each model against the labels as 0/1; that works, as the test shows.
On the command line, ``--score p0,p1,p2 --against q0,q1,q2`` read the three names as one column and said
"column 'p0,p1,p2' not found" although the file has all three.
"""

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _three_classes(n: int = 300, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet([1, 1, 1], n)
    y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    q = rng.dirichlet([1, 1, 1], n)
    return p, q, y


@pytest.mark.parametrize("call", [vc.compare_models, vc.murphy_diagram, vc.decision_curve,
                                  lambda m, y: vc.realised_cost(m, y, threshold=0.5)])
def test_multiclass_advice_is_one_that_works(error_line, call):
    p, q, y = _three_classes()
    text = error_line(lambda: call({"a": p, "b": q}, y))
    assert "pos_label" not in text, text  # pos_label= on 3-valued labels is refused in turn
    assert "(labels == k)" in text, text
    k = 1  # the advice, followed: runs
    result = vc.compare_models({"a": p[:, k], "b": q[:, k]}, (y == k).astype(int), n_resamples=0)
    assert result.row("brier").value_a == pytest.approx(np.mean((p[:, k] - (y == k)) ** 2), rel=1e-12)


def test_cli_multiclass_score_is_refused_as_such(tmp_path, cli, refused):
    p, q, y = _three_classes()
    frame = pd.DataFrame({**{f"p{k}": p[:, k] for k in range(3)}, **{f"q{k}": q[:, k] for k in range(3)},
                          "y": y})
    path = tmp_path / "mc.csv"
    frame.to_csv(path, index=False)
    r = cli(["compare", str(path), "--score", "p0,p1,p2", "--against", "q0,q1,q2", "--label", "y"])
    refused(r, r"--against compares binary models, one score column each, but --score names 3 columns "
               r"\(p0, p1, p2\)")
    assert "not found" not in r.err
