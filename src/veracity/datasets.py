"""Data shipped with veracity."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import numpy as np


def demo_path() -> Path:
    """Path of the bundled demo CSV (6,000 scored loan applications).

    Columns: ``id, month, segment, role, label, score, logit``. The model ranks
    well but is overconfident (its logit is about 1.9x the true one) and the
    ``partner`` segment is biased upwards; ``role`` splits the rows 50/50 into
    ``calib`` and ``test``, stratified by label.
    """
    return Path(str(resources.files("veracity") / "data" / "demo.csv"))


def load_demo() -> dict[str, np.ndarray]:
    """The demo data as a dict of numpy arrays keyed by column name.

    >>> d = load_demo()
    >>> d["score"].shape, sorted(set(d["role"]))
    ((6000,), ['calib', 'test'])
    """
    import pyarrow.csv as pacsv

    from .sources._arrow_numpy import to_numpy  # pyarrow's own to_numpy imports pandas

    table = pacsv.read_csv(demo_path())
    return {name: to_numpy(table.column(name)) for name in table.column_names}
