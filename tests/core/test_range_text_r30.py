"""A score just above 1 is refused naming a max that reads above 1 (before: "max=1", no visible reason)."""

import numpy as np
import pytest

import veracity as vc


@pytest.mark.parametrize("bad, shown", [(1 + 2**-52, "max=1.0000000000000002"), (1.0004, "max=1.0004"),
                                        (3.0, "max=3"), (-1e-17, "min=-1e-17")])
def test_the_named_bound_is_outside_the_range(bad, shown, error_line) -> None:
    text = error_line(lambda: vc.ece(np.array([0.25, bad, 0.5]), [0, 1, 1]))
    assert shown in text, text


def test_the_command_line_names_it_too(tmp_path, cli, refused) -> None:
    path = tmp_path / "s.csv"
    path.write_text("p,y\n0.25,0\n1.0000000000000002,1\n0.5,1\n")
    refused(cli(["audit", str(path), "--score", "p", "--label", "y"]), r"max=1\.0000000000000002")
