"""Write docs/notebooks/*.ipynb (unexecuted) from the cells below; tests/docs/test_notebooks.py runs them.

    python scripts/make_notebooks.py
"""

from __future__ import annotations

from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1] / "docs" / "notebooks"

COMPARISON = [
    ("markdown",
     '# Which model, and is it calibrated?\n'
     '\n'
     'A tabular comparison as a data scientist runs it: two scikit-learn models on the '
     'breast-cancer data (569 rows: half to train, a quarter to calibrate, a quarter to test), '
     'audited, compared on the same 142 test rows, and one recalibrated and checked on rows its '
     'calibrator never saw.'),
    ("code",
     'import numpy as np\n'
     'import veracity as vc\n'
     'from sklearn.datasets import load_breast_cancer\n'
     'from sklearn.ensemble import HistGradientBoostingClassifier\n'
     'from sklearn.linear_model import LogisticRegression\n'
     'from sklearn.pipeline import make_pipeline\n'
     'from sklearn.preprocessing import StandardScaler\n'
     '\n'
     'X, y = load_breast_cancer(return_X_y=True)\n'
     "roles = vc.split(y, roles={'train': 0.5, 'calib': 0.25, 'test': 0.25}, random_state=0)\n"
     "fit, cal, test = roles == 'train', roles == 'calib', roles == 'test'\n"
     'logreg = make_pipeline(StandardScaler(), LogisticRegression(C=0.05)).fit(X[fit], y[fit])\n'
     'hgb = HistGradientBoostingClassifier(max_iter=60, random_state=0).fit(X[fit], y[fit])\n'
     'p_lr, p_hgb = (m.predict_proba(X[test])[:, 1] for m in (logreg, hgb))'),
    ("markdown",
     "## The gradient-boosted model's audit\n"
     '\n'
     'Ten equal-width bins over its test scores. Almost every score is near 0 or 1 (50 rows '
     'below 0.1, 83 above 0.9), so of the eight bins between, one, [0.6, 0.7), is empty (left out '
     'of the table) and seven hold one to three rows each: they are flagged *insufficient* (fewer '
     'than 20 rows), and the MCE is read from the two full bins only, while the largest gap of a '
     'thin bin is shown but not acted on. The lowest bin is '
     'the one to look at: its mean score is 0.0095, but 3 of its 50 rows are positive, and the '
     '95% interval of that rate, [0.021, 0.162], lies above the score: near-zero scores from '
     'this model are too confident.'),
    ("code",
     'audit = vc.audit(p_hgb, y[test], bins=10)\n'
     'audit'),
    ("markdown",
     'The same audit as a reliability diagram: filled points are bins with at least 20 rows '
     '(area proportional to the count), hollow points the thin bins, whose intervals span most '
     'of [0, 1]; the histogram below shows where the scores are.'),
    ("code",
     'audit.plot()'),
    ("markdown",
     '## Which model?\n'
     '\n'
     'Both models scored the same test rows, so every difference is paired. `bins=10` reads the '
     "ECE on the audit's ten bins, and `random_state` fixes the resamples behind the ECE and CORP "
     'intervals (without it they change from run to run).'),
    ("code",
     "comparison = vc.compare_models({'logreg': p_lr, 'hgb': p_hgb}, y[test], bins=10, random_state=0)\n"
     'comparison'),
    ("markdown",
     'On 142 rows no headline difference is real: the Brier, log-loss, ECE and AUC intervals '
     'all contain 0 (`ece_debiased` is the ECE less an estimate of the bias that few rows per bin '
     "add, so hgb's 0.0374 is below the audit's 0.0421). The CORP split of the Brier score says a "
     'little more: '
     'the discrimination the Brier score credits, DSC, is higher for logistic regression by 0.019, '
     'with an interval just clear of 0 (the verdict calls this *higher resolution*, and adds that the '
     "AUC differs by no more than noise, p = 0.09), and the two models' "
     'calibration (MCB) differs by no more than noise.'),
    ("markdown",
     '## Does recalibration help?\n'
     '\n'
     'Platt scaling, fit on the calibration quarter only, and judged on the test rows by a '
     'ledger: a change is *better* or a *REGRESSION* only when its paired interval excludes 0. '
     "`bins=10` again: the ECE *before* is the audit's 0.0421."),
    ("code",
     'cal_hgb = vc.PlattScaling().fit(hgb.predict_proba(X[cal])[:, 1], y[cal])\n'
     'ledger = vc.compare(p_hgb, y[test], cal_hgb, bins=10)\n'
     'ledger'),
    ("markdown",
     'It does not help here. Every change is within noise (ECE slightly up, NLL and Brier slightly '
     'down). The AUC cannot move: Platt scaling is a strictly increasing map, which keeps the order '
     "of the scores. The decisions at 0.5 could (the fitted intercept moves the 0.5 cut: *can move?* "
     "says yes), but here no test row crossed it, so the accuracy is unchanged too. With 142 "
     'calibration rows and a model this sharp, the honest reading is to keep the raw scores and get '
     'more held-out labels before recalibrating.'),
]

