"""The notebooks in docs/notebooks run in a fresh Jupyter kernel and read right (issue 22).

Each notebook is executed with nbclient (a real ipykernel, no ``%matplotlib inline``, no
pyplot import); the assertions check what a user reads: every result renders as HTML, every
``.plot()`` as a PNG, and the numbers that tell the story are there (segments_delayed: against a direct
computation on the demo data where the prose states one). The notebooks are
written by ``scripts/make_notebooks.py``.
"""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")
pytest.importorskip("sklearn")

NOTEBOOKS = Path(__file__).resolve().parents[2] / "docs" / "notebooks"


def _run(notebook, name: str) -> list:
    """The code cells of the notebook executed (once per run: the ``notebook`` fixture of conftest.py);
    none shows an error or a warning."""
    cells = [c for c in notebook(name).cells if c.cell_type == "code"]
    for c in cells:
        assert not [o for o in c.outputs if o.output_type == "error"], c.source
        assert not [o for o in c.outputs if o.output_type == "stream" and o.name == "stderr"
                    and "Warning" in o.text], c.source
    return cells


def _data(cell) -> dict:
    out = [o for o in cell.outputs if o.output_type == "execute_result"]
    assert out, cell.source
    return out[-1]["data"]


def _png(cell, path: Path) -> None:
    data = _data(cell)
    assert "image/png" in data, f"{cell.source!r} shows only {data.get('text/plain')!r}"
    path.write_bytes(base64.b64decode(data["image/png"]))
    assert path.stat().st_size > 5000  # a drawn figure, not an empty canvas


def _rows(text: str, first: str) -> dict[str, list[str]]:
    """The lines of a printed table whose first field starts with ``first``, keyed by that field."""
    return {line.split()[0]: line.split() for line in text.splitlines() if line.startswith(first)}


def _interval(text: str, row: str) -> tuple[float, float]:
    line = next(ln for ln in text.splitlines() if ln.startswith(row + " "))
    found = re.search(r"\[([-+]?[0-9.]+), ([-+]?[0-9.]+)\]", line)
    assert found, line
    return float(found[1]), float(found[2])


def test_comparison_notebook(notebook, tmp_path):
    cells = _run(notebook, "comparison")
    audit, audit_plot, comparison, ledger = cells[1:5]
    html = _data(audit)["text/html"]
    assert "Calibration audit" in html and "ECE" in html and "<table" in html
    # the prose: 50 rows below 0.1 and 83 above 0.9, the eight bins between thin and flagged, and
    # the lowest bin's interval of the observed rate above its mean score
    text = _data(audit)["text/plain"]
    table = text.split("\n(")[0]
    bins = _rows(table, "[")
    assert bins["[0.0,0.1)"][1] == "50" and bins["[0.9,1.0]"][1] == "83"
    thin = [b for b in bins.values() if b[-1] == "insufficient"]
    assert len(thin) == len(bins) - 2 and all(int(b[1]) <= 3 for b in thin)
    low = bins["[0.0,0.1)"]
    assert float(low[5].strip("[,")) > float(low[2])
    _png(audit_plot, tmp_path / "audit.png")
    html = _data(comparison)["text/html"]
    assert "hgb" in html and "logreg" in html and "brier" in html.lower()
    # seeded, so the printed intervals are the same on every run; no headline difference is real,
    # logreg ranks better (DSC interval clear of 0), calibration differs by no more than noise
    text = _data(comparison)["text/plain"]
    assert "random_state 0" in text
    for metric in ("brier", "log_loss", "ece_debiased", "auc"):
        lo, hi = _interval(text, metric)
        assert lo < 0 < hi, metric
    assert "logreg has the higher resolution" in text and "calibration differs by no more than noise" in text
    assert "the AUC does not differ beyond noise" in text
    html = _data(ledger)["text/html"]
    assert "PlattScaling" in html and "AUC" in html
    # "it does not help here": every change within noise, AUC and the 0.5 decisions unchanged
    verdicts = _rows(_data(ledger)["text/plain"], "")
    for metric in ("ECE", "NLL", "Brier"):
        assert " ".join(verdicts[metric][7:9]) == "within noise", verdicts[metric]
    assert verdicts["AUC"][7] == "same" and verdicts["accuracy@0.5"][7] == "same"
    assert "REGRESSION" not in _data(ledger)["text/plain"]


