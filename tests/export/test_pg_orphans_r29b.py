"""A test PostgreSQL whose pytest run was killed is stopped by the next run; a live run's is not (session 29).

The fixtures (tests/sql/conftest.py, tests/export/conftest.py) start a pgserver PostgreSQL and stop it at the
session's end, which a killed run (a timeout's SIGKILL) never reaches: its ``postgres -D /tmp/veracity-pg-*``
kept running for hours (seven were found in one day). Each fixture now stops such orphans before it starts
its own: a folder whose pgserver handle list names only ended processes.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import warnings

import pytest

from ..sql.conftest import stop_orphaned_servers

_KILLED_RUN = """
import os, sys, warnings
warnings.simplefilter("ignore")
import pgserver
server = pgserver.get_server(sys.argv[1], cleanup_mode="delete")
print(server.get_pid(), flush=True)
os.kill(os.getpid(), 9)  # as a timeout kills pytest: no atexit, no fixture teardown
"""


def _alive(pid: int) -> bool:
    import psutil

    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_killed_runs_server_is_stopped_and_deleted():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pytest.importorskip("pgserver")
    folder = tempfile.mkdtemp(prefix="veracity-pg-r29b-")
    run = subprocess.run([sys.executable, "-c", _KILLED_RUN, folder], capture_output=True, text=True,
                         timeout=120)
    if not run.stdout.strip():
        pytest.skip(f"the pgserver PostgreSQL could not start here: {run.stderr.strip()[-300:]}")
    master = int(run.stdout.split()[0])
    assert run.returncode == -9 and _alive(master)  # the leak: the server outlives its killed run
    stopped = stop_orphaned_servers()
    assert folder in stopped
    for _ in range(50):
        if not _alive(master):
            break
        time.sleep(0.1)
    assert not _alive(master) and not os.path.exists(folder)


def test_a_live_runs_folder_is_left_alone():
    """This very process holds it (alive), as a parallel xdist worker would; a folder being set up (no
    handle list yet) is left alone too."""
    live = tempfile.mkdtemp(prefix="veracity-pg-r29b-")
    fresh = tempfile.mkdtemp(prefix="veracity-pg-r29b-")
    try:
        with open(os.path.join(live, ".handle_pids.json"), "w") as fh:
            json.dump([os.getpid()], fh)
        stopped = stop_orphaned_servers()
        assert live not in stopped and fresh not in stopped
        assert os.path.exists(os.path.join(live, ".handle_pids.json")) and os.path.isdir(fresh)
    finally:
        for f in (live, fresh):
            for name in os.listdir(f):
                os.remove(os.path.join(f, name))
            os.rmdir(f)


def test_a_dead_runs_folder_without_a_server_is_deleted():
    """A handle list naming only an ended process (its server gone already): the folder is deleted."""
    folder = tempfile.mkdtemp(prefix="veracity-pg-r29b-")
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                           text=True, check=True)
    with open(os.path.join(folder, ".handle_pids.json"), "w") as fh:
        json.dump([int(ended.stdout)], fh)
    assert folder in stop_orphaned_servers() and not os.path.exists(folder)
