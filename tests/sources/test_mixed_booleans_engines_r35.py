"""A CSV column mixing ``true``/``false`` and ``1``/``0``: Dask and Spark read it as memory does (round 35).

The memory engine (pyarrow) and the DuckDB engine read such a label column as booleans. Dask typed the column
from its first 10 rows through pandas' C parser (text), then cast each block pyarrow had read as booleans to
that text: the labels became ``'True'``/``'False'``, values the file does not hold, and the audit was refused
as "got text (values 'False', 'True'); pass pos_label= ..., e.g. pos_label='True'". And where the first rows
were all ``true``/``false`` (Dask typed the column boolean), a later file pyarrow read as the numbers 0, 1,
2 was cast to booleans: ``2`` became true and the audit went on, silently, where the other engines refuse.
Spark's reader typed the mixed column (and ``true``/``false`` beside ``NA``) as text: refused as text labels.
"""

from __future__ import annotations

import pytest

import veracity as vc
from veracity.sources._api import open_frame

from .conftest import same_audit

ENGINES = ["dask", "spark"]


def _open(path, engine, request):
    """``path`` opened lazily by ``engine`` (Spark: on the tests' session)."""
    if engine == "spark":
        request.getfixturevalue("spark")
    else:
        pytest.importorskip("dask.dataframe")
    return open_frame(path, engine)

#: (score, label) rows whose labels mix the spellings pyarrow reads as booleans
MIXED = [("0.2", "true"), ("0.8", "0"), ("0.6", "1"), ("0.4", "false"), ("0.7", "TRUE"), ("0.3", "0"),
         ("0.9", "True"), ("0.1", "FALSE"), ("0.55", "1"), ("0.45", "0"), ("0.35", "true"), ("0.65", "0")]


def _write(path, rows, header="p,y,g"):
    """The rows, and a slice column ``g`` that mixes the spellings too (true for every third row)."""
    keys = ["true", "0", "false"]
    path.write_text(header + "\n" + "".join(f"{p},{y},{keys[i % 3]}\n" for i, (p, y) in enumerate(rows)))
    return str(path)


TRUE_AND_ZERO = [("0.2", "true"), ("0.8", "0"), ("0.6", "true"), ("0.4", "0")]


@pytest.mark.parametrize("rows", [MIXED * 4, TRUE_AND_ZERO * 6],
                         ids=["four-spellings", "true-and-zero"])
@pytest.mark.parametrize("engine", ENGINES)
def test_mixed_spellings_read_as_booleans(tmp_path, request, rows, engine):
    path = _write(tmp_path / "d.csv", rows)
    want = vc.audit(path, score="p", label="y")  # the memory engine: pyarrow reads booleans
    truth = {"true": 1, "TRUE": 1, "True": 1, "1": 1, "false": 0, "FALSE": 0, "False": 0, "0": 0}
    assert want.base_rate == pytest.approx(sum(truth[y] for _, y in rows) / len(rows), abs=1e-15)
    got = vc.audit(_open(path, engine, request), score="p", label="y")
    same_audit(got, want)


@pytest.mark.parametrize("engine", ENGINES)
def test_slices_by_mixed_column(tmp_path, request, engine):
    path = _write(tmp_path / "d.csv", MIXED * 4)
    want = vc.audit(path, score="p", label="y", by="g", min_count=1)
    got = vc.audit(_open(path, engine, request), score="p", label="y", by="g", min_count=1)
    assert sorted(got.groups) == sorted(want.groups) == ["False", "True"]
    for key, audit in want.groups.items():
        same_audit(got.groups[key], audit)


@pytest.mark.parametrize("engine", ENGINES)
def test_other_value_in_a_later_file_refused(tmp_path, request, error_line, engine):
    folder = tmp_path / "parts"
    folder.mkdir()
    _write(folder / "a.csv", [("0.2", "true"), ("0.8", "false"), ("0.6", "true"), ("0.4", "false")] * 5)
    _write(folder / "b.csv", [("0.2", "1"), ("0.8", "0"), ("0.6", "2"), ("0.4", "0")] * 5)
    path = str(folder / "*.csv")
    with pytest.raises(vc.VeracityError):  # the memory engine refuses the labels 0, 1, 2, true, false
        vc.audit(path, score="p", label="y")
    text = error_line(lambda: vc.audit(_open(path, engine, request), score="p", label="y"))
    if engine == "dask":  # read block by block: the block that holds it stops the read
        assert "column 'y' holds true/false values and also '2'" in text
    else:  # the whole column read at once, as memory reads it: text labels
        assert "got text (5 values such as '0', '1', '2', 'false', 'true')" in text


@pytest.mark.parametrize("engine", ENGINES)
def test_true_false_and_missing(tmp_path, request, error_line, engine):
    """``true``/``false`` with ``NA``: booleans with a missing label, refused as missing on every engine."""
    rows = [("0.2", "true"), ("0.8", "false"), ("0.6", "NA"), ("0.4", "false")] * 5
    path = _write(tmp_path / "d.csv", rows)
    want = error_line(lambda: vc.audit(path, score="p", label="y"))
    assert want.startswith("column 'y' (labels) has 5 missing values (None/NaN) of 20 rows")
    assert error_line(lambda: vc.audit(_open(path, engine, request), score="p", label="y")) == want


def test_text_column_left_as_written(tmp_path):
    """A column whose rows hold other text too (``yes``) is not a boolean column: its values as written."""
    pytest.importorskip("dask.dataframe")
    path = _write(tmp_path / "d.csv", [("0.2", "1"), ("0.8", "0"), ("0.6", "yes"), ("0.4", "true")] * 5)
    frame = open_frame(path, "dask").compute()
    assert sorted(set(frame["y"])) == ["0", "1", "true", "yes"]
