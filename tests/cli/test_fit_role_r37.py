"""``veracity fit`` finds the ``role`` column of a plain local CSV or Parquet file by its header (session 37).

Without ``--role-col``, ``veracity fit`` fits on the ``role`` column's ``calib`` rows when the input has a
column of that name. That check opened the file in DuckDB (~50 ms of a 65 ms small fit); a plain local
``.csv``/``.tsv``/``.txt`` header line or a Parquet schema (pyarrow) now answers it, and DuckDB still reads
everything else (stdin, a glob, a directory, a compressed or content-sniffed file, a header the csv module
cannot read alone). ``test_a_plain_file_is_not_opened_in_duckdb`` fails before; the others are guards that
pin the same refusal lines and the same fitted artifacts on both versions. On the lazy engines the rows,
the missing roles and the fit role's rows are now counted in one pass (a null role still refused on Dask).
"""

from __future__ import annotations

import argparse
import gzip
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from veracity.datasets import demo_path

pytestmark = pytest.mark.usefixtures("engine_installed")  # tests/cli/conftest.py

_ROWS = "p,y,role\n0.3,1,calib\n0.6,0,calib\n0.2,0,calib\n0.8,1,calib\n0.5,1,test\n"


def _args(path: Path | str, **flags: Any) -> argparse.Namespace:
    return argparse.Namespace(role_col=None, file=str(path), fit_role=flags.get("fit_role"),
                              allow_role=flags.get("allow_role"))


def _write(tmp_path: Path, name: str, text: str | bytes) -> Path:
    path = tmp_path / name
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


@pytest.mark.parametrize("name, text, want", [
    ("demo.csv", None, "role"),
    ("quoted.csv", 'p,y,"role"\n0.3,1,calib\n', "role"),
    ("spaced.csv", "p,y, role\n0.3,1,calib\n", None),  # the name as written: " role"
    ("norole.csv", "p,y\n0.3,1\n", None),
    ("one.tsv", "role\ncalib\n", "role"),
    ("upper.txt", "p,y,Role\n0.3,1,calib\n", None),
    ("demo.parquet", "parquet", "role"),
    ("norole.pq", "parquet-norole", None),
])
def test_a_plain_file_is_not_opened_in_duckdb(tmp_path, monkeypatch, name, text, want) -> None:
    """The header (or schema) alone says whether there is a ``role`` column: DuckDB's reader is not called."""
    from veracity.cli import _fit
    from veracity.sources import _source

    if text is None:
        path = Path(shutil.copy(demo_path(), tmp_path / name))
    elif text.startswith("parquet"):
        import pandas as pd

        frame = pd.read_csv(demo_path())
        path = tmp_path / name
        (frame.drop(columns="role") if text.endswith("norole") else frame).to_parquet(path)
    else:
        path = _write(tmp_path, name, text)

    calls: list[Any] = []
    real = _source.as_frame
    monkeypatch.setattr(_source, "as_frame", lambda x: calls.append(x) or real(x))
    assert _fit._role_column(_args(path)) == want
    assert calls == []  # DuckDB's reader not called


@pytest.mark.parametrize("name, text", [
    ("semi.csv", "p;y;role\n0.3;1;calib\n"),         # another delimiter: DuckDB's sniffer decides
    ("dup.csv", "p,y,role,role\n0.3,1,calib,calib\n"),
    ("case.csv", "p,y,Role,role\n0.3,1,a,calib\n"),
    ("noext", _ROWS),                                # read by content
    ("data.csv.gz", "gz"),
    ("latin.csv", b"p,y,r\xe9le\n0.3,1,calib\n"),
])
def test_other_files_are_still_read_by_duckdb(tmp_path, monkeypatch, name, text) -> None:
    """Guard: where the header alone could differ from DuckDB's relation, DuckDB is asked, as before."""
    from veracity.cli import _fit
    from veracity.sources import _source

    if text == "gz":
        path = tmp_path / name
        path.write_bytes(gzip.compress(_ROWS.encode()))
    else:
        path = _write(tmp_path, name, text)
    calls: list[Any] = []
    real = _source.as_frame
    monkeypatch.setattr(_source, "as_frame", lambda x: calls.append(x) or real(x))
    _fit._role_column(_args(path))
    assert calls == [str(path)]