def test_monitoring_notebook(notebook, tmp_path):
    cells = _run(notebook, "monitoring")
    _, status, status_plot, alarms, plan = cells
    html = _data(status)["text/html"]
    assert "2026-W08" in html and "PPI rate" in _data(status)["text/plain"]
    text = _data(status)["text/plain"]
    assert "prior shift" in text
    # the prose: W02-W06 calibrated at about 0.14, W07-W08 alert at a rate of 0.28 against a mean
    # score of 0.20, W09-W11 pending, the label-free estimates withdrawn
    weeks = _rows(text, "2026-W")
    assert list(weeks) == [f"2026-W{w:02d}" for w in range(2, 12)]
    for w in range(2, 7):
        row = weeks[f"2026-W0{w}"]
        assert row[-1] == "ok" and abs(float(row[5]) - float(row[4])) < 0.01
        assert abs(float(row[4]) - 0.14) < 0.01
    for w in ("2026-W07", "2026-W08"):
        row = weeks[w]
        assert row[-1] == "alert" and abs(float(row[5]) - 0.28) < 0.01 and abs(float(row[4]) - 0.20) < 0.01
        assert f"ALERT {w}: calibration" in text
    assert [weeks[f"2026-W{w:02d}"][-1] for w in (9, 10, 11)] == ["pending"] * 3
    # said once, for the run of weeks it applies to (session 23: it was repeated for each of the four)
    assert text.count(": withdrawn: prior shift") == 1 and "2026-W08..2026-W11: withdrawn: prior shift" in text
    _png(status_plot, tmp_path / "status.png")
    assert "(all)" in _data(alarms)["text/plain"]
    # the prose: the sequence left the calibrated region once W07's labels were in, lower bound above 0
    # a readable line (session 23: it showed a dict of 16-digit floats), the dict's values rounded
    alarm = re.search(r"\[\(all\)\] left the calibrated region on (\S+) \(after ([\d,]+) final labels; "
                      r"bounds \[([-+][\d.]+), ([-+][\d.]+)\]\)", _data(alarms)["text/plain"])
    assert alarm, _data(alarms)["text/plain"]
    assert float(alarm[3]) > 0 and alarm[1] == "2026-03-17"  # no score bin named: the overall sequence
    assert int(alarm[2].replace(",", "")) == sum(int(weeks[f"2026-W0{w}"][2]) for w in range(2, 8))
    assert "labels (PPI)" in _data(plan)["text/html"] or "labels (PPI)" in _data(plan)["text/plain"]
    # the prose: PPI needs a little over half the labels that labels alone need
    need = _rows(_data(plan)["text/plain"], "2026-W")
    assert list(need) == ["2026-W08", "2026-W09", "2026-W10", "2026-W11"]
    for row in need.values():
        ppi, classical = (int(v.replace(",", "")) for v in row[4:6])
        assert 0.5 < ppi / classical < 0.6


def test_segments_delayed_notebook(notebook, tmp_path):
    import numpy as np

    import veracity as vc

    cells = _run(notebook, "segments_delayed")
    _, raw, raw_plot, ledger, after, after_plot, ppi, ppi_plot, reveal = cells
    # the prose's numbers, against a direct computation on the same rows
    d = vc.load_demo()
    june = d["month"] == "2026-06"
    test = (d["role"] == "test") & ~june
    p, y = d["score"][test], d["label"][test]
    assert (f"{p.mean():.4f}", f"{y.mean():.4f}", f"{test.sum():,}") == ("0.2463", "0.2233", "2,512")
    march = d["month"][test] == "2026-03"
    assert round(y[march].mean() - p[march].mean(), 3) == -0.049
    # one discovery, March, its interval clear of 0; 19 of 23 gaps negative; the MCE beyond noise
    text = _data(raw)["text/plain"]
    assert "1 miscalibrated segment" in text and "p <= 0.005" in text
    found = _rows(text, "month=")
    assert list(found) == ["month=2026-03"] and found["month=2026-03"][-1] == "discovery"
    assert _interval(text, "month=2026-03") == (-0.081, -0.013)
    _png(raw_plot, tmp_path / "raw.png")
    # the recalibration is better: ECE, NLL, Brier and accuracy@0.5 intervals clear of 0, the AUC the same
    verdicts = _rows(_data(ledger)["text/plain"], "")
    assert (verdicts["ECE"][1], verdicts["ECE"][2]) == ("0.1011", "0.0249")
    for metric in ("ECE", "NLL", "Brier", "accuracy@0.5"):
        assert verdicts[metric][7] == "better", verdicts[metric]
    # (Newcombe's and the exact conditional interval's hull since session 44; the t: [+0.0099, +0.0339])
    assert verdicts["accuracy@0.5"][3:6] == ["+0.0219", "[+0.0095,", "+0.0340]"]
    assert verdicts["AUC"][7] == "same"
    # after it: no discovery, the MCE within noise, the detectable gaps 0.029 to 0.13
    text = _data(after)["text/plain"]
    assert "no segment is distinguishable from calibrated" in text and "p = 0.505" in text
    assert "run from 0.0290 to 0.1312" in text
    _png(after_plot, tmp_path / "after.png")
    # June: PPI++ 0.248 [0.183, 0.313] from 150 labels, labels alone 0.287 [0.214, 0.359], CBPE 0.226 of all
    # 975 scores, the rectifier's interval (0.13 wide) includes 0; the realised rate lies in PPI's interval
    text = _data(ppi)["text/plain"]
    assert _interval(text, "ppi") == (0.1831, 0.3125) and _interval(text, "classical") == (0.2143, 0.359)
    lo, hi = _interval(text, "rectifier")
    assert lo < 0 < hi and round(hi - lo, 2) == 0.13
    assert "not calibrated" not in text
    assert _rows(text, "cbpe")["cbpe"][1] == "0.2258"
    _png(ppi_plot, tmp_path / "ppi.png")
    rate = float(reveal.outputs[0].text.split()[-1])
    assert 0.1831 < rate < 0.3125 and rate == round(float(np.mean(d["label"][june])), 4)
