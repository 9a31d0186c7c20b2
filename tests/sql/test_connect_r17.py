"""Round 17: redaction keeps the punctuation after a secret, and never prints any part of the secret."""

from __future__ import annotations

import pytest

import veracity as vc
from veracity.sql._connect import _secrets, redact


@pytest.mark.parametrize("url, message, expected", [
    # a driver's message after a secret: the colon is the message's, the secret is hidden
    (None, "cannot connect: password=hunter22: connection failed",
     "cannot connect: password=***: connection failed"),
    ("postgresql://u@h/db?password=hunter22", "password=hunter22: connection failed",
     "password=***: connection failed"),
    ("postgresql://u@h/db?password=hunter22", "bad password=hunter22, retry", "bad password=***, retry"),
    # URL forms
    ("postgresql://user:pw12@host/db", "postgresql://user:pw12@host/db: server closed",
     "postgresql://user:***@host/db: server closed"),
    ("postgresql://u@h/db?password=x&sslmode=require", "postgresql://u@h/db?password=x&sslmode=require: failed",
     "postgresql://u@h/db?password=***&sslmode=require: failed"),
    # libpq key=value DSN with a quoted password holding a space (and spaces around '=')
    (None, "host=h user=u password='a b' dbname=d: failed", "host=h user=u password=*** dbname=d: failed"),
    (None, "host=h password = 'it\\'s mine' dbname=d", "host=h password = *** dbname=d"),
    # ODBC braces
    (None, "Driver={x};PWD={a;b}}c};Server=s", "Driver={x};PWD=***;Server=s"),
])
def test_redaction_keeps_the_punctuation_after_the_secret(url, message, expected):
    secrets = _secrets(url) if url else ()
    assert redact(message, secrets) == expected


@pytest.mark.parametrize("url, message, hidden", [
    # punctuation that is part of a known secret stays hidden
    ("postgresql://h/db?password=s3cr:t,", "password=s3cr:t, then", "s3cr:t,"),
    ("postgresql://h/db?password=abc.", "password=abc. failed", "abc."),
    # a URL redacted alone (the CLI's shown URL) ends with its secret: nothing of it is kept
    (None, "postgresql://h/db?password=abc.", "abc."),
    (None, "postgresql://h/db?password=abc:", "abc:"),
    # the quoted DSN value is hidden whole
    (None, "host=h password='a b' dbname=d", "b'"),
    ("host=h password='a b'", "failed for a b at host h", "a b"),
])
def test_no_part_of_the_secret_is_shown(url, message, hidden):
    secrets = _secrets(url) if url else ()
    shown = redact(message, secrets)
    assert hidden not in shown
    assert "***" in shown


def test_a_dsn_given_as_url_is_refused_without_its_password():
    with pytest.raises(vc.VeracityError) as err:
        vc.audit("host=h user=u password='top secret' dbname=d", table="t", score="p", label="y")
    assert "secret" not in str(err.value) and "top" not in str(err.value)
    assert "password=***" in str(err.value)
