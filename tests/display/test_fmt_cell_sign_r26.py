"""A printed zero carries no sign in the notebook tables (``fmt_cell``): a difference of -1e-12 between two
models read "-0.0000" beside a verdict of no difference (session 26; -0.0 was already handled)."""

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from veracity.core._display import fmt_cell


@pytest.mark.parametrize("value", [-0.0, -1e-12, -4.9e-5, 0.0, 4.9e-5])
def test_a_value_that_rounds_to_zero_prints_unsigned(value: float) -> None:
    assert fmt_cell(value) == "0.0000"


@given(st.floats(min_value=-999.0, max_value=999.0, allow_nan=False))
def test_the_cell_is_the_value_at_four_decimals_signed_only_when_it_is_not_zero(value: float) -> None:
    text = fmt_cell(value)
    # the printed number is the value rounded to 4 decimals (within half a unit of the last place) ...
    assert math.isclose(float(text), value, abs_tol=5e-5 + 1e-12)
    # ... and a minus sign only where the printed number is not zero
    assert text.startswith("-") == (float(text) != 0.0 and value < 0)
