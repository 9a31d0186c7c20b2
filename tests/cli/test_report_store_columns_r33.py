"""``veracity report --store STORE`` without FILE audits the store's own labelled rows (logged scores,
0/1 outcomes, no weights, no roles). The options that name a FILE's columns were accepted there and
changed nothing: ``--sample-weight w`` wrote the same unweighted page, exit 0. Now refused, one line."""

import pytest

pytest.importorskip("duckdb")


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    """One store for the module's tests, which only read it (120 labelled rows)."""
    from veracity.monitoring import MonitorStore

    tmp = tmp_path_factory.mktemp("store")
    rows = [(i, f"2026-01-{1 + i % 20:02d}T00:00:00", round(0.1 + 0.8 * (i % 10) / 9, 3), (i // 3) % 2,
             1 + i % 3) for i in range(120)]
    data = tmp / "p.csv"
    data.write_text("id,ts,score,label,w\n" + "".join(",".join(str(v) for v in row) + "\n" for row in rows))
    path = tmp / "m.duckdb"
    store = MonitorStore(path).init()
    store.log(data, id="id", time="ts", score="score")
    store.outcomes(data, id="id", label="label")
    assert store.counts() == {"predictions": 120, "outcomes": 120, "batches": 2}
    return str(path)


@pytest.fixture(scope="module")
def written():
    """The exit code of a report the module's tests each ask for with the same arguments (run once)."""
    return {}


def _written_once(written, key, cli, argv):
    if key not in written:
        written[key] = cli(argv)
    return written[key]


@pytest.mark.parametrize("flags", [["--sample-weight", "w"], ["--score", "p"], ["--label", "y"],
                                   ["--role-col", "role"], ["--fit-role", "a"], ["--eval-role", "b"]])
def test_store_without_file_refuses_column_options(tmp_path, store, cli, refused, flags, written):
    argv = ["report", "--store", store, "--out", str(tmp_path / "r.html"), "--no-bootstrap", "-q"]
    assert _written_once(written, "store", cli, argv).code == 0  # the same arguments but the flag: written
    refused(cli([*argv, *flags]), rf"{flags[0]} has no effect with --store and no FILE")


@pytest.fixture(scope="module")
def multiclass_csv(tmp_path_factory):
    rows = [(0.6, 0.3, 0.1, 0), (0.2, 0.5, 0.3, 1), (0.1, 0.2, 0.7, 2), (0.3, 0.3, 0.4, 2)] * 15
    path = tmp_path_factory.mktemp("multiclass") / "mc.csv"
    path.write_text("p0,p1,p2,label\n" + "".join(",".join(str(v) for v in row) + "\n" for row in rows))
    return str(path)


@pytest.mark.parametrize("flags", [["--cost-fp", "3"], ["--cost-fn", "9"], ["--target-recall", "0.5"]])
def test_multiclass_report_refuses_explorer_options(tmp_path, cli, refused, multiclass_csv, flags, written):
    # several --score columns: no threshold explorer (binary scores only), so the costs and the recall target
    # wrote a byte-identical page, exit 0
    argv = ["report", multiclass_csv, "--score", "p0,p1,p2", "--out", str(tmp_path / "r.html"), "--no-bootstrap",
            "-q"]
    assert _written_once(written, "multiclass", cli, argv).code == 0  # the same arguments but the flag: written
    refused(cli([*argv, *flags]), rf"{flags[0]} has no effect on several --score columns")


def test_store_without_file_advice_names_a_file(tmp_path, store, cli):
    # the recall note advised "a role column (--role-col) ...", an option refused above without FILE
    r = cli(["report", "--store", store, "--out", str(tmp_path / "r.html"), "--no-bootstrap"])
    assert r.code == 0, r.err
    assert "choose it on other rows: pass FILE with a role column (--role-col)" in r.out, r.out
