"""HistogramBinning(bins=...) refuses what it cannot take without offering it (session 11): the
message was "bins must be a positive integer or 'auto', got 'auto'"."""

from __future__ import annotations

import pytest

import veracity as vc
from veracity.cli import main


@pytest.mark.parametrize("bins", ["auto", 0, -3, 2.5, True])
def test_bad_bins_message_does_not_offer_auto(bins):
    with pytest.raises(vc.VeracityError, match=r"bins must be a positive whole number of bins, e\.g\. 10") as e:
        vc.HistogramBinning(bins=bins).fit([0.1, 0.5, 0.9], [0, 1, 1])
    assert "auto" not in str(e.value).split("got")[0]


def test_cli_bad_bins_exits_2_in_the_flags_words(tmp_path, capsys):
    code = main(["fit", "--method", "histogram", "--bins", "0", "--out", str(tmp_path / "c.json")])
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert err.splitlines() == [err] and "--bins must be a positive whole number" in err and "'auto'" not in err
