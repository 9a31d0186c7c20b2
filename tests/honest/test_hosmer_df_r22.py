"""Round 22: a Monte-Carlo Hosmer–Lemeshow p-value is not presented with a chi-square df.

When a group expects fewer than 5 events or non-events the p-value comes from redrawn labels, not from
:math:`\\chi^2_{df}`; yet ``to_dict`` (the JSON of ``vc.hosmer_lemeshow``, ``vc.audit(tests=True)`` and
``veracity audit --tests --json``) and the notebook view still gave ``"df": 10`` beside that p-value, so
a reader took it for a chi-square test on 10 degrees of freedom. ``method`` names the law; in
Monte-Carlo mode the key ``df`` stays (compatibility) and is null. The chi-square mode is unchanged.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from scipy import stats

import veracity as vc
from veracity.cli import main


def _rare(n=200, seed=3):
    rng = np.random.default_rng(seed)
    p = rng.beta(1.0, 9.0, n)  # the lowest groups expect well under 5 events: Monte Carlo
    y = (rng.random(n) < p).astype(int)
    return p, y


def test_monte_carlo_json_has_no_chi_square_df():
    p, y = _rare()
    t = vc.hosmer_lemeshow(p, y)
    assert t.method == "monte-carlo" and t.min_expected < 5
    d = json.loads(json.dumps(t.to_dict()))
    assert d["method"] == "monte-carlo"
    assert "df" in d and d["df"] is None  # the key stays; no chi-square df for a Monte-Carlo p-value
    # the p-value is not the chi-square one a df would suggest (the redraws' own)
    assert d["p_value"] == t.p_value
    # the printout names the law and gives no df
    assert "Monte-Carlo p" in str(t) and "df" not in str(t)
    # nor does the notebook view show a df value
    html = t._repr_html_()
    assert "<b>df</b>10" not in html and "<b>method</b>monte-carlo" in html


def test_chi_square_mode_keeps_its_df():
    p, y = _rare()
    t = vc.hosmer_lemeshow(p, y, df=8)  # df given: the chi-square law, whatever the counts
    d = t.to_dict()
    assert d["method"] == "chi-square" and d["df"] == 8
    assert d["p_value"] == pytest.approx(stats.chi2.sf(t.statistic, 8), rel=1e-12)
    rng = np.random.default_rng(5)
    q = rng.uniform(0.3, 0.7, 2000)  # every group expects far more than 5 of each: chi-square by default
    z = (rng.random(q.size) < q).astype(int)
    t = vc.hosmer_lemeshow(q, z)
    assert t.method == "chi-square" and t.to_dict()["df"] == 10 and "df = 10" in str(t)


def test_audit_tests_json_monte_carlo_df_is_null(tmp_path, capsys):
    p, y = _rare()
    audit = vc.audit(p, y, tests=True).to_dict()
    hl = audit["tests"]["hosmer_lemeshow"] if "tests" in audit else audit["extras"]["tests"]["hosmer_lemeshow"]
    assert hl["method"] == "monte-carlo" and hl["df"] is None
    path = tmp_path / "rare.csv"
    path.write_text("p,y\n" + "".join(f"{float(a)!r},{int(b)}\n" for a, b in zip(p, y)))
    code = main(["audit", str(path), "--score", "p", "--label", "y", "--tests", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    doc = json.loads(out)
    hl = doc["tests"]["hosmer_lemeshow"]
    assert hl["method"] == "monte-carlo" and hl["df"] is None
