"""The paired-differences panel draws each difference as a percentage of model A's value; where A's value
is 0 (a perfect Brier or log-loss) the row was left empty, silently. It now says the difference and why it
has no percentage."""

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("matplotlib")


def test_a_zero_reference_value_is_written_not_dropped():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300)
    perfect, blurred = y.astype(float), np.clip(y * 0.8 + 0.1, 0.0, 1.0)
    result = vc.compare_models({"a": perfect, "b": blurred}, y, n_resamples=0)
    zero = [r for r in result.rows if not r.value_a]
    assert {r.metric for r in zero} >= {"brier", "log_loss"}
    fig = result.plot()
    panel = next(ax for ax in fig.axes if ax.get_title(loc="left").startswith("Paired differences"))
    notes = [t.get_text() for t in panel.texts if t.get_gid() == "no-percentage"]
    assert len(notes) == len(zero)
    for r in zero:
        assert f"{r.diff:+.4g} (A's value is 0: no % of it)" in notes
    # a row whose A is not 0 is still drawn as a point, not written
    assert len(notes) < len(result.rows)
