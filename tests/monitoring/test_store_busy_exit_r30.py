"""A store held by another process past ``--timeout`` is a temporary state, not bad input: the command
line says ``store busy`` and exits 75 (sysexits' EX_TEMPFAIL), so a cron job can retry it instead of
reading exit 2, the code of a mistake (before: "input error", exit 2)."""

import subprocess
import sys

import pytest

import veracity as vc
from veracity.monitoring import StoreBusy

pytest.importorskip("duckdb")

HOLD = "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); print('held', flush=True); time.sleep(60)"


@pytest.fixture
def held_store(tmp_path):
    path = tmp_path / "m.duckdb"
    vc.MonitorStore(path).init()
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(path)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        yield path
    finally:
        holder.kill()
        holder.wait()
        holder.stdout.close()


def test_the_command_line_exits_75_with_one_line(held_store, cli) -> None:
    result = cli(["monitor", "status", str(held_store), "--timeout", "0.2"])
    assert result.code == 75, (result.code, result.err)
    lines = result.err.rstrip("\n").split("\n")
    assert len(lines) == 1 and lines[0].startswith("veracity monitor: store busy: store "), result.err
    assert "another process holds it" in lines[0] and "Traceback" not in result.err


def test_python_raises_store_busy_a_veracity_error(held_store) -> None:
    with pytest.raises(StoreBusy, match="is busy") as info:
        vc.MonitorStore(held_store, timeout=0.2).status()
    assert isinstance(info.value, vc.VeracityError) and isinstance(info.value, ValueError)
