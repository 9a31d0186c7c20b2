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


class SequenceAlarms(dict[str, dict[str, Any]]):
    """Slice → ``{"day", "labels", "low", "high", "bin"}``: the first day (UTC) any of the slice's
    sequences (the overall one on mean(y − p), or a score bin's, named by ``bin``) excluded 0 (or
    ±tolerance), the final labels it had read by then, and its bounds that day.

    ``sequential=False``: the status ran the window tests (``alerts="window"``), which compute no
    sequence; the mapping is empty and says so."""

    def __init__(self, alarms: Any = (), *, sequential: bool = True) -> None:
        super().__init__(alarms)
        self.sequential = sequential

    def lines(self) -> list[str]:
        """One line per slice with an alarm, as the status text prints them."""
        out = []
        for name, alarm in self.items():
            where = f" in scores {alarm['bin']}" if alarm.get("bin") else ""
            out.append(f"[{name}] left the calibrated region{where} on {alarm['day']} (after "
                       f"{alarm['labels']:,} final labels; bounds [{alarm['low']:+.4f}, "
                       f"{alarm['high']:+.4f}])")
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
        return "\n".join([self._headline(), *(f"  {line}" for line in self.lines())])

    __str__ = __repr__

    def _repr_html_(self) -> str:
        from ..core._display import html_note, html_page, html_table

        records = [{"slice": name, "first day": a["day"], "final labels": a["labels"],
                    "score bin": a.get("bin") or "all scores", "bounds on mean(y - p)":
                    f"[{a['low']:+.4f}, {a['high']:+.4f}]"} for name, a in self.items()]
        return html_page("Sequence alarms", [html_note(self._headline().rstrip(":")),
                                             html_table(records) if records else ""], repr(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (SequenceAlarms, (dict(self),), {"sequential": self.sequential})

    def to_dict(self) -> dict[str, dict[str, Any]]:
        """A plain copy (what ``StoreStatus.to_dict()`` and the JSON hold)."""
        return {name: dict(alarm) for name, alarm in self.items()}
