"""A password in a calibrator's metadata is not written into its SQL or ONNX (session 30).

``vc.log_mlflow`` hides it since session 27, but the export wrote the metadata as given: the SQL
comment (``veracity export --sql`` prints it; the text goes into views, dbt models and repositories),
the ONNX ``doc_string`` and every ``metadata_props`` value (``source`` included) carried
``postgresql://ana:PASSWORD@db/scores`` and ``token=...`` in clear. Issue 27: a URL with a password is
never printed or logged.
"""

from __future__ import annotations

import numpy as np
import pytest

import veracity as vc

SECRET = "Hunter2Secret"
TOKEN = "tok3nValue99"


def _cal():
    rng = np.random.default_rng(30)
    s = rng.uniform(size=400)
    y = (rng.uniform(size=400) < s).astype(int)
    return vc.PlattScaling().fit(s, y, metadata={
        "source": f"postgresql://ana:{SECRET}@db.example/scores",
        "fit_window": f"2026-01..2026-03 from postgresql://ana:{SECRET}@db.example/scores",
        "cohort": f"api token={TOKEN}"})


@pytest.mark.parametrize("dialect", ["duckdb", "postgres", "sqlite", "bigquery"])
def test_sql_comment_hides_the_password(dialect):
    text = _cal().to_sql("p", dialect=dialect)
    assert SECRET not in text and TOKEN not in text, text.split("\n")[0]
    first = text.split("\n")[0]
    assert "fit window: 2026-01..2026-03 from postgresql://ana:***@db.example/scores" in first, first
    assert "cohort: api token=***" in first, first


def test_onnx_doc_string_and_metadata_hide_the_password():
    onnx = pytest.importorskip("onnx")
    model = onnx.load_from_string(_cal().to_onnx())
    props = {e.key: e.value for e in model.metadata_props}
    assert SECRET not in model.doc_string and TOKEN not in model.doc_string
    assert all(SECRET not in v and TOKEN not in v for v in props.values()), props
    assert props["source"] == "postgresql://ana:***@db.example/scores"
    assert props["n_rows"] == "400"  # the rest as it was


def test_cli_export_prints_no_password(tmp_path, cli):
    path = tmp_path / "cal.json"
    _cal().save(path)
    res = cli(["export", path, "--sql", "sqlite", "--column", "p"])
    assert res.code == 0, res.err
    assert SECRET not in res.out + res.err and TOKEN not in res.out + res.err
    res = cli(["export", path, "--sql", "duckdb", "--json"])
    assert res.code == 0 and SECRET not in res.out
