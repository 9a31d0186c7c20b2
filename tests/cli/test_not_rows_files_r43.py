"""A file that is no table of rows (JSON, JSON lines, an Excel workbook, gzip data without ``.gz``, a saved
calibrator, UTF-16 text) is refused saying what it is (session 43). Each was read as CSV text: JSON lines
gave "column 'score' not found in rows.jsonl; available columns: {"score": 0.3,  "label": 1}", an ``.xlsx``
"could not read s.xlsx as CSV or Parquet: CSV parse error: Empty CSV file" (memory) or "is not UTF-8 text
(byte 0xb9)" (DuckDB), gzip data named ``scores`` "is not UTF-8 text (byte 0x8b)", and ``veracity apply
rows.csv cal.json`` (the two swapped) "rows.csv is not a JSON calibrator artifact". A real CSV is read as
before."""

from __future__ import annotations

import gzip
import json
import zipfile

import pytest

import veracity as vc

ROWS = [{"score": 0.1 * (i % 9) + 0.05, "label": i % 2} for i in range(40)]
CSV = "score,label\n" + "".join(f"{r['score']},{r['label']}\n" for r in ROWS)


def _files(tmp_path):
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in ROWS))
    (tmp_path / "rows.json").write_text(json.dumps(ROWS, indent=1))
    with zipfile.ZipFile(tmp_path / "s.xlsx", "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
    (tmp_path / "scores").write_bytes(gzip.compress(CSV.encode()))
    (tmp_path / "unicode.txt").write_bytes(CSV.replace(",", "\t").encode("utf-16"))  # Excel's "Unicode Text"
    (tmp_path / "le.csv").write_bytes(CSV.encode("utf-16-le"))  # no byte-order mark
    return tmp_path


CASES = [
    ("rows.jsonl", r"rows\.jsonl holds JSON, not CSV; .*pd\.read_json\(path, lines=True\)"),
    ("rows.json", r"rows\.json holds JSON, not CSV; .*pd\.read_json\(path\)\.to_parquet"),
    ("s.xlsx", r"s\.xlsx is a ZIP archive \(an Excel \.xlsx workbook\?\), not a CSV or Parquet file of rows"),
    ("scores", r"scores is gzip-compressed but its name does not end in \.gz; name it \*\.csv\.gz"),
    # was "not UTF-8 text (byte 0xff); ... iconv -f latin1 -t utf-8" (which garbles it) or a ragged line
    ("unicode.txt", r"unicode\.txt is UTF-16 text .*, not UTF-8; re-save it as UTF-8 CSV, e\.g\. iconv -f "
                    r"utf-16 "),
    ("le.csv", r"le\.csv is UTF-16 text .*iconv -f utf-16le -t utf-8"),
]


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("name, said", CASES)
def test_cli_says_what_the_file_is(tmp_path, cli, refused, monkeypatch, name, said, engine):
    pytest.importorskip("duckdb")
    monkeypatch.chdir(_files(tmp_path))
    refused(cli(["audit", name, "--engine", engine]), said)
    refused(cli(["fit", name, "--method", "platt", "--out", "cal.json"]), said)
    refused(cli(["threshold", name]), said)


@pytest.mark.parametrize("name, said", CASES)
def test_python_path_says_what_the_file_is(tmp_path, monkeypatch, name, said):
    pytest.importorskip("duckdb")
    monkeypatch.chdir(_files(tmp_path))
    with pytest.raises(vc.VeracityError, match=said):
        vc.audit(name, score="score", label="label")


def test_apply_with_the_two_files_swapped(tmp_path, cli, refused, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows.csv").write_text(CSV)
    assert cli(["fit", "rows.csv", "--method", "platt", "--out", "cal.json", "-q"]).code == 0
    refused(cli(["apply", "rows.csv", "cal.json", "-o", "out.csv"]),
            r"cal\.json is a saved veracity calibrator, not a file of rows; .*veracity apply cal\.json ROWS "
            r"-o OUT, the calibrator first")
    got = cli(["apply", "cal.json", "rows.csv", "-o", "out.csv"])  # the right order, as before
    assert got.code == 0, got.err


def test_real_tables_read_as_before(tmp_path, cli, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "rows.csv").write_text(CSV)
    (tmp_path / "rows.csv.gz").write_bytes(gzip.compress(CSV.encode()))
    (tmp_path / "rows.txt").write_text(CSV)
    (tmp_path / "noext").write_text("\ufeff" + CSV)  # a BOM, no extension
    outs = [cli(["audit", name, "--json", "-"]) for name in ("rows.csv", "rows.csv.gz", "rows.txt", "noext")]
    assert all(o.code == 0 for o in outs), [o.err for o in outs]
    assert len({json.dumps(json.loads(o.out)["metrics"]) for o in outs}) == 1
