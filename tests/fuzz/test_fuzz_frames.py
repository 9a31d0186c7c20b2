r"""Property-based fuzz of the frame forms (issue 23's first acceptance criterion).

For every generated case (:mod:`hostile_frames`: hostile column names, dtypes, time
encodings and label codings), every frame form — pandas, polars eager and lazy, pyarrow,
a DuckDB relation, a Parquet path and a CSV path — and each of ``vc.audit``, ``vc.ece``,
``vc.threshold_table`` and ``vc.monitor``:

* either one :class:`~veracity.VeracityError` whose message is one line,
* or exactly the numbers of the numpy array path on the same values (1e-9 relative);

never a different number, never another exception type. Where the numpy path refuses
(a missing label, a NaN score, labels that need ``pos_label=``), every form refuses too;
a duplicated column name the call uses is refused on every form; plain columns under
literal-safe hostile names (quotes, ``^s.*$``, ``*``, unicode …) give numbers on every form.
The sharp-names test adds a Dask DataFrame (a second a call, so not in the main test).

Derandomised (the same examples every run) and sized to run in well under a minute: each edge case
(every score dtype, label coding, time encoding and unused column) pinned once, and a few fully
random cases besides.
"""

from __future__ import annotations

import importlib.util

import pytest
from hypothesis import given
from hypothesis import strategies as st

pytest.importorskip("pandas")
pytest.importorskip("polars")
pytest.importorskip("pyarrow")
pytest.importorskip("duckdb")


import hostile_frames as H  # noqa: E402  (tests/fuzz/conftest.py puts this folder on sys.path)


def check_case(case, form, data, fn, reference):
    """The property for one (case, form, function); returns "ok" or "refused"."""
    kind, value = H.outcome(lambda: H.call(fn, case, data))
    label = f"{fn} on {form}: {case!r}"
    if kind == "refused":
        assert H.one_line(value), (label, value)
        # a plain case is refused only for the documented reasons below
        assert not (case.good and reference[0] == "ok" and not _allowed_refusal(case, fn, form)), (label, value)
        return kind
    assert not case.uses_duplicate(fn), (label, "a duplicated column name was resolved silently")
    if reference[0] == "refused" and form in FILES and case.label_coding == "yesno":
        # DuckDB's CSV reader types a yes/no column as BOOLEAN (sources/_labels.py): the numbers
        # must then be those of the labels yes -> True, no -> False
        reference = H.outcome(lambda: H.call(fn, _as_booleans(case)))
    assert reference[0] == "ok", (label, "numbers where the numpy path refuses:", reference[1])
    if fn == "monitor" and case.time_encoding in KNOWN_WRONG_TIMES:
        return kind
    where = H.same(value, reference[1])
    assert where is None, (label, where)
    return kind


FILES = ("csv",)
#: forms read by DuckDB, whose identifiers are case-insensitive: of two columns named ``p`` and
#: ``P`` the second is renamed (``P_1``) when the relation is made, and asking for it is refused
DUCKDB_FORMS = ("duckdb", "parquet", "csv")

#: Known refusals of good input, reported and owned elsewhere; remove an entry when it is fixed.
KNOWN_REFUSALS: set[tuple[str, str, str]] = set()


#: Known wrong numbers, reported and owned elsewhere; remove an entry when it is fixed.
#: "mixed": vc.period_keys / vc.monitor read an object column mixing timestamps, ISO text and an int
#: (epoch seconds) with the int as nanoseconds, a period 1970-01 (arrays and in-memory frames alike;
#: an int64 column is read as seconds). Expected: a one-line refusal (issue 23) or seconds.
KNOWN_WRONG_TIMES: set[str] = set()


def _as_booleans(case):
    import dataclasses

    return dataclasses.replace(case, y=case.y == "yes", pos_label=None)


def _case_clash(case):
    """A used column shares its name, but for case, with another column."""
    lower = [n.lower() for n, _ in case.columns]
    return any(lower.count(u.lower()) > [n for n, _ in case.columns].count(u)
               for u in (case.score, case.label, case.time))


def _allowed_refusal(case, fn, form):
    if form in DUCKDB_FORMS and _case_clash(case):
        return True
    # vc.monitor may refuse a time column that is not a plain instant (text, mixed)
    return fn == "monitor" and (case.time_encoding not in H.GOOD_TIMES
                                or (fn, form, case.time_encoding) in KNOWN_REFUSALS)


