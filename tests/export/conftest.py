"""Calibrators of every kind, hostile evaluation scores, and the real engines that run their SQL.

The evaluation set (10^5 rows) holds what breaks a careless export: ties (rounded
scores), every isotonic knot, histogram edge and Venn-ABERS score exactly, and the
neighbouring doubles on both sides of each, the bounds 0 and 1, machine epsilon,
1 - eps, subnormals, and logits out to +-1e4 (exp overflows past +-709).

Engines: DuckDB and stdlib SQLite in process; PostgreSQL 16 started from the ``pgserver``
wheel in a temporary folder (skipped with the reason when it cannot start); Spark in
``local[2]`` from the session-wide ``spark`` fixture of tests/conftest.py (the test ids
carry "spark" so ``--dist loadgroup`` keeps them in one worker).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import veracity as vc
from veracity.core._validation import PROB_EPS

N_EVAL = 100_000
K = 4


def _fit_data(seed: int = 0, n: int = 3000) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 2.0, n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z / 1.6 - 0.3))).astype(np.int64)
    p = np.round(1.0 / (1.0 + np.exp(-z)), 3)  # ties
    Z = rng.normal(0.0, 1.5, (n, K))
    yk = np.argmax(Z + rng.gumbel(size=(n, K)) * 1.3, axis=1)
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    return {"p": p, "s": np.round(z, 2), "y": y, "P": P, "Z": Z, "yk": yk}


def _hand_isotonic(interpolation: str) -> Any:
    """1,000 knots, some a few ulps apart (several per lookup cell) and three subnormal gaps
    (a linear slope overflows there: the fraction form)."""
    rng = np.random.default_rng(7)
    x = np.sort(rng.random(990))
    close = x[:5, None] + np.arange(1, 3)[None, :] * 2e-16
    x = np.unique(np.concatenate([[0.0, 5e-324, 1e-323, 1.5e-323], x, close.ravel()]))
    y = np.sort(rng.random(x.size))
    y[1:4] = [0.2, 0.5, 0.7]  # jumps across subnormal gaps
    y = np.maximum.accumulate(y)
    doc = {"format": "veracity.calibrator", "version": 1, "kind": "isotonic",
           "params": {"score_type": "probability", "ties": "allow", "interpolation": interpolation},
           "state": {"knots_x_": x.tolist(), "knots_y_": y.tolist(), "n_unique_": int(x.size),
                     "n_steps_": int(x.size), "ties_created_": 0, "n_classes_": 2},
           "metadata": {"n_rows": 1000, "score_type": "probability", "fit_window": "hand-made"}}
    return vc.load(doc)


def zoo() -> dict[str, tuple[Any, str, Any]]:
    """name -> (fitted calibrator, input: "p" | "s" | "P" | "Z", prior_shift or None)."""
    d = _fit_data()
    out: dict[str, tuple[Any, str, Any]] = {}
    meta = {"fit_window": "2026-01..2026-03", "model_revision": "m-1"}

    def add(name: str, cal: Any, col: str, prior: Any = None) -> None:
        y = d["yk"] if col in ("P", "Z") else d["y"]
        rows = slice(0, 400) if cal.kind == "matrix" else slice(None)  # L-BFGS: keep the fit quick
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out[name] = (cal.fit(d[col][rows], y[rows], metadata=meta), col, prior)

    st = {"p": "probability", "s": "logit", "P": "probability", "Z": "logit"}
    for col in ("p", "s"):
        add(f"temperature-{col}", vc.TemperatureScaling(score_type=st[col]), col)
        add(f"platt-{col}", vc.PlattScaling(score_type=st[col]), col)
        add(f"beta-{col}", vc.BetaCalibration(score_type=st[col]), col)
        add(f"isotonic-{col}", vc.IsotonicCalibration(score_type=st[col]), col)
        add(f"histogram-{col}", vc.HistogramBinning(score_type=st[col]), col)
        add(f"venn-abers-{col}", vc.VennAbers(score_type=st[col]), col)
    add("platt-smoothed", vc.PlattScaling(smoothing=True), "p")
    add("isotonic-linear", vc.IsotonicCalibration(interpolation="linear"), "p")
    add("isotonic-strict", vc.IsotonicCalibration(ties="strict"), "p")
    add("histogram-quantile", vc.HistogramBinning(bins=15, strategy="quantile"), "p")
    add("histogram-equal-count", vc.HistogramBinning(bins=7, strategy="equal-count"), "p")
    add("histogram-50", vc.HistogramBinning(bins=50), "p")
    add("platt-prior", vc.PlattScaling(), "p", (0.3, 0.1))
    for col in ("P", "Z"):
        add(f"temperature-{col}", vc.TemperatureScaling(score_type=st[col]), col)
        add(f"matrix-{col}", vc.MatrixScaling(score_type=st[col]), col)
        add(f"ovr-platt-{col}", vc.PlattScaling(score_type=st[col]), col)
    add("vector-P", vc.VectorScaling(), "P")
    add("ovr-isotonic-P", vc.IsotonicCalibration(), "P")
    add("ovr-histogram-P", vc.HistogramBinning(), "P")
    add("ovr-beta-P", vc.BetaCalibration(), "P")
    add("temperature-prior-P", vc.TemperatureScaling(), "P", ([0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]))
    out["isotonic-1000-step"] = (_hand_isotonic("step"), "p", None)
    out["isotonic-1000-linear"] = (_hand_isotonic("linear"), "p", None)
    return out


def _knots(cals: dict[str, tuple[Any, str, Any]], col: str) -> np.ndarray:
    """Every stored threshold of the calibrators reading ``col``, for exact hits."""
    found = []
    for cal, c, _ in cals.values():
        if c != col or cal.kind not in ("isotonic", "venn-abers", "histogram"):
            continue
        for attr in ("knots_x_", "c_", "edges_"):
            v = getattr(cal, attr, None)
            if v is not None:
                found.append(np.asarray(v, dtype=np.float64))
    return np.unique(np.concatenate(found)) if found else np.empty(0)


def evaluation(cals: dict[str, tuple[Any, str, Any]], n: int = N_EVAL, seed: int = 1) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    kp, ks = _knots(cals, "p"), _knots(cals, "s")
    edges_p = np.concatenate([kp, np.nextafter(kp, -np.inf), np.nextafter(kp, np.inf),
                              [0.0, 1.0, PROB_EPS, 1 - PROB_EPS, 5e-324, 1e-310, 1e-300, 0.5,
                               np.nextafter(1.0, 0.0)]])
    edges_p = edges_p[(edges_p >= 0.0) & (edges_p <= 1.0)]
    edges_s = np.concatenate([ks, np.nextafter(ks, -np.inf), np.nextafter(ks, np.inf),
                              [0.0, -745.0, 745.0, -1000.0, 1000.0, -1e4, 1e4, 36.7, -36.7, 1e-300]])
    m = n - max(edges_p.size, edges_s.size)
    p = np.concatenate([edges_p, np.round(rng.random(m // 2), 3), rng.random(n)])[:n]
    s = np.concatenate([edges_s, np.round(rng.normal(0, 3, m // 2), 1), rng.normal(0, 4, n)])[:n]
    rng.shuffle(p)
    rng.shuffle(s)
    Z = rng.normal(0.0, 2.0, (n, K))
    Z[:200] = np.round(Z[:200])                # ties
    Z[200:210] = [[800.0, -800.0, 0.0, 1.0]]   # extreme logits
    P = np.exp(Z - Z.max(axis=1, keepdims=True))
    P /= P.sum(axis=1, keepdims=True)
    P[210:220] = np.eye(K)[np.arange(10) % K]  # exact 0 and 1
    P[220:230] = 1.0 / K
    return {"p": p, "s": s, "P": P, "Z": Z}


def expected(cal: Any, col: str, prior: Any, data: dict[str, np.ndarray]) -> np.ndarray:
    out = cal.transform(data[col])
    if prior is not None:
        out = vc.adjust_prior(out, *prior)
    return out.reshape(out.shape[0], -1)


#: id(cal), id(data) -> (cal, data, transform's outputs): each zoo calibrator's expected outputs on the
#: evaluation rows, computed once a worker for the SQL engines and ONNX (the calibrator and the rows are held,
#: so an id is never another object's; the outputs are read-only)
_EXPECTED: dict[tuple[int, int], tuple[Any, Any, np.ndarray]] = {}


def expected_once(cal: Any, col: str, prior: Any, data: dict[str, np.ndarray]) -> np.ndarray:
    """:func:`expected` of a zoo calibrator (its own ``col`` and ``prior``) on the session's rows ``data``."""
    key = (id(cal), id(data))
    held = _EXPECTED.get(key)
    if held is None or held[0] is not cal or held[1] is not data:
        out = expected(cal, col, prior, data)
        out.setflags(write=False)
        held = _EXPECTED[key] = (cal, data, out)
    return held[2]


