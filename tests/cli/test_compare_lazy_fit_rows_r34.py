"""``veracity compare --calibrator`` warns that the 'after' column is optimistic when the calibrator was fit on
these very rows — also for a fit on a lazy frame (``fit --engine duckdb``), which records the hash of its
aggregates (frames._fit.aggregate_hash), not of the rows' bytes: no warning was given there (round 34)."""
import numpy as np
import pandas as pd


def test_a_duckdb_fit_on_these_rows_is_named_optimistic(tmp_path, cli):
    rng = np.random.default_rng(1)
    p = rng.uniform(0.05, 0.95, 2000)
    y = (rng.uniform(size=2000) < p).astype(int)
    rows, other = tmp_path / "rows.parquet", tmp_path / "other.parquet"
    pd.DataFrame({"p": p, "y": y}).to_parquet(rows)
    pd.DataFrame({"p": p[:1000], "y": y[:1000]}).to_parquet(other)
    cal = tmp_path / "cal.json"
    fit = cli(["fit", rows, "--score", "p", "--label", "y", "--method", "platt", "--engine", "duckdb",
               "--out", cal])
    assert fit.code == 0, fit.err
    same = cli(["compare", rows, "--score", "p", "--label", "y", "--calibrator", cal])
    assert same.code == 0 and "fit on these very rows" in same.err and "optimistic" in same.err
    unseen = cli(["compare", other, "--score", "p", "--label", "y", "--calibrator", cal])
    assert unseen.code == 0 and "optimistic" not in unseen.err
