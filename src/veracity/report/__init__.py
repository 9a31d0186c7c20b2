"""The old import path of :mod:`veracity.reporting`: ``from veracity.report import Report`` keeps working.

``vc.report`` is the report *function* (the public contract); the package that builds
the report is ``veracity.reporting``, so the function never hides a package. This path
and its modules (``veracity.report._html`` …) are aliases of that package's.
"""

import sys

from .. import reporting as _reporting
from ..reporting import *  # noqa: F403
from ..reporting import __all__, _html, _sections, _store  # noqa: F401

for _name in ("_html", "_sections", "_store"):
    sys.modules[f"{__name__}.{_name}"] = getattr(_reporting, _name)
