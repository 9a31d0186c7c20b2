"""Printed counts take the noun's number; huge finite report numbers stay short."""

import numpy as np

import veracity as vc
from veracity.reporting._sections import _num


def test_one_row_audit_says_row_not_rows():
    result = vc.audit(np.array([0.3]), np.array([1]))
    assert str(result).splitlines()[0].startswith("Calibration audit: 1 row, ")
    assert result.table._title().startswith("Reliability table: 1 row, ")


def test_two_rows_stay_plural():
    result = vc.audit(np.array([0.3, 0.6]), np.array([1, 0]))
    assert str(result).splitlines()[0].startswith("Calibration audit: 2 rows, ")


def test_spiegelhalter_one_row_text():
    from veracity.honest import spiegelhalter

    text = str(spiegelhalter(np.array([0.3]), np.array([1])))
    assert text.endswith("; 1 row)") and "Monte-Carlo law" in text  # 0.3 expected events (round 42)


def test_report_number_huge_finite_value_is_short():
    assert _num(1.2345e15, 2) == "1.2e+15"
    assert _num(0.12345) == "0.1235"
    assert _num(-3.5e7) == "-3.5e+07"
    assert _num(float("inf")) == "n/a"


def test_array_slice_names_match_the_frame_route():
    import pandas as pd

    p = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
    y = np.array([0, 1, 0, 1, 1, 0])
    t = np.array(["2026-01-01T10:00", "NaT", "2026-01-01T10:00:00.000000001", "2026-01-02",
                  "2026-01-02T00:00:00.000001", "NaT"], dtype="datetime64[ns]")
    expected = ["2026-01-01 10:00:00", "2026-01-01 10:00:00.000000001", "2026-01-02 00:00:00",
                "2026-01-02 00:00:00.000001", "(missing)"]
    assert list(vc.audit(p, y, by=t).groups) == expected
    assert list(vc.audit(pd.DataFrame({"p": p, "y": y, "t": t}), score="p", label="y", by="t").groups) == expected
    assert list(vc.audit(p, y, by=t.astype("datetime64[D]")).groups) == ["2026-01-01", "2026-01-02", "(missing)"]
    # a float NaN is the missing key, as NaT is: '(missing)' on arrays as on a frame holding NaN
    nan_keys = np.array([1.0, np.nan, 1.0, 2.0, 2.0, np.nan])
    assert list(vc.audit(p, y, by=nan_keys).groups) == ["1.0", "2.0", "(missing)"]
