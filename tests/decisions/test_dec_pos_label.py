"""Labels as users have them on the decisions, in Python and on the command line (issue 10).

String ('yes'/'no') and boolean labels with ``pos_label=`` / ``--pos-label`` give exactly
the numbers of the 0/1 encoding; a wrong ``--pos-label`` exits 2 with one line.
"""

import json

import numpy as np
import pytest

import veracity as vc
from veracity.cli import main

rng = np.random.default_rng(3)
N = 600
P = rng.uniform(0.01, 0.99, N)
Y01 = (rng.random(N) < P).astype(int)
W = rng.uniform(0.5, 2.0, N)
YS = np.where(Y01 == 1, "yes", "no")
YB = Y01.astype(bool)


def _dump(x):
    if isinstance(x, float):
        return repr(x)
    return json.dumps(x.to_dict(), sort_keys=True, default=str)


def _conformal(s, y, **k):
    cp = vc.ConformalClassifier(alpha=0.1).fit(s, y, **k)
    coverage = cp.coverage(s, y).to_dict()
    coverage.pop("pos_label", None)  # named when given (round 41); the numbers are the claim here
    return {"qhat": cp.qhat_, "coverage": coverage}


CALLS = {
    "recall_threshold": lambda s, y, **k: vc.recall_threshold(s, y, target=0.9, **k),
    "precision_threshold": lambda s, y, **k: vc.precision_threshold(s, y, target=0.8, **k),
    "threshold_table": lambda s, y, **k: vc.threshold_table(s, y, [0.2, 0.5, 0.8], cost_fn=9, **k),
    "simulate_redraws": lambda s, y, **k: vc.simulate_redraws(s, y, n_calib=200, n_resamples=25, random_state=0, **k),
    "risk_coverage": lambda s, y, **k: vc.risk_coverage(s, y, **k),
    "selective_threshold": lambda s, y, **k: vc.selective_threshold(s, y, target_risk=0.4, **k),
    "conformal": lambda s, y, **k: type("R", (), {"to_dict": lambda self, r=_conformal(s, y, **k): r})(),
}


@pytest.mark.parametrize("name", sorted(CALLS))
def test_string_and_bool_labels_equal_the_0_1_numbers(name):
    f = CALLS[name]
    ref = _dump(f(P, Y01))
    assert _dump(f(P, YS, pos_label="yes")) == ref
    assert _dump(f(P, YB, pos_label=True)) == ref
    assert _dump(f(P, np.where(Y01 == 1, 2, 1), pos_label=2)) == ref
    assert _dump(f(1 - P, YS, pos_label="no")) == _dump(f(1 - P, 1 - Y01))   # the other class


@pytest.mark.parametrize("name", ["recall_threshold", "precision_threshold", "threshold_table", "risk_coverage"])
def test_weighted_string_labels_equal_the_0_1_numbers(name):
    f = CALLS[name]
    assert _dump(f(P, YS, pos_label="yes", sample_weight=W)) == _dump(f(P, Y01, sample_weight=W))


@pytest.mark.parametrize("name", sorted(set(CALLS) - {"conformal"}))
def test_ambiguous_and_wrong_label_sets_name_the_pos_label(name):
    f = CALLS[name]
    with pytest.raises(vc.VeracityError, match=r"pass pos_label=.*pos_label='yes'"):
        f(P, YS)
    with pytest.raises(vc.VeracityError, match=r"pos_label='Yes' is not among the label values"):
        f(P, YS, pos_label="Yes")


def test_confidence_reading_pos_label_names_correct():
    right = np.where(Y01 == 1, "right", "wrong")
    a = vc.risk_coverage(P, right, reading="confidence", pos_label="right")
    assert _dump(a) == _dump(vc.risk_coverage(P, Y01, reading="confidence"))


def test_multiclass_scores_refuse_pos_label():
    S = rng.dirichlet(np.ones(3), 50)
    y = rng.integers(0, 3, 50)
    with pytest.raises(vc.VeracityError, match="drop pos_label="):
        vc.risk_coverage(S, y, pos_label=1)
    with pytest.raises(vc.VeracityError, match="drop pos_label="):
        vc.ConformalClassifier().fit(S, y, pos_label=1)


def test_threshold_table_frame_form_takes_pos_label():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"p": P, "y": Y01.astype(bool)})
    got = vc.threshold_table(df, [0.5], score="p", label="y", pos_label=False)
    assert _dump(got) == _dump(vc.threshold_table(P, 1 - Y01, [0.5]))


