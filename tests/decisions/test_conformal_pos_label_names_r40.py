"""Round 40: conformal coverage of 1-D binary scores read with pos_label=0 printed its class table by
index, and class 0 holds the rows labelled 1: "class 0 ... 112 rows" read as 112 rows of label 0 (there
were 88). The table (and the class shortfall line) now name each class by the labels it holds, in Python
and in `veracity conformal --pos-label`; without pos_label nothing changes."""

from __future__ import annotations

import numpy as np

import veracity as vc
from veracity.cli import main


def _rows(seed: int = 3, n: int = 400) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=n)
    return p, (rng.uniform(size=n) < p).astype(int)


def test_python_report_names_the_classes_by_pos_label():
    p, y = _rows()
    cp = vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200], pos_label=0)  # p: the probability of label 0
    text = str(cp.coverage(p[200:], y[200:]))
    lines = text.splitlines()
    n1, n0 = int((y[200:] == 1).sum()), int((y[200:] == 0).sum())
    assert lines[1].split()[:5] == ["0", "(label", "not", "0)", str(n1)]  # class 0: the rows labelled 1
    assert lines[2].split()[:4] == ["1", "(label", "0)", str(n0)]
    plain = str(vc.ConformalClassifier(alpha=0.1).fit(p[:200], y[:200]).coverage(p[200:], y[200:]))
    assert plain.splitlines()[1].split()[0] == "0" and "(label" not in plain


def test_cli_table_names_the_classes_by_pos_label(tmp_path, capsys):
    p, y = _rows()
    path = tmp_path / "rows.csv"
    path.write_text("p,y,role\n" + "".join(f"{float(a)!r},{b},{'calib' if i < 200 else 'test'}\n"
                                           for i, (a, b) in enumerate(zip(p, y))))
    assert main(["conformal", str(path), "--score", "p", "--label", "y", "--pos-label", "0", "-q"]) == 0
    out = capsys.readouterr().out
    assert "\n0 (label not 0)" in out and "\n1 (label 0)" in out
