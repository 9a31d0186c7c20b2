"""An empty frame with ``pos_label=``: the seam's "no rows" line, not a pos_label complaint (session 21).

``vc.audit(df.iloc[:0], score="p", label="y", pos_label="yes")`` said "pos_label='yes' is not among the
values of column 'y' (labels) (); pass one of them": the user's pos_label is right, the frame is empty.
Without ``pos_label=`` every frame form says "the frame has no rows; pass at least one row" (a path: the
file has no data rows); with it, the same.
"""

from __future__ import annotations

import pandas as pd
import pytest

import veracity as vc

pl = pytest.importorskip("polars")
pa = pytest.importorskip("pyarrow")
duckdb = pytest.importorskip("duckdb")

FRAME_MSG = r"^the frame has no rows; pass at least one row$"
FILE_MSG = r"has (a header but )?no rows; pass a file with at least one data row$"


@pytest.fixture
def empty(tmp_path):
    df = pd.DataFrame({"p": [0.2, 0.7], "y": ["no", "yes"], "g": ["a", "b"]}).iloc[:0]
    plf = pl.from_pandas(df)
    csv, parquet = tmp_path / "empty.csv", tmp_path / "empty.parquet"
    df.to_csv(csv, index=False)
    plf.write_parquet(parquet)
    con = duckdb.connect()
    forms = {"pandas": (df, FRAME_MSG), "polars": (plf, FRAME_MSG), "polars lazy": (plf.lazy(), FRAME_MSG),
             "pyarrow": (pa.Table.from_pandas(df, preserve_index=False), FRAME_MSG),
             "duckdb": (con.sql(f"select * from read_parquet('{parquet}')"), FRAME_MSG),
             "csv": (str(csv), FILE_MSG), "parquet": (str(parquet), FILE_MSG)}
    yield forms
    con.close()


CALLS = {
    "audit": lambda f: vc.audit(f, score="p", label="y", pos_label="yes"),
    "audit by": lambda f: vc.audit(f, score="p", label="y", by="g", pos_label="yes"),
    "precision_threshold": lambda f: vc.precision_threshold(f, score="p", label="y", target=0.9,
                                                            pos_label="yes"),
    "ece": lambda f: vc.ece(f, score="p", label="y", pos_label="yes"),
    "reliability": lambda f: vc.reliability(f, score="p", label="y", pos_label="yes"),
    "auc": lambda f: vc.auc(f, score="p", label="y", pos_label="yes"),
    "segments": lambda f: vc.segments(f, score="p", label="y", features=["g"], pos_label="yes"),
}


@pytest.mark.parametrize("call", list(CALLS))
@pytest.mark.parametrize("form", ["pandas", "polars", "polars lazy", "pyarrow", "duckdb", "csv", "parquet"])
def test_empty_frame_with_pos_label_says_no_rows(empty, form, call):
    frame, msg = empty[form]
    with pytest.raises(vc.VeracityError, match=msg) as info:
        CALLS[call](frame)
    assert "pos_label" not in str(info.value) and "\n" not in str(info.value)


@pytest.mark.parametrize("form", ["pandas", "polars lazy"])
def test_wrong_pos_label_on_rows_still_named(form):
    """With rows, a pos_label that names no label value keeps its own message."""
    df = pd.DataFrame({"p": [0.2, 0.7], "y": ["no", "yes"]})
    frame = df if form == "pandas" else pl.from_pandas(df).lazy()
    with pytest.raises(vc.VeracityError, match=r"pos_label='Yes' is not among the values of column 'y' "
                                               r"\(labels\) \('no', 'yes'\)"):
        vc.audit(frame, score="p", label="y", pos_label="Yes")


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
@pytest.mark.parametrize("engine", ["auto", "memory", "duckdb"])
def test_cli_empty_file_with_pos_label(tmp_path, cli, refused, suffix, engine):
    df = pd.DataFrame({"score": [0.2, 0.7], "label": ["no", "yes"]}).iloc[:0]
    path = tmp_path / f"empty.{suffix}"
    df.to_csv(path, index=False) if suffix == "csv" else pl.from_pandas(df).write_parquet(path)
    r = cli(["audit", path, "--pos-label", "yes", "--engine", engine])
    refused(r, r"no rows; pass a file with at least one data row")
    assert "pos_label" not in r.err and "pos-label" not in r.err
