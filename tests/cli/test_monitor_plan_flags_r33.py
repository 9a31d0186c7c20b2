"""``veracity monitor plan`` takes only the options the plan reads.

It was given ``--min-count`` and ``--bins`` (shared with status and recalibrate) and passed neither to
``MonitorStore.plan``: ``--bins 3 --min-count 100000`` printed the same plan as none, exit 0, a flag
silently without effect. Now they are refused as unknown, in one usage line, and status and
recalibrate keep them.
"""

import pytest

pytest.importorskip("duckdb")


@pytest.fixture
def store(tmp_path, cli, write_csv):
    rows = [(i, f"2026-01-{1 + i % 20:02d}T00:00:00", round(0.1 + 0.8 * (i % 10) / 9, 3), i % 2)
            for i in range(200)]
    preds = write_csv(tmp_path / "p.csv", "id,ts,score,label", rows)
    path = str(tmp_path / "m.duckdb")
    assert cli(["monitor", "init", path, "-q"]).code == 0
    argv = ["monitor", "log", path, preds, "--id", "id", "--time", "ts", "--score", "score", "-q"]
    assert cli(argv).code == 0
    return path


@pytest.mark.parametrize("flag", [["--bins", "3"], ["--min-count", "100000"]])
def test_plan_refuses_the_options_it_never_read(store, cli, refused, flag):
    argv = ["monitor", "plan", store, "--width", "0.1", "--as-of", "2026-03-01", "-q"]
    assert cli(argv).code == 0
    refused(cli([*argv, *flag]), rf"usage error: unrecognized arguments: {flag[0]}")


def test_status_and_recalibrate_keep_them(cli):
    for action in ("status", "recalibrate"):
        text = cli(["monitor", action, "--help"]).out
        assert "--min-count" in text and "--bins" in text, action
    assert "calibrator is fit on" in " ".join(cli(["monitor", "recalibrate", "--help"]).out.split())
    assert "--min-count" not in cli(["monitor", "plan", "--help"]).out


def test_status_max_slices_needs_by(tmp_path, cli, refused, write_csv):
    # --max-slices caps --by's slices; without --by every period is one row, and --max-slices 1 changed
    # nothing, exit 0 (its default was 20, so giving it could not be told from not)
    rows = [(i, f"2026-01-{1 + i % 20:02d}T00:00:00", 0.5, "abc"[i % 3]) for i in range(60)]
    preds = write_csv(tmp_path / "p.csv", "id,ts,score,seg", rows)
    path = str(tmp_path / "s.duckdb")
    assert cli(["monitor", "init", path, "-q"]).code == 0
    assert cli(["monitor", "log", path, preds, "--id", "id", "--time", "ts", "--score", "score",
                "--by", "seg", "-q"]).code == 0
    argv = ["monitor", "status", path, "--as-of", "2026-02-01", "--freq", "M", "-q"]
    refused(cli([*argv, "--max-slices", "1"]), r"--max-slices caps the slices of --by; pass --by COL too")
    assert cli([*argv, "--by", "seg", "--max-slices", "1"]).code == 0
    assert cli(argv).code == 0


def test_recalibrate_slice_without_by_names_both_flags(store, cli, refused):
    # "--by and slice go together": the message's second parameter stayed in Python's words
    refused(cli(["monitor", "recalibrate", store, "--slice", "a", "-q"]),
            r"input error: --by and --slice go together: recalibrate one slice \(--by segment, --slice a\)")
