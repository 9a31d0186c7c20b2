"""``veracity audit --pos-label X`` names the positive class it read (round 42).

Before, the printout and the JSON never said which class was positive: ``--pos-label no`` on scores of
"yes" printed a base rate of the no's, ECE 0.50 and AUC 0.16 under a header that named no class, so the
reader could not tell a bad model from classes read the other way round."""
import json

import numpy as np


def _csv(tmp_path) -> str:
    rng = np.random.default_rng(0)
    p = rng.uniform(size=200)
    y = np.where(rng.uniform(size=200) < p, "yes", "no")
    path = tmp_path / "t.csv"
    path.write_text("p,y\n" + "".join(f"{float(a)!r},{b}\n" for a, b in zip(p, y)))
    return str(path)


def test_the_printout_names_the_positive_class(cli, tmp_path):
    result = cli(["audit", _csv(tmp_path), "--score", "p", "--label", "y", "--pos-label", "no",
                  "--bins", "5"])
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0].startswith("Calibration audit: 200 rows, base rate")
    assert lines[1] == ("(positive class: y = no, from --pos-label; the base rate and every number read the "
                        "scores as P(y = no))")


def test_the_json_names_the_positive_class(cli, tmp_path):
    result = cli(["audit", _csv(tmp_path), "--score", "p", "--label", "y", "--pos-label", "yes",
                  "--json", "-"])
    assert result.code == 0, result.err
    payload = json.loads(result.out)
    assert payload["pos_label"] == "yes"
    assert list(payload)[:4] == ["file", "score", "label", "pos_label"]


def test_without_pos_label_nothing_changes(cli, tmp_path):
    path = tmp_path / "i.csv"
    path.write_text("p,y\n0.2,0\n0.7,1\n0.9,1\n")
    result = cli(["audit", str(path), "--score", "p", "--label", "y", "--json", "-"])
    assert result.code == 0 and "pos_label" not in json.loads(result.out)
    assert "positive class" not in cli(["audit", str(path), "--score", "p", "--label", "y"]).out


def test_the_database_route_names_it_too(cli, tmp_path):
    import sqlite3

    db = tmp_path / "s.db"
    con = sqlite3.connect(db)
    con.execute("create table t (p real, y text)")
    con.executemany("insert into t values (?, ?)", [(0.2, "no"), (0.7, "yes"), (0.9, "yes"), (0.4, "no")])
    con.commit()
    con.close()
    args = ["audit", "--sql-url", f"sqlite:///{db}", "--table", "t", "--score", "p", "--label", "y",
            "--pos-label", "yes", "--bins", "3"]
    text = cli(args)
    assert text.code == 0, text.err
    assert text.out.splitlines()[1].startswith("(positive class: y = yes, from --pos-label;")
    assert json.loads(cli([*args, "--json", "-"]).out)["pos_label"] == "yes"
