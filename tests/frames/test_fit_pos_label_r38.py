"""A calibrator fit on a frame with ``pos_label=`` records it, as the array fit does (round 38).

``cal.fit(frame, score=, label=, pos_label=0)`` fit on ``[label == 0]`` but left ``pos_label`` out of the
artifact's metadata, where ``cal.fit(scores, labels, pos_label=0)`` records it; ``vc.compare`` (and the
command line's compare and report, and a saved artifact) read the positive class from it, so the frame's fit
was measured against label 1: before ECE 0.50, AUC 0.16, NLL and Brier "REGRESSION", where the array fit on
the same rows reads ECE 0.03, AUC 0.84, every change within noise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc


def _rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    q = rng.uniform(size=2000)  # the probability of class 0
    return q, (rng.uniform(size=2000) > q).astype(np.int64)


@pytest.mark.parametrize("backend", ["pandas", "polars", "arrow"])
@pytest.mark.parametrize("kind", [vc.PlattScaling, vc.IsotonicCalibration])
def test_frame_fit_records_pos_label_as_the_array_fit(backend, kind, tmp_path):
    q, y = _rows()
    df = pd.DataFrame({"q": q, "y": y})
    frame: object = df
    if backend == "polars":
        frame = pytest.importorskip("polars").from_pandas(df)
    elif backend == "arrow":
        import pyarrow as pa

        frame = pa.Table.from_pandas(df, preserve_index=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fit reads the other class's scores: no warning is asserted here
        on_arrays = kind().fit(q, y, pos_label=0)
        on_frame = kind().fit(frame, score="q", label="y", pos_label=0)
    assert on_frame.metadata["pos_label"] == on_arrays.metadata["pos_label"] == 0
    want, got = vc.compare(q, y, on_arrays), vc.compare(q, y, on_frame)
    assert str(got) == str(want)
    assert got.to_dict()["rows"] == want.to_dict()["rows"]
    on_frame.save(tmp_path / "cal.json")
    assert vc.load(tmp_path / "cal.json").metadata["pos_label"] == 0

