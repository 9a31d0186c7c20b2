"""Round 24: `veracity conformal` prints each q̂ with every digit it needs, so a q̂ copied from the
terminal builds the same sets (per-class q̂ were printed with 4 decimals, the marginal with 6 digits)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd

import veracity as vc


def test_printed_qhats_read_back_as_the_fitted_ones(cli, tmp_path):
    rng = np.random.default_rng(7)
    n, k = 400, 3
    z = rng.normal(size=(n, k)) * 2.0
    P = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
    y = np.minimum((rng.uniform(size=(n, 1)) > P.cumsum(axis=1)).sum(axis=1), k - 1)
    role = np.where(np.arange(n) < 200, "calib", "test")
    path = tmp_path / "mc.csv"
    pd.DataFrame({"p0": P[:, 0], "p1": P[:, 1], "p2": P[:, 2], "y": y, "role": role}).to_csv(path, index=False)
    calib = role == "calib"
    for extra, fitted in [(["--mondrian"], vc.ConformalClassifier(alpha=0.1, mondrian=True)),
                          ([], vc.ConformalClassifier(alpha=0.1))]:
        res = cli(["conformal", str(path), "--score", "p0,p1,p2", "--label", "y", *extra])
        assert res.code == 0, res.err
        fitted.fit(P[calib], y[calib])
        expected = fitted.class_qhat_ if extra else [fitted.qhat_]
        line = next(ln for ln in res.out.splitlines() if "q̂" in ln and ("per-class" in ln or "q̂ =" in ln))
        printed = [float(v) for v in re.findall(r"\d\.\d+(?:e-?\d+)?", line.split("q̂", 1)[1])][:len(expected)]
        assert printed == [float(q) for q in expected], line
