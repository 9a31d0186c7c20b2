"""Speed-only guards (session 39): each fast path gives what the plain path gave.

* the MCE family p-value's draws made many blocks at a time (``WORK``) give the p-value of one block at a
  time (``WORK = 1``: the block-by-block loop), bit for bit: the same stream of draws;
* a bin end's text rounded to nearest through ``g`` formatting is the :mod:`decimal` quantize's text, and
  the bin texts bisected in a list are those of ``np.searchsorted``;
* ``missing_mask`` of an object column without floats, Decimals, None or pandas' NA/NaT skips the
  per-value test and gives its answer.
"""

from __future__ import annotations

import datetime
import decimal
import importlib
import math

import numpy as np
import pandas as pd
import pytest

import veracity as vc

_mce_null = importlib.import_module("veracity.segments._mce_null")
_levels = importlib.import_module("veracity.segments._levels")
_values = importlib.import_module("veracity.segments._values")


def _data(seed: int, n: int, k: int, weighted: bool) -> dict:
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    y = (rng.uniform(size=n) < p).astype(int)
    feats = {"a": rng.integers(0, 8, n), "b": rng.choice(["x", "y", "z", "w"], n), "c": rng.normal(size=n)}
    return dict(scores=p, labels=y, features=dict(list(feats.items())[:k]),
                sample_weight=rng.lognormal(0.0, 1.0, n) if weighted else None)


@pytest.mark.parametrize("seed,n,k,depth,weighted,n_resamples", [
    (1, 300, 1, 1, False, 199), (2, 2000, 2, 1, False, 199), (3, 2000, 2, 2, True, 57),
    (4, 3000, 3, 2, False, 199), (5, 800, 2, 2, True, 1),
])
def test_many_blocks_at_once_give_the_block_by_block_pvalue(monkeypatch, seed, n, k, depth, weighted,
                                                            n_resamples):
    d = _data(seed, n, k, weighted)

    def run(random_state):
        return vc.segments(d["scores"], d["labels"], features=d["features"], depth=depth,
                           sample_weight=d["sample_weight"], n_resamples=n_resamples,
                           random_state=random_state).mce_family_pvalue

    fast = [run(None), run(np.random.default_rng(seed))]
    monkeypatch.setattr(_mce_null, "WORK", 1, raising=False)  # one block of draws per pass: the plain loop
    plain = [run(None), run(np.random.default_rng(seed))]
    assert fast == plain


def _fmt_decimal(x: float, digits: int, rounding: str) -> str:
    if float(x).is_integer() and abs(x) < 1e15:
        return _values._fmt(x)
    d = decimal.Decimal(float(x))
    q = d.quantize(decimal.Decimal(1).scaleb(d.adjusted() - digits + 1), rounding=rounding)
    return f"{float(q):.{digits}g}"


def test_nearest_text_is_the_decimal_quantize_text():
    rng = np.random.default_rng(39)
    xs = np.concatenate([
        rng.normal(size=4000) * 10.0 ** rng.integers(-300, 300, 4000), rng.normal(size=4000),
        np.round(rng.normal(size=2000), 4) + 0.00005,  # near the halfway points
        [1.0625, 1.03125, -2.5625, 1234.5, 12345.5, 0.15625, 1e15 + 0.5, 9.99995, 0.000099995, 5e-324,
         1.7e308],
    ])
    for x in xs.tolist():
        for digits in (4, 6, 8, 10, 12, 14, 17):
            for rounding in (decimal.ROUND_HALF_EVEN, decimal.ROUND_FLOOR, decimal.ROUND_CEILING):
                got = _levels._fmt_toward(x, digits, rounding)
                assert got == _fmt_decimal(x, digits, rounding), (x, digits, rounding)


def _edge_texts_plain(bounds: list[float], v: np.ndarray) -> list[str]:
    digits_all = (4, 6, 8, 10, 12, 14, 17)

    def one(x: float, role: str, base: int) -> str:
        toward = decimal.ROUND_CEILING if role == "hi" else decimal.ROUND_FLOOR
        below = int(np.searchsorted(v, x, side="left"))
        for digits in (d for d in digits_all if d >= base):
            for rounding in (decimal.ROUND_HALF_EVEN, toward):
                text = _fmt_decimal(x, digits, rounding)
                y = float(text)
                if role == "lo" and y <= x or role == "hi" and y >= x or \
                        role == "cut" and int(np.searchsorted(v, y, side="left")) == below:
                    return text
        return _values._fmt(x) if float(x).is_integer() and abs(x) < 1e15 else repr(float(x))

    numbers = [float(b) for b in bounds]
    for base in digits_all:
        texts = [one(b, "hi" if i == len(bounds) - 1 else "lo" if i == 0 else "cut", base)
                 for i, b in enumerate(bounds)]
        if len(set(zip(numbers, texts))) == len(set(numbers)) == len(set(texts)):
            return texts
    return [repr(float(b)) if not float(b).is_integer() else _values._fmt(b) for b in bounds]


@pytest.mark.parametrize("scale,decimals,bins", [(1.0, 2, 7), (1.0, 9, 300), (1e-6, 12, 40), (3e8, 0, 25),
                                                  (1.0, 5, 2000)])
def test_bin_texts_are_those_of_the_plain_search(scale, decimals, bins):
    rng = np.random.default_rng(bins)
    v = np.unique(np.round(rng.normal(size=20_000) * scale, decimals))
    cuts = v[np.linspace(1, v.size - 1, bins, dtype=int)[:-1]]
    cuts = np.unique(np.r_[cuts, np.nextafter(cuts[:3], np.inf), cuts[3:6] - 1e-12 * scale])
    bounds = [float(v[0]), *cuts.tolist(), float(v[-1])]
    assert _levels._edge_texts(bounds, v) == _edge_texts_plain(bounds, v)


def _missing_plain(raw: np.ndarray) -> np.ndarray:
    return np.array([v is None or (isinstance(v, (float, np.floating)) and math.isnan(v))
                     or (isinstance(v, decimal.Decimal) and v.is_nan())
                     or type(v).__name__ in ("NAType", "NaTType") for v in raw], dtype=bool)


@pytest.mark.parametrize("values", [
    ["a", "b", "c"], [1, 2, 3, 2**70], [True, False, 1], [b"x", "y"], [datetime.date(2024, 1, 1), "z"],
    ["a", None, "b"], ["a", float("nan"), 1.5], [np.float32("nan"), "a"], [decimal.Decimal("NaN"), "a"],
    [decimal.Decimal("1.5"), 2], [pd.NA, "a"], [pd.NaT, "a"], [pd.Timestamp("2024-01-01"), "a"],
    [np.int64(3), np.str_("a")], [np.float64(2.0), "b"], [],
])
def test_missing_values_of_an_object_column(values):
    raw = np.empty(len(values), dtype=object)
    raw[:] = values
    got = _values.missing_mask(raw)
    assert got.dtype == bool and got.tolist() == _missing_plain(raw).tolist()
