"""docs/export.md's row for a score held as text says what each engine does with it (session 38).

The page said DuckDB gives an error for ``'0.5'``; DuckDB's cast reads it as 0.5, so the SQL returns that
score's probability (as PostgreSQL's does), and only text that is no number (``'abc'``) is an error."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import VeracityError

PAGE = Path(vc.__file__).resolve().parents[2] / "docs" / "export.md"  # the checkout whose code runs
if not PAGE.exists():  # an installed (not editable) veracity: this checkout's page
    PAGE = Path(__file__).resolve().parents[2] / "docs" / "export.md"


def _text_row() -> str:
    return next(line for line in PAGE.read_text().splitlines() if line.startswith("| text (`'0.5'`)"))


def test_duckdb_text_scores_as_the_page_says():
    duckdb = pytest.importorskip("duckdb")
    rng = np.random.default_rng(38)
    p = rng.random(300)
    cal = vc.PlattScaling().fit(p, (rng.random(300) < p).astype(int))
    con = duckdb.connect()
    got = con.execute(f"SELECT {cal.to_sql('s')} FROM (SELECT '0.5' AS s)").fetchone()[0]
    assert got == pytest.approx(cal.transform(np.array([0.5]))[0], abs=1e-12)  # a probability, not an error
    with pytest.raises(VeracityError):
        cal.transform(np.array(["0.5"], dtype=object))  # transform() refuses text
    with pytest.raises(duckdb.ConversionException):
        con.execute(f"SELECT {cal.to_sql('s')} FROM (SELECT 'abc' AS s)").fetchone()
    row = _text_row()
    assert "DuckDB: an error" not in row
    assert "DuckDB and PostgreSQL: `'0.5'` reads as 0.5" in row
