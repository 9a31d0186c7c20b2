r"""``veracity demo kg`` — seed 000: calibration audit of a knowledge-graph link predictor.

A numpy ComplEx model (16 real dimensions) memorises the training facts of a
small academic knowledge graph. Its own probability reading p = σ(s) is audited
on a labelled set (every known-true triple + 6 seeded corruptions each), a
temperature τ is fitted by golden-section search on the calibration half, and
the four claims of the seed are checked:

1. the fit lowers the calibration NLL;
2. τ* > 1 — the raw reading was overconfident;
3. ECE is strictly lower on the evaluation half, which τ never saw;
4. accuracy at 0.5, AUC and the stable argsort are bit-identical (s ↦ s/τ keeps
   every order and every sign): the ledger's certificate (``vc.compare``, which reads the logits s and
   s/τ), printed in its words, so the demo's certificate is the ledger's.

Only the public API (``import veracity as vc``) touches the scores.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import veracity as vc
from veracity.core._text import render_table

from . import _kg_data as kg
from ._complex import ComplEx, corrupt_avoiding, encode, train_complex

BINS = 10
CORRUPTIONS = 6
EPOCHS = 1000
RANK = 8  # complex components -> 16 real dimensions
LR = 0.1
MODEL_SEED = 0
AUDIT_SEED = 1  # a different seed from training: the audit's negatives are fresh draws
SPLIT_SEED = 0
CONFIDENTLY_WRONG = 0.01  # a true fact given p below this is printed by name


@dataclass(frozen=True, eq=False)
class AuditSet:
    """The labelled audit set: triples as names and index arrays, labels, held-out flags."""

    names: tuple[tuple[str, str, str], ...]
    index: np.ndarray  # (n, 3) head, relation, tail indices
    labels: np.ndarray  # 1 = known true, 0 = seeded corruption
    held_out: np.ndarray  # True for the TEST positives


@dataclass(frozen=True, eq=False)
class KGDemo:
    """Everything the demo computed (tests read these fields; ``text`` is the printout)."""

    audit_set: AuditSet
    model: ComplEx
    scores: np.ndarray
    roles: np.ndarray
    calibrator: Any
    before: Any  # AuditResult on the evaluation half, p = σ(s)
    after: Any  # AuditResult on the evaluation half, p = σ(s/τ*)
    ledger: Any
    certificate: dict[str, bool]
    claims: dict[str, bool]
    text: str
    figures: list[Path] = field(default_factory=list)


def _indices(triples: tuple[tuple[str, str, str], ...]) -> np.ndarray:
    ent = {e: i for i, e in enumerate(kg.ENTITIES)}
    rel = {r: i for i, r in enumerate(kg.RELATIONS)}
    return np.array([[ent[h], rel[r], ent[t]] for h, r, t in triples], dtype=np.int64)


def build_audit_set(*, corruptions: int = CORRUPTIONS, seed: int = AUDIT_SEED) -> AuditSet:
    """All known-true triples + ``corruptions`` seeded corruptions of each.

    Each corruption is re-drawn until it is neither a known-true triple nor a
    duplicate of a triple already in the set, so every labelled triple is
    distinct and every negative is genuinely false in this closed world.
    """
    n_ent, n_rel = len(kg.ENTITIES), len(kg.RELATIONS)
    true = _indices(kg.TRIPLES)
    rng = np.random.default_rng(seed)
    taken = encode(true, n_ent, n_rel)
    negatives = []
    for _ in range(corruptions):  # one round of corruptions per slot, all triples at once
        cand = corrupt_avoiding(true, n_ent, n_rel, taken, rng)
        keys = encode(cand, n_ent, n_rel)
        while True:  # re-draw duplicates inside this round (keep the first occurrence)
            _, first = np.unique(keys, return_index=True)
            dup = np.ones(len(keys), dtype=bool)
            dup[first] = False
            if not dup.any():
                break
            cand[dup] = corrupt_avoiding(true[dup], n_ent, n_rel, taken, rng)
            keys = encode(cand, n_ent, n_rel)
        taken = np.concatenate([taken, keys])
        negatives.append(cand)
    index = np.concatenate([true, *negatives])
    names = tuple(
        (kg.ENTITIES[h], kg.RELATIONS[r], kg.ENTITIES[t]) for h, r, t in index.tolist()
    )
    labels = np.concatenate([np.ones(len(true)), np.zeros(len(index) - len(true))])
    test = set(kg.TEST)
    held_out = np.array([lab == 1 and name in test for name, lab in zip(names, labels)])
    return AuditSet(names=names, index=index, labels=labels, held_out=held_out)


def _sigmoid(s: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * s))  # = 1 / (1 + e^{-s}), without overflow


def _claim(ok: bool, message: str) -> str:
    if not ok:
        raise AssertionError(f"knowledge-graph example: claim failed: {message}")
    return f"    [ok] {message}"


def _p(p: float) -> str:
    """A probability with four decimals, or two significant digits when tiny."""
    return f"{p:.4f}" if p >= 0.0001 else f"{p:.1e}"


def _name(t: tuple[str, str, str]) -> str:
    return f"({t[0]}, {t[1]}, {t[2]})"


def _summary(result: Any) -> str:
    return (f"    ECE {result.ece:.4f}   Brier {result.brier:.4f}   NLL {result.nll:.4f}   "
            f"acc(0.5) {result.accuracy:.4f}   AUC {result.auc:.4f}")


def run(plots: str | Path | None = None) -> KGDemo:
    """Train, audit, calibrate and check the claims; returns everything computed."""
    data = build_audit_set()
    train = _indices(kg.TRAIN)
    model = train_complex(train, len(kg.ENTITIES), len(kg.RELATIONS), rank=RANK,
                          epochs=EPOCHS, lr=LR, seed=MODEL_SEED)
    s = model.score(data.index[:, 0], data.index[:, 1], data.index[:, 2])
    y = data.labels
    roles = np.asarray(vc.split(y, roles={"calibration": 0.5, "evaluation": 0.5},
                                random_state=SPLIT_SEED))
    cal, ev = roles == "calibration", roles == "evaluation"

    ts = vc.TemperatureScaling(score_type="logit", method="golden", bounds=(0.05, 20.0), iterations=80)
    ts.fit(s[cal], y[cal])
    tau = float(ts.temperature_)
    p_before = _sigmoid(s)
    p_after = np.asarray(ts.transform(s), dtype=float)

    before = vc.audit(p_before[ev], y[ev], bins=BINS)
    after = vc.audit(p_after[ev], y[ev], bins=BINS)
    ledger = vc.compare(s[ev], y[ev], ts, score_type="logit", bins=BINS)

    out: list[str] = []
    n_pos = int(y.sum())
    out.append("veracity demo kg — the knowledge-graph example: calibration audit of a link predictor")
    out.append(
        f"ComplEx, {RANK} complex = {2 * RANK} real dimensions, trained on {len(kg.TRAIN)} of the "
        f"{len(kg.TRIPLES)} true triples\n({len(kg.ENTITIES)} entities, {len(kg.RELATIONS)} "
        f"relations; logistic loss softplus(-y·s), one uniform corruption per positive,\n"
        f"{EPOCHS} epochs of plain SGD). Audit set: {n_pos} true triples + {CORRUPTIONS} "
        f"seeded corruptions each\n= {len(y)} triples, split 50/50 by label into a calibration "
        f"half ({int(cal.sum())}) and an evaluation half ({int(ev.sum())}),\neach with "
        f"{int(y[cal].sum())} positives : {int((1 - y[cal]).sum())} negatives."
    )

    # [1] raw scores and held-out positives
    out.append("\n[1] the raw scores, read as probabilities")
    pos, neg = s[y == 1], s[y == 0]
    out.append(f"    positives score in [{pos.min():8.3f}, {pos.max():8.3f}], "
               f"negatives in [{neg.min():8.3f}, {neg.max():8.3f}]")
    out.append("    the held-out test positives (true facts never trained on):")
    held = np.flatnonzero(data.held_out)
    rows = [[_name(data.names[i]), f"{s[i]:.3f}", _p(p_before[i]), _p(p_after[i]),
             "cal" if cal[i] else "eval"] for i in held]
    out.append(render_table(["triple", "score", "p=σ(s)", "p=σ(s/τ)", "split"], rows,
                            align="lrrrl", indent="    "))
    wrong = [i for i in held if p_before[i] < CONFIDENTLY_WRONG]
    if wrong:
        out.append(f"    TRUE, yet p = σ(s) < {CONFIDENTLY_WRONG} — confidently wrong, the "
                   "failure a calibration metric exists to expose:")
        out.extend(_pack([_name(data.names[i]) for i in wrong], width=88, indent="      "))

    # [2] BEFORE
    out.append(f"\n[2] BEFORE — reliability table of p = σ(s) on the evaluation half, "
               f"{BINS} equal-width bins")
    out.append(_indent(str(before.table)))
    out.append(_summary(before))

    # [3] golden-section trace
    lo, hi = ts.bounds or (0.05, 20.0)
    out.append("\n[3] temperature scaling: fit τ by NLL on the calibration half, "
               f"golden-section over [{lo}, {hi}]")
    trace = list(ts.trace_)
    keep = [r for r in trace if r.iteration in (10, 20, 30, 40)]
    if trace and (not keep or trace[-1].iteration != keep[-1].iteration):
        keep.append(trace[-1])
    out.append(render_table(
        ["iter", "bracket width", "τ", "best NLL"],
        [[str(r.iteration), f"{r.width:.3e}", f"{r.tau:.4f}", f"{r.nll:.6f}"] for r in keep],
        indent="    "))
    direction = ("τ > 1: the raw reading was OVERconfident" if tau > 1
                 else "τ ≤ 1: the raw reading was underconfident")
    out.append(f"    τ* = {tau:.4f}  ({direction})")
    out.append(f"    NLL on the calibration half: {ts.nll_before_:.4f} (τ=1) → "
               f"{ts.nll_after_:.4f} (τ*)")

    # [4] AFTER
    out.append("\n[4] AFTER — the same evaluation half under p = σ(s/τ*)")
    out.append(_indent(str(after.table)))
    out.append(_summary(after))
    out.append("\nthe ledger, tool by tool (vc.compare on the evaluation half; regressions are "
               "printed, not hidden):")
    # this table shows no intervals: a row's notes about its interval (after the first "; ", e.g. the
    # skew-guarded interval of few positives, whose explanation the ledger prints below its own table) are
    # left to the ledger's printout
    out.append(render_table(
        ["metric", "what it measures", "BEFORE", "AFTER", "can τ move it?"],
        [[r.metric, r.what, f"{r.before:.4f}", f"{r.after:.4f}",
          (f"yes: {r.note.split('; ')[0]}" + ("  (REGRESSION: got worse)" if r.regression else ""))
          if r.can_move else f"never: {r.note.split('; ')[0]}"] for r in ledger.rows],
        align="llrrl", indent="    "))

    # the invariance certificate is the ledger's own (vc.compare reads the logits s and s/τ, so saturated
    # probabilities never fake a tie): the demo prints its words and cannot disagree with it
    certs, words = ledger.certificates, ledger.certificate_words()
    acc, auc = ledger.row("accuracy@0.5"), ledger.row("AUC")
    certificate = {
        "argsort_identical": certs["argsort_identical"] is True,
        "decisions_identical": certs["decisions_identical"] is True,
        "accuracy_identical": acc.before == acc.after,
        "auc_identical": certs["auc_identical"] is True,
    }
    out.append(f"\ninvariance certificate, the ledger's ({ledger.n} evaluation triples; s ↦ s/τ keeps every "
               "order and sign):")
    out.append(f"    acc {acc.before:.4f} = {acc.after:.4f}   AUC {auc.before:.4f} = {auc.after:.4f}   "
               f"order: {words['order']}   ties created: {words['ties created']}   "
               f"order reversals: {words['order reversals']}")
    out.append("    " + "; ".join(f"{label}: {word}" for label, word in words.items()
                                  if label not in ("order", "ties created", "order reversals")))

    claims = {
        "fit_lowers_nll": ts.nll_after_ < ts.nll_before_,
        "overconfident": tau > 1.0,
        "ece_lower_on_evaluation": after.ece < before.ece,
        "invariance": all(certificate.values()) and words["order"] == "held",
    }
    out.append("\nthe example's four claims, asserted:")
    out.append(_claim(claims["fit_lowers_nll"],
                      f"the fit lowers its objective: calibration NLL {ts.nll_before_:.4f} → "
                      f"{ts.nll_after_:.4f}"))
    out.append(_claim(claims["overconfident"], f"τ* = {tau:.4f} > 1 (overconfident)"))
    out.append(_claim(claims["ece_lower_on_evaluation"],
                      f"ECE strictly lower on the evaluation half: {before.ece:.4f} → "
                      f"{after.ece:.4f}"))
    out.append(_claim(claims["invariance"],
                      "accuracy, AUC and stable argsort bit-identical"))

    figures: list[Path] = []
    if plots is not None:
        from ._plots import reliability_panels

        figures.append(reliability_panels(
            [("BEFORE  p = σ(s)", before.table), (f"AFTER  p = σ(s/τ*), τ* = {tau:.3f}",
                                                   after.table)],
            Path(plots) / "kg_reliability.png",
            suptitle="the knowledge-graph example: ComplEx on the evaluation half (10 bins)"))
        out.append("\nwrote " + ", ".join(str(f) for f in figures))

    return KGDemo(audit_set=data, model=model, scores=s, roles=roles, calibrator=ts,
                  before=before, after=after, ledger=ledger, certificate=certificate,
                  claims=claims, text="\n".join(out), figures=figures)


def _pack(items: list[str], *, width: int, indent: str) -> list[str]:
    """Comma-separated items greedily packed into lines, never splitting an item."""
    lines: list[str] = []
    line = ""
    for k, item in enumerate(items):
        token = item + ("," if k < len(items) - 1 else "")
        if line and len(indent) + len(line) + 1 + len(token) > width:
            lines.append(indent + line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    if line:
        lines.append(indent + line)
    return lines


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def main(args: argparse.Namespace | None = None) -> int:
    plots = getattr(args, "plots", None) if args is not None else None
    demo = run(plots)
    print(demo.text)
    return 0
