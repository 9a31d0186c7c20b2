"""Test-suite configuration."""

import os

from hypothesis import settings

# CI runs the property tests with a fixed derandomised search, so a landing never
# depends on luck; locally every run explores new examples.
settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None, print_blob=True)
settings.load_profile("ci" if os.environ.get("CI") else "dev")
