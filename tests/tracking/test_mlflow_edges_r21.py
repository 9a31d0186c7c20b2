"""Round 21: a tracking store MLflow cannot open or reach is one line, and never shows a password.

``vc.log_mlflow(result)`` with a tracking server that is down (``MLFLOW_TRACKING_URI=http://user:pw@host``)
raised MLflow's own exception, whose text carries the URI with its password; with ``run=`` a
VeracityError carried it too. With no tracking URI set, MLflow 3 opens a SQLite file, which needs
``alembic`` -- not in ``mlflow-skinny``, the only package the docs ask for -- and the user got
``ModuleNotFoundError: No module named 'alembic'`` from deep inside MLflow. Each is now one
VeracityError naming the store (password hidden) and how to set one. ``veracity audit --mlflow``
starts its run itself, before calling ``log_mlflow``: that call was outside the command's error
handling and printed a traceback with the password; it now exits 2 with the same one line.
"""

from __future__ import annotations

import socket
import warnings

import numpy as np
import pytest

import veracity as vc

mlflow = pytest.importorskip("mlflow")

SECRET = "s3cr3t-pw"


def _closed_port() -> int:
    """A local port nothing listens on (connections are refused at once)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def down(monkeypatch):
    """An MLflow tracking server URI with a password, on a port where nothing listens."""
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "5")
    uri = f"http://alice:{SECRET}@127.0.0.1:{_closed_port()}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlflow.set_tracking_uri(uri)
        yield uri
        while mlflow.active_run() is not None:
            mlflow.end_run()
    mlflow.set_tracking_uri(None)


def _audit():
    rng = np.random.default_rng(0)
    p = rng.random(200)
    return vc.audit(p, (rng.random(200) < p).astype(np.int64))


@pytest.mark.parametrize("run", [None, "0123456789abcdef"])
def test_unreachable_server_is_one_line_without_the_password(down, run):
    with pytest.raises(vc.VeracityError) as info:
        vc.log_mlflow(_audit(), run=run)
    text = str(info.value)
    assert SECRET not in text
    assert "\n" not in text
    assert "127.0.0.1" in text  # it says which store


def test_default_sqlite_store_without_its_modules_is_one_line(tmp_path, monkeypatch):
    """MLflow's default store (a SQLite file) needs alembic, which mlflow-skinny lacks."""
    try:
        import alembic  # noqa: F401
    except ImportError:
        pass
    else:
        pytest.skip("alembic is installed: MLflow's SQLite store opens")
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mlflow.set_tracking_uri(f"sqlite:///{tmp_path / 'mlflow.db'}")
        try:
            with pytest.raises(vc.VeracityError, match="tracking store .*MLFLOW_TRACKING_URI"):
                vc.log_mlflow(_audit())
        finally:
            mlflow.set_tracking_uri(None)


def test_cli_audit_mlflow_unreachable_server_exits_2_without_the_password(cli, tmp_path, monkeypatch):
    import pandas as pd

    rng = np.random.default_rng(1)
    p = rng.random(100)
    pd.DataFrame({"p": p, "y": (rng.random(100) < p).astype(int)}).to_csv(tmp_path / "d.csv", index=False)
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_MAX_RETRIES", "0")
    monkeypatch.setenv("MLFLOW_HTTP_REQUEST_TIMEOUT", "5")
    monkeypatch.setenv("MLFLOW_TRACKING_URI", f"http://alice:{SECRET}@127.0.0.1:{_closed_port()}")
    try:
        res = cli(["audit", str(tmp_path / "d.csv"), "--score", "p", "--label", "y", "--mlflow"])
    except Exception as exc:  # noqa: BLE001 - the traceback a user sees
        raise AssertionError(f"traceback: {type(exc).__name__}") from None
    finally:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            while mlflow.active_run() is not None:
                mlflow.end_run()
    # the audit itself ran (its table on stdout, its note on stderr); the failure is the last line
    assert res.code == 2, (res.code, res.err[-500:])
    assert "Traceback" not in res.err and SECRET not in res.err
    assert "MLflow" in res.err.rstrip("\n").split("\n")[-1]
