"""A frame's refusal says what the array form says (session 31).

* Labels that are not 0/1: the frame routes (``sources._aggregates.check_contract``) showed their min and
  max through float64, so a uint64 column of ``2**64 - 1`` and ``2**64 - 2`` read
  "(min=1.8446744073709552e+19, max=1.8446744073709552e+19)" (two labels as one value), and with exactly
  two label values gave no ``pos_label`` hint where the array form says "Map lo to 0 and hi to 1, or pass
  pos_label=hi." Now the min and max are the column's integers and the hint is the array form's, on pandas,
  polars (eager and lazy), DuckDB and Dask (a pyarrow table: see test_backend_agreement_r30).
  ``pos_label=2.0**64`` matches neither uint64 label on any route (as in memory).
* Multiclass scores outside [0, 1] on a frame (``sources._multiclass``) said "(min=..., max=...)" with no
  count; now "k of n rows are not (min=..., max=...; first bad column 'p0': max=1.2)" — rows counted as the
  array form counts them, the first score column holding such a value named with its value outside.
  The command line's audit (through the frame route) then names the file's data row once.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity import VeracityError

pl = pytest.importorskip("polars")
duckdb = pytest.importorskip("duckdb")
dd = pytest.importorskip("dask.dataframe")

BIG = 2**64 - 1
P = np.linspace(0.1, 0.9, 10)
FRAMES = ["pandas", "pandas-UInt64", "polars", "polars-lazy", "duckdb", "dask"]


def frame(kind: str, df: pd.DataFrame):
    if kind == "pandas":
        return df
    if kind == "pandas-UInt64":  # the nullable extension type
        return df.astype({c: "UInt64" for c in df.columns if df[c].dtype == np.uint64})
    if kind == "polars":
        return pl.from_pandas(df)
    if kind == "polars-lazy":
        return pl.from_pandas(df).lazy()
    if kind == "duckdb":
        return duckdb.connect().from_df(df)
    return dd.from_pandas(df, npartitions=3, sort=False)


def refusal(call) -> VeracityError:
    with pytest.raises(VeracityError) as info:
        call()
    return info.value


@pytest.mark.parametrize("kind", FRAMES)
def test_uint64_labels_are_shown_as_stored_with_the_arrays_pos_label_hint(kind: str) -> None:
    y = np.array([BIG, BIG - 1] * 5, dtype=np.uint64)
    df = pd.DataFrame({"p": P, "y": y})
    want = refusal(lambda: vc.brier(P, y))
    got = refusal(lambda: vc.brier(frame(kind, df), score="p", label="y"))
    assert got.message == ("column 'y' (labels) must be binary 0/1 (or bool); 10 of 10 are not "
                           "(min=18446744073709551614, max=18446744073709551615)")
    assert got.hint == want.hint == ("Map 18446744073709551614 to 0 and 18446744073709551615 to 1, "
                                     "or pass {setting}.")
    assert (got.param, got.value) == (want.param, want.value) == ("pos_label", BIG)
    assert str(got).endswith("or pass pos_label=18446744073709551615.")


@pytest.mark.parametrize("kind", ["polars", "polars-lazy", "duckdb", "dask"])
def test_int64_labels_beyond_2_53_are_two_values(kind: str) -> None:
    y = np.array([2**53, 2**53 + 1] * 5, dtype=np.int64)
    got = refusal(lambda: vc.audit(frame(kind, pd.DataFrame({"p": P, "y": y})), score="p", label="y"))
    assert ("(min=9007199254740992, max=9007199254740993). Map 9007199254740992 to 0 and 9007199254740993 "
            "to 1, or pass pos_label=9007199254740993.") in str(got)
    want = refusal(lambda: vc.audit(P, y))
    assert (got.hint, got.value) == (want.hint, want.value)


@pytest.mark.parametrize("kind", FRAMES)
@pytest.mark.parametrize("labels, hint", [([0, 2], "Map 0 to 0 and 2 to 1"),
                                          ([1.5, 2.5], "Map 1.5 to 0 and 2.5 to 1"), ([1, 2, 3, 1, 2], None)])
def test_two_label_values_get_the_arrays_hint_and_three_do_not(kind: str, labels: list,
                                                                hint: str | None) -> None:
    y = np.array(labels * (10 // len(labels)))
    if kind == "pandas-UInt64" and y.dtype.kind == "f":
        kind = "pandas"
    want = refusal(lambda: vc.brier(P, y))
    got = refusal(lambda: vc.brier(frame(kind, pd.DataFrame({"p": P, "y": y})), score="p", label="y"))
    assert got.hint == want.hint
    if hint is None:
        assert got.message.endswith("(min=2, max=3); map the two classes to 0 and 1 and drop unlabelled rows")
    else:
        assert (got.param, got.value) == (want.param, want.value) == ("pos_label", y.max())
        assert hint in str(got) and "map the two classes" not in str(got)


def test_a_missing_label_keeps_the_general_advice() -> None:
    df = pd.DataFrame({"p": P, "y": [0.0, 2.0] * 4 + [np.nan, 2.0]})
    got = refusal(lambda: vc.brier(pl.from_pandas(df, nan_to_null=True).lazy(), score="p", label="y"))
    assert got.hint is None
    assert got.message.endswith("; map the two classes to 0 and 1 and drop unlabelled rows")


@pytest.mark.parametrize("kind", FRAMES)
def test_a_float_pos_label_of_2_64_matches_no_uint64_label(kind: str) -> None:
    y = np.array([BIG, BIG - 1, BIG - 1, BIG, BIG, BIG - 1, BIG, BIG - 1, BIG - 1, BIG], dtype=np.uint64)
    data = frame(kind, pd.DataFrame({"p": P, "y": y}))
    want = refusal(lambda: vc.brier(P, y, pos_label=2.0**64))
    got = refusal(lambda: vc.brier(data, score="p", label="y", pos_label=2.0**64))
    assert "is not among the" in str(want) and "is not among the values of column 'y' (labels)" in str(got)
    assert "(18446744073709551614, 18446744073709551615); pass one of them" in str(got)
    # the exact label matches its rows only: Brier of P against [y == 2**64 - 1]
    brier = float(np.mean((P - (y == np.uint64(BIG))) ** 2))
    assert vc.brier(data, score="p", label="y", pos_label=BIG) == pytest.approx(brier, rel=1e-12)
    assert vc.brier(P, y, pos_label=BIG) == pytest.approx(brier, rel=1e-12)


def _multiclass() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(31)
    p = rng.dirichlet(np.ones(3), size=20)
    p[3] = [1.1, -0.05, -0.05]
    p[7] = [1.2, -0.1, -0.1]
    return p, np.arange(20) % 3


@pytest.mark.parametrize("kind", [*FRAMES[:1], *FRAMES[2:], "pyarrow"])
def test_multiclass_scores_outside_0_1_count_rows_and_name_the_first_bad_column(kind: str) -> None:
    p, y = _multiclass()
    df = pd.DataFrame({"p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2], "y": y})
    data = pytest.importorskip("pyarrow").Table.from_pandas(df) if kind == "pyarrow" else frame(kind, df)
    want = refusal(lambda: vc.audit(p, y))
    got = refusal(lambda: vc.audit(data, score=["p0", "p1", "p2"], label="y"))
    outside = ((p < 0) | (p > 1)).any(axis=1)
    said = f"; {int(outside.sum())} of 20 rows are not (min=-0.1, max=1.2; "
    assert said in want.message and said in got.message
    assert got.message == ("score columns 'p0', 'p1', 'p2' must hold probabilities in [0, 1]" + said
                           + "first bad column 'p0': max=1.2)")
    assert (got.param, got.value, got.hint) == (want.param, want.value, want.hint)


@pytest.mark.parametrize("kind", ["polars-lazy", "duckdb", "dask"])
def test_the_first_bad_column_is_named_by_its_values_outside(kind: str) -> None:
    p, y = _multiclass()
    p[3], p[5], p[7] = [0.2, 1.1, -0.3], [0.5, -0.2, 0.7], [0.3, 1.2, -0.5]  # p0 in [0, 1], p1 off both ends
    df = pd.DataFrame({"p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2], "y": y})
    got = refusal(lambda: vc.audit(frame(kind, df), score=["p0", "p1", "p2"], label="y"))
    assert got.message.endswith("; 3 of 20 rows are not (min=-0.5, max=1.2; first bad column 'p1': min=-0.2, "
                                "max=1.2)")


def test_the_cli_audit_counts_rows_and_names_the_data_row_once(cli, refused, tmp_path) -> None:
    p, y = _multiclass()
    path = tmp_path / "mc.csv"
    rows = (f"{a!r},{b!r},{c!r},{t}\n" for (a, b, c), t in zip(p.tolist(), y))
    path.write_text("p0,p1,p2,label\n" + "".join(rows))
    result = cli(["audit", str(path), "--score", "p0,p1,p2"])
    refused(result, r"must hold probabilities in \[0, 1\]; 2 of 20 rows are not \(min=-0\.1, max=1\.2; "
                    r"first bad column 'p0': max=1\.2\), first at data row 4\. If these are logits, pass "
                    r"--score-type logit")
    assert result.err.count("data row") == 1, result.err


def test_the_cli_on_duckdb_shows_uint64_labels_and_names_pos_label(cli, refused, tmp_path) -> None:
    path = tmp_path / "u.csv"
    path.write_text("p,y\n" + "".join(f"{s},{t}\n" for s, t in zip(P, [BIG, BIG - 1] * 5)))
    result = cli(["audit", str(path), "--score", "p", "--label", "y", "--engine", "duckdb"])
    refused(result, r"10 of 10 are not \(min=18446744073709551614, max=18446744073709551615\), first at "
                    r"data row 1\. Map 18446744073709551614 to 0 and 18446744073709551615 to 1, or pass "
                    r"--pos-label 18446744073709551615\.")