def check_every_form(case, fn, tmp):
    """The property on every frame form of ``case`` for ``vc.<fn>``."""
    reference = H.outcome(lambda: H.call(fn, case))
    if reference[0] == "refused":
        assert H.one_line(reference[1]), reference[1]
    for form in H.FORMS:
        data = H.build(case, form, tmp)
        if data is None:
            continue
        check_case(case, form, data, fn, reference)


@H.fuzz(8)
@given(case=H.cases(), fn=st.sampled_from(H.FUNCTIONS))
def test_fuzz_frame_forms_agree_with_the_array_path(case, fn, tmp_path_factory):
    check_every_form(case, fn, tmp_path_factory.mktemp("frames"))


#: the edge cases, each pinned once (the names, values and the rest still drawn): every score dtype,
#: label coding, time encoding and kind of unused column of :mod:`hostile_frames`, a case that the
#: numpy path refuses (NaN score, missing label, labels that need pos_label) beside plain parts only,
#: so that its refusal is the one under test; each of the four functions several times
EDGES = [
    ("ece", dict(score_dtype="nan", label_coding="int01", time_encoding="zone")),
    ("threshold_table", dict(score_dtype="nullable_na", label_coding="nullable_int", time_encoding="epoch_s")),
    ("audit", dict(score_dtype="object_mixed", label_coding="bool", time_encoding="naive_us")),
    ("ece", dict(score_dtype="str", label_coding="category_pos", time_encoding="utc")),
    ("audit", dict(score_dtype="decimal", label_coding="yesno_pos", time_encoding="naive")),
    ("threshold_table", dict(score_dtype="category", label_coding="pm1_pos", time_encoding="zone")),
    ("audit", dict(score_dtype="float64", label_coding="missing_pos", time_encoding="utc", extra="noise")),
    ("monitor", dict(score_dtype="float32", label_coding="missing_text_pos", time_encoding="epoch_s")),
    ("ece", dict(score_dtype="bool", label_coding="missing", time_encoding="naive_us")),
    ("audit", dict(score_dtype="int", label_coding="yesno", time_encoding="naive", extra="text")),
    ("monitor", dict(score_dtype="nullable", label_coding="pm1", time_encoding="zone")),
    ("monitor", dict(score_dtype="float64", label_coding="float01", time_encoding="iso", extra="mixed")),
    ("monitor", dict(score_dtype="float32", label_coding="int01", time_encoding="mixed")),
    ("monitor", dict(score_dtype="float64", label_coding="int01", time_encoding="utc", extra="duplicate")),
    ("threshold_table", dict(score_dtype="float64", label_coding="int01", time_encoding="naive", extra="case")),
]


def test_edges_cover_every_part():
    for part, values in (("score_dtype", H.SCORE_DTYPES), ("label_coding", H.LABEL_CODINGS),
                         ("time_encoding", H.TIME_ENCODINGS),
                         ("extra", ["noise", "case", "mixed", "text", "duplicate"])):
        assert {kw.get(part) for _, kw in EDGES} >= set(values), part
    assert {fn for fn, _ in EDGES} == set(H.FUNCTIONS)


@pytest.mark.parametrize("fn, pinned", EDGES, ids=lambda v: v if isinstance(v, str) else "-".join(v.values()))
@H.fuzz(1)
@given(data=st.data())
def test_fuzz_frame_forms_on_each_edge_case(fn, pinned, data, tmp_path_factory):
    check_every_form(data.draw(H.cases(**pinned)), fn, tmp_path_factory.mktemp("edges"))


#: names that broke a backend once, as score / label / time, on plain columns: every form gives numbers
SHARP_NAMES = [("*", "y", "ts"), ("p", "*", "ts"), ("^s.*$", "s_y", "ts"), ("p ", "p", " ts"),
               ('x"; DROP TABLE t; --', "a'b", "\u5206\u6570"), ("p.*", "a.b", "*")]


@pytest.mark.parametrize("names", SHARP_NAMES, ids=repr)
@H.fuzz(2)
@given(data=st.data())
def test_fuzz_sharp_names_on_every_form(names, data, tmp_path_factory):
    case = data.draw(H.cases(names=names, score_dtype=data.draw(st.sampled_from(["float64", "float32", "int"])),
                             label_coding=data.draw(st.sampled_from(["int01", "bool", "yesno_pos", "pm1_pos"]))))
    fn = data.draw(st.sampled_from(H.FUNCTIONS))
    tmp = tmp_path_factory.mktemp("sharp")
    reference = H.outcome(lambda: H.call(fn, case))
    dask = ["dask"] if importlib.util.find_spec("dask") else []  # a second a call: here only
    for form in H.FORMS + dask:
        data_form = H.build(case, form, tmp)
        if data_form is not None:
            check_case(case, form, data_form, fn, reference)
