"""A second audit logged to one run without ``by=``, or by another column (session 41).

The run kept the first audit's slice metrics beside the second audit's whole-table ones with nothing said:
``n`` 200 beside ``g/a/n`` 188 and ``g/b/n`` 212 (the first audit's 400 rows). The page promises that slices
only the first audit had are named in a warning; that held only where the second audit sliced by the same
column. The earlier log's ``slices.json`` at the same ``prefix=`` now names them too.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import veracity as vc
from veracity.tracking import log_mlflow

mlflow = pytest.importorskip("mlflow")
pd = pytest.importorskip("pandas")


def _frame(n: int = 400, seed: int = 0):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return pd.DataFrame({"p": p, "y": (rng.random(n) < p).astype(int), "g": rng.choice(["a", "b"], n),
                         "h": rng.choice(["u", "v"], n)})


@pytest.mark.parametrize("second_by", [None, "h"])
def test_an_audit_by_another_column_or_none_names_the_earlier_slices(tracking, second_by):
    df = _frame()
    first = vc.audit(df, score="p", label="y", by="g")
    second = vc.audit(df.iloc[:200], score="p", label="y", by=second_by)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # MLflow's own notices about the file store
        warnings.simplefilter("ignore", FutureWarning)
        with mlflow.start_run() as run:
            log_mlflow(first, figures=False)
            with pytest.warns(UserWarning, match=r"2 slices an earlier log wrote .*\(g/a/, g/b/\)"):
                logged = log_mlflow(second, figures=False)
    assert any("g/a/, g/b/" in note for note in logged.notes), logged.notes
    stored = tracking.get_run(run.info.run_id).data.metrics
    assert stored["n"] == 200 and stored["g/a/n"] + stored["g/b/n"] == 400  # left as they were, named


def test_another_prefix_s_slices_are_not_named_this_prefix_s_are(tracking):
    df = _frame()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        warnings.simplefilter("ignore", FutureWarning)
        with mlflow.start_run():
            log_mlflow(vc.audit(df, score="p", label="y", by="g"), figures=False, prefix="valid/")
            logged = log_mlflow(vc.audit(df, score="p", label="y"), figures=False)  # filterwarnings=error
            log_mlflow(vc.audit(df, score="p", label="y", by="g"), figures=False, prefix="test/")
            again = log_mlflow(vc.audit(df, score="p", label="y", by="h"), figures=False, prefix="test/")
    assert logged.notes == ()
    assert any("test/g/a/, test/g/b/" in note for note in again.notes), again.notes
