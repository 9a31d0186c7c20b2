"""``veracity fit FILE --role-col role`` on a file with no data rows: one line in the in-memory read's words on
every engine (DuckDB said "<path> has no rows; ..." where memory says "has a header but no rows")."""

import pytest


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_an_empty_file_with_a_role_column_is_worded_alike(tmp_path, cli, refused, engine) -> None:
    pytest.importorskip("duckdb")
    path = tmp_path / "empty.csv"
    path.write_text("p,y,role\n")
    result = cli(["fit", str(path), "--score", "p", "--label", "y", "--role-col", "role", "--method", "platt",
                  "--out", str(tmp_path / "cal.json"), "--engine", engine])
    refused(result, r"input error: \S*empty\.csv has a header but no rows; pass a file with at least one data row$")
