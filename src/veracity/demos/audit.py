r"""``veracity demo audit`` — a two-minute walk-through on the bundled data.

The bundled file holds 6,000 scored loan applications split into a ``calib``
and a ``test`` role (``vc.load_demo()``). The walk-through audits the test rows,
fits temperature scaling on the calib rows (the ``logit`` column), prints the
before/after ledger on test, and turns the repaired probabilities into
decisions with a threshold table. Every step is one public call::

    d = vc.load_demo()
    vc.audit(d["score"][test], d["label"][test])
    ts = vc.TemperatureScaling(score_type="logit").fit(d["logit"][calib], d["label"][calib])
    vc.compare(d["logit"][test], d["label"][test], ts, score_type="logit")
    vc.threshold_table(ts.transform(d["logit"][test]), d["label"][test], [...], cost_fn=4)
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import veracity as vc

from ._rounding import rounded_down

COST_FP, COST_FN = 1.0, 4.0  # a missed default costs 4x a needless review
RECALL_TARGET = 0.90


@dataclass(frozen=True, eq=False)
class AuditDemo:
    """What the walk-through computed (tests read these; ``text`` is the printout)."""

    audit: Any
    calibrator: Any
    ledger: Any
    thresholds: dict[str, float]
    table: Any
    after: Any
    text: str
    figures: list[Path] = field(default_factory=list)


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def run(plots: str | Path | None = None) -> AuditDemo:
    d = vc.load_demo()
    calib, test = d["role"] == "calib", d["role"] == "test"
    y = d["label"]
    out: list[str] = []
    out.append("veracity demo audit — the bundled data: "
               f"{len(y):,} scored loan applications ({int(calib.sum()):,} calib, "
               f"{int(test.sum()):,} test)")

    # [1] audit
    audit = vc.audit(d["score"][test], y[test])
    out.append("\n[1] audit the test rows:  vc.audit(score[test], label[test])")
    out.append(_indent(str(audit)))

    # [2] repair on calib
    ts = vc.TemperatureScaling(score_type="logit")
    ts.fit(d["logit"][calib], y[calib])
    tau = float(ts.temperature_)
    verdict = ("> 1: the scores were OVERconfident" if tau > 1
               else "< 1: the scores were underconfident")
    out.append("\n[2] repair on calib only:  "
               "vc.TemperatureScaling(score_type='logit').fit(logit[calib], label[calib])")
    out.append(f"    τ = {tau:.4f} ({verdict}); calib NLL {ts.nll_before_:.4f} → "
               f"{ts.nll_after_:.4f}")

    # [3] ledger on test
    ledger = vc.compare(d["logit"][test], y[test], ts, score_type="logit")
    out.append("\n[3] measure on test, which decided nothing:  "
               "vc.compare(logit[test], label[test], ts, score_type='logit')")
    out.append(_indent(str(ledger)))

    # [4] decisions
    p_calib = ts.transform(d["logit"][calib])
    p_test = ts.transform(d["logit"][test])
    t_cost = vc.cost_threshold(COST_FP, COST_FN)
    t_recall = vc.recall_threshold(p_calib, y[calib], target=RECALL_TARGET)
    # printed as the table prints numbers (4 decimals, which must name the threshold measured): the calib
    # threshold rounded down, which flags every row it flags ("0.134650016672544" stood beside 4-digit rows)
    t_deploy = rounded_down(t_recall)
    thresholds = {f"cost-optimal t* = 1/(1+{COST_FN:g})": float(t_cost),
                  f"{RECALL_TARGET:.0%} recall, read from calib (+1): {t_recall!r} rounded down": t_deploy,
                  "the habitual 0.5": 0.5}
    table = vc.threshold_table(p_test, y[test], list(thresholds.values()),
                               cost_fp=COST_FP, cost_fn=COST_FN)
    out.append("\n[4] decide: alarm when the repaired probability ≥ t "
               f"(a missed default costs {COST_FN:g}× a needless review)")
    for name, t in thresholds.items():
        out.append(f"    {t:.4f}  {name}")
    out.append(_indent(str(table)))

    after = vc.audit(p_test, y[test])
    figures: list[Path] = []
    if plots is not None:
        from ._plots import reliability_panels

        figures.append(reliability_panels(
            [("BEFORE  the model's scores", audit.table),
             (f"AFTER  temperature τ = {tau:.2f} (fit on calib)", after.table)],
            Path(plots) / "audit_reliability.png",
            suptitle="bundled demo data: the 3,000 test rows (15 bins)"))
        out.append("\nwrote " + ", ".join(str(f) for f in figures))

    out.append("\nthe same from the shell:  veracity audit  ·  veracity fit  ·  "
               "veracity compare  ·  veracity threshold")
    return AuditDemo(audit=audit, calibrator=ts, ledger=ledger, thresholds=thresholds,
                     table=table, after=after, text="\n".join(out), figures=figures)


def main(args: argparse.Namespace | None = None) -> int:
    plots = getattr(args, "plots", None) if args is not None else None
    demo = run(plots)
    print(demo.text)
    return 0

