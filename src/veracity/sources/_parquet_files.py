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
    first, same, _, _ = _parquet_layouts(files, source)
    return first, same


#: file -> {column: the unit of its Arrow duration type} (``s``, ``ms``, ``us``, ``ns``)
Durations = dict[str, dict[str, str]]


def _parquet_layouts(files: list[str], source: str | None
                     ) -> tuple[list[str] | None, bool, list[list[str]], Durations]:
    """:func:`parquet_names`, each readable file's column names in its order, and each file's
    duration columns with their units (:data:`Durations`; DuckDB reads them as BIGINT counts of that
    unit: :func:`durations_as_intervals`)."""
    from ._source import _refuse_duplicates

    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None, True, [], {}
    layouts: list[list[str]] = []
    first: list[str] | None = None
    seen: dict[str, tuple[str, str]] = {}  # lower-case name -> (name as written, file)
    spelt: dict[str, set[str]] = {}  # file -> its names as written
    types: dict[str, str] = {}  # name -> its type (a number's) in the first file that has it
    same = True
    durations: Durations = {}
    timed: dict[str, tuple[str, str]] = {}  # a duration column -> (the first file holding it, its type)
    plain: dict[str, tuple[str, str]] = {}  # any other column -> (the first file holding it, its type)
    numbers: dict[str, dict[str, str]] = {}  # a number column -> {"int"/"float": the first such file}
    ints: dict[str, list[str]] = {}  # an integer column -> the files holding it as integers
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
        for name, kind in zip(names, schema.types):
            if pa.types.is_integer(kind) or pa.types.is_floating(kind):
                numbers.setdefault(name, {}).setdefault("int" if pa.types.is_integer(kind) else "float", path)
                if pa.types.is_integer(kind):
                    ints.setdefault(name, []).append(path)
        units = {n: str(t.unit) for n, t in zip(names, schema.types) if pa.types.is_duration(t)}
        if units:
            durations[path] = units
        for name, kind in zip(names, schema.types):  # durations in one file, numbers in another: DuckDB
            other = plain if pa.types.is_duration(kind) else timed  # reads both as BIGINT counts, silently
            (timed if pa.types.is_duration(kind) else plain).setdefault(name, (path, str(kind)))
            if name in other and not pa.types.is_null(kind) and other[name][1] != "null":
                (a, ka), (b, kb) = other[name], (path, str(kind))
                raise VeracityError(
                    f"column {name!r} holds {ka} values in {a} and {kb} values in {b} (both in {source or b}); "
                    "give the column one type in every file, or read the files separately")
    for name, kinds in numbers.items():
        if len(kinds) == 2:
            _refuse_rounded_ints(name, ints[name], kinds["float"], source)
    return first, same, layouts, durations


#: the largest magnitude from which not every integer is a double (2**53 + 1 is not)
_EXACT_DOUBLE = 2**53


def _refuse_rounded_ints(name: str, int_files: list[str], float_file: str, source: str | None) -> None:
    """A column of integers in some files and of doubles in others is read as doubles (DuckDB's
    ``union_by_name``, pyarrow's schema unification): an integer beyond 2**53 there is rounded, and two ids 1
    apart (2**53 and 2**53 + 1, ``by=`` keys) became one slice on the DuckDB route, silently, where the
    memory route stopped with pyarrow's "Integer value ... not in range". Refused in one line when a file's
    row-group statistics (its footer: no data read) hold such an integer; files without statistics pass."""
    import pyarrow.parquet as pq

    for path in int_files:
        try:
            meta = pq.read_metadata(path)
        except Exception:  # noqa: BLE001 - unreadable here: the engines say why
            continue
        # the column's leaf in the file (a nested column before it has leaves of its own)
        leaf = next((j for j in range(meta.num_columns) if meta.schema.column(j).path == name), None)
        for group in range(meta.num_row_groups if leaf is not None else 0):
            stats = meta.row_group(group).column(leaf).statistics
            if stats is None or not stats.has_min_max:
                continue
            far = max((stats.min, stats.max), key=lambda v: abs(int(v)))
            if abs(int(far)) > _EXACT_DOUBLE:
                raise VeracityError(
                    f"column {name!r} holds integers in {path} (such as {int(far)}, beyond 2**53) and "
                    f"doubles in {float_file} (both in {source or path}); read together they are doubles, "
                    "where integers 1 apart can be one value: give the column one type in every file "
                    "(int64), or read the files separately")


#: microseconds in one count of each Arrow duration unit (DuckDB's INTERVAL holds microseconds)
_MICROS = {"s": 1_000_000, "ms": 1000, "us": 1}
#: the largest magnitude, in microseconds, of an INTERVAL that DuckDB hands to Arrow (as nanoseconds
#: in an int64; beyond it the nanoseconds wrapped: 300 years came back as -284 years)
_MAX_MICROS = (2**63 - 1) // 1000


