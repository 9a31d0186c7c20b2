"""A number written with a thousands separator was called a decimal comma (session 43): "1,200" got the
advice "write them with a decimal point (0.75)", which a user follows by writing 1.2 for 1200 — a silent
wrong weight. Commas that can only group thousands say so; "1,200" names both readings."""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main


@pytest.mark.parametrize(("value", "said", "unsaid"), [
    ("1,200", "write them as plain numbers (1200, or 1.2 if the comma is a decimal one)", "(0.75)"),
    ("12,345,678", "thousands separator: write them without it (12345678)", "decimal comma"),
    ("1,234.5", "thousands separator: write them without it (1234.5)", "decimal comma"),
    ("12,5", "decimal comma: write them with a decimal point (12.5)", "thousands"),
    ("0,750", "decimal comma: write them with a decimal point (0.75)", "thousands"),
])
def test_a_comma_is_read_as_what_it_can_be(value: str, said: str, unsaid: str) -> None:
    from veracity.core._validation import check_numeric_column

    with pytest.raises(vc.VeracityError) as err:
        check_numeric_column(np.array([value], dtype=object), "w", "weights")
    assert said in str(err.value) and unsaid not in str(err.value)


def test_the_command_line_weight_column_says_thousands(tmp_path, capsys) -> None:
    f = tmp_path / "w.csv"
    f.write_text('score,label,w\n0.2,0,"1,200"\n0.8,1,"2,500"\n0.4,0,"1,000"\n')
    code = main(["audit", str(f), "--sample-weight", "w"])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "thousands separator" in err and "1200" in err and "(0.75)" not in err
