"""A URL's keys that are secrets themselves are hidden like its password (session 27).

``redact`` hid ``password=``, ``pwd=``, ``secret=`` and ``token=`` settings but printed BigQuery's
``credentials_base64=`` (a service account's whole key), an ``api_key=``, Azure's ``AccountKey=`` and
Snowflake's ``private_key=`` / ``private_key_passphrase=`` in full in every "cannot connect" line.
"""

from __future__ import annotations

import pytest

import veracity as vc

SECRET = "Zq81kSECRETvalue"

URLS = [
    f"bigquery://project/dataset?credentials_base64={SECRET}",
    f"snowflake://analyst@account/db?private_key_passphrase={SECRET}",
    f"snowflake://analyst@account/db?private_key={SECRET}&warehouse=wh",
    f"trino://analyst@host:1/catalog?api_key={SECRET}",
    f"mssql+pyodbc:///?odbc_connect=Driver%3D%7BX%7D%3BAccountKey%3D{SECRET}%3BServer%3Dx",
    f"clickhouse://analyst@host:1/db?SharedAccessKey={SECRET}",
]


@pytest.mark.parametrize("url", URLS)
def test_the_cli_never_prints_a_secret_key(cli, url):
    res = cli(["audit", "--sql-url", url, "--table", "t", "--score", "s", "--label", "y"])
    assert res.code == 2
    assert "cannot connect to" in res.err and "***" in res.err
    assert SECRET not in res.out + res.err


@pytest.mark.parametrize("url", URLS[:2])
def test_the_api_never_shows_a_secret_key(error_line, url):
    message = error_line(lambda: vc.audit_sql(url, table="t", score="s", label="y"))
    assert "***" in message and SECRET not in message


def test_the_key_names_do_not_hide_other_settings():
    from veracity.sql._connect import redact

    text = "duckdb:///x.duckdb?access_mode=read_only&keyspace=k&api_key=abc123xyz"
    assert redact(text) == "duckdb:///x.duckdb?access_mode=read_only&keyspace=k&api_key=***"
