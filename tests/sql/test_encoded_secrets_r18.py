"""Round 18: a password inside a percent-encoded URL parameter is never printed.

SQLAlchemy's ODBC URLs carry the whole connection string percent-encoded
(``mssql+pyodbc:///?odbc_connect=DRIVER%3D...%3BPWD%3Dsecret``). Before, redaction looked for
``password=`` / ``PWD=`` in the URL as written only, so ``veracity audit --sql-url`` printed
``cannot connect to mssql+pyodbc:///?odbc_connect=...PWD%3Dsecret123: No module named 'pyodbc'``.
Now the URL's decoded forms are searched too and the password is hidden in every encoding of it.
"""

from __future__ import annotations

from urllib.parse import quote, unquote

import pytest

from veracity.sql._connect import _secrets, redact

SECRET = "s3cr;et}pw"


def _odbc(times: int) -> str:
    text = "DRIVER={ODBC Driver 18};SERVER=db.example;UID=analyst;PWD={" + SECRET.replace("}", "}}") + "}"
    for _ in range(times):
        text = quote(text, safe="")
    return "mssql+pyodbc:///?odbc_connect=" + text


def _decoded(text: str) -> list[str]:
    out = [text]
    for _ in range(3):
        out.append(unquote(out[-1]))
    return out


def _leaks(text: str) -> bool:
    """Whether the password, as written or as the ODBC string escapes it, shows in ``text`` or a decoding of it."""
    return any(secret in form for form in _decoded(text) for secret in (SECRET, SECRET.replace("}", "}}")))


@pytest.mark.parametrize("times", [0, 1, 2])
def test_the_password_is_hidden_in_every_encoding(times):
    url = _odbc(times)
    shown = redact(url, _secrets(url))
    assert not _leaks(shown), shown
    assert "UID" in unquote(unquote(shown))  # the rest of the URL stays readable


def test_a_driver_message_with_the_decoded_password_is_hidden():
    url = _odbc(1)
    message = f"[ODBC] login failed for analyst with PWD={{{SECRET}}} on db.example"
    assert SECRET not in redact(message, _secrets(url))


def test_an_encoded_user_password_is_hidden_raw_and_decoded():
    url = "postgresql://analyst:p%40ss%2Fw0rd@db.example/scores"
    secrets = _secrets(url)
    assert "p@ss/w0rd" not in redact("authentication failed: p@ss/w0rd", secrets)
    assert "p%40ss%2Fw0rd" not in redact(url, secrets)


def test_the_cli_never_prints_it(cli):
    url = _odbc(1)
    res = cli(["audit", "--sql-url", url, "--table", "t", "--score", "s", "--label", "y"])
    assert res.code == 2
    assert not _leaks(res.out + res.err), res.err
