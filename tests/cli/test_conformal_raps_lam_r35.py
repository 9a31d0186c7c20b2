"""`veracity conformal --method raps --lam 1e308` overflowed the penalty and was refused as "scores contains 0
NaN and 21 infinite values" (the probabilities were fine); --lam past 1e6 is now refused naming the flag."""

from __future__ import annotations


def test_a_huge_lam_is_refused_naming_the_flag(cli, refused, write_csv, tmp_path):
    rows = [(0.7, 0.2, 0.1, 0), (0.1, 0.8, 0.1, 1), (0.3, 0.3, 0.4, 2), (0.5, 0.4, 0.1, 1)] * 10
    path = write_csv(tmp_path / "d.csv", "p0,p1,p2,y", rows)
    args = ["conformal", path, "--score", "p0,p1,p2", "--label", "y", "--method", "raps", "--lam"]
    result = cli([*args, "1e308"])
    refused(result, r"--lam must be at most 1,000,000, got 1e\+308: every lam above 1 gives the same sets.*"
                    r"pass e\.g\. --lam 1$")
    ok = cli([*args, "1e6"])
    assert ok.code == 0, ok.err