_REFUSALS = [
    ("missing.csv", None, [], r"file not found: \S*missing\.csv; check the path$"),
    ("missing.csv", None, ["--fit-role", "calib"], r"--fit-role needs --role-col naming the column"),
    ("zz*.csv", None, [], r"no file matches \S*zz\*\.csv; check the pattern$"),
    ("zz*.csv", None, ["--fit-role", "calib"], r"--fit-role needs --role-col naming the column"),
    ("dir", "dir", [], r"dir is a directory without \.parquet files; pass a file or a glob$"),
    ("dir", "dir", ["--allow-role", "test"], r"--allow-role needs --role-col naming the column"),
    ("empty.csv", "", [], r"empty\.csv is empty; it has no header and no rows$"),
    ("empty.csv", "", ["--fit-role", "calib"], r"--fit-role needs --role-col naming the column"),
    ("dup.csv", "p,y,role,role\n0.3,1,calib,calib\n", [],
     r"column 'role' appears 2 times in \S*dup\.csv; give every column a distinct name$"),
    ("ragged.csv", "p,y,role\n0.3,1,calib\n0.6,0\n", [],
     r"could not read \S*ragged\.csv as CSV: line 3 has 2 fields where the header has 3"),
    # the header has a role column, but DuckDB cannot read the file: refused as before, for the flag
    ("ragged.csv", "p,y,role\n0.3,1,calib\n0.6,0\n", ["--fit-role", "calib"],
     r"--fit-role needs --role-col naming the column"),
    ("latin.csv", b"p,y,role\n0.3,1,calib\n0.6,0,ca\xe9lib\n", ["--fit-role", "calib"],
     r"--fit-role needs --role-col naming the column"),
    ("latin.csv", b"p,y,r\xe9le\n0.3,1,calib\n", [], r"latin\.csv is not UTF-8 text \(byte 0xe9 on line 1\)"),
    ("data.csv.gz", "gz", [], r"column 'p' not found in \S*data\.csv\.gz; available columns: id, month"),
]


@pytest.mark.parametrize("name, text, flags, message", _REFUSALS)
def test_refusals_are_unchanged(tmp_path, cli, refused, name, text, flags, message) -> None:
    """Guard: the same one line, exit 2, as before the header was read alone."""
    path = tmp_path / name
    if text == "dir":
        path.mkdir()
    elif text == "gz":
        path.write_bytes(gzip.compress(Path(demo_path()).read_bytes()))
    elif text is not None:
        _write(tmp_path, name, text)
    result = cli(["fit", str(path), "--score", "p", "--label", "y", "--method", "platt",
                  "--out", str(tmp_path / "cal.json"), *flags])
    refused(result, message)


def _fit(cli: Any, tmp_path: Path, path: Path, *more: str) -> dict[str, Any]:
    out = tmp_path / "cal.json"
    result = cli(["fit", str(path), "--score", "score", "--label", "label", "--method", "platt",
                  "--out", str(out), *more])
    assert result.code == 0, result.err
    art = json.loads(out.read_text())
    out.unlink()
    art["metadata"].pop("created_at", None)
    return art


@pytest.mark.parametrize("engine", ["memory", "duckdb", "dask"])
@pytest.mark.parametrize("kind", ["csv", "parquet"])
def test_the_fitted_artifact_is_the_one_of_an_explicit_role_column(tmp_path, cli, engine, kind) -> None:
    """Guard: found from the header, the role column fits the very artifact ``--role-col role`` fits."""
    path = Path(shutil.copy(demo_path(), tmp_path / "demo.csv"))
    if kind == "parquet":
        import pandas as pd

        pd.read_csv(path).to_parquet(path.with_suffix(".parquet"))
        path = path.with_suffix(".parquet")
    found = _fit(cli, tmp_path, path, "--engine", engine)
    named = _fit(cli, tmp_path, path, "--engine", engine, "--role-col", "role", "--fit-role", "calib")
    assert found == named


@pytest.mark.parametrize("engine", ["duckdb", "dask"])
def test_lazy_role_rows_counted_once_keep_their_refusals(tmp_path, cli, refused, engine) -> None:
    """Guard: the one counting pass still refuses a missing role (Dask included) and a role with no rows."""
    nulls = _write(tmp_path, "nulls.csv", "p,y,role\n0.3,1,calib\n0.6,0,\n0.5,1,test\n")
    common = ["--score", "p", "--label", "y", "--method", "platt", "--out", str(tmp_path / "cal.json"),
              "--engine", engine, "--role-col", "role"]
    refused(cli(["fit", str(nulls), *common]),
            r"column 'role' has 1 missing/NaN and 0 infinite values of 3 rows, first at data row 2; drop or")
    ok = _write(tmp_path, "ok.csv", _ROWS)
    refused(cli(["fit", str(ok), *common, "--fit-role", "zzz"]),
            r"no rows with role 'zzz' in column 'role' of \S*ok\.csv \(values: calib, test\); pick one")
    result = cli(["fit", str(ok), *common])
    assert result.code == 0, result.err
    assert "fit PlattScaling on 4 rows (role 'calib')" in result.err, result.err
