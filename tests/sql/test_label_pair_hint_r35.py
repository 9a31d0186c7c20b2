"""Two label values other than 0/1 are refused with the array form's hint on every database (round 35).

``vc.audit(con, table="t", score="p", label="y")`` on labels 1/2 said "column 'y' (labels) must be binary 0/1
(or bool); 20 of 40 are not (min=2, max=2); map the two classes to 0 and 1 and drop unlabelled rows", where
the array form and every frame say which value to map to 1 and that ``pos_label=2`` audits the column as
it is: "... (min=2, max=2). Map 1 to 0 and 2 to 1, or pass pos_label=2." (``--pos-label 2`` on the command
line).
Three values, or a missing label, keep the general advice, as on arrays.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc

from .conftest import load

P = np.linspace(0.05, 0.95, 40)


def _refusal(engine, labels):
    name, conn = engine
    load(name, conn, "pair_t", {"p": P, "y": np.asarray(labels)})
    with pytest.raises(vc.VeracityError) as sql:
        vc.audit(conn, table="pair_t", score="p", label="y")
    frame = pd.DataFrame({"p": P, "y": labels})
    with pytest.raises(vc.VeracityError) as memory:
        vc.audit(frame, score="p", label="y")
    return str(sql.value), str(memory.value)


@pytest.mark.parametrize("labels, hint", [
    ([1, 2] * 20, "(min=2, max=2). Map 1 to 0 and 2 to 1, or pass pos_label=2."),
    ([-1, 1] * 20, "(min=-1, max=-1). Map -1 to 0 and 1 to 1, or pass pos_label=1."),
    ([0.5, 1.5] * 20, "(min=0.5, max=1.5). Map 0.5 to 0 and 1.5 to 1, or pass pos_label=1.5."),
], ids=["one-two", "minus-one", "halves"])
def test_two_values_named(engine, labels, hint):
    sql, memory = _refusal(engine, labels)
    assert sql == memory
    assert sql.endswith(hint)


def test_three_values_general_advice(engine):
    sql, memory = _refusal(engine, [0, 1, 2, 1] * 10)
    assert sql == memory
    assert sql.endswith("(min=2, max=2); map the two classes to 0 and 1 and drop unlabelled rows")


def test_command_line_names_the_option(tmp_path, cli, refused):
    import sqlite3

    path = tmp_path / "s.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE t (p REAL, y INTEGER)")
    con.executemany("INSERT INTO t VALUES (?, ?)", [(float(p), 1 + i % 2) for i, p in enumerate(P)])
    con.commit()
    con.close()
    result = cli(["audit", "--sql-url", f"sqlite:///{path}", "--table", "t", "--score", "p", "--label", "y"])
    refused(result, r"input error: column 'y' \(labels\) must be binary 0/1 \(or bool\); 20 of 40 are not "
                    r"\(min=2, max=2\)\. Map 1 to 0 and 2 to 1, or pass --pos-label 2\.")
