"""An unweighted binary fit on a lazy frame reads the input contract and the summary in ONE query (r40).

A lazy fit first judged the input contract (``prep.check_lazy``: missing and infinite scores, labels not
0/1, ...) in one aggregate query, then read the fit data's summary (rows, positives, weighted sums, the
distinct count) in a second. Unweighted, both read the working columns as they are (every row kept, weight
scale 1), so ``frames._fit._contract_and_summary`` sends them as one query: on Spark, where every query
is a job, the read-once route of a Platt or temperature fit takes two jobs, not three (counted in
tests/frames/test_frames_fit.py::test_fit_on_a_frame_equals_the_array_fit[spark-platt]). Speed only: the
guard is that every fitted number, the data hash and every warning and contract error are those of the
two-query route (``_contract_and_summary`` off), on each engine.
"""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.frames import _fit

from .conftest import counted_queries, dataset, make

KINDS = {
    "temperature": lambda: vc.TemperatureScaling(),
    "platt": lambda: vc.PlattScaling(),
    "isotonic": lambda: vc.IsotonicCalibration(),
    "histogram-quantile": lambda: vc.HistogramBinning(bins=7, strategy="quantile"),
    "temperature-logit": lambda: vc.TemperatureScaling(score_type="logit"),
}


def _fit_counted(kind, frame, monkeypatch, fused, **kw):
    """The fit's artifact (as JSON), its warnings and its number of queries, fused or on two queries."""
    with monkeypatch.context() as m:
        if not fused:
            m.setattr(_fit, "_contract_and_summary", lambda cal, prep: None)
        seen = counted_queries(m)
        score = "logit" if kind.endswith("logit") else "p"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            cal = KINDS[kind]().fit(frame, score=score, label="y", **kw)
    return json.dumps(cal.to_dict(), sort_keys=True), [str(w.message) for w in caught], len(seen)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "csv"])
@pytest.mark.parametrize("kind", list(KINDS))
def test_one_query_fewer_and_the_same_fit(backend, kind, tmp_path, monkeypatch):
    df = dataset(500, seed=3)
    frame = make(backend, df, tmp_path)
    got, said, queries = _fit_counted(kind, frame, monkeypatch, fused=True)
    want, want_said, want_queries = _fit_counted(kind, frame, monkeypatch, fused=False)
    assert got == want and said == want_said  # every number, the data hash, the words
    assert queries == want_queries - 1


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb"])
def test_weighted_fits_keep_their_two_queries(backend, tmp_path, monkeypatch):
    """Weighted, the summary reads the weights rescaled by the power of two the contract's counts decide:
    it cannot ride in the contract's query, and does not."""
    frame = make(backend, dataset(500, seed=3), tmp_path)
    got, _, queries = _fit_counted("isotonic", frame, monkeypatch, fused=True, sample_weight="w")
    want, _, want_queries = _fit_counted("isotonic", frame, monkeypatch, fused=False, sample_weight="w")
    assert queries == want_queries
    # one code path twice: equal, but to rounding only on polars, whose multithreaded weighted group-by sums
    # differ in the last digit from run to run (also before session 40; see the session's note)
    state, want_state = json.loads(got)["state"], json.loads(want)["state"]
    assert state.keys() == want_state.keys()
    for key, value in want_state.items():
        np.testing.assert_allclose(np.asarray(state[key], dtype=float), np.asarray(value, dtype=float),
                                   rtol=1e-13, atol=0, err_msg=key)


@pytest.mark.parametrize("backend", ["polars-lazy", "duckdb", "csv"])
@pytest.mark.parametrize("case", ["label 2", "nan score", "one class", "logit scale"])
def test_the_contract_errors_are_the_two_query_errors(backend, case, tmp_path, monkeypatch):
    df = dataset(300, seed=2)
    if case == "label 2":
        df["y"] = np.where(np.arange(len(df)) == 3, 2, df["y"])
    elif case == "nan score":
        df["p"] = np.where(np.arange(len(df)) == 7, np.nan, df["p"])
    elif case == "one class":
        df["y"] = 0
    frame = make(backend, df, tmp_path)
    cal = vc.PlattScaling(score_type="logit") if case == "logit scale" else vc.TemperatureScaling()
    messages = []
    for fused in (True, False):
        with monkeypatch.context() as m:
            if not fused:
                m.setattr(_fit, "_contract_and_summary", lambda cal, prep: None)
            with pytest.raises(vc.VeracityError) as err:
                cal.fit(frame, score="p", label="y")
        messages.append(str(err.value))
    assert messages[0] == messages[1] and "\n" not in messages[0]