def columns(col: str) -> Any:
    return col if col in ("p", "s") else [f"{col}_{k}" for k in range(K)]


#: (id of the zoo, name, dialect, alias) -> the zoo calibrator's SQL text, for every test module of a worker:
#: ``to_sql`` of one fitted calibrator is the same text on every call, and the zoo's texts take ~1 s a dialect
#: (the 1,000-knot tables): test_export_sql, test_integer_columns_r34 and test_float_literals_r29 read them
_ZOO_TEXTS: dict[tuple[int, str, str, str], str] = {}


def zoo_text(calibrators: dict[str, tuple[Any, str, Any]], name: str, dialect: str,
             alias: str = "probability") -> str:
    """``to_sql(cal, columns(col), dialect=dialect, prior_shift=prior, alias=alias)`` of the zoo's ``name``
    (``cal.to_sql`` is that same call), written once a worker."""
    from veracity.export import to_sql

    cal, col, prior = calibrators[name]
    key = (id(calibrators), name, dialect, alias if col not in ("p", "s") else "")  # one output: no alias
    if key not in _ZOO_TEXTS:
        _ZOO_TEXTS[key] = to_sql(cal, columns(col), dialect=dialect, prior_shift=prior, alias=alias)
    return _ZOO_TEXTS[key]


def frame(data: dict[str, np.ndarray]) -> Any:
    import pandas as pd

    cols: dict[str, Any] = {"id": np.arange(data["p"].size, dtype=np.int64), "p": data["p"], "s": data["s"]}
    for name in ("P", "Z"):
        for k in range(K):
            cols[f"{name}_{k}"] = data[name][:, k]
    return pd.DataFrame(cols)


