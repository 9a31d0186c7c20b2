"""A Spark master that cannot be reached is refused in one line naming it, before Spark starts (round 35).

``veracity audit d.csv --engine spark --spark-master spark://127.0.0.1:1`` started a JVM that retried the
master for ~80 s, printed a hundred lines of Java stack traces, and then said "input error: could not read
d.csv as CSV: Spark Py4JJavaError; check that it is a valid csv file", blaming a sound file. The master's
addresses are now tried (a TCP connection) before any JVM starts.
"""

from __future__ import annotations

import re
import socket

import pytest

pytest.importorskip("pyspark")


def _closed_port() -> int:
    """A local port nothing listens on: one the system just handed out, closed again."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_master_refused_in_one_line(tmp_path, write_csv, cli, refused):
    data = write_csv(tmp_path / "d.csv", "p,y", [(0.2 + 0.6 * (i % 2), i % 2) for i in range(40)])
    master = f"spark://127.0.0.1:{_closed_port()}"
    result = cli(["audit", data, "--score", "p", "--label", "y", "--engine", "spark",
                  "--spark-master", master])
    refused(result, rf"input error: cannot reach the Spark master {re.escape(master)} \(127\.0\.0\.1:\d+: "
                    r"Connection refused\); start it, or pass another --spark-master")
    assert "as CSV" not in result.err and "Exception" not in result.err


def test_every_address_of_a_master_tried(error_line):
    from veracity.sources._open import check_master

    port = _closed_port()
    with socket.socket() as server:  # a second address that takes the connection: the master is reachable
        server.bind(("127.0.0.1", 0))
        server.listen()
        check_master(f"spark://127.0.0.1:{port},127.0.0.1:{server.getsockname()[1]}")
    text = error_line(lambda: check_master(f"spark://no-such-host.invalid:7077,127.0.0.1:{port}"))
    master = f"spark://no-such-host.invalid:7077,127.0.0.1:{port}"
    assert text.startswith(f"cannot reach the Spark master {master} (no-such-host.invalid:7077: ")
    assert f"; 127.0.0.1:{port}: Connection refused)" in text


@pytest.mark.parametrize("master", ["local[2]", "k8s://https://h:6443", "yarn"])
def test_other_masters_left_to_spark(master):
    from veracity.sources._open import check_master

    check_master(master)  # no connection tried, no error
