"""A multiclass score matrix with cells outside [0, 1]: the CLI names the first bad data row once, as a data row."""
import numpy as np


def test_multiclass_range_error_names_the_first_data_row_once(cli, refused, tmp_path):
    rng = np.random.default_rng(31)
    p = rng.dirichlet(np.ones(3), size=20)
    p[3] = [1.1, -0.05, -0.05]  # 0-based row 3 of the data = data row 4 (line 5 of the file, after the header)
    p[7] = [1.2, -0.1, -0.1]
    lines = ["p0,p1,p2,label"] + [f"{float(a)!r},{float(b)!r},{float(c)!r},{i % 3}" for i, (a, b, c) in enumerate(p)]
    path = tmp_path / "mc.csv"
    path.write_text("\n".join(lines) + "\n")
    result = cli(["report", str(path), "--score", "p0,p1,p2", "--out", str(tmp_path / "r.html")])
    refused(result, r"2 of 20 rows are not")
    assert "first at data row 4, column 0" in result.err, result.err
    assert result.err.count("data row") == 1, result.err
