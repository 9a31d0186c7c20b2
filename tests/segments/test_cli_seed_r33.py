"""``veracity segments --random-state -1`` says what the command line can pass (session 33).

The refusal was the library's: "--random-state must be a non-negative integer, a numpy Generator or None",
neither of which a command line can give.
"""

from __future__ import annotations

from pathlib import Path


def _csv(tmp_path: Path) -> str:
    rows = ["score,label,g"] + [f"{0.1 + 0.8 * (i % 7) / 6:.3f},{i % 3 == 0:d},{'ab'[i % 2]}"
                                for i in range(200)]
    path = tmp_path / "s.csv"
    path.write_text("\n".join(rows) + "\n")
    return str(path)


def test_negative_seed_is_refused_in_command_line_words(cli, refused, tmp_path):
    res = cli(["segments", _csv(tmp_path), "--features", "g", "--random-state", "-1"])
    refused(res, r"--random-state must be a non-negative integer \(the seed of the draws\), got -1$")
    assert "Generator" not in res.err and "None" not in res.err


def test_a_seed_is_used(cli, tmp_path):
    res = cli(["segments", _csv(tmp_path), "--features", "g", "--random-state", "3", "--json"])
    assert res.code == 0 and '"random_state": 3' in res.out
