"""``veracity audit --sql-url URL`` shows the URL as the connection does: the password hidden wherever
it recurs in the URL.

Before: the command redacted the URL it prints (the note on stderr, ``"database"`` of ``--json``)
with ``redact(url)`` alone, which hides ``user:PASSWORD@`` and ``password=...`` but not the same
password elsewhere in the URL — ``?application_name=PASSWORD``, or its decoded form after a
percent-encoded one — while the connection's own messages (``redact(url, _secrets(url))``) hid it.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity.datasets import demo_path

from .conftest import load

SECRET = "pw-Zx81!q"


def test_the_url_is_shown_without_its_password_anywhere(cli, monkeypatch):
    import veracity.cli._audit as cli_audit

    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    y = (rng.uniform(size=300) < p).astype(int)
    seen = []

    def in_the_database(url, **kwargs):  # the database's audit, without a server: the same rows
        seen.append(url)
        return vc.audit(p, y)

    monkeypatch.setattr(cli_audit, "audit", in_the_database)
    url = f"postgresql://analyst:{SECRET}@db.example/scores?application_name={SECRET}"
    res = cli(["audit", "--sql-url", url, "--table", "scores", "--json"])
    assert res.code == 0, res.err
    assert seen == [url]  # the URL itself reaches the connection unchanged
    assert SECRET not in res.out + res.err
    assert json.loads(res.out)["database"] == "postgresql://analyst:***@db.example/scores?application_name=***"
    res = cli(["audit", "--sql-url", url, "--table", "scores"])
    assert res.code == 0 and SECRET not in res.out + res.err
    assert "postgresql://analyst:***@db.example/scores?application_name=*** table 'scores'" in res.err


def test_a_real_connection_shows_the_same(cli, pg_uri, pg_conn):
    frame = pd.read_csv(demo_path()).head(300)
    load("postgres", pg_conn, "cli_redact_r18", {"score": frame["score"].to_numpy(),
                                                 "label": frame["label"].to_numpy()})
    url = pg_uri.replace("postgres:@", f"postgres:{SECRET}@")
    url += ("&" if "?" in url else "?") + f"application_name={SECRET}"
    res = cli(["audit", "--sql-url", url, "--table", "cli_redact_r18", "--json"])
    if res.code != 0:
        pytest.fail(res.err)
    assert SECRET not in res.out + res.err
    assert json.loads(res.out)["database"].endswith("application_name=***")
