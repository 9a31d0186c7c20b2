"""What a command does not import at start-up (fresh interpreters: what ``sys.modules`` holds after the run).

``import scipy.special`` costs 0.2 s of CPU (its array-API layer loads ``numpy.testing``, ``unittest``
and ``numpy.f2py``), two fifths of ``veracity audit`` on the demo data. An interval at a common level
takes its normal quantile from a table of scipy's own values (``veracity.core._special._NDTRI``),
pinned here bit for bit, so that a Wilson interval at such a level (``audit``, ``threshold
--target-precision``) imports no scipy at all; a CSV read into numpy no longer imports
``pyarrow.compute`` (0.04 s). Speed-only guards: the table against scipy's ``ndtri``, the intervals
built from it against those built from scipy's quantile, the numpy test for whole numbers past int64
against ``pyarrow.compute.min_max``'s.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.special

from veracity.core import _special
from veracity.core._intervals import binomial_interval, wilson_bounds

RUN = ("import contextlib, io, sys\n"
       "from veracity.cli import main\n"
       "with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):\n"
       "    try:\n        code = main({argv!r})\n    except SystemExit as exc:\n        code = exc.code\n"
       "print(code)\n"
       "roots = ('scipy', 'unittest', 'numpy', 'veracity')\n"
       "print(sorted(m for m in sys.modules if m.split('.')[0] in roots))\n")

#: what a command that needs no special function beyond a common level's normal quantile must not import
HEAVY = ("scipy", "scipy.special", "numpy.testing", "numpy.f2py", "unittest")


def _modules_after(argv: list[str], cwd) -> list[str]:
    out = subprocess.run([sys.executable, "-c", RUN.format(argv=argv)], capture_output=True, text=True,
                         check=True, cwd=cwd)
    code, modules = out.stdout.strip().splitlines()[-2:]
    assert code == "0", (argv, code)  # the command ran to its end
    return eval(modules)  # a printed list of module names


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    rng = np.random.default_rng(41)
    p = rng.uniform(0.01, 0.99, 300)
    y = (rng.uniform(size=300) < p).astype(int)
    d = tmp_path_factory.mktemp("r41")
    (d / "d.csv").write_text("p,y\n" + "".join(f"{a},{b}\n" for a, b in zip(p, y)))
    return d


@pytest.mark.parametrize("argv", [
    ["audit", "d.csv", "--score", "p", "--label", "y"],
    ["audit", "d.csv", "--score", "p", "--label", "y", "--level", "0.9", "--json", "-"],
    ["threshold", "d.csv", "--score", "p", "--label", "y", "--target-precision", "0.7"],
])
def test_a_wilson_interval_at_a_common_level_imports_no_scipy(scored, argv):
    loaded = _modules_after(argv, scored)
    assert f"veracity.cli._{argv[0]}" in loaded
    assert not [m for m in HEAVY if m in loaded], [m for m in HEAVY if m in loaded]


def test_the_table_is_scipys_own_ndtri_bit_for_bit():
    assert len(_special._NDTRI) >= 20
    for p, z in _special._NDTRI.items():
        want = scipy.special.ndtri(p)
        got = _special.ndtri(p)
        assert type(got) is type(want) is np.float64, (p, type(got))
        assert got.tobytes() == want.tobytes() == np.float64(z).tobytes(), (p, got, want)
        assert _special.ndtri(np.float64(p)).tobytes() == want.tobytes()


def test_the_callers_levels_hit_the_table():
    """The arguments the callers compute at the common levels are keys: 1 - α/2 (two-sided), 1 - α (one side)
    and 0.5 + level/2 (the paired mean)."""
    for level in (0.5, 0.8, 0.9, 0.95, 0.99, 0.995, 0.999):
        alpha = 1.0 - float(level)
        for p in (1.0 - alpha / 2.0, 1.0 - alpha, 0.5 + level / 2.0):
            assert p in _special._NDTRI, (level, p)


def test_anything_else_is_scipys_answer():
    for args in ((0.3,), (0.975000001,), (np.array([0.975, 0.5, 0.1]),), (np.float32(0.975),), (0.0,), (1.0,),
                 ([0.9, 0.95],)):
        got, want = _special.ndtri(*args), scipy.special.ndtri(*args)
        assert type(got) is type(want) and np.asarray(got).dtype == np.asarray(want).dtype
        np.testing.assert_array_equal(got, want, strict=True)


@pytest.mark.parametrize("sided", ["two-sided", "lower", "upper"])
@pytest.mark.parametrize("level", [0.8, 0.9, 0.95, 0.99])
def test_wilson_intervals_are_those_of_scipys_quantile(level, sided):
    rng = np.random.default_rng(7)
    n = rng.integers(0, 400, 200).astype(float)
    k = np.floor(rng.uniform(size=200) * (n + 1))
    low, high = binomial_interval(k, n, level=level, sided=sided)
    alpha = 1.0 - level
    tail = alpha / 2.0 if sided == "two-sided" else alpha
    with np.errstate(divide="ignore", invalid="ignore"):
        lo, hi = wilson_bounds(k, n, scipy.special.ndtri(1.0 - tail))
    lo, hi = np.clip(lo, 0.0, 1.0), np.clip(hi, 0.0, 1.0)
    if sided == "lower":
        hi = np.ones_like(hi)
    elif sided == "upper":
        lo = np.zeros_like(lo)
    lo, hi = np.where(n <= 0, np.nan, lo), np.where(n <= 0, np.nan, hi)
    assert lo.tobytes() == low.tobytes() and hi.tobytes() == high.tobytes()


def test_reading_a_csv_file_for_numpy_imports_no_pyarrow_compute(scored):
    """``threshold`` reads its columns into numpy: the check for whole numbers past int64 in a CSV's float
    columns (:func:`veracity.sources._api._past_int64`) no longer imports ``pyarrow.compute`` (0.04 s)."""
    loaded = _modules_after(["threshold", "d.csv", "--score", "p", "--label", "y", "--cost-fn", "9"], scored)
    assert "veracity.cli._threshold" in loaded
    probe = ("import sys\nfrom veracity.sources._api import read_table\nread_table('d.csv', ['p', 'y'])\n"
             "print('pyarrow.compute' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         cwd=scored)
    assert out.stdout.split() == ["False"]


def _min_max_says_past(column) -> bool:
    """The old test, by ``pyarrow.compute.min_max`` (nulls and NaN skipped)."""
    import pyarrow.compute as pc

    low, high = pc.min_max(column).values()
    return not (low.as_py() is None or max(abs(low.as_py()), abs(high.as_py())) < 2.0**63)


def test_past_int64_tells_what_min_max_told():
    """Speed-only guard: numpy's pass over each chunk gives the old answer on nulls, NaN, infinities, the
    edge 2**63 on either side, several chunks and float32 (the old answer was also "go on" for an
    all-NaN column, which the next check stops: both leave it as doubles)."""
    import pyarrow as pa

    from veracity.sources._api import _past_int64

    big, nan, inf = 2.0**63, float("nan"), float("inf")
    cases = [[1.0, 2.0], [None, None], [nan, None, 1.0], [big], [-big], [np.nextafter(big, 0), -1e18],
             [None, 3e19, nan], [-inf, 1.0], [inf], [1e300], [0.5, None]]
    for chunks in ([c] for c in cases):
        col = pa.chunked_array(chunks, type=pa.float64())
        assert _past_int64(col) == _min_max_says_past(col), chunks
    several = pa.chunked_array([[1.0, None], [nan], [], [-1e19, 2.0]], type=pa.float64())
    assert _past_int64(several) is _min_max_says_past(several) is True
    for values in ([1.0, 2.5], [1e19, -3.0], [np.nan, 2e20]):
        col = pa.chunked_array([pa.array(np.asarray(values, dtype=np.float32), type=pa.float32())])
        assert _past_int64(col) == _min_max_says_past(col), values
    # (float16, which a CSV never reads as, has no min_max kernel: numpy's pass takes it in float64)
    assert not _past_int64(pa.chunked_array([pa.array(np.asarray([60000.0], dtype=np.float16))]))
    assert _past_int64(pa.chunked_array([[nan, nan]])) is False  # min_max: NaN; stopped by the next check
