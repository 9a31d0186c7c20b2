"""Writing into a folder that exists but takes no new files (``/proc``) said "the folder /proc does not
exist; create it first" — advice a user cannot follow (session 44). It now says the folder takes no new
files; a folder that truly does not exist keeps its advice."""

from __future__ import annotations

import os

import numpy as np
import pytest

from veracity import PlattScaling
from veracity.core._validation import VeracityError

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self"), reason="needs Linux's /proc")


def _cal() -> PlattScaling:
    p = (np.arange(40) % 10 + 0.5) / 10
    return PlattScaling().fit(p, np.arange(40) % 2)


def test_folder_that_takes_no_files():
    with pytest.raises(VeracityError, match=r"^cannot write /proc/c\.json: the folder /proc takes no new "
                                            r"files; pass a path in a folder you can write$"):
        _cal().save("/proc/c.json")


def test_missing_folder_keeps_its_advice(tmp_path):
    with pytest.raises(VeracityError, match="does not exist; create it first"):
        _cal().save(tmp_path / "nope" / "c.json")


def test_cli_says_it_in_one_line(tmp_path, cli, refused):
    rows = tmp_path / "rows.csv"
    rows.write_text("score,label\n" + "".join(f"{(i % 10 + 0.5) / 10},{i % 2}\n" for i in range(40)))
    refused(cli(["fit", rows, "--method", "platt", "--out", "/proc/cal.json"]),
            r"cannot write /proc/cal\.json: the folder /proc takes no new files")
