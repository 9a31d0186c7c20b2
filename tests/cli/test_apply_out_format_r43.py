"""``veracity apply cal.json rows.csv -o scores.xlsx`` (or ``.json``, ``.feather``) wrote CSV text under that
name and said "applied PlattScaling to 200 rows -> scores.xlsx", exit 0: Excel, a JSON reader or an Arrow
reader then refused the file (session 43). A name of another format is refused before any work, saying
what apply writes; CSV and Parquet names, and names without a suffix (CSV), are written as before. So is
``veracity report --out report.pdf``, which wrote the HTML page under that name."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("name, what", [("scores.xlsx", "an Excel workbook"), ("scores.JSON", "JSON"),
                                        ("scores.feather", r"Arrow IPC \(Feather\)")])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_other_format_refused(tmp_path, cli, refused, platt_artifact, name, what, kind):
    pa = pytest.importorskip("pyarrow")
    rows = tmp_path / f"rows.{kind}"
    if kind == "csv":
        rows.write_text("score,label\n0.2,0\n0.7,1\n")
    else:
        import pyarrow.parquet as pq

        pq.write_table(pa.table({"score": [0.2, 0.7], "label": [0, 1]}), rows)
    out = tmp_path / name
    refused(cli(["apply", platt_artifact, rows, "-o", out]),
            rf"--out \S*{name} names {what}, and apply writes Parquet \(\.parquet, \.pq, \.parq\) or CSV .*: "
            rf"pass -o \S*scores\.csv \(which Excel opens\) or -o \S*scores\.parquet")
    assert not out.exists()


@pytest.mark.parametrize("name", ["o.csv", "o.tsv", "o.txt", "o.csv.gz", "o", "o.parquet"])
def test_csv_and_parquet_names_written(tmp_path, cli, platt_artifact, name):
    rows = tmp_path / "rows.csv"
    rows.write_text("score,label\n0.2,0\n0.7,1\n")
    got = cli(["apply", platt_artifact, rows, "-o", tmp_path / name])
    assert got.code == 0, got.err
    assert (tmp_path / name).stat().st_size > 0


@pytest.mark.parametrize("name, what", [("report.pdf", r"a PDF"), ("report.PNG", "an image"),
                                        ("report.json", "JSON")])
def test_report_out_of_another_format_refused(tmp_path, cli, refused, name, what):
    """``veracity report --out report.pdf`` wrote the HTML page as report.pdf
    ("wrote report.pdf (171 KB)")."""
    out = tmp_path / name
    refused(cli(["report", "--out", out, "-q"]),
            rf"--out \S*{name} names {what}, and report writes one self-contained HTML page: pass --out "
            rf"\S*report\.html")
    assert not out.exists()