MONITORING = [
    ("markdown",
     '# A model in production: calibration over time\n'
     '\n'
     'Predictions are logged every day for ten weeks (ISO weeks 2026-W02 to W11); outcomes '
     'arrive 30 days later, and a 3 % random audit sample is labelled the day it is scored. In '
     "week 7 the base rate doubles (0.14 to 0.28) while each class's scores keep their "
     'distribution: a *prior shift*. The scores were calibrated for the old base rate, so from '
     'then on they understate it. The store is read as of 20 March, when only the weeks up to '
     'W07 and part of W08 have final labels.'),
    ("code",
     'import os, tempfile\n'
     'import numpy as np\n'
     'import pyarrow as pa\n'
     'import veracity as vc\n'
     '\n'
     'rng = np.random.default_rng(1)\n'
     'n = 60_000\n'
     "t0 = np.datetime64('2026-01-05', 's')\n"
     "t = t0 + rng.integers(0, 70 * 86400, n).astype('timedelta64[s]')\n"
     "week = ((t - t0) // np.timedelta64(7 * 86400, 's')).astype(int)\n"
     "# a prior shift: the base rate doubles from week 7 (0.14 -> 0.28) while each class's "
     'scores keep\n'
     '# their distribution (evidence s | y ~ N(+-1, 1)); p is calibrated for the old base rate\n'
     'base = np.where(week >= 5, 0.28, 0.14)\n'
     'y = (rng.random(n) < base).astype(np.int8)\n'
     's = rng.normal(np.where(y == 1, 1.0, -1.0), 1.0)\n'
     'p = 1 / (1 + np.exp(-(2 * s + np.log(0.14 / 0.86))))\n'
     "store = vc.MonitorStore(os.path.join(tempfile.mkdtemp(), 'monitor.duckdb'))\n"
     "store.log(pa.table({'id': np.arange(n), 'ts': t, 'p': p}), id='id', time='ts', "
     "score='p')\n"
     "observed = t + np.timedelta64(30 * 86400, 's')\n"
     "final = observed <= np.datetime64('2026-03-20')\n"
     "store.outcomes(pa.table({'id': np.arange(n)[final], 'y': y[final], 'ts': "
     'observed[final]}),\n'
     "               id='id', label='y', time='ts')\n"
     'audit = ~final & (rng.random(n) < 0.03)\n'
     "store.outcomes(pa.table({'id': np.arange(n)[audit], 'y': y[audit], 'ts': t[audit]}),\n"
     "               id='id', label='y', time='ts', audit_sample=True)"),
    ("markdown",
     '## Status per week\n'
     '\n'
     'W02–W06 are calibrated: the observed rate matches the mean score (about 0.14). In W07 and '
     'W08 the observed rate is 0.28 while the mean score is 0.20: both weeks alert, and the '
     'diagnosis (its full sentence under *as text*) is a prior shift, with the fix '
     '`vc.adjust_prior`. W09–W11 have no final label yet: they are *pending*, never counted as '
     'negatives. The table\'s *conf (labelled rows)* is the mean score of the rows its *rate* '
     'reads, so it is n/a for them; the column *mean score (all rows)* at the right gives the '
     'mean score of all of a week\'s rows, which needs no label (the text under *as text* shows it '
     'starred in *conf*). In W08 the two differ: its 1,711 labelled rows average 0.1997, all 5,908 '
     'average 0.2046. The label-free estimates for the pending rows are withdrawn (under *as '
     'text*, in one line for W08..W11: they assume the old base rate); the PPI estimates, from '
     'the audit labels together with every score, take their place (*PPI rate (all rows)*: the '
     'rate of all of a week\'s rows, labelled or not) and are valid whether or not the scores are '
     'calibrated. Each is set against the mean score of '
     "the same rows: W09's PPI rate 0.32 [0.28, 0.37] against a mean score of 0.21 (under *as "
     "text*: a gap of +0.12 [+0.07, +0.16]), in line with W07's final +0.08: the scores still "
     'understate the rate.\n'
     '\n'
     "Below the weekly table come the last week's rows by score bin. None of W11's rows has a "
     'final label yet, so each *rate* is n/a; a PPI rate needs at least 30 audit labels in its '
     'bin, which only the lowest bin has; and the *bounds* on rate − score are anytime-valid '
     "bounds on the mean of y − p over all of the bin's final labels so far (most of them from "
     "the weeks before the shift), not over W11's rows."),
    ("code",
     "status = store.status(freq='W', as_of='2026-03-20', horizon='30d')\n"
     'status'),
    ("markdown",
     'Top: the observed rate of each week with its 95% interval, the mean score of its labelled '
     'rows as a short black line, alerts circled, and the PPI estimates (green) for the weeks '
     'whose labels are not final, each with the mean score of all the week\'s rows beside it '
     '(a thicker black line). Middle: the gap between rate and score against the band the '
     'scores promise at the alert level, and in green the PPI rate minus the mean score with its '
     '95% interval. Bottom: labelled and pending rows per week.'),
    ("code",
     'status.plot()'),
    ("markdown",
     '## Alerts you may look at every day\n'
     '\n'
     "With `alerts='sequential'` the alerts come from anytime-valid confidence sequences on the "
     'mean of y − p over the final labels, so the status may be read as often as you like '
     'without inflating false alarms. `sequence_alarms` gives, per slice (here only `(all)`), '
     'the first day the sequence left the calibrated region, how many final labels it had by '
     'then, and its bounds on y − p that day: on 17 March, once the labels of W07 were in, the '
     'lower bound rose above 0. It is a dict (`alarms[\'(all)\'][\'day\']`, the same JSON as '
     'before) that shows as the line the status text prints.'),
    ("code",
     "store.status(freq='W', as_of='2026-03-20', horizon='30d', "
     "alerts='sequential').sequence_alarms"),
    ("markdown",
     '## How many labels to buy\n'
     '\n'
     'For each week still waiting for labels: how many rows to label at random for a 95% PPI '
     'interval of the rate 0.05 wide, against labels alone. PPI needs a little over half as '
     'many (about 530–560 instead of about 1,000). The plan assumes calibrated scores; after '
     'this prior shift they are not, which widens the interval, so buy some margin.'),
    ("code",
     "store.plan(width=0.05, as_of='2026-03-20', horizon='30d')"),
]