def interval_expr(x: str, unit: str, name: str) -> str:
    """SQL turning ``x``, a BIGINT count of ``unit`` (what DuckDB reads from a Parquet column of an
    Arrow ``duration[unit]``), into the INTERVAL of that duration, so that the file's slices are the
    durations every other route hands back, named by :func:`veracity.core._keys.duration_name`
    (``0 days 00:00:00.001000``, not ``1000000``). The duration is ``x * u`` microseconds, ``u`` =
    1,000,000, 1,000 and 1 for ``s``, ``ms`` and ``us``; ``x / 1000`` microseconds for ``ns``.
    Exact or refused, never rounded: a nanosecond count that is not whole microseconds, and a duration
    beyond :data:`_MAX_MICROS` (292 years), stop the query in one line when the column is read."""
    from ._duckdb import ERROR_MARK

    shown = name.replace("'", "''")
    fix = "; read the file into memory instead (pandas.read_parquet, or --engine memory on the command line)"
    if unit == "ns":
        micros, limit = f"({x} // 1000)", None
        odd = (f"WHEN {x} % 1000 <> 0 THEN error('{ERROR_MARK}column ''{shown}'' holds durations with "
               f"nanoseconds (' || CAST({x} AS VARCHAR) || ' ns), which DuckDB''s INTERVAL cannot hold{fix}') ")
    else:
        micros, limit, odd = f"({x} * {_MICROS[unit]})", _MAX_MICROS // _MICROS[unit], ""
    far = ("" if limit is None else
           f"WHEN {x} NOT BETWEEN -{limit} AND {limit} THEN error('{ERROR_MARK}column ''{shown}'' holds a "
           f"duration of ' || CAST({x} AS VARCHAR) || ' {unit}, beyond the 292 years DuckDB hands back{fix}') ")
    return f"CASE WHEN {x} IS NULL THEN NULL {odd}{far}ELSE to_microseconds({micros}) END"


def mixed_units(durations: Durations) -> bool:
    """A column that is a duration of one unit in some files and of another in others."""
    units: dict[str, set[str]] = {}
    for columns in durations.values():
        for name, unit in columns.items():
            units.setdefault(name, set()).add(unit)
    return any(len(u) > 1 for u in units.values())


def durations_as_intervals(relation: Any, durations: Durations, names: list[str] | None = None, *,
                           rename: bool = False) -> Any:
    """``relation`` (DuckDB's reading of Parquet files) with each Arrow duration column as INTERVAL
    (:func:`interval_expr`), every column taken by position (two names equal but for case are not
    confused), named ``names`` with ``rename`` (the names as written, where DuckDB renamed one), else as
    DuckDB names them; ``relation`` itself when there is nothing to change. Every file must hold a
    column in one unit (:func:`mixed_units`)."""
    from ..core._sql_names import quote_identifier

    units = {n: u for columns in durations.values() for n, u in columns.items()}
    columns = list(relation.columns)
    names = names if rename and names is not None else columns
    if not rename and not any(n in units for n in names):
        return relation
    items = []
    for i, (name, duck) in enumerate(zip(names, columns)):
        expr = f"#{i + 1}"
        if name in units:
            expr = interval_expr(expr, units[name], name)
        items.append(f"{expr} AS {quote_identifier(name or duck)}")
    return relation.project(", ".join(items))


def _case_pairs(layouts: list[list[str]]) -> bool:
    """Two columns of the files whose names differ only by case (``p`` and ``P``)."""
    names = {n for layout in layouts for n in layout}
    return len({n.lower() for n in names}) != len(names)


def _union_by_exact_name(con: Any, files: list[str], layouts: list[list[str]],
                         durations: Durations | None = None) -> Any:
    """The files' rows matched by the exact name of each column.

    DuckDB matches the columns of several Parquet files by name without regard to case (with or
    without ``union_by_name``): in files holding ``p`` and ``P`` in different orders it read one
    file's ``P`` as ``p``, silently. Here each file's columns are taken by position and named as
    written (a column a file lacks is NULL there), and the files are joined by position
    (``UNION ALL``, each column in the type that holds every file's). Each file's duration columns
    (``durations``) are read as INTERVAL in that file's unit (:func:`interval_expr`): a column of
    milliseconds in one file and nanoseconds in another was one BIGINT column of both counts."""
    from ..core._sql_names import quote_identifier

    union: list[str] = []
    for layout in layouts:
        union += [n for n in layout if n not in union]
    relation = None
    for path, layout in zip(files, layouts):
        units = (durations or {}).get(path, {})
        items = [("NULL" if n not in layout else f"#{layout.index(n) + 1}" if n not in units
                  else interval_expr(f"#{layout.index(n) + 1}", units[n], n)) for n in union]
        part = con.read_parquet(path).project(", ".join(f"{e} AS {quote_identifier(f'_c{i}')}"
                                                         for i, e in enumerate(items)))
        relation = part if relation is None else relation.union(part)
    assert relation is not None
    return relation.project(", ".join(f"{quote_identifier(f'_c{i}')} AS {quote_identifier(n or f'_c{i}')}"
                                      for i, n in enumerate(union)))


def _number(kind: Any) -> bool:
    import pyarrow as pa

    return bool(pa.types.is_integer(kind) or pa.types.is_floating(kind) or pa.types.is_decimal(kind))