# -- the command line ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def files(tmp_path_factory):
    d = tmp_path_factory.mktemp("pos")
    role = np.where(np.arange(N) % 2 == 0, "calib", "test")
    out = {}
    for name, lab in {"01": Y01, "yn": YS, "tf": np.where(YB, "true", "false")}.items():
        f = d / f"{name}.csv"
        f.write_text("score,label,role\n" + "\n".join(f"{float(p)!r},{y},{r}" for p, y, r in zip(P, lab, role)) + "\n")
        out[name] = str(f)
    return out


def _out(capsys, argv):
    assert main(argv) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    doc.pop("file", None)
    doc.pop("pos_label", None)  # the audit names the --pos-label it read (round 42)
    for role in doc.get("roles", {}).values():  # conformal names the --pos-label it read (round 41)
        role.pop("pos_label", None)
    return doc


@pytest.mark.parametrize("argv", [
    ["audit", "--tests"],
    ["threshold", "--target-recall", "0.9"],
    ["threshold", "--cost-fn", "9"],
    ["conformal", "--alpha", "0.1"],
])
def test_cli_pos_label_gives_the_0_1_numbers(capsys, files, argv):
    ref = _out(capsys, [argv[0], files["01"], *argv[1:], "--json", "-"])
    assert _out(capsys, [argv[0], files["yn"], *argv[1:], "--pos-label", "yes", "--json", "-"]) == ref
    assert _out(capsys, [argv[0], files["tf"], *argv[1:], "--pos-label", "true", "--json", "-"]) == ref
    assert _out(capsys, [argv[0], files["01"], *argv[1:], "--pos-label", "1", "--json", "-"]) == ref


def test_cli_report_pos_label(capsys, files, tmp_path):
    a = _out(capsys, ["report", files["01"], "--no-bootstrap", "--out", str(tmp_path / "a.html"), "--json", "-"])
    b = _out(capsys, ["report", files["yn"], "--no-bootstrap", "--out", str(tmp_path / "b.html"), "--pos-label", "yes",
                      "--json", "-"])
    a.pop("out"), b.pop("out")
    # the --pos-label page's About names the positive class (round 41): a few bytes more, the same numbers
    assert b.pop("bytes") > a.pop("bytes")
    assert a == b


@pytest.mark.parametrize("command", [["audit"], ["threshold"], ["conformal"], ["report", "--no-bootstrap"]])
@pytest.mark.parametrize("value, which, match", [
    ("Yes", "yn", "veracity {}: input error: --pos-label Yes is not among the values of column 'label' (labels) "
                  "('no', 'yes'); pass one of them"),
    ("maybe", "tf", "veracity {}: input error: --pos-label maybe is not among the values of column 'label' (labels) "
                    "(False, True); pass 'true' or 'false' (any case), or 1 or 0"),
    ("2", "01", "veracity {}: input error: --pos-label 2 is not among the values of column 'label' (labels) (0, 1); "
                "pass one of them"),
    (None, "yn", "veracity {}: input error: column 'label' (labels) must hold 0/1 numbers or booleans, got text "
                 "(values 'no', 'yes'); pass --pos-label naming the positive class, e.g. --pos-label yes"),
])
def test_cli_wrong_pos_label_exits_2_with_one_line(capsys, files, tmp_path, command, value, which, match):
    extra = ["--out", str(tmp_path / "r.html")] if command[0] == "report" else []
    flag = [] if value is None else ["--pos-label", value]
    assert main([command[0], files[which], *command[1:], *extra, *flag]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(match.format(command[0])), err


def test_cli_pos_label_refused_with_multiclass_scores(capsys, tmp_path):
    f = tmp_path / "m.csv"
    S = rng.dirichlet(np.ones(3), 40)
    f.write_text("a,b,c,label\n" + "\n".join(f"{float(r[0])!r},{float(r[1])!r},{float(1 - r[0] - r[1])!r},{i % 3}"
                                            for i, r in enumerate(S)) + "\n")
    for cmd in ("audit", "conformal"):
        assert main([cmd, str(f), "--score", "a,b,c", "--pos-label", "1"]) == 2
        assert "drop --pos-label" in capsys.readouterr().err


def test_cli_lazy_engine_pos_label_is_one_line(capsys, files):
    pytest.importorskip("duckdb")
    code = main(["audit", files["yn"], "--engine", "duckdb", "--pos-label", "yes"])
    err = capsys.readouterr().err
    if code == 0:   # the frames layer supports pos_label: the same numbers as the memory engine
        return
    assert code == 2 and err.count("\n") == 1 and "--pos-label" in err
