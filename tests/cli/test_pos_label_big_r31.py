"""--pos-label on a label column of integers beyond 2**53 that the CSV reader gave as doubles: two labels read as
one double, so one --pos-label matched every row (base rate 1.0000 for a true 0.5) — now refused in one line."""


def _csv(tmp_path):
    path = tmp_path / "u.csv"
    path.write_text("p,y\n0.2,18446744073709551615\n0.7,18446744073709551614\n"
                    "0.4,18446744073709551615\n0.9,18446744073709551614\n")
    return path


def test_labels_merged_by_the_float_reading_are_refused(cli, refused, tmp_path):
    path = _csv(tmp_path)
    for pos in ("18446744073709551615", "18446744073709551614"):
        result = cli(["audit", str(path), "--score", "p", "--label", "y", "--pos-label", pos])
        refused(result, r"read as floating point .* map the labels to 0/1")
        assert "base rate" not in result.out


def test_small_integer_labels_still_work(cli, tmp_path):
    path = tmp_path / "s.csv"
    path.write_text("p,y\n0.2,7\n0.7,9\n0.4,7\n0.9,9\n")
    result = cli(["audit", str(path), "--score", "p", "--label", "y", "--pos-label", "9"])
    assert result.code == 0, result.err
    assert "base rate 0.5000" in result.out


def test_dask_names_numbers_beyond_int64_not_a_later_decimal_point(cli, refused, tmp_path):
    result = cli(["audit", str(_csv(tmp_path)), "--score", "p", "--label", "y", "--engine", "dask"])
    refused(result, r"holds whole numbers beyond the int64 range")
    assert "further down" not in result.err, result.err
