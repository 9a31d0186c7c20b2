"""An alert of a monitor or a store's status: a sentence (``str``) that knows its period, slice and kind.

One type everywhere an alert is listed — ``vc.monitor(...).alerts``, ``StoreStatus.alerts`` and
``StatusRow.alerts`` (issue 22).
"""

from __future__ import annotations

from typing import Any

#: the kinds of alert, each the start of its sentence ("slope 0.62 (p = ...)", "score shift vs 2026-W10: ...")
KINDS = ("calibration", "slope", "score shift", "sequential")


def alert_kind(text: str) -> str:
    """The kind of an alert sentence: the one of :data:`KINDS` it starts with, else its words before the
    first colon. (The words before the colon alone named a slope alert ``slope 0.62 (p = 0.002; 1 when
    calibrated`` and a shift ``score shift vs 2026-W10``.)

    >>> alert_kind("slope 0.62 (p = 0.002; 1 when calibrated: over-confident scores)")
    'slope'
    >>> alert_kind("score shift vs 2026-W10: PSI 0.107, chi-square p = 3.6e-05")
    'score shift'
    """
    text = str(text)
    for kind in KINDS:
        if text.startswith(kind) and text[len(kind):len(kind) + 1] in ("", " ", ":"):
            return kind
    return text.split(":", 1)[0]


class Alert(str):
    """One alert of a store's status: reads as its sentence (a ``str``, as row alerts always did) and
    knows where it fired: ``period``, ``slice`` and ``kind`` (``calibration``, ``slope``, ``score shift``
    or ``sequential``: the one its sentence starts with, :func:`alert_kind`).

    ``StatusRow.alerts`` and ``StoreStatus.alerts`` both hold these (one type everywhere; issue 22).
    ``StoreStatus.alerts`` used to list the alerting *rows*: an attribute of the row read through an
    alert (``alert.rate``) still works, with a deprecation warning; ``StoreStatus.alert_rows`` is the
    list of rows.
    """

    period: str
    slice: str
    kind: str
    _row: Any  # the StatusRow, on the alerts StoreStatus.alerts lists (for the deprecated row attributes)

    def __new__(cls, text: str, *, period: str = "", slice: str = "", row: Any = None) -> Alert:
        self = super().__new__(cls, text)
        self.period, self.slice = str(period), str(slice)
        self.kind = alert_kind(text)
        self._row = row
        return self

    def __getattr__(self, name: str) -> Any:
        row = self.__dict__.get("_row")
        if row is not None and not name.startswith("_") and hasattr(row, name):
            from ..core._compat import _warn_once

            _warn_once("StoreStatus.alerts", "rows", "StoreStatus.alerts lists alerts now (each a str with "
                       ".period, .slice, .kind), not rows; use StoreStatus.alert_rows for the rows")
            return getattr(row, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __reduce__(self) -> Any:
        return (_alert, (str(self), self.period, self.slice))

    def to_dict(self) -> dict[str, str]:
        return {"period": self.period, "slice": self.slice, "kind": self.kind, "message": str(self)}


def _alert(text: str, period: str, slice: str) -> Alert:
    return Alert(text, period=period, slice=slice)


def _alerts(texts: Any, period: str, slice: str) -> tuple[Alert, ...]:
    return tuple(a if isinstance(a, Alert) else Alert(a, period=period, slice=slice) for a in texts)
