"""Calibrator artifacts are validated against their schema (issue 13), in Python and on the CLI.

Every damaged artifact is refused with one line naming the field and the rule;
`veracity apply` exits 2 and writes nothing instead of a NaN column, probabilities
of 5 or a reversed ranking.
"""

import copy
import json

import numpy as np
import pytest

import veracity as vc
from veracity.calibrators import _schema
from veracity.calibrators._base import _REGISTRY

RNG = np.random.default_rng(13)
P = RNG.uniform(0.02, 0.98, 300)
Y = (RNG.uniform(size=300) < P).astype(int)
PK = RNG.dirichlet([1, 1, 1], 300)
YK = RNG.integers(0, 3, 300)


def _fitted(kind):
    cls = _REGISTRY[kind]
    if cls.multiclass == "multiclass":
        return cls(score_type="probability").fit(PK, YK)
    return cls(score_type="probability").fit(P, Y)


def _doc(kind):
    d = _fitted(kind).to_dict()
    d["metadata"]["score_column"] = "score"
    return d


def _set(doc, path, value):
    d = copy.deepcopy(doc)
    node = d
    for k in path[:-1]:
        node = node[k]
    node[path[-1]] = value
    return d


def _deep(depth):
    x = 1
    for _ in range(depth):
        x = [x]
    return x


T, I, H, PL, V, M, VA, B = (_doc(k) for k in
                            ("temperature", "isotonic", "histogram", "platt", "vector", "matrix",
                             "venn-abers", "beta"))

# (id, document, a regex the one-line message must match: field and rule)
DAMAGED = [
    # semantic damage: each would give NaN, probabilities > 1 or a reversed order
    ("nan-temperature", _set(T, ["state", "temperature_"], float("nan")), r"state\.temperature_.*finite"),
    ("inf-temperature", _set(T, ["state", "temperature_"], float("inf")), r"state\.temperature_.*finite"),
    ("negative-temperature", _set(T, ["state", "temperature_"], -1.5), r"state\.temperature_.*> 0"),
    ("zero-temperature", _set(T, ["state", "temperature_"], 0.0), r"state\.temperature_.*> 0"),
    ("knots-above-1", _set(I, ["state", "knots_y_"], [0.1] * (len(I["state"]["knots_y_"]) - 1) + [5.0]),
     r"state\.knots_y_\[\d+\].*<= 1"),
    ("non-monotone-knots", _set(I, ["state", "knots_y_"], sorted(I["state"]["knots_y_"], reverse=True)),
     r"state\.knots_y_ must be non-decreasing"),
    ("unsorted-knot-x", _set(I, ["state", "knots_x_"], I["state"]["knots_x_"][::-1]),
     r"state\.knots_x_ must be strictly increasing .* item 1 = 0\.\d+ follows 0\.\d+;"),  # plain numbers, not np.float64(...)
    ("nan-platt-slope", _set(PL, ["state", "a_"], float("nan")), r"state\.a_.*finite"),
    ("platt-reversed-flag-lies", _set(PL, ["state", "a_"], -2.0), r"reversed_ .*contradicts"),
    ("beta-negative-a", _set(B, ["state", "a_"], -1.0), r"state\.a_.*>= 0"),
    ("histogram-value-above-1", _set(H, ["state", "values_"], [1.5] * len(H["state"]["values_"])),
     r"state\.values_\[0\].*<= 1"),
    ("venn-abers-reversed", _set(VA, ["state", "p1_"], VA["state"]["p1_"][::-1]),
     r"state\.p1_ must be non-decreasing"),
    ("bad-score-type", _set(T, ["params", "score_type"], "odds"), r"params\.score_type.*'probability'"),
    ("bad-ties", _set(I, ["params", "ties"], "sometimes"), r"params\.ties.*'allow'"),
    ("bad-method", _set(T, ["params", "method"], "magic"), r"params\.method"),
    ("bins-huge", _set(H, ["params", "bins"], 10**9), r"params\.bins.*<= 10000"),
    ("bounds-reversed", _set(T, ["params", "bounds"], [20, 0.05]), r"bounds must satisfy lo < hi"),
    # structural damage (21 kinds)
    ("state-not-object", _set(T, ["state"], [1, 2]), r"state must be a JSON object"),
    ("state-null", _set(T, ["state"], None), r"state must be a JSON object"),
    ("params-list", _set(T, ["params"], ["logit"]), r"params must be a JSON object"),
    ("string-parameter", _set(T, ["state", "temperature_"], "1.2"), r"state\.temperature_.*Expected `float`, got `str`"),
    ("null-parameter", _set(T, ["state", "temperature_"], None), r"state\.temperature_.*got `null`"),
    ("list-parameter", _set(T, ["state", "temperature_"], [1.0]), r"state\.temperature_.*got `array`"),
    ("bool-parameter", _set(T, ["state", "temperature_"], True), r"state\.temperature_.*got `bool`"),
    ("string-iterations", _set(T, ["params", "iterations"], "80"), r"params\.iterations.*got `str`"),
    ("knot-length-mismatch", _set(I, ["state", "knots_y_"], I["state"]["knots_y_"][:-1]),
     r"state\.knots_y_ has \d+ items but must have"),
    ("empty-knots", _set(_set(I, ["state", "knots_y_"], []), ["state", "knots_x_"], []),
     r"state\.knots_x_.*length >= 1"),
    ("null-in-knots", _set(I, ["state", "knots_x_"], [None] + I["state"]["knots_x_"][1:]),
     r"state\.knots_x_\[0\].*got `null`"),
    ("missing-state-field", {**T, "state": {k: v for k, v in T["state"].items() if k != "temperature_"}},
     r"lacks fitted field 'temperature_'"),
    ("unknown-state-field", _set(T, ["state", "evil"], 1), r"state: unknown field \['evil'\]"),
    ("unknown-top-field", _set(T, ["extra"], 1), r"unknown top-level field"),
    ("top-level-list", [T], r"not a veracity calibrator"),
    ("top-level-number", 3, r"not a veracity calibrator"),
    ("kind-list", _set(T, ["kind"], ["temperature"]), r"unknown calibrator kind"),
    ("version-string", _set(T, ["version"], "1"), r"artifact version '1'"),
    ("version-bool", _set(T, ["version"], True), r"artifact version True"),
    ("matrix-not-square", _set(M, ["state", "W_"], [row[:2] for row in M["state"]["W_"]]),
     r"state\.W_\[0\] has 2 items but must have 3"),
    ("vector-off-diagonal", _set(V, ["state", "W_"], [[1, 1, 0], [0, 1, 0], [0, 0, 1]]),
     r"state\.W_ of vector scaling must be diagonal"),
    ("n-classes-one", _set(T, ["state", "n_classes_"], 1), r"state\.n_classes_.*>= 2"),
    ("venn-abers-length", _set(VA, ["state", "p0_"], VA["state"]["p0_"][:-1]), r"state\.p0_ has"),
    ("trace-row-broken", _set(_set(T, ["params", "method"], "golden"), ["state", "trace_"], [{"iteration": 1}]),
     r"state\.trace_\[0\] lacks field"),
    ("score-column-list", _set(T, ["metadata", "score_column"], ["score"]), r"metadata\.score_column"),
    ("metadata-not-object", _set(T, ["metadata"], "x"), r"metadata must be a JSON object"),
    ("deep-metadata", _set(T, ["metadata", "deep"], _deep(50)), r"nested deeper than 32"),
]


