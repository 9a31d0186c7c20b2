"""``vc.audit_duckdb(path, connection=con)`` reads a CSV as the file route reads it (session 34).

It read the file with ``con.read_csv(files)``, DuckDB's own defaults: ``NA``, ``null``, ``NaN`` stayed text,
so a by= slice ``NA`` stood where every other route has the missing-key slice (and ``null`` another slice),
a label ``NA`` made the label column text, and a score `` 0.3 `` with spaces was text too.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

duckdb = pytest.importorskip("duckdb")
pytestmark = pytest.mark.filterwarnings("ignore:vc.audit_d:DeprecationWarning")


def _csv(tmp_path, name, score, label, seg, n=120):
    rng = np.random.default_rng(3)
    lines = ["score,label,seg"]
    for i in range(n):
        p = float(rng.random())
        lines.append(f"{score(p, i)},{label(int(rng.random() < p), i)},{seg(i)}")
    path = tmp_path / f"{name}.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def _outcome(call):
    """The result's dict as JSON text (NaN equal to NaN), or the refusal's line."""
    import json

    try:
        return json.dumps(call().to_dict(), sort_keys=True, default=str)
    except vc.VeracityError as exc:
        return f"refused: {exc}"


CASES = {
    # slice keys the other routes read as missing: one "(missing)" slice of 96 rows, and "a"
    "missing keys": (lambda p, i: f"{p:.3f}", lambda y, i: str(y),
                     lambda i: ["NA", "null", "NaN", "", "a"][i % 5]),
    "NA label": (lambda p, i: f"{p:.3f}", lambda y, i: "NA" if i == 3 else str(y), lambda i: "ab"[i % 2]),
    "NA score": (lambda p, i: "NA" if i == 3 else f"{p:.3f}", lambda y, i: str(y), lambda i: "ab"[i % 2]),
    "padded scores": (lambda p, i: f" {p:.3f} ", lambda y, i: str(y), lambda i: "ab"[i % 2]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_connection_route_reads_the_csv_as_the_file_route(tmp_path, case):
    path = _csv(tmp_path, case.replace(" ", "_"), *CASES[case])
    want = _outcome(lambda: vc.audit(str(path), score="score", label="label", by="seg"))
    got = _outcome(lambda: vc.audit_duckdb(path, score="score", label="label", by="seg",
                                           connection=duckdb.connect()))
    assert got == want


def test_missing_keys_are_one_missing_slice(tmp_path):
    """The missing-key slice holds the rows of every missing spelling, as pandas' reader has them."""
    import pandas as pd

    path = _csv(tmp_path, "keys", *CASES["missing keys"])
    res = vc.audit_duckdb(path, score="score", label="label", by="seg", connection=duckdb.connect())
    frame = pd.read_csv(path)
    assert int(frame.seg.isna().sum()) == 96  # NA, null, NaN and the empty cell: 4 rows of 5
    groups = res.to_dict()["groups"]
    assert sorted(groups) == ["(missing)", "a"]
    assert (groups["(missing)"]["n"], groups["a"]["n"]) == (96, 24)
