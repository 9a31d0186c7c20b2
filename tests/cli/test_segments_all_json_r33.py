"""``veracity segments --all --json -``: --all widens the printed table to every segment, and
``--json -`` prints the JSON instead (its 'segments' lists every segment either way): the JSON was the
same with and without --all, exit 0. Refused now; --all with ``--json PATH`` (the table printed too)
still widens the table."""

import json

import pytest

pytest.importorskip("duckdb")


def test_all_with_json_stdout_is_refused(tmp_path, cli, refused, write_csv):
    rows = [(round(0.2 + 0.6 * (i % 7) / 6, 3), int(i % 3 == 0), "ab"[i % 2]) for i in range(400)]
    path = write_csv(tmp_path / "s.csv", "score,label,g", rows)
    base = ["segments", path, "--features", "g", "-q"]
    doc = json.loads(cli([*base, "--json", "-"]).out)
    assert len(doc["segments"]) == doc["n_segments"]  # every segment, without --all
    refused(cli([*base, "--all", "--json", "-"]), r"--all prints every segment in the table")
    shown = cli([*base, "--all", "--json", str(tmp_path / "s.json")])
    assert shown.code == 0 and "g=a" in shown.out and "g=b" in shown.out