@pytest.mark.parametrize("doc, match", [d[1:] for d in DAMAGED], ids=[d[0] for d in DAMAGED])
def test_damaged_artifact_is_refused_in_one_line(doc, match):
    with pytest.raises(vc.VeracityError, match=match) as info:
        vc.load(doc)
    assert "\n" not in str(info.value)


def _write(path, doc):
    path.write_text(json.dumps(doc))  # Python's json writes NaN/Infinity literals
    return path


@pytest.fixture
def scored(tmp_path):
    f = tmp_path / "x.csv"
    f.write_text("score,label\n" + "\n".join(f"{p:.4f},{y}" for p, y in zip(P[:50], Y[:50])) + "\n")
    return f


@pytest.mark.parametrize("doc, match", [d[1:] for d in DAMAGED], ids=[d[0] for d in DAMAGED])
def test_cli_apply_refuses_damaged_artifact(tmp_path, scored, cli, refused, doc, match):
    if isinstance(doc, dict) and doc.get("kind") in ("vector", "matrix"):
        pytest.skip("multiclass artifact: the file has one score column")
    cal = _write(tmp_path / "cal.json", doc)
    out = tmp_path / "out.csv"
    refused(cli(["apply", cal, scored, "--out", out]), match)
    assert not out.exists()


def test_cli_apply_nan_parameter_writes_no_nan_column(tmp_path, scored, cli, refused):
    # issue 13: a NaN parameter made `veracity apply` write a NaN column with exit 0
    cal = _write(tmp_path / "cal.json", _set(T, ["state", "temperature_"], float("nan")))
    out = tmp_path / "out.csv"
    refused(cli(["apply", cal, scored, "--out", out]), r"temperature_: Expected a finite number \(got nan\)")
    assert not out.exists()


