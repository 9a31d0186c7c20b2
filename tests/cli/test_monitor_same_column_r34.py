"""A column named by two of a monitor command's column options is refused in one line saying so.

``veracity monitor log --id X --time X`` was refused as "not ISO 8601 times" (the ids read as times), and
where the column did read both ways nothing was refused: ``--id ts --time ts`` stored the times as ids,
``--by id`` made a slice per prediction, ``scan --time p`` read the scores as epoch seconds (one period,
1970-01), ``scan --mature y --label y`` counted only the positive rows as final (a rate of 1.0 in every
period, each an alert). Now each is refused naming both options and the column; the Python API
(``MonitorStore.log/outcomes``, ``vc.monitor``'s frame form) refuses them in its own words.
"""

import pytest

import veracity as vc

pytest.importorskip("duckdb")


@pytest.fixture
def files(tmp_path, write_csv):
    rows = [(f"r{i}", f"2026-01-{1 + i % 28:02d}T00:00:00", round(0.1 + 0.8 * (i % 10) / 9, 3), i % 2,
             "true" if i % 2 else "false", "ab"[i % 2], 1 + i % 3) for i in range(120)]
    data = write_csv(tmp_path / "d.csv", "id,ts,p,y,flag,seg,w", rows)
    store = str(tmp_path / "m.duckdb")
    return data, store


SAME = r"input error: {a} and {b} name the same column '{col}' \(named twice\)"


@pytest.mark.parametrize("flags, a, b, col", [
    (["--id", "id", "--time", "id", "--score", "p"], "--id", "--time", "id"),  # the report's case
    (["--id", "ts", "--time", "ts", "--score", "p"], "--id", "--time", "ts"),  # read both ways: stored
    (["--id", "id", "--time", "ts", "--score", "id"], "--id", "--score", "id"),
    (["--id", "id", "--time", "p", "--score", "p"], "--time", "--score", "p"),
    (["--id", "id", "--time", "ts", "--score", "p", "--by", "id"], "--id", "--by", "id"),
    (["--id", "id", "--time", "ts", "--score", "p", "--by", "seg", "--by", "ts"], "--time", "--by", "ts"),
    (["--id", "id", "--time", "ts", "--score", "p", "--by", "p"], "--score", "--by", "p"),
])
def test_log(files, cli, refused, flags, a, b, col):
    data, store = files
    refused(cli(["monitor", "log", store, data, *flags]), SAME.format(a=a, b=b, col=col))
    assert cli(["monitor", "log", store, data, "--id", "id", "--time", "ts", "--score", "p", "--by", "seg",
                "-q"]).code == 0


@pytest.mark.parametrize("flags, a, b, col", [
    (["--id", "y", "--label", "y"], "--id", "--label", "y"),
    (["--id", "ts", "--label", "y", "--time", "ts"], "--id", "--time", "ts"),
    (["--id", "id", "--label", "y", "--time", "y"], "--label", "--time", "y"),
])
def test_outcomes(files, cli, refused, flags, a, b, col):
    data, store = files
    refused(cli(["monitor", "outcomes", store, data, *flags]), SAME.format(a=a, b=b, col=col))
    argv = ["monitor", "outcomes", store, data, "--id", "id", "--label", "y", "--time", "ts", "-q"]
    assert cli(argv).code == 0


@pytest.mark.parametrize("flags, a, b, col", [
    (["--time", "p"], "--time", "--score", "p"),
    (["--time", "y"], "--time", "--label", "y"),
    (["--period", "y"], "--period", "--label", "y"),
    (["--period", "p"], "--period", "--score", "p"),
    (["--time", "ts", "--sample-weight", "ts"], "--time", "--sample-weight", "ts"),
    (["--period", "seg", "--sample-weight", "seg"], "--period", "--sample-weight", "seg"),
    (["--time", "ts", "--mature", "flag", "--sample-weight", "flag"], "--mature", "--sample-weight", "flag"),
    (["--time", "ts", "--mature", "ts"], "--time", "--mature", "ts"),
])
def test_scan(files, cli, refused, flags, a, b, col):
    data, _ = files
    refused(cli(["monitor", "scan", data, "--score", "p", "--label", "y", *flags]),
            SAME.format(a=a, b=b, col=col))


def test_scan_mature_as_label(tmp_path, cli, refused, write_csv):
    # a boolean label read as the final flag too: only the positive rows were final, rate 1.0 and an alert
    rows = [(f"2026-01-{1 + i % 28:02d}", round(0.1 + 0.8 * (i % 10) / 9, 3),
             "true" if i % 3 == 0 else "false") for i in range(200)]
    data = write_csv(tmp_path / "b.csv", "ts,p,y", rows)
    refused(cli(["monitor", "scan", data, "--score", "p", "--label", "y", "--time", "ts", "--mature", "y"]),
            SAME.format(a="--mature", b="--label", col="y"))
    assert cli(["monitor", "scan", data, "--score", "p", "--label", "y", "--time", "ts", "-q"]).code == 0


def test_scan_keeps_the_words_of_score_label_weight(files, cli, refused):
    data, _ = files
    argv = ["monitor", "scan", data, "--time", "ts"]
    refused(cli([*argv, "--score", "p", "--label", "p"]), r"--score names the --label column 'p'")
    refused(cli([*argv, "--score", "p", "--label", "y", "--sample-weight", "y"]),
            r"--sample-weight names the --label column 'y'")


def test_python(tmp_path, error_line):
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"id": ["a", "b", "c", "d"], "ts": pd.date_range("2026-01-01", periods=4),
                       "p": [.2, .7, .4, .9], "y": [False, True, False, True], "w": [1.0, 2.0, 1.0, 1.0]})
    store = vc.MonitorStore(str(tmp_path / "s.duckdb"))
    same = "{a} and {b} name the same column '{col}' (named twice)"
    assert error_line(lambda: store.log(df, id="ts", time="ts", score="p")).startswith(
        same.format(a="id=", b="time=", col="ts"))
    assert error_line(lambda: store.log(df, id="id", time="ts", score="p", by=["id"])).startswith(
        same.format(a="id=", b="by=", col="id"))
    assert error_line(lambda: store.outcomes(df, id="id", label="y", time="y")).startswith(
        same.format(a="label=", b="time=", col="y"))
    for kw, a, b, col in [(dict(score="y"), "score=", "label=", "y"),
                          (dict(mature="y"), "label=", "mature=", "y"),
                          (dict(periods="p"), "score=", "periods=", "p"),
                          (dict(sample_weight="ts"), "periods=", "sample_weight=", "ts")]:
        args = {"score": "p", "label": "y", "periods": "ts", "freq": "D", "min_count": 1, **kw}
        assert error_line(lambda: vc.monitor(df, **args)).startswith(same.format(a=a, b=b, col=col)), kw
    assert vc.monitor(df, score="p", label="y", periods="ts", freq="D", min_count=1, sample_weight="w").rows
