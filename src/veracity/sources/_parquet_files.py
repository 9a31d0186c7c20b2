"""The columns of several Parquet files: checked by exact name, and joined by exact name in DuckDB.

DuckDB matches the columns of several Parquet files by name regardless of case; pyarrow and
Spark (case-sensitive here) by the exact name. :func:`parquet_names` refuses what no engine reads
alike (a column ``p`` in one file and ``P`` in another, a name repeated in one file), and
:func:`_union_by_exact_name` joins files that hold both ``p`` and ``P`` by exact name in DuckDB.
"""

from __future__ import annotations

from typing import Any

from ..core._validation import VeracityError


def parquet_names(files: list[str], source: str | None = None) -> tuple[list[str] | None, bool]:
    """``(the first file's column names as written, whether every file has the same names and types)``;
    the names are None when pyarrow cannot read them. Files that differ are read by name, each column
    in the type that holds every file's (``union_by_name``: int64 and double read as double; without
    it DuckDB casts every file to the first one's types, rounding 0.637 in an int64 column to 1).

    A Parquet file with a repeated column name is refused in one line (DuckDB renames the
    second ``p`` to ``p_1``, so ``score="p"`` would read the first silently), and so are two files
    whose columns differ only by case (``p`` in one, ``P`` in another): DuckDB would read one as the
    other, silently, where a reader by name (``--engine memory``) finds the column missing."""
    first, same, _ = _parquet_layouts(files, source)
    return first, same


def _parquet_layouts(files: list[str], source: str | None) -> tuple[list[str] | None, bool, list[list[str]]]:
    """:func:`parquet_names`, and each readable file's column names in its order."""
    from ._source import _refuse_duplicates

    try:
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None, True, []
    layouts: list[list[str]] = []
    first: list[str] | None = None
    seen: dict[str, tuple[str, str]] = {}  # lower-case name -> (name as written, file)
    spelt: dict[str, set[str]] = {}  # file -> its names as written
    types: dict[str, str] = {}  # name -> its type (a number's) in the first file that has it
    same = True
    for path in files:
        try:
            schema = pq.read_schema(path)
        except Exception:  # noqa: BLE001 - not readable by pyarrow: DuckDB says why in one line
            continue
        names = [str(n) for n in schema.names]
        _refuse_duplicates(names, path if len(files) > 1 or source is None else source)
        layouts.append(names)
        if first is None and path == files[0]:
            first = names
        if first is not None and set(names) != set(first):
            same = False
        for name, kind in zip(names, schema.types):  # p int64 in one file, double in another: DuckDB
            if _number(kind) and types.setdefault(name, str(kind)) != str(kind):  # casts every file to the
                same = False  # first's types (0.637 to 1)
        for name in names:
            written, where = seen.setdefault(name.lower(), (name, path))
            if written != name and where != path and written not in names and name not in spelt[where]:
                raise VeracityError(
                    f"{where} has a column {written!r} where {path} has {name!r} (both in {source or where}); "
                    "give the column one spelling in every file, or read the files separately")
        spelt[path] = set(names)
    return first, same, layouts


def _case_pairs(layouts: list[list[str]]) -> bool:
    """Two columns of the files whose names differ only by case (``p`` and ``P``)."""
    names = {n for layout in layouts for n in layout}
    return len({n.lower() for n in names}) != len(names)


def _union_by_exact_name(con: Any, files: list[str], layouts: list[list[str]]) -> Any:
    """The files' rows matched by the exact name of each column.

    DuckDB matches the columns of several Parquet files by name without regard to case (with or
    without ``union_by_name``): in files holding ``p`` and ``P`` in different orders it read one
    file's ``P`` as ``p``, silently. Here each file's columns are taken by position and named as
    written (a column a file lacks is NULL there), and the files are joined by position
    (``UNION ALL``, each column in the type that holds every file's)."""
    from ..core._sql_names import quote_identifier

    union: list[str] = []
    for layout in layouts:
        union += [n for n in layout if n not in union]
    relation = None
    for path, layout in zip(files, layouts):
        items = [f"#{layout.index(n) + 1}" if n in layout else "NULL" for n in union]
        part = con.read_parquet(path).project(", ".join(f"{e} AS {quote_identifier(f'_c{i}')}"
                                                         for i, e in enumerate(items)))
        relation = part if relation is None else relation.union(part)
    assert relation is not None
    return relation.project(", ".join(f"{quote_identifier(f'_c{i}')} AS {quote_identifier(n or f'_c{i}')}"
                                      for i, n in enumerate(union)))


def _number(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind))
