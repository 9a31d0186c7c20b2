"""A bins refusal offers bins='auto' only where the function takes it: vc.monitor refused bins='auto' with
"bins must be a positive integer or 'auto', got 'auto'", and HistogramBinning and vc.monitor advised
"Use fewer bins, or bins='auto'", a second refusal."""

import numpy as np
import pytest

import veracity as vc


@pytest.fixture
def rows():
    rng = np.random.default_rng(0)
    p = rng.random(200)
    return p, (rng.random(200) < p).astype(int), np.repeat(["a", "b"], 100)


@pytest.mark.parametrize("bins", ["auto", 0, 10**6])
def test_monitor_never_offers_auto(rows, bins, error_line):
    p, y, periods = rows
    text = error_line(lambda: vc.monitor(p, y, periods=periods, bins=bins))
    assert "auto" not in text.replace(repr(bins), ""), text


@pytest.mark.parametrize("bins", [10**6])
def test_histogram_binning_never_offers_auto(rows, bins, error_line):
    p, y, _ = rows
    text = error_line(lambda: vc.HistogramBinning(bins=bins).fit(p, y))
    assert "auto" not in text and "Use fewer bins" in text, text


def test_audit_still_offers_auto(rows, error_line):
    p, y, _ = rows
    assert "bins='auto'" in error_line(lambda: vc.audit(p, y, bins=10**6))
