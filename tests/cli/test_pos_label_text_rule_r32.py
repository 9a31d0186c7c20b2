"""--pos-label text names one label on every engine and command, by the library's one rule
(``core._validation.text_names_label``): the in-memory route read the text with ``float()``/``int()``, so

- ``--pos-label 9007199254740993.0`` on integer labels 2**53+1 (three rows) and 2**53 (one row) named 2**53
  (base rate 0.25 in memory, 0.75 on DuckDB);
- ``--pos-label 1_0`` named the label 10 (Python's digit grouping; DuckDB refused it);
- ``' true'`` / ``' 1'`` on a true/false column were refused (not trimmed; DuckDB read them as True).
"""

import re

import pytest

pytest.importorskip("duckdb")

BIG = 2 ** 53


@pytest.fixture
def big_csv(tmp_path):
    path = tmp_path / "big.csv"  # three rows of 2**53 + 1, one of 2**53: base rate 0.75 for 2**53 + 1
    path.write_text(f"p,y\n0.9,{BIG + 1}\n0.8,{BIG + 1}\n0.7,{BIG + 1}\n0.2,{BIG}\n")
    return path


def _base_rate(result) -> str:
    assert result.code == 0, result.err
    found = re.search(r"base rate (\d\.\d{4})", result.out)
    assert found, result.out
    return found.group(1)


@pytest.mark.parametrize("engine", ["auto", "memory", "duckdb"])
@pytest.mark.parametrize("text, rate", [(f"{BIG + 1}.0", "0.7500"), (f"{BIG + 1}", "0.7500"),
                                        (f"{BIG}.0", "0.2500"), (f"{BIG}", "0.2500")])
def test_a_number_beyond_2_53_names_its_own_label_on_every_engine(cli, big_csv, engine, text, rate):
    result = cli(["audit", big_csv, "--score", "p", "--label", "y", "--pos-label", text, "--engine", engine])
    assert _base_rate(result) == rate


def test_threshold_counts_the_rows_of_the_label_the_digits_name(cli, big_csv):
    result = cli(["threshold", big_csv, "--score", "p", "--label", "y", "--pos-label", f"{BIG + 1}.0"])
    assert result.code == 0, result.err
    row = next(line.split() for line in result.out.splitlines() if line.startswith("all "))
    assert row[3:7] == ["3", "0", "0", "1"], result.out  # TP FP FN TN: the three 2**53 + 1 rows are positive


@pytest.mark.parametrize("command", [["audit", "--engine", "memory"], ["audit", "--engine", "duckdb"],
                                     ["threshold"], ["conformal"], ["report", "--no-bootstrap"]])
@pytest.mark.parametrize("text", ["1_0", "0xa", "1e1_0"])
def test_text_that_is_not_a_plain_number_names_no_number_label(cli, refused, tmp_path, command, text):
    path = tmp_path / "t.csv"
    path.write_text("p,y\n0.9,10\n0.8,0\n0.7,10\n0.2,0\n")
    result = cli([command[0], path, "--score", "p", "--label", "y", "--pos-label", text, *command[1:]])
    refused(result, r"--pos-label \S+ is not among the (label values|values of column 'y' \(labels\)) "
                    r"\(0, 10\)")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("text, rate", [(" true", "0.7500"), (" 1 ", "0.7500"), ("TRUE", "0.7500"),
                                        (" False", "0.2500"), ("0 ", "0.2500")])
def test_true_false_text_is_trimmed_on_every_engine(cli, tmp_path, engine, text, rate):
    path = tmp_path / "b.csv"
    path.write_text("p,y\n0.9,true\n0.8,true\n0.7,true\n0.2,false\n")
    result = cli(["audit", path, "--score", "p", "--label", "y", "--pos-label", text, "--engine", engine])
    assert _base_rate(result) == rate


def test_text_that_names_neither_true_nor_false_is_still_refused(cli, refused, tmp_path):
    path = tmp_path / "b.csv"
    path.write_text("p,y\n0.9,true\n0.2,false\n")
    result = cli(["audit", path, "--score", "p", "--label", "y", "--pos-label", "yes", "--engine", "memory"])
    refused(result, re.escape("--pos-label yes is not among the values of column 'y' (labels) (False, True); "
                              "pass 'true' or 'false' (any case), or 1 or 0"))


def _monitor_labels(path) -> list:
    import duckdb

    con = duckdb.connect(str(path), read_only=True)
    try:
        return [row[0] for row in con.execute("SELECT label FROM predictions ORDER BY id").fetchall()]
    finally:
        con.close()


@pytest.mark.parametrize("text, expected", [(f"{BIG + 1}.0", [1, 1, 1, 0]), (f"{BIG}", [0, 0, 0, 1])])
def test_monitor_outcomes_store_the_label_the_digits_name(cli, tmp_path, text, expected):
    preds, outs, store = tmp_path / "p.csv", tmp_path / "y.csv", tmp_path / "m.duckdb"
    preds.write_text("id,ts,p\na,2026-03-02,0.9\nb,2026-03-02,0.8\nc,2026-03-02,0.7\nd,2026-03-02,0.2\n")
    outs.write_text(f"id,y\na,{BIG + 1}\nb,{BIG + 1}\nc,{BIG + 1}\nd,{BIG}\n")
    assert cli(["monitor", "log", store, preds, "--id", "id", "--time", "ts", "--score", "p", "-q"]).code == 0
    result = cli(["monitor", "outcomes", store, outs, "--id", "id", "--label", "y", "--pos-label", text,
                  "-q"])
    assert result.code == 0, result.err
    assert _monitor_labels(store) == expected


def test_monitor_outcomes_refuse_digit_grouping_as_audit_does(cli, refused, tmp_path):
    preds, outs, store = tmp_path / "p.csv", tmp_path / "y.csv", tmp_path / "m.duckdb"
    preds.write_text("id,ts,p\na,2026-03-02,0.9\nb,2026-03-02,0.2\n")
    outs.write_text("id,y\na,10\nb,0\n")
    assert cli(["monitor", "log", store, preds, "--id", "id", "--time", "ts", "--score", "p", "-q"]).code == 0
    result = cli(["monitor", "outcomes", store, outs, "--id", "id", "--label", "y", "--pos-label", "1_0"])
    refused(result, r"--pos-label 1_0 is not among the values of label column 'y' in \S+ \(0, 10\); "
                    "pass one of them")
    assert _monitor_labels(store) == [None, None]