SEGMENTS_DELAYED = [
    ("markdown",
     '# Which segment is wrong, and how calibrated is it before the labels arrive?\n'
     '\n'
     'The bundled demo: 6,000 scored loan applications, January to June 2026, in three segments '
     '(mobile, web, partner), half of them marked for calibration and half for testing. June is the '
     'latest month: pretend its labels have not arrived yet. The months before it are searched for '
     'miscalibrated segments, recalibrated, and searched again; June is then estimated from a small '
     'random sample labelled on purpose.'),
    ("code",
     'import numpy as np\n'
     'import veracity as vc\n'
     '\n'
     'd = vc.load_demo()\n'
     "june = d['month'] == '2026-06'  # the latest month: its labels have not arrived\n"
     "calib = (d['role'] == 'calib') & ~june\n"
     "test = (d['role'] == 'test') & ~june\n"
     "p, y = d['score'][test], d['label'][test]\n"
     "features = {'segment': d['segment'][test], 'month': d['month'][test]}"),
    ("markdown",
     '## Which segment is wrong?\n'
     '\n'
     '`vc.segments` tests every segment, each month and each segment-month pair against its own mean '
     'score, with the false-discovery rate held at 0.05 across all of them.'),
    ("code",
     'raw = vc.segments(p, y, features=features)\n'
     'raw'),
    ("markdown",
     "One segment is a discovery, March: its rate is 0.049 below its mean score, with an interval "
     "[-0.081, -0.013] that excludes 0. It is not alone in leaning that way: 19 of the 23 segments' "
     'gaps are negative, because the raw scores overstate the rate everywhere (the mean score of these '
     '2,512 test rows is 0.2463, their rate 0.2233), and the multicalibration error is far beyond what '
     'calibrated scores show (p <= 0.005). So the first fix is global, not March\'s. The picture: each '
     'segment\'s gap with its interval, discoveries in orange.'),
    ("code",
     'raw.plot()'),
    ("markdown",
     '## Is the recalibrated model better?\n'
     '\n'
     'Platt scaling, fit on the calibration rows only, judged on the test rows by a ledger: a change '
     'is *better* only when its paired interval excludes 0.'),
    ("code",
     "platt = vc.PlattScaling().fit(d['score'][calib], d['label'][calib])\n"
     'vc.compare(p, y, platt)'),
    ("markdown",
     'It is: the ECE falls from 0.101 to 0.025, and the log-loss and the Brier score fall too, '
     'each interval clear of 0; the accuracy at 0.5 rises by 0.022 [0.010, 0.034] (the fit moves '
     'the 0.5 cut), and the AUC cannot move (the map keeps the order of the scores). After it, '
     'no segment is distinguishable from calibrated, March included, and the multicalibration error is '
     'within what calibrated scores show (p = 0.5). That is no proof that every segment is right: '
     "the text gives the gaps the segments' tests would find 80 % of the time: 0.029 to 0.13, "
     'depending on their size.'),
    ("code",
     'after = vc.segments(platt.transform(p), y, features=features)\n'
     'after'),
    ("code",
     'after.plot()'),
    ("markdown",
     '## How calibrated is June before its labels arrive?\n'
     '\n'
     "June's 975 applications are scored and recalibrated; 150 of them, drawn at random, are labelled "
     'now. PPI++ combines those 150 outcomes with every score: its estimate of the rate is valid '
     'whether or not the scores are calibrated. The label-free estimate (CBPE, the mean score) is '
     'valid only if they are, and the *rectifier* (the mean of outcome − score over the 150) tests '
     'exactly that.'),
    ("code",
     'rng = np.random.default_rng(0)\n'
     "q, june_y = platt.transform(d['score'][june]), d['label'][june]\n"
     'audit = rng.choice(q.size, 150, replace=False)  # labelled now, drawn at random\n'
     'rest = np.setdiff1d(np.arange(q.size), audit)\n'
     'ppi = vc.ppi_mean(june_y[audit], q[audit], q[rest])\n'
     'ppi'),
    ("markdown",
     'The 150 labels alone say 0.287 [0.214, 0.359]; PPI++ says 0.248 [0.183, 0.313], narrower because '
     'the scores explain part of the outcome. The rectifier, +0.028 [-0.035, +0.091], includes 0: '
     'no evidence that the recalibrated scores are off in June, so the label-free 0.226 may be read '
     'too, with a caveat: that interval is 0.13 wide and reaches +0.091, so 150 labels cannot rule out '
     "scores that understate June's rate by 0.05 (overstating it by more than 0.035 they do rule out). "
     "The picture shows the three intervals; the last cell reveals June's rate once every label is in."),
    ("code",
     'ppi.plot()'),
    ("code",
     "print(f\"June's rate, once all {june_y.size} labels are in: {june_y.mean():.4f}\")"),
]

def _notebook(cells: list[tuple[str, str]], old: Path | None = None) -> nbformat.NotebookNode:
    """The notebook of ``cells``; a cell whose kind and source are those of a cell of the notebook at ``old``
    keeps that cell's id (nbformat draws new ids at random: a regenerated notebook would otherwise differ in
    every cell, the unchanged ones too)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell(src) if kind == "markdown" else nbformat.v4.new_code_cell(src)
                for kind, src in cells]
    if old is not None and old.exists():
        ids: dict[tuple[str, str], list[str]] = {}
        for cell in nbformat.read(old, as_version=4).cells:
            if "id" in cell:
                ids.setdefault((cell.cell_type, cell.source), []).append(cell.id)
        for cell in nb.cells:  # the same source twice: its ids in order
            kept = ids.get((cell.cell_type, cell.source))
            if kept:
                cell.id = kept.pop(0)
    return nb


def main() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    for name, cells in (("comparison", COMPARISON), ("monitoring", MONITORING),
                        ("segments_delayed", SEGMENTS_DELAYED)):
        path = ROOT / f"{name}.ipynb"
        nbformat.write(_notebook(cells, path), path)
        print(f"wrote {ROOT / f'{name}.ipynb'}")


if __name__ == "__main__":
    main()
