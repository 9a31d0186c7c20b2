"""``veracity compare --against`` on a rare event (session 28): the printed rows kept 4 decimals, so at a base
rate under 1 % the Brier difference and its interval read "+0.0000 [+0.0000, +0.0000]"; now each number
shows its group's two significant digits (comparison._digits), and ``--json`` keeps every number at full precision."""

from __future__ import annotations

import json
import re

import numpy as np

import veracity as vc


def _file(tmp_path) -> tuple[str, dict[str, np.ndarray], np.ndarray]:
    rng = np.random.default_rng(28)
    n = 60_000
    x = rng.normal(size=n)
    y = rng.binomial(1, 1 / (1 + np.exp(-(-5.6 + 1.2 * x))))
    a = 1 / (1 + np.exp(-(-5.6 + 1.1 * x + 0.3 * rng.normal(size=n))))
    b = 1 / (1 + np.exp(-(-5.6 + 1.2 * x + 0.1 * rng.normal(size=n))))
    path = tmp_path / "rare.csv"
    path.write_text("a,b,y\n" + "".join(f"{p!r},{q!r},{t}\n" for p, q, t in zip(a.tolist(), b.tolist(),
                                                                             y.tolist())))
    return str(path), {"a": a, "b": b}, y


def test_compare_prints_a_rare_event_s_brier_difference_with_its_digits(cli, tmp_path):
    path, models, y = _file(tmp_path)
    args = ["compare", path, "--score", "a", "--against", "b", "--label", "y", "--n-resamples", "0"]
    r = cli(args)
    assert r.code == 0, r.err
    row = vc.compare_models(models, y, n_resamples=0).row("brier")
    assert abs(row.diff) < 1e-4 and abs(row.ci_low) < 1e-4  # the difference is below 4 decimals' reach
    line = next(s for s in r.out.splitlines() if s.startswith("brier "))
    diff, low, high = re.findall(r"[+-]\d+\.\d+", line)[:3]
    for text, value in ((diff, row.diff), (low, row.ci_low), (high, row.ci_high)):
        places = len(text.split(".")[1])
        assert abs(float(text) - value) <= 0.5 * 10 ** -places, (text, value)
    top = max((diff, low, high), key=lambda t: abs(float(t)))
    assert len(top.lstrip("+-").replace(".", "").lstrip("0")) >= 2, line  # two significant digits
    j = cli([*args, "--json"])
    assert j.code == 0, j.err
    shown = next(x for x in json.loads(j.out)["comparison"] if x["metric"] == "brier")
    assert shown["diff"] == row.diff and shown["ci_low"] == row.ci_low  # full precision in JSON
