"""Generate the bundled demo data set (run once; the CSV is committed).

A loan-default style model scored on 6,000 applications. The true default
probability follows a logistic model of three features; the deployed model
learned the right ranking but is overconfident (its logit is 1.9x the true
logit) and the "partner" channel carries an extra +0.5 logit bias. Each row is
assigned a role: half "calib" and half "test", stratified by label.

    python scripts/make_demo_data.py
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

N = 6000
SEED = 20261130


def main() -> None:
    rng = np.random.default_rng(SEED)
    segment = rng.choice(["web", "mobile", "partner"], size=N, p=[0.5, 0.35, 0.15])
    month = rng.choice([f"2026-{m:02d}" for m in range(1, 7)], size=N)
    x = rng.normal(size=(N, 3))
    true_logit = -1.6 + x @ np.array([1.0, -0.7, 0.4])
    label = (rng.random(N) < 1.0 / (1.0 + np.exp(-true_logit))).astype(int)
    model_logit = 1.9 * true_logit + 0.9 + 0.5 * (segment == "partner") + rng.normal(0, 0.35, N)
    score = 1.0 / (1.0 + np.exp(-model_logit))
    # stratified 50/50 calib/test split
    role = np.empty(N, dtype=object)
    for cls in (0, 1):
        idx = np.flatnonzero(label == cls)
        rng.shuffle(idx)
        half = idx.size // 2
        role[idx[:half]] = "calib"
        role[idx[half:]] = "test"
    out = Path(__file__).resolve().parents[1] / "src" / "veracity" / "data" / "demo.csv"
    with out.open("w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["id", "month", "segment", "role", "label", "score", "logit"])
        for i in range(N):
            writer.writerow(
                [i, month[i], segment[i], role[i], label[i], f"{score[i]:.6f}", f"{model_logit[i]:.6f}"]
            )
    print(f"wrote {out} ({N} rows, base rate {label.mean():.3f})")


if __name__ == "__main__":
    main()