@pytest.fixture(scope="session")
def calibrators() -> dict[str, tuple[Any, str, Any]]:
    return zoo()


@pytest.fixture(scope="session")
def eval_data(calibrators) -> dict[str, np.ndarray]:
    return evaluation(calibrators)


# ----------------------------------------------------------------------------------
# engines
# ----------------------------------------------------------------------------------
_STARTED: dict[str, Any] = {}


def postgres_server(tmp_root: Any) -> Any:
    """A PostgreSQL server from the pgserver wheel (skip, with the reason, when it cannot start)."""
    if "postgres" not in _STARTED:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # platformdirs warns about XDG_RUNTIME_DIR on import
                import pgserver
                import psycopg  # noqa: F401

                from ..sql.conftest import stop_orphaned_servers

                stop_orphaned_servers()  # of earlier runs killed before their end
                server = pgserver.get_server(str(tmp_root), cleanup_mode="delete")
        except Exception as exc:  # the wheel, the platform or the sandbox cannot run a server
            pytest.skip(f"PostgreSQL (pgserver) could not start: {type(exc).__name__}: {exc}")
        _STARTED["postgres"] = server
    return _STARTED["postgres"]


@pytest.fixture(scope="session", autouse=True)
def _stop_engines():
    yield
    server = _STARTED.pop("postgres", None)
    if server is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            server.cleanup()


@pytest.fixture(scope="session")
def postgres():
    import tempfile

    # a fresh directory outside pytest's own (0700 as root, which the server's user could not enter:
    # initdb failed there and every PostgreSQL export test was skipped)
    return postgres_server(tempfile.mkdtemp(prefix="veracity-pg-export-"))



# A loaded Venn-ABERS artifact that is 0/0 at a knot (tests of sessions 29 and 30): p0 = p1 = [0, 0, 1, 1] over
# c = [0.2, 0.5, 0.8] passes vc.load, and at the knot 0.5 the merged probability is 0 / 0.
VA_BAD = 0.5
VA_STATE = {"c_": [0.2, VA_BAD, 0.8], "p0_": [0.0, 0.0, 1.0, 1.0], "p1_": [0.0, 0.0, 1.0, 1.0], "n_classes_": 2}
#: scores through the knot, its neighbours and the bounds
VA_X = np.array([0.0, 0.1, 0.2, 0.3, np.nextafter(VA_BAD, 0.0), VA_BAD, np.nextafter(VA_BAD, 1.0), 0.8, 0.9, 1.0])


def _va_load(kind: str, params: dict, state: dict) -> Any:
    return vc.load({"format": "veracity.calibrator", "version": 1, "kind": kind, "params": params,
                    "state": state, "metadata": {}})


def va_zero_over_zero() -> Any:
    """The binary Venn-ABERS map with the 0/0 knot."""
    return _va_load("venn-abers", {"score_type": "probability"}, VA_STATE)


def va_zero_over_zero_ovr() -> Any:
    """One-vs-rest over three classes; the map of class 1 is the 0/0 one, the others are fitted-like."""
    ok = {"c_": [0.3, 0.6], "p0_": [0.1, 0.2, 0.5], "p1_": [0.3, 0.4, 0.7], "n_classes_": 2}
    maps = [{"kind": "venn-abers", "params": {"score_type": "probability", "multiclass": "ovr"}, "state": st}
            for st in (ok, VA_STATE, ok)]
    return _va_load("one-vs-rest", {"method": "venn-abers", "score_type": "probability",
                                    "method_params": {"multiclass": "ovr"}}, {"maps_": maps, "n_classes_": 3})


def va_rows() -> np.ndarray:
    """Rows summing to 1 whose class-1 column runs through VA_X (class 0 and 2 share the rest)."""
    return np.column_stack([(1.0 - VA_X) / 2.0, VA_X, 1.0 - VA_X - (1.0 - VA_X) / 2.0])
