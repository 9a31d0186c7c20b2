"""Honest signatures: the public functions take the frame form themselves (no re-binding
wrapper), and the old engine entry points are deprecated aliases of it."""

import inspect
import json

import numpy as np
import pytest

import veracity as vc

pd = pytest.importorskip("pandas")

FRAME_FORM = ["audit", "reliability", "ece", "mce", "brier", "brier_decomposition", "nll", "auc",
              "accuracy", "threshold_table", "monitor"]


@pytest.mark.parametrize("name", FRAME_FORM)
def test_the_signature_shows_the_frame_form(name):
    fn = getattr(vc, name)
    params = inspect.signature(fn).parameters
    assert params["score"].kind is inspect.Parameter.KEYWORD_ONLY and params["score"].default is None
    assert params["label"].kind is inspect.Parameter.KEYWORD_ONLY and params["label"].default is None
    assert fn.__module__.startswith(("veracity.core", "veracity.decisions", "veracity.monitoring"))
    assert not hasattr(fn, "__wrapped__") or fn.__wrapped__.__module__ == fn.__module__


def _frame(n=400, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(int), "g": rng.choice(["a", "b"], n),
                         "t": np.repeat(np.arange(4), n // 4)})


def test_frame_form_equals_the_array_form_bit_for_bit():
    df = _frame()
    p, y = df["p"].to_numpy(), df["y"].to_numpy()
    for name in ["ece", "mce", "brier", "nll", "auc", "accuracy"]:
        assert getattr(vc, name)(df, score="p", label="y") == getattr(vc, name)(p, y), name
    assert vc.audit(df, score="p", label="y").to_dict() == vc.audit(p, y).to_dict()
    got = vc.threshold_table(df, [0.3, 0.5], score="p", label="y")
    assert np.array_equal(got.tp, vc.threshold_table(p, y, [0.3, 0.5]).tp)
    got = vc.monitor(df, score="p", label="y", periods="t", min_count=10)
    assert got.to_dict() == vc.monitor(p, y, df["t"].to_numpy(), min_count=10).to_dict()


def test_missing_labels_say_how_to_call_either_form():
    with pytest.raises(vc.VeracityError, match=r"vc.ece\(scores, labels"):
        vc.ece([0.1, 0.9])
    with pytest.raises(vc.VeracityError, match="takes no positional labels"):
        vc.audit(_frame(), [0, 1], score="p", label="y")
    with pytest.raises(vc.VeracityError, match="needs both column names"):
        vc.auc(_frame(), score="p")


def test_the_old_engine_entry_points_warn_and_call_the_frame_form(tmp_path):
    pytest.importorskip("duckdb")
    df = _frame()
    path = tmp_path / "x.parquet"
    df.to_parquet(path)
    with pytest.warns(DeprecationWarning, match="audit_duckdb is deprecated"):
        old = vc.audit_duckdb(str(path), score="p", label="y", by="g")
    # as JSON text: a slice with no sufficient bin has MCE NaN, which no dict compares equal
    new = vc.audit(str(path), score="p", label="y", by="g")
    assert json.dumps(old.to_dict(), sort_keys=True, default=str) == json.dumps(new.to_dict(), sort_keys=True,
                                                                                default=str)
    from veracity.engines import ScanResult, scan_file  # the old import path still resolves

    assert scan_file is vc.scan_file and ScanResult is vc.ScanResult


def test_old_frames_module_paths_are_the_moved_modules():
    # the same functions (the module object itself may differ when pytest's doctest collection
    # imported the alias file on its own)
    import importlib

    old = importlib.import_module("veracity.frames._aggregates")
    from veracity.sources import _aggregates as new

    assert getattr(old, "check_contract", None) in (new.check_contract, None)
    assert getattr(old, "_moved", new) is new
