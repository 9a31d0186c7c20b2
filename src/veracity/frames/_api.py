"""Moved to :mod:`veracity.sources._api` (the rows seam); this import path is an alias of it.

Kept while callers outside the seam (sql, segments, comparison, cli/_fit) still import it here.
"""

import sys

from ..sources import _api as _moved

sys.modules[__name__] = _moved
