"""``veracity report --store STORE`` without FILE audits the store's own labelled rows (logged scores,
0/1 outcomes, no weights, no roles). The options that name a FILE's columns were accepted there and
changed nothing: ``--sample-weight w`` wrote the same unweighted page, exit 0. Now refused, one line."""

import pytest

pytest.importorskip("duckdb")


@pytest.fixture
def store(tmp_path, cli, write_csv):
    rows = [(i, f"2026-01-{1 + i % 20:02d}T00:00:00", round(0.1 + 0.8 * (i % 10) / 9, 3), (i // 3) % 2,
             1 + i % 3) for i in range(120)]
    data = write_csv(tmp_path / "p.csv", "id,ts,score,label,w", rows)
    path = str(tmp_path / "m.duckdb")
    assert cli(["monitor", "init", path, "-q"]).code == 0
    argv = ["monitor", "log", path, data, "--id", "id", "--time", "ts", "--score", "score", "-q"]
    assert cli(argv).code == 0
    assert cli(["monitor", "outcomes", path, data, "--id", "id", "--label", "label", "-q"]).code == 0
    return path


@pytest.mark.parametrize("flags", [["--sample-weight", "w"], ["--score", "p"], ["--label", "y"],
                                   ["--role-col", "role"], ["--fit-role", "a"], ["--eval-role", "b"]])
def test_store_without_file_refuses_column_options(tmp_path, store, cli, refused, flags):
    argv = ["report", "--store", store, "--out", str(tmp_path / "r.html"), "--no-bootstrap", "-q"]
    assert cli(argv).code == 0
    refused(cli([*argv, *flags]), rf"{flags[0]} has no effect with --store and no FILE")


@pytest.mark.parametrize("flags", [["--cost-fp", "3"], ["--cost-fn", "9"], ["--target-recall", "0.5"]])
def test_multiclass_report_refuses_explorer_options(tmp_path, cli, refused, write_csv, flags):
    # several --score columns: no threshold explorer (binary scores only), so the costs and the recall target
    # wrote a byte-identical page, exit 0
    rows = [(0.6, 0.3, 0.1, 0), (0.2, 0.5, 0.3, 1), (0.1, 0.2, 0.7, 2), (0.3, 0.3, 0.4, 2)] * 15
    path = write_csv(tmp_path / "mc.csv", "p0,p1,p2,label", rows)
    argv = ["report", path, "--score", "p0,p1,p2", "--out", str(tmp_path / "r.html"), "--no-bootstrap", "-q"]
    assert cli(argv).code == 0
    refused(cli([*argv, *flags]), rf"{flags[0]} has no effect on several --score columns")


def test_store_without_file_advice_names_a_file(tmp_path, store, cli):
    # the recall note advised "a role column (--role-col) ...", an option refused above without FILE
    r = cli(["report", "--store", store, "--out", str(tmp_path / "r.html"), "--no-bootstrap"])
    assert r.code == 0, r.err
    assert "choose it on other rows: pass FILE with a role column (--role-col)" in r.out, r.out
