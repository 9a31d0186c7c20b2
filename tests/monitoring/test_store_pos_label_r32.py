"""``MonitorStore.outcomes(pos_label=...)`` names the label every other route names (the one rule of
``sources._labels._matching`` / ``core._validation.text_names_label``). It compared labels as float64 with
``float(pos_label)`` (2**53 + 1 and 2**53 one value: Arrow refused the cast in a raw ``ArrowInvalid``) and
wrote a number ``pos_label`` as text on a text column (``pos_label=1`` named the label ``'1'``, which
``vc.audit`` refuses); ``'1_0'`` named the label 10."""

import warnings

import numpy as np
import pytest

import veracity as vc

pytest.importorskip("duckdb")
pa = pytest.importorskip("pyarrow")

BIG = 2 ** 53
P = [0.9, 0.8, 0.7, 0.2]


@pytest.fixture
def store(tmp_path):
    s = vc.MonitorStore(tmp_path / "m.duckdb")
    s.log(pa.table({"id": ["a", "b", "c", "d"], "ts": ["2026-03-02"] * 4, "p": P}),
          id="id", time="ts", score="p")
    return s


def _stored(store) -> list[int]:
    con = store.connect(read_only=True)
    try:
        return [row[0] for row in con.execute("SELECT label FROM predictions ORDER BY id").fetchall()]
    finally:
        con.close()


def _outcomes(labels):
    return pa.table({"id": ["a", "b", "c", "d"], "y": labels})


def _audited(labels, pos_label) -> list[float]:
    """The base rate ``vc.audit`` reads from a frame of the same labels with ``pos_label``."""
    frame = pa.table({"p": P, "y": labels})
    return vc.audit(frame, score="p", label="y", pos_label=pos_label).base_rate


BIG_LABELS = pa.array([BIG + 1, BIG + 1, BIG + 1, BIG], pa.int64())


@pytest.mark.parametrize("pos_label, expected", [(BIG + 1, [1, 1, 1, 0]), (f"{BIG + 1}", [1, 1, 1, 0]),
                                                 (f"{BIG + 1}.0", [1, 1, 1, 0]), (BIG, [0, 0, 0, 1]),
                                                 (f"{BIG}", [0, 0, 0, 1]), (np.int64(BIG + 1), [1, 1, 1, 0])])
def test_integers_beyond_2_53_are_compared_exactly(store, pos_label, expected):
    store.outcomes(_outcomes(BIG_LABELS), id="id", label="y", pos_label=pos_label)
    assert _stored(store) == expected
    assert _audited(BIG_LABELS, pos_label) == pytest.approx(np.mean(expected), abs=1e-12)


@pytest.mark.parametrize("labels, pos_label", [(["1", "0", "1", "0"], 1), (["1", "0", "1", "0"], 1.0),
                                               ([10, 0, 10, 0], "1_0"), ([10, 0, 10, 0], "0xa"),
                                               ([True, False, True, False], "yes")])
def test_what_audit_refuses_the_store_refuses_in_one_line(store, error_line, labels, pos_label):
    table = _outcomes(labels)
    frame = pa.table({"p": P, "y": labels})
    audit = error_line(lambda: vc.audit(frame, score="p", label="y", pos_label=pos_label))
    stored = error_line(lambda: store.outcomes(table, id="id", label="y", pos_label=pos_label))
    assert "is not among the values of column 'y'" in audit
    boolean = isinstance(labels[0], bool)
    fix = "pass 'true' or 'false' (any case), or 1 or 0" if boolean else "pass one of them"
    assert "is not among the values of label column 'y'" in stored and stored.endswith(fix), stored
    assert _stored(store) == [None] * 4


@pytest.mark.parametrize("labels, pos_label, expected", [
    (["1", "0", "1", "0"], "1", [1, 0, 1, 0]), ([10, 0, 10, 0], " 10.0", [1, 0, 1, 0]),
    ([True, False, True, False], " TRUE ", [1, 0, 1, 0]), ([True, False, True, False], 1, [1, 0, 1, 0])])
def test_what_audit_reads_the_store_reads_alike(store, labels, pos_label, expected):
    store.outcomes(_outcomes(labels), id="id", label="y", pos_label=pos_label)
    assert _stored(store) == expected
    assert _audited(labels, pos_label) == pytest.approx(np.mean(expected), abs=1e-12)


@pytest.mark.parametrize("labels, pos_label", [(["no"] * 4, 1), ([0] * 4, "yes"), ([0] * 4, "1_0"),
                                               ([False] * 4, "maybe")])
def test_a_day_of_one_label_refuses_a_pos_label_no_label_of_its_type_can_hold(store, error_line, labels,
                                                                              pos_label):
    message = error_line(lambda: store.outcomes(_outcomes(labels), id="id", label="y", pos_label=pos_label))
    assert "names no label a" in message and "label column can hold" in message, message
    assert _stored(store) == [None] * 4


@pytest.mark.parametrize("labels, pos_label", [([0] * 4, "1"), ([0] * 4, " 1.0"), ([False] * 4, "true"),
                                               ([0.0] * 4, 1)])
def test_a_day_of_0s_with_a_pos_label_naming_1_is_stored_without_a_warning(store, labels, pos_label):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        store.outcomes(_outcomes(labels), id="id", label="y", pos_label=pos_label)
    assert _stored(store) == [0, 0, 0, 0]


def test_a_day_of_other_numbers_still_warns(store):
    with pytest.warns(UserWarning, match="not among the labels .* stored as negative"):
        store.outcomes(_outcomes([0] * 4), id="id", label="y", pos_label="2")
    assert _stored(store) == [0, 0, 0, 0]
