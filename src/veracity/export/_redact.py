"""Passwords out of text that leaves the process: :func:`redact`.

Every message built from a URL or a driver's error (:mod:`veracity.sql`), every MLflow parameter
(:mod:`veracity.tracking`) and every exported calibrator's provenance (the SQL comment, the ONNX
``doc_string`` and ``metadata_props``: a metadata value such as ``source="postgresql://user:PASSWORD@h/db"``)
goes through it. It lives here, in the lowest package that writes such text, so that each of them can
import it without reaching above its own layer.
"""

from __future__ import annotations

import re
from typing import Any

#: ``scheme://user:secret@``: the secret runs to the last ``@`` before the host (an unencoded ``@`` in a
#: password, ``user:ab@cd@host``, must not leave ``cd`` shown), never past a space or the URL's path
#: ``scheme://user:secret@``; the secret runs on over an unencoded ``@`` while another ``@`` follows before
#: any ``/`` (``user:ab@cd@host``: ``ab@cd``, never a shown ``cd``)
_CREDENTIAL = re.compile(r"(?P<head>[A-Za-z][A-Za-z0-9+.\-]*://[^/@\s:]*:)(?P<secret>[^@\s]*(?:@[^@\s/]*(?=@))*)@")
#: ``password=SECRET`` in a URL's query, a libpq ``key=value`` DSN or a driver's message: the value runs to
#: the next ``&``, ``;`` or space, or is quoted whole (libpq ``'a b'`` with ``\'`` escapes, ``"..."``,
#: ODBC ``{a;b}`` with ``}}``; an unclosed quote runs to the end); spaces may stand around the ``=`` (libpq).
#: The names end a setting's name (``sslpassword``, ``client_secret``, ``refresh_token``,
#: ``aws_secret_access_key`` too); beside passwords and tokens, the keys that are secrets themselves:
#: BigQuery's ``credentials_base64`` (a service account's key), ``api_key``, Azure's ``AccountKey`` and
#: ``SharedAccessKey``, Snowflake's ``private_key`` and its ``passphrase``
_SECRET_NAMES = (r"(?:password|passwd|pwd|secret|token|access_token|passphrase|credentials_base64|api_?key"
                 r"|access_?key|account_?key|private_key)")
_QUERY_SECRET = re.compile(
    rf"(?i)(?P<head>{_SECRET_NAMES}[ \t]*=[ \t]*)"
    r"(?P<secret>'(?:[^'\\]|\\.)*(?:'|$)|\"(?:[^\"\\]|\\.)*(?:\"|$)|\{(?:[^}]|\}\})*(?:\}|$)|[^&;\s]*)")
#: a key whose value is a secret itself: one that ends as a ``password=`` setting's name does (``password``,
#: ``db_password``, ``api_key``, ``client_secret`` …)
_SECRET_KEY = re.compile(rf"(?i){_SECRET_NAMES}$")
#: punctuation a message puts after an unquoted secret (``password=x: connection failed``)
_TRAILING = ":,.)]"


#: a secret shorter than this is replaced only where it stands alone (:func:`redact`)
_SHORT_SECRET = 4


def redact(text: str, secrets: tuple[str, ...] = ()) -> str:
    """``text`` with every password replaced by ``***``: in URLs, in ``password=`` settings,
    and every occurrence of the given ``secrets`` (the URL's password, raw and decoded).

    A secret shorter than :data:`_SHORT_SECRET` characters (``1``, ``:``) is replaced only as a
    word of its own (between spaces, quotes or ``=,;()``): replacing every ``1`` or ``:`` would
    turn the message (``127.0.0.1``, ``port 1``, ``failed:``) into noise; its places in a URL
    and after ``password=`` are replaced above whatever its length."""
    text = _CREDENTIAL.sub(lambda m: m.group("head") + "***@", text)
    text = _QUERY_SECRET.sub(lambda m: m.group("head") + "***" + _after_secret(m, secrets), text)
    for secret in secrets:
        if len(secret) >= _SHORT_SECRET:
            text = text.replace(secret, "***")
        elif secret:
            text = re.sub(rf"(?<![^\s'\"=,;()]){re.escape(secret)}(?![^\s'\"=,;()])", "***", text)
    return text


def _after_secret(m: re.Match[str], secrets: tuple[str, ...]) -> str:
    """The end of an unquoted ``password=`` value that is the message's punctuation, not the secret's.

    A known secret (``secrets``, the URL's) that the value starts with, followed by nothing but
    punctuation of :data:`_TRAILING`: that punctuation. Otherwise, where no known secret lies in the
    value, punctuation of :data:`_TRAILING` that ends the value just before a space (a message's
    ``password=x: failed``; never at the end of the text, where a URL redacted alone ends with its
    secret), and only where some of the value stays hidden. Else nothing: the whole value is replaced."""
    value = m.group("secret")
    if not value or value[0] in "'\"{":
        return ""
    for secret in secrets:  # longest first (_secrets)
        if secret and value.startswith(secret):
            rest = value[len(secret):]
            if not rest.strip(_TRAILING):
                return rest
    if secrets and any(secret in value for secret in secrets):
        return ""
    end = m.end("secret")
    if end >= len(m.string) or not m.string[end].isspace():
        return ""
    kept = value.rstrip(_TRAILING)
    return value[len(kept):] if kept else ""


def without_secrets(value: Any, key: str = "") -> Any:
    """``value`` (a calibrator's metadata: text, numbers, and lists and dicts of them) with its secrets
    hidden, at any depth: the whole value of a key that names a secret, as a ``password=`` setting's name does
    (``metadata={"db_password": ...}``, ``{"conn": {"api_key": ...}}``: text or a number, ``***``), and
    :func:`redact` of any other text (``source="postgresql://user:PASSWORD@host/db"``) and of every key.
    ``None`` and booleans are kept: they hold no secret. Text it returns is not to be redacted again:
    :func:`redact` of ``"['password=***']"`` would take ``']`` for the end of the password. Below a key that
    names a secret, every value is hidden, whatever its own key (``{"db_password": {"value": ...}}`` showed
    the password, its key ``value`` naming no secret)."""
    if isinstance(value, dict):  # a key is text that leaves the process too
        below = key if _SECRET_KEY.search(key) else None
        return {redact(k) if isinstance(k, str) else k: without_secrets(v, below or str(k))
                for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [without_secrets(v, key) for v in value]
    if value is None or isinstance(value, bool):
        return value
    if _SECRET_KEY.search(key):
        return "***"
    return redact(value) if isinstance(value, str) else value
