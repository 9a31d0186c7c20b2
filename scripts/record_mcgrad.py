"""Record MCGrad's multicalibration error on fixed data, for tests/segments/test_mcgrad_oracle.py.

MCGrad (Meta's ``mcgrad`` package) pulls in torch, LightGBM and Ax, so it is never
imported by the test suite: this script runs it once, in a separate environment,
and writes the data and its numbers to ``tests/segments/data/``::

    python3 -m venv /tmp/mcgrad-venv && /tmp/mcgrad-venv/bin/pip install mcgrad
    /tmp/mcgrad-venv/bin/python scripts/record_mcgrad.py

Each case is a CSV of rows (``score``, ``label``, optional ``weight``, categorical
features) and a JSON of ``mcgrad.metrics.MulticalibrationError``'s numbers with the
arguments used (float64 precision, depth 2, every level kept, segments of at least
``min_samples_per_segment`` rows: the family ``vc.segments`` builds with the same
``min_count``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

OUT = Path(__file__).resolve().parents[1] / "tests" / "segments" / "data"


def make(seed: int, n: int, weighted: bool) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    score = rng.uniform(0.02, 0.98, n)  # continuous: no ties, so row order within ties never matters
    region = rng.choice(["APAC", "EU", "LATAM", "US"], n, p=[0.2, 0.3, 0.2, 0.3])
    device = rng.choice(["android", "ios", "web"], n)
    plan = rng.choice(["free", "paid"], n, p=[0.6, 0.4])
    shift = np.where((region == "EU") & (device == "ios"), 0.08, 0.0) - np.where(plan == "paid", 0.03, 0.0)
    label = (rng.uniform(size=n) < np.clip(score + shift, 0, 1)).astype(int)
    df = pd.DataFrame({"score": score, "label": label, "region": region, "device": device, "plan": plan})
    if weighted:
        df["weight"] = rng.choice([0.5, 1.0, 2.0, 3.0], n)
    return df


def record(name: str, df: pd.DataFrame, *, min_count: int, depth: int) -> None:
    from mcgrad.metrics import MulticalibrationError

    features = ["region", "device", "plan"]
    args = dict(label_column="label", score_column="score",
                weight_column="weight" if "weight" in df else None,
                categorical_segment_columns=features, numerical_segment_columns=None, max_depth=depth,
                max_values_per_segment_feature=max(df[f].nunique() for f in features),
                min_samples_per_segment=min_count, max_n_segments=None, chunk_size=50, precision_dtype="float64")
    m = MulticalibrationError(df, **args)
    numbers = {
        "mce": float(m.mce), "mce_sigma": float(m.mce_sigma), "mce_pvalue": float(m.mce_pvalue),
        "mde": float(m.mde), "global_ecce": float(m.global_ecce), "n_segments": int(m.total_number_segments),
        "segments_ecce_sigma_sorted": sorted(float(v) for v in m.segments_ecce_sigma),
    }
    import mcgrad

    doc = {"mcgrad_version": getattr(mcgrad, "__version__", "unknown"), "features": features, "min_count": min_count,
           "depth": depth, "arguments": {k: v for k, v in args.items()}, "numbers": numbers}
    OUT.mkdir(parents=True, exist_ok=True)
    df.to_csv(OUT / f"{name}.csv", index=False, float_format="%.17g")
    (OUT / f"{name}.json").write_text(json.dumps(doc, indent=2) + "\n")
    print(name, numbers["mce"], numbers["mce_sigma"], numbers["n_segments"])


def record_repair() -> None:
    """MCGrad's own repair (``mcgrad.methods.MCGrad``) on the demo data's calib rows, with the planted
    segment of tests/segments/test_segments_repair.py; its predictions on the test rows are saved."""
    from mcgrad import methods

    demo = pd.read_csv(Path(__file__).resolve().parents[1] / "src" / "veracity" / "data" / "demo.csv")
    logit = np.log(demo["score"] / (1 - demo["score"]))
    planted = (demo["segment"] == "mobile") & demo["month"].isin(["2026-03", "2026-04"])
    demo["planted_score"] = 1 / (1 + np.exp(-(logit + np.where(planted, 4.0, 0.0))))
    calib, test = demo[demo["role"] == "calib"], demo[demo["role"] == "test"]
    model = methods.MCGrad()
    model.fit(df_train=calib, prediction_column_name="planted_score", label_column_name="label",
              categorical_feature_column_names=["segment", "month"])
    pred = model.predict(df=test, prediction_column_name="planted_score",
                         categorical_feature_column_names=["segment", "month"])
    out = pd.DataFrame({"id": test["id"].to_numpy(), "mcgrad": np.asarray(pred, dtype=np.float64)})
    out.to_csv(OUT / "mcgrad_repair.csv", index=False, float_format="%.17g")
    print("repair", len(out))


if __name__ == "__main__":
    record("mcgrad_unweighted", make(7, 3000, weighted=False), min_count=50, depth=2)
    record("mcgrad_weighted", make(8, 3000, weighted=True), min_count=50, depth=2)
    record("mcgrad_large", make(9, 20000, weighted=False), min_count=100, depth=2)
    record_repair()
