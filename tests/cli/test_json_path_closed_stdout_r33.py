"""``--json PATH`` is written even when stdout is closed early.

``veracity audit data.csv --json audit.json | head -1``: the table's print met a closed pipe
(BrokenPipeError, exit 0 by design) before the JSON was written, so audit.json was never made, exit 0.
The JSON file is now written before the table is printed."""

import io
import json

import pytest


class _ClosedPipe(io.StringIO):
    def write(self, text):  # a reader that has gone away, as `| head` leaves it
        raise BrokenPipeError(32, "Broken pipe")


@pytest.mark.parametrize("command", [["audit"], ["threshold"], ["conformal"]])
def test_json_file_written_before_a_closed_stdout(tmp_path, monkeypatch, write_csv, command):
    from veracity.cli import main

    rows = [(round(0.05 + 0.9 * i / 99, 4), int(i % 3 == 0 or i > 70)) for i in range(100)]
    data = write_csv(tmp_path / "d.csv", "score,label", rows)
    out = tmp_path / "out.json"
    monkeypatch.setattr("sys.stdout", _ClosedPipe())
    assert main([*command, data, "--json", str(out), "-q"]) == 0
    assert out.exists() and json.loads(out.read_text())["file"]
