"""CSV columns of yes/no or t/f read alike by the memory and DuckDB engines.

Before: DuckDB's CSV sniffer read ``yes``/``no``, ``y``/``n`` and ``t``/``f`` as BOOLEAN, so
``veracity audit --engine duckdb`` counted ``yes`` as the positive class without
``--pos-label``, named ``--by`` slices ``True``/``False``, and took a ``t``/``f`` column as
``--mature``; the memory engine (pyarrow, which reads only true/false and 1/0 as booleans)
kept them as text and asked for ``--pos-label``, as docs/honest.md says. And a column of
``true``/``false`` that said ``yes`` further down than DuckDB's sniffer looks was read as
true there, silently.
"""

import json

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")

RNG = np.random.default_rng(5)
N = 300
P = np.round(RNG.random(N), 6)
Y = RNG.random(N) < P
GROUP = RNG.random(N) < 0.4


def _write(path, header, *columns):
    lines = [",".join(header)] + [",".join(str(v) for v in row) for row in zip(*columns)]
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _spelled(mask, yes, no):
    return np.where(mask, yes, no)


@pytest.mark.parametrize("yes,no", [("yes", "no"), ("t", "f"), ("Y", "N")])
@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_text_labels_ask_for_pos_label_on_both_engines(tmp_path, cli, refused, engine, yes, no):
    path = _write(tmp_path / "s.csv", ["p", "y"], P, _spelled(Y, yes, no))
    refused(cli(["audit", path, "--score", "p", "--label", "y", "--engine", engine]), r"--pos-label")
    # and with the class named, both give the numbers of the 0/1 encoding, either way round
    for positive, truth in ((yes, Y), (no, ~Y)):
        result = cli(["audit", path, "--score", "p", "--label", "y", "--pos-label", positive,
                      "--engine", engine, "--json", "-"])
        assert result.code == 0, result.err
        assert json.loads(result.out)["metrics"]["ece"] == pytest.approx(vc.ece(P, truth.astype(int)), rel=1e-12)


def test_text_labels_ask_for_pos_label_in_python(tmp_path):
    path = _write(tmp_path / "s.csv", ["p", "y"], P, _spelled(Y, "yes", "no"))
    with pytest.raises(vc.VeracityError, match=r"pos_label="):
        vc.audit(path, score="p", label="y")
    assert vc.ece(path, score="p", label="y", pos_label="yes") == pytest.approx(vc.ece(P, Y.astype(int)), rel=1e-12)


@pytest.mark.parametrize("yes,no", [("True", "False"), ("true", "false"), ("TRUE", "FALSE")])
@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_true_false_labels_stay_booleans(tmp_path, cli, engine, yes, no):
    path = _write(tmp_path / "s.csv", ["p", "y"], P, _spelled(Y, yes, no))
    result = cli(["audit", path, "--score", "p", "--label", "y", "--engine", engine, "--json", "-"])
    assert result.code == 0, result.err
    assert json.loads(result.out)["metrics"]["ece"] == pytest.approx(vc.ece(P, Y.astype(int)), rel=1e-12)


def test_slices_of_a_yes_no_column_are_named_alike(tmp_path, cli):
    path = _write(tmp_path / "s.csv", ["p", "y", "member"], P, Y.astype(int), _spelled(GROUP, "yes", "no"))
    slices = {}
    for engine in ("memory", "duckdb"):
        result = cli(["audit", path, "--score", "p", "--label", "y", "--by", "member", "--engine", engine,
                      "--json", "-"])
        assert result.code == 0, result.err
        slices[engine] = {k: g["metrics"]["ece"] for k, g in json.loads(result.out)["groups"].items()}
    assert set(slices["duckdb"]) == {"no", "yes"} == set(slices["memory"])
    for name, mask in (("yes", GROUP), ("no", ~GROUP)):
        assert slices["duckdb"][name] == pytest.approx(vc.ece(P[mask], Y[mask].astype(int)), rel=1e-12)
        assert slices["memory"][name] == pytest.approx(slices["duckdb"][name], rel=1e-12)


def test_other_text_below_the_sniffed_rows_is_refused(tmp_path):
    n = 25_000  # DuckDB's sniffer looks at 20,480 rows
    p = np.full(n, 0.5)
    labels = np.where(np.arange(n) % 2 == 0, "true", "false")
    labels[-1] = "yes"  # DuckDB itself would read this as true
    path = _write(tmp_path / "late.csv", ["p", "it's"], p, labels)
    with pytest.raises(vc.VeracityError) as info:
        vc.audit(path, score="p", label="it's")
    message = str(info.value)
    assert "\n" not in message
    assert "'yes'" in message and "it''s" not in message and "late.csv" in message


def test_a_true_false_column_with_a_quoted_name_reads(tmp_path):
    path = _write(tmp_path / "q.csv", ["p", "it's; 'y'"], P, _spelled(Y, "true", "false"))
    assert vc.ece(path, score="p", label="it's; 'y'") == pytest.approx(vc.ece(P, Y.astype(int)), rel=1e-12)
