"""The ragged-row finder runs its Python row handler on the calling thread only.

Before: ``first_ragged_line`` read with pyarrow's streaming reader, which calls the
``invalid_row_handler`` -- and drops its last reference to it -- on its read-ahead thread. That
thread then needs the GIL; when it ran on while the interpreter was finalising (a CLI that printed
"line 3 has 3 fields ..." and exited at once, on a loaded machine) the process aborted with
"terminate called without an active exception" (exit 134), about 1 run in 100 under load.
"""

from __future__ import annotations

import threading

import pyarrow.csv as pacsv
import pytest

from veracity.sources._csv_text import first_ragged_line


@pytest.fixture
def handler_threads(monkeypatch):
    """The thread ids on which pyarrow calls any ``invalid_row_handler`` given to ``ParseOptions``."""
    seen: list[int] = []
    real = pacsv.ParseOptions

    def recording(*args, **kwargs):
        handler = kwargs.get("invalid_row_handler")
        if handler is not None:
            def wrapped(row):
                seen.append(threading.get_ident())
                return handler(row)
            kwargs["invalid_row_handler"] = wrapped
        return real(*args, **kwargs)

    monkeypatch.setattr(pacsv, "ParseOptions", recording)
    return seen


@pytest.mark.parametrize("text, expected", [
    ("p,y\n0.1,0\n0,3,1\n0.8,1\n", (3, 3, 2)),
    ("p,y\n0.1,0\n0.8,1\n0.3\n", (4, 1, 2)),
    ('p,y\n"0,1",0\n0.8,1\n0.2,1,7,8\n', (4, 4, 2)),  # a quoted delimiter is not a field break
])
def test_the_row_handler_runs_on_the_calling_thread(tmp_path, handler_threads, text, expected):
    path = tmp_path / "ragged.csv"
    path.write_text(text)
    assert first_ragged_line(str(path), ",") == expected
    assert handler_threads, "the handler was never called"
    assert set(handler_threads) == {threading.get_ident()}


def test_a_large_file_keeps_no_values_while_it_is_checked(tmp_path):
    """One pass over a file of several blocks finds a ragged row near the end (no column kept)."""
    import numpy as np

    rows = np.char.mod("%.4f,1", np.random.default_rng(0).random(300_000))
    path = tmp_path / "big.csv"
    path.write_text("p,y\n" + "\n".join(rows.tolist()) + "\n0.5,1,2\n")
    assert path.stat().st_size > 2 * (1 << 20)
    assert first_ragged_line(str(path), ",") == (300_002, 3, 2)


def test_a_file_with_no_ragged_row_or_no_rows(tmp_path):
    good = tmp_path / "good.csv"
    good.write_text("p;y\n0.1;0\n0.8;1\n")
    assert first_ragged_line(str(good), ";") is None
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert first_ragged_line(str(empty), ",") is None
    assert first_ragged_line(str(tmp_path / "absent.csv"), ",") is None


@pytest.mark.parametrize("text, line", [
    ("p,y\n0.1,0\n\n0.8,1\n0.2,1,7\n", 5),  # an empty line is no row for pyarrow, a line for an editor
    ("\n\np,y\n0.1,0\n0.2,1,7\n", 5),  # empty lines above the header
    ('p,y,c\n0.1,0,"two\nlines"\n0.8,1,x\n0.2,1\n', 5),  # a quoted value spanning two lines
    ('p,y\r\n0.1,0\r\n\r\n0.2,1,7\r\n', 4),  # CRLF
    ('p,y\n"0.1",0\n0.8,1\n0.2,1,7\n', 4),  # a quote but no line break in it: rows are lines
])
def test_the_line_is_the_editors_line(tmp_path, text, line):
    """Before: pyarrow's row number (empty lines not counted, a quoted value over two lines counted once)
    was printed as "line N": a user sent to line 4 of a file whose bad row is on line 5."""
    path = tmp_path / "ragged.csv"
    path.write_bytes(text.encode())
    assert first_ragged_line(str(path), ",")[0] == line
    # the editor's numbering, independently: the 1-based index of the bad row's first line
    bad = next(i for i, ln in enumerate(text.replace("\r\n", "\n").split("\n"), 1) if ln.startswith("0.2,1"))
    assert line == bad


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_the_cli_names_the_editors_line_on_every_engine(tmp_path, cli, refused, engine):
    pytest.importorskip("duckdb")
    path = tmp_path / "ragged.csv"
    path.write_text("p,y\n0.1,0\n\n0.8,1\n0.2,1,7\n")
    refused(cli(["audit", str(path), "--score", "p", "--label", "y", "--engine", engine]),
            r"line 5 has 3 fields where the header has 2")


def test_a_gzip_file_is_counted_through(tmp_path):
    import gzip

    path = tmp_path / "ragged.csv.gz"
    with gzip.open(path, "wt") as fh:
        fh.write('p,y\n0.1,0\n\n"0.8",1\n0.2,1,7\n')
    assert first_ragged_line(str(path), ",") == (5, 3, 2)
