"""``veracity threshold --target-recall R --sample-weight w`` follows ``vc.recall_threshold``'s weighted rule,
which now counts the new positive at W/m, m the smaller of Kish's size and the size the weights' spread about
the threshold gives, and says which: "R·(W + Σw²/Σw)" was printed (and its weight) whatever the rule used."""

import json
import re

import numpy as np
import pytest

import veracity as vc
from veracity.decisions._thresholds import weighted_recall_rank


def _rows(seed: int, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Rows kept with probability 0.02 + 0.98 p and weighed by its inverse: the heavy rows score low."""
    rng = np.random.default_rng(seed)
    c = rng.random(8 * n)
    p = np.round(c[rng.random(c.size) < 0.02 + 0.98 * c][:n], 6)
    y = (rng.random(n) < 0.6).astype(int)
    return p, y, 1 / (0.02 + 0.98 * p)


@pytest.mark.parametrize("seed", [1, 2])
def test_cli_says_the_size_the_weighted_recall_rule_used(tmp_path, cli, write_csv, seed):
    p, y, w = _rows(seed, 300)
    path = write_csv(tmp_path / "d.csv", "score,label,w", list(zip(p, y, w)))
    argv = ["threshold", path, "--sample-weight", "w", "--target-recall", "0.9", "-q"]
    doc = json.loads(cli([*argv, "--json", "-"]).out)
    text = cli(argv).out.splitlines()[0]
    wf = np.array([float(f"{v}") for v in w])  # the weights as the file holds them
    sp, wp = p[y == 1], wf[y == 1]
    assert doc["threshold"] == vc.recall_threshold(p, y, target=0.9, sample_weight=wf)
    assert doc["rule"]["k"] == weighted_recall_rank(sp, wp, 0.9)[1]
    # the rule written out: the new positive at W/m, m the sandwich size of the share caught at Kish's
    # threshold
    order = np.argsort(-sp, kind="stable")
    cum, total = np.cumsum(wp[order]), wp.sum()
    kish_t = (wp @ wp) / total
    t0 = sp[order][np.argmax(cum >= 0.9 * (total + kish_t) - 1e-9 * total)]
    h = sp >= t0
    f = wp[h].sum() / total
    size = f * (1 - f) * total ** 2 / (wp * wp * (h - f) ** 2).sum()
    assert size < total / kish_t  # these weights: the spread's size is the smaller
    m = re.search(r"k = (\d+), the first rank where the positives' cumulative weight reaches "
                  r"R·\(W \+ W/m\) = (\S+) \(m = (\S+), the size the weights' spread about the threshold "
                  r"gives, below Kish's\)$", text)
    assert m, text
    assert int(m.group(1)) == doc["rule"]["k"]
    assert float(m.group(2)) == pytest.approx(0.9 * (total + total / size), rel=1e-3)
    assert float(m.group(3)) == pytest.approx(size, rel=1e-3)


@pytest.mark.parametrize("scale", [5e307, 1.5e307])
def test_cli_weighted_recall_with_weights_near_the_float_range(tmp_path, cli, write_csv, scale):
    """Weights whose sum passes the largest double: the library scales them by a power of two and answers;
    the command ranked the raw weights again to print k and refused ("too few positives ... (weight inf)")."""
    rng = np.random.default_rng(3)
    p = np.round(rng.random(200), 4)
    y = (rng.random(200) < p).astype(int)
    w = rng.uniform(1, 3, 200) * scale
    rows = [(float(a), b, float(c)) for a, b, c in zip(p, y, w)]
    path = write_csv(tmp_path / "d.csv", "score,label,w", rows)
    argv = ["threshold", path, "--sample-weight", "w", "--target-recall", "0.9", "-q"]
    done = cli([*argv, "--json", "-"])
    assert done.code == 0, done.err
    doc = json.loads(done.out)
    wf = np.array([float(repr(float(v))) for v in w])
    assert doc["threshold"] == vc.recall_threshold(p, y, target=0.9, sample_weight=wf)
    assert doc["rule"]["k"] == weighted_recall_rank(p[y == 1], wf[y == 1] / scale, 0.9)[1]


@pytest.mark.parametrize("scale", [1e200, 1e-200])
def test_cli_precision_interval_reads_any_weight_scale(tmp_path, cli, write_csv, scale):
    """--target-precision's interval on weights of 1e200 refused with "trials must be finite counts >= 0; got
    nan" (their squares overflowed), and on weights of 1e-200 printed "no alerts" (their squares were 0)
    beside a table of alerts. Only the weights' ratios matter: the line of weights near 1."""
    rng = np.random.default_rng(3)
    p = np.round(rng.random(400), 4)
    y = (rng.random(400) < p).astype(int)
    w = rng.uniform(1, 3, 400)
    argv = ["--sample-weight", "w", "--target-precision", "0.8", "-q"]
    lines = []
    for c in (1.0, scale):
        path = write_csv(tmp_path / "d.csv", "score,label,w", [(float(a), b, float(v) * c)
                                                              for a, b, v in zip(p, y, w)])
        done = cli(["threshold", path, *argv])
        assert done.code == 0, done.err
        lines.append(done.out.splitlines()[-1])
    assert "on 193.5 effective alerts [0.7407, 0.8524]" in lines[0]
    assert lines[1] == lines[0]


def test_an_eval_role_of_weight_zero_is_named(tmp_path, cli, write_csv, refused):
    """The eval role weighing 0 was refused as "--sample-weight sums to 0", which read as about the whole file
    (whose calib rows the threshold was fit on, with weights); the error now names the rows it is about."""
    rng = np.random.default_rng(1)
    rows = [(round(float(rng.random()), 3), int(i % 3 == 0), "calib" if i < 60 else "test",
             0.0 if i >= 60 else 1.0) for i in range(120)]
    path = write_csv(tmp_path / "d.csv", "p,y,role,w", rows)
    refused(cli(["threshold", path, "--score", "p", "--label", "y", "--sample-weight", "w", "--target-recall",
                 "0.8", "-q"]),
            r"--sample-weight sums to 0; at least one row needs a positive weight \(measured on the 60 rows "
            r"with role == 'test'\)")