@pytest.mark.parametrize("content, match", [
    (b"", "not a JSON calibrator artifact"),
    (b"\x00\xff\xfe\x89PNG\r\n" + bytes(range(256)), "not a JSON calibrator artifact"),
    (b"[" * 100_000 + b"]" * 100_000, "nested deeper than 32"),
    (b'{"a": ' * 5000 + b"1" + b"}" * 5000, "nested deeper than 32|not a veracity calibrator"),
    (b"{not json", "not a JSON calibrator artifact"),
])
def test_cli_apply_unreadable_artifact_files(tmp_path, scored, cli, refused, content, match):
    cal = tmp_path / "cal.json"
    cal.write_bytes(content)
    refused(cli(["apply", cal, scored, "--out", tmp_path / "o.csv"]), match)
    with pytest.raises(vc.VeracityError, match=match):
        vc.load(cal)


def test_calibrator_path_is_a_directory_or_missing(tmp_path, scored, cli, refused):
    refused(cli(["apply", tmp_path, scored, "--out", tmp_path / "o.csv"]), "is a directory")
    refused(cli(["apply", tmp_path / "no" / "cal.json", scored, "--out", tmp_path / "o.csv"]),
            "calibrator file not found")
    refused(cli(["compare", scored, "--calibrator", tmp_path]), "is a directory")


def test_a_calibrator_that_outputs_nan_is_blamed_not_the_scores():
    # schema-valid but degenerate Venn-ABERS bounds: p0 = 1, p1 = 0 at the knot -> 0/0
    doc = _set(_set(_set(VA, ["state", "c_"], [0.5]), ["state", "p0_"], [0.0, 1.0]),
               ["state", "p1_"], [0.0, 1.0])
    cal = vc.load(doc)
    with pytest.raises(vc.VeracityError, match=r"VennAbers produced 1 invalid probabilities.*"
                                                r"row 1.*calibrator is faulty, not the data"):
        cal.transform([0.2, 0.5, 0.7])


def test_cli_apply_nan_output_exit_2(tmp_path, cli, refused):
    doc = _set(_set(_set(VA, ["state", "c_"], [0.5]), ["state", "p0_"], [0.0, 1.0]),
               ["state", "p1_"], [0.0, 1.0])
    cal = _write(tmp_path / "cal.json", doc)
    data = tmp_path / "x.csv"
    data.write_text("score,label\n0.2,0\n0.5,1\n")
    refused(cli(["apply", cal, data, "--out", tmp_path / "o.csv"]), "calibrator is faulty")


def test_reversed_platt_is_not_applied_silently(tmp_path):
    doc = _set(_set(PL, ["state", "a_"], -1.0), ["state", "reversed_"], True)
    with pytest.warns(UserWarning, match="reverses the score order"):
        vc.load(doc)
    with pytest.raises(vc.VeracityError, match="reverses the score order"):
        vc.load(_set(doc, ["params", "on_reversed"], "error"))
    assert vc.load(_set(doc, ["params", "on_reversed"], "allow")).a_ == -1.0


@pytest.mark.parametrize("kind", sorted(_REGISTRY))
def test_every_kind_has_a_schema_covering_its_fitted_fields(kind):
    cls = _REGISTRY[kind]
    params_t, state_t = _schema.SCHEMAS[(kind, _schema.FORMAT_VERSION)]
    assert set(cls._params) <= set(params_t.__struct_fields__)
    assert set(cls._state) <= set(state_t.__struct_fields__)
    # and a freshly fitted artifact passes it, round trip exact
    d = _doc(kind)
    again = vc.load(json.loads(json.dumps(d)))
    assert again.to_dict()["state"] == d["state"]


def test_artifact_written_atomically(tmp_path):
    cal = _fitted("temperature")
    target = tmp_path / "cal.json"
    target.write_text("old")
    cal.save(target)
    assert vc.load(target).temperature_ == cal.temperature_
    assert [p.name for p in tmp_path.iterdir()] == ["cal.json"]  # no temporary left behind


def test_from_dict_of_another_kind_is_refused():
    with pytest.raises(vc.VeracityError, match=r"holds a TemperatureScaling \('temperature'\), not a PlattScaling"):
        vc.PlattScaling.from_dict(T)
    assert isinstance(vc.Calibrator.from_dict(T), vc.TemperatureScaling)
    assert isinstance(vc.TemperatureScaling.from_dict(T), vc.TemperatureScaling)
