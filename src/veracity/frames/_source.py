"""Moved to :mod:`veracity.sources._source` (the rows seam); this import path is an alias of it.

Kept while callers outside the seam (sql, segments, comparison, cli/_fit) still import it here.
"""

import sys

from ..sources import _source as _moved

sys.modules[__name__] = _moved
