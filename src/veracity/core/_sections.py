"""Audit sections computed above the core, registered by the package that computes them.

``vc.audit(..., estimators=True, noise_floor=True, bootstrap=..., tests=True, corp=True)``
adds sections that the honest estimators (:mod:`veracity.honest`) compute. That package
is built on the core, so the core never imports it: it names the sections it can show
here, and :mod:`veracity.honest` registers the function for each when it is imported
(``import veracity`` registers a loader that imports it on the first audit that needs it). The dependency points down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ._validation import VeracityError

#: the optional sections of an audit, in print order
SectionName = Literal["estimators", "noise_floor", "bootstrap", "tests", "corp"]

_SECTIONS: dict[str, Callable[..., Any]] = {}


def register_section(name: SectionName, compute: Callable[..., Any]) -> None:
    """Make ``compute`` the function that fills the audit's ``name`` section."""
    _SECTIONS[name] = compute


def section(name: SectionName) -> Callable[..., Any]:
    """The function registered for section ``name``."""
    from ._plugins import load_registrations

    if name not in _SECTIONS:
        load_registrations()  # veracity.honest registers the sections when it loads
    try:
        return _SECTIONS[name]
    except KeyError:
        raise VeracityError(
            f"the audit's {name} section is computed by veracity.honest, which is not loaded; "
            "import veracity (it loads every section) before calling audit") from None
