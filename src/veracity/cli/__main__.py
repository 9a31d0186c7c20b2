"""``python -m veracity.cli`` is the ``veracity`` command."""

import sys

from . import main

sys.exit(main())
