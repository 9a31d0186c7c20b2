"""``StoreStatus.sequence_alarms``: per slice, the first day its anytime-valid confidence sequence
left the calibrated region (``status(alerts="sequential")``).

A :class:`SequenceAlarms` is a ``dict`` — ``alarms["(all)"]["day"]``, ``json.dumps(alarms)`` and
``alarms == {...}`` work as before, and ``StoreStatus.to_dict()`` holds a plain copy of it — whose
``repr`` and notebook view read as the status text's alarm lines (the day, the final labels by then,
the bounds on mean(y − p) at 4 decimals) instead of a dump of 16-digit floats. A subclass rather than
a new result type: users and tests index it as the dict it always was.
"""

from __future__ import annotations

from typing import Any

#: the status's name for the whole table's rows (``_status_rows.ALL``; that module imports this one)
ALL = "(all)"


def bounds_text(low: float, high: float) -> str:
    """Anytime-valid bounds on mean(y − p) as printed: ``[+0.0004, +0.0130]``, marked ``(crossed)`` when
    the lower is above the upper. They are a running intersection, valid for one fixed gap; when the gap
    moves over time they can cross (no one gap fits every look), and ``[+0.0180, +0.0130]`` alone would
    read as a range.

    >>> bounds_text(0.0004, 0.013), bounds_text(0.018, 0.013)
    ('[+0.0004, +0.0130]', '[+0.0180, +0.0130] (crossed)')
    """
    return f"[{low:+.4f}, {high:+.4f}]" + (" (crossed)" if low > high else "")


def gap_text(low: float, high: float, region: str) -> str:
    """What the bounds on mean(y − p) say, for an alert's sentence: ``mean(y - p) is in [a, b], outside
    REGION`` (``0``, or ``+-tolerance``), or, when they crossed, that no one gap fits every look
    (:func:`bounds_text`).

    >>> gap_text(0.0004, 0.013, "0")
    'mean(y - p) is in [+0.0004, +0.0130], outside 0'
    >>> gap_text(0.018, 0.013, "0")
    'mean(y - p) bounds crossed, [+0.0180, +0.0130]: no one gap fits every look, it moved over time'
    """
    if low > high:
        return (f"mean(y - p) bounds crossed, [{low:+.4f}, {high:+.4f}]: no one gap fits every look, it moved "
                "over time")
    return f"mean(y - p) is in [{low:+.4f}, {high:+.4f}], outside {region}"


#: what a daily job reading an alarm needs to know: it does not age out, and how to start afresh (the
#: status text prints it under the alarm lines)
STAYS = ("an alarm stays: the bounds read every final label so far and never widen, so later windows "
         "keep alerting (and --fail-on-alert exits 1 every day) until the sequences start afresh; "
         "recalibrating does not restart them: log the recalibrated scores under a new model name "
         "(log(model='v2'), --model v2) and read status(model='v2') (--model v2), whose sequences read "
         "only that model's predictions")


class SequenceAlarms(dict[str, dict[str, Any]]):
    """Slice → ``{"day", "labels", "low", "high", "bin"}``: the first day (UTC) any of the slice's
    sequences (the overall one on mean(y − p), or a score bin's, named by ``bin``) excluded 0 (or
    ±tolerance), the final labels it had read by then, and its bounds that day. With ``status(since=)``
    or ``last=``, only the slices a listed period still alerts on; ``before_listing`` names those whose
    alarm is dated before the first listed period (old, but still active: their lines say so).

    ``sequential=False``: the status ran the window tests (``alerts="window"``), which compute no
    sequence; the mapping is empty and says so."""

    def __init__(self, alarms: Any = (), *, sequential: bool = True, before_listing: Any = ()) -> None:
        super().__init__(alarms)
        self.sequential = sequential
        self.before_listing = frozenset(before_listing)

    def lines(self, *, keys: bool = False) -> list[str]:
        """One sentence per slice with an alarm, as the status text and the report's lead print them:
        the whole table (the ``(all)`` rows) as "All rows", a slice as "Slice [EU]" (the window rows'
        tag: ``2026-W08 [EU]``). ``keys=True``: each named by its key in brackets, ``[(all)]`` (the
        dict's own repr, whose keys index it)."""
        out = []
        for name, alarm in self.items():
            where = f" in scores {alarm['bin']}" if alarm.get("bin") else ""
            who = f"[{name}]" if keys else "All rows" if name == ALL else f"Slice [{name}]"
            out.append(f"{who} left the calibrated region{where} on {alarm['day']} (after "
                       f"{alarm['labels']:,} final labels; bounds "
                       f"{bounds_text(alarm['low'], alarm['high'])})"
                       + ("; before the listed periods, and still outside the calibrated region in them"
                          if name in self.before_listing else ""))
        return out

    def _headline(self) -> str:
        if not self.sequential:
            return ("sequence alarms: not computed here (status(alerts='sequential') computes the "
                    "confidence sequences)")
        if not self:
            return "sequence alarms: none (no confidence sequence left the calibrated region)"
        return (f"sequence alarms ({len(self)} slice{'s' if len(self) != 1 else ''}; the first day the "
                "anytime-valid bounds on mean(y - p) of the final labels left the calibrated region):")

    def __repr__(self) -> str:
        return "\n".join([self._headline(), *(f"  {line}" for line in self.lines(keys=True))])

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from ..core._display import html_note, html_page, html_table

        records = [{"slice": name, "first day": a["day"], "final labels": a["labels"],
                    "score bin": a.get("bin") or "all scores", "bounds on mean(y - p)":
                    f"[{a['low']:+.4f}, {a['high']:+.4f}]"} for name, a in self.items()]
        return html_page("Sequence alarms", [html_note(self._headline().rstrip(":")),
                                             html_table(records) if records else ""], repr(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (SequenceAlarms, (dict(self),), {"sequential": self.sequential,
                                                "before_listing": self.before_listing})

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """A plain copy (what ``StoreStatus.to_dict()`` and the JSON hold)."""
        return {name: dict(alarm) for name, alarm in self.items()}
