"""``veracity compare FILE --against B`` with no ``--score``: every other command (and compare with a
calibrator, last) reads a column named ``score`` by default, but with ``--against`` model A has no default.
The refusal said only "name model A's score column with --score", the same words for ``--score ''`` (a name
given, of no column); it now says --score has no default there, and an empty name is refused as one.
With ``--calibrator``, ``--score ''`` was taken as not given: the calibrator's own column was measured,
silently; it is refused as every other command refuses an empty --score (r34)."""

import json


def _file(tmp_path):
    path = tmp_path / "two.csv"
    path.write_text("score,p_new,y\n" + "".join(f"{(i % 9 + 1) / 10},{(i * 7 % 9 + 1) / 10},{i % 2}\n"
                                                   for i in range(40)))
    return str(path)


def test_no_score_with_against_says_there_is_no_default(tmp_path, cli, refused):
    r = cli(["compare", _file(tmp_path), "--against", "p_new", "--label", "y"])
    refused(r, r"--score has no default with it \(a 'score' column is not taken as model A\): name model A's "
               r"score column with --score")


def test_an_empty_score_with_against_names_no_column(tmp_path, cli, refused):
    for empty in ("", " "):
        r = cli(["compare", _file(tmp_path), "--against", "p_new", "--label", "y", "--score", empty])
        refused(r, rf"--score '{empty}' names no column: name model A's score column with --score")
        assert "no default" not in r.err


def test_named_score_with_against_still_runs(tmp_path, cli):
    r = cli(["compare", _file(tmp_path), "--against", "p_new", "--label", "y", "--score", "score",
             "--n-resamples", "0", "--json"])
    assert r.code == 0, r.err
    assert json.loads(r.out)["eval_rows"] == 40


def test_an_empty_score_with_a_calibrator_is_refused_not_its_column(tmp_path, cli, refused):
    cal = tmp_path / "cal.json"
    assert cli(["fit", "--method", "platt", "--out", str(cal)]).code == 0
    r = cli(["compare", "--calibrator", str(cal), "--score", "", "--n-resamples", "0"])
    refused(r, r"--score needs a column name")
    ok = cli(["compare", "--calibrator", str(cal), "--n-resamples", "0", "--json"])  # not given: its column
    assert ok.code == 0, ok.err
