"""Reading scored tables from CSV and Parquet files (pyarrow).

The reader lives in the rows seam (:mod:`veracity.sources._api`, where ``--engine memory`` reads a
path into numpy through the one column lookup); this module is its old import path.
"""

from __future__ import annotations

from .sources._api import (_arrow_reason, _name, _present, _read_csv_columns, _refuse_duplicates, column,
                           read_files, read_path, read_table, score_matrix)

__all__ = ["column", "read_files", "read_path", "read_table", "score_matrix"]
