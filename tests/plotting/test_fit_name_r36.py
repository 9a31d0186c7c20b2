"""A panel title too long for its panel is cut to the longest end that fits, found by bisection: the same
end a one-character-at-a-time scan finds, in ~log2(len) text measurements (the scan took 4.5 s of text
layout for a 300-character slice key)."""

from __future__ import annotations

import pytest

from veracity.plotting import _reliability as rel


def _scan(name: str, width_pt: float, right: str) -> str:
    """The end a scan keeps: the longest suffix (at least one character) whose "…" + suffix fits."""
    room = width_pt - rel._text_width(right, 8) - 5.0
    keep = len(name)
    while keep > 1 and rel._text_width("…" + name[-keep:], 8.5, "bold") > room:
        keep -= 1
    return "…" + name[-keep:].lstrip()


NAMES = ["segment = " + "web-" * 40 + "end", "x" * 300, "Größe-Ähnlichkeit " * 12, "a b " * 60 + "tail",
         "W" * 90 + "i" * 90]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("width_pt", [20.0, 60.0, 150.0, 400.0])
def test_the_cut_is_the_scans_and_takes_few_measurements(name, width_pt, monkeypatch):
    want = _scan(name, width_pt, "ECE 0.031")
    calls = []
    real = rel._text_width

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(rel, "_text_width", counted)
    got, size = rel._fit_name(name, width_pt, "ECE 0.031")
    if got == name:  # it fits whole at some size: nothing to cut
        assert real(name, size, "bold") <= width_pt - real("ECE 0.031", 8) - 5.0
        return
    assert (got, size) == (want, 8.5)
    assert len(calls) <= 4 + 2 + len(name).bit_length() + 1, len(calls)
