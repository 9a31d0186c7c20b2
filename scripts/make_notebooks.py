"""Write docs/notebooks/*.ipynb (unexecuted) from the cells below; tests/docs/test_notebooks.py runs them.

    python scripts/make_notebooks.py
"""

from __future__ import annotations

from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1] / "docs" / "notebooks"

COMPARISON = [
    ("markdown", "# Which model, and is it calibrated?\n\nA tabular comparison as a data scientist runs it: two "
                 "scikit-learn models on the breast-cancer data, audited, compared on the same rows, one repaired."),
    ("code", "import numpy as np\nimport veracity as vc\nfrom sklearn.datasets import load_breast_cancer\n"
             "from sklearn.ensemble import HistGradientBoostingClassifier\n"
             "from sklearn.linear_model import LogisticRegression\nfrom sklearn.pipeline import make_pipeline\n"
             "from sklearn.preprocessing import StandardScaler\n\n"
             "X, y = load_breast_cancer(return_X_y=True)\n"
             "roles = vc.split(y, roles={'train': 0.5, 'calib': 0.25, 'test': 0.25}, random_state=0)\n"
             "fit, cal, test = roles == 'train', roles == 'calib', roles == 'test'\n"
             "logreg = make_pipeline(StandardScaler(), LogisticRegression(C=0.05)).fit(X[fit], y[fit])\n"
             "hgb = HistGradientBoostingClassifier(max_iter=60, random_state=0).fit(X[fit], y[fit])\n"
             "p_lr, p_hgb = (m.predict_proba(X[test])[:, 1] for m in (logreg, hgb))"),
    ("code", "audit = vc.audit(p_hgb, y[test], bins=10)\naudit"),
    ("code", "audit.plot()"),
    ("code", "comparison = vc.compare_models({'logreg': p_lr, 'hgb': p_hgb}, y[test])\ncomparison"),
    ("code", "cal_hgb = vc.PlattScaling().fit(hgb.predict_proba(X[cal])[:, 1], y[cal])\n"
             "ledger = vc.compare(p_hgb, y[test], cal_hgb)\nledger"),
]

MONITORING = [
    ("markdown", "# A model in production: calibration over time\n\nPredictions are logged every day; outcomes "
                 "arrive 30 days later, a 3 % random audit sample within a day. In week 7 the base rate doubles."),
    ("code", "import os, tempfile\nimport numpy as np\nimport pyarrow as pa\nimport veracity as vc\n\n"
             "rng = np.random.default_rng(1)\nn = 60_000\nt0 = np.datetime64('2026-01-05', 's')\n"
             "t = t0 + rng.integers(0, 70 * 86400, n).astype('timedelta64[s]')\n"
             "week = ((t - t0) // np.timedelta64(7 * 86400, 's')).astype(int)\n"
             "logit = rng.normal(-2.2, 1.2, n)\np = 1 / (1 + np.exp(-logit))\n"
             "y = (rng.random(n) < 1 / (1 + np.exp(-(logit + np.where(week >= 5, np.log(2.2), 0))))).astype(np.int8)\n"
             "store = vc.MonitorStore(os.path.join(tempfile.mkdtemp(), 'monitor.duckdb'))\n"
             "store.log(pa.table({'id': np.arange(n), 'ts': t, 'p': p}), id='id', time='ts', score='p')\n"
             "observed = t + np.timedelta64(30 * 86400, 's')\nfinal = observed <= np.datetime64('2026-03-20')\n"
             "store.outcomes(pa.table({'id': np.arange(n)[final], 'y': y[final], 'ts': observed[final]}),\n"
             "               id='id', label='y', time='ts')\n"
             "audit = ~final & (rng.random(n) < 0.03)\n"
             "store.outcomes(pa.table({'id': np.arange(n)[audit], 'y': y[audit], 'ts': t[audit]}),\n"
             "               id='id', label='y', time='ts', audit_sample=True)"),
    ("code", "status = store.status(freq='W', as_of='2026-03-20', horizon='30d')\nstatus"),
    ("code", "status.plot()"),
    ("code", "store.status(freq='W', as_of='2026-03-20', horizon='30d', alerts='sequential').sequence_alarms"),
    ("code", "store.plan(width=0.05, as_of='2026-03-20', horizon='30d')"),
]


def _notebook(cells: list[tuple[str, str]]) -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
                for kind, src in cells]
    return nb


def main() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    for name, cells in (("comparison", COMPARISON), ("monitoring", MONITORING)):
        nbformat.write(_notebook(cells), ROOT / f"{name}.ipynb")
        print(f"wrote {ROOT / f'{name}.ipynb'}")


if __name__ == "__main__":
    main()
