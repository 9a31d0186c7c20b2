r"""``veracity demo splits`` — seed 003: which data may set T and the threshold?

Four roles, one decision each: **train** sets the weights, **val** picks the
model, **calib** sets the temperature T, the decision threshold and the
conformal q̂, **test** decides nothing and only measures. The demo trains 12
small two-hidden-layer networks on synthetic 10-class Gaussian data (true
probabilities known), picks one by val accuracy, and shows on 27,000 fresh
"deployment" points what each choice of role does:

* T fitted on train is ≪ 1 and makes the probabilities worse; T fitted on calib
  brings mean confidence down to the accuracy;
* class 0 is the "defect": the 95 %-recall threshold read from calib, with and
  without the +1 correction, next to the cost-optimal t* = 0.1 (a miss costs 9×);
* 100 redraws of val/calib/test: test-reported vs deployed recall;
* conformal prediction sets at α = 0.1 and their coverage;
* a noise-1.3× shift: recall falls, and recovers after refitting T and the
  threshold on fresh data from the new environment.

Only the public API (``import veracity as vc``) calibrates, thresholds and measures.
"""

from __future__ import annotations

import argparse
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import veracity as vc
from veracity.core._text import render_table

from ._rounding import rounded_down
from ._synth import MLP, Gaussians, train_mlp

DATA_SEED = 2024  # the class means
SAMPLE_SEED = 7  # the draws
SEPARATION = 0.55
N_TRAIN, N_VAL, N_CALIB, N_TEST, N_DEPLOY, N_FRESH = 2_000, 1_000, 1_000, 1_000, 27_000, 1_000
ARCHITECTURES = ((32, 32), (48, 48), (64, 64))
MODEL_SEEDS = (0, 1, 2, 3)
EPOCHS = 40
BINS = 15
MIN_COUNT = 20
TARGET = 0.95
COST_FP, COST_FN = 1.0, 9.0
ALPHA = 0.1
REDRAWS = 100
SHIFT_NOISE = 1.3
DEFECT = 0  # class 0 is the "defect"


@dataclass(frozen=True, eq=False)
class SplitsDemo:
    """Everything the demo computed (tests read these; ``text`` is the printout)."""

    chosen: int
    val_accuracy: np.ndarray
    train_accuracy: np.ndarray
    temperatures: dict[str, float]  # role -> fitted T
    ece: dict[str, dict[str, float]]  # reading -> {"test": ece, "deploy": ece}
    confidence: dict[str, dict[str, float]]  # reading -> {"test"/"deploy": mean confidence}
    accuracy: dict[str, float]  # "test"/"deploy" -> top-1 accuracy of the chosen model
    ece_true: dict[str, float]  # "test"/"deploy" -> ECE of the generator's true probabilities
    thresholds: dict[str, float]
    tables: dict[str, Any]  # "calib"/"test"/"deploy" -> ThresholdTable
    redraws: dict[str, np.ndarray]  # "reported_plain", "deployed_plain", "expected_plain", ...
    coverage: dict[str, Any]  # "test"/"deploy" -> CoverageReport
    shift: dict[str, dict[str, float]]  # "before"/"stale"/"refit" -> {"T", "t", "recall", ...}
    claims: dict[str, bool]
    text: str
    figures: list[Path] = field(default_factory=list)


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    p: np.ndarray = e / e.sum(axis=1, keepdims=True)
    return p


def _claim(ok: bool, message: str) -> str:
    if not ok:
        raise AssertionError(f"train/calibration/test study: claim failed: {message}")
    return f"    [ok] {message}"


def _indent(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _fit_T(logits: np.ndarray, labels: np.ndarray) -> Any:
    # the study searches T in [0.05, 20] (its golden-section bracket); unbounded, the fit on
    # train would run on towards T -> 0, which is the same lesson with a less readable number
    return vc.TemperatureScaling(score_type="logit", bounds=(0.05, 20.0)).fit(logits, labels)


def run(plots: str | Path | None = None) -> SplitsDemo:
    """Train, select, calibrate, threshold and shift; returns everything computed."""
    gen = Gaussians.make(separation=SEPARATION, seed=DATA_SEED)
    rng = np.random.default_rng(SAMPLE_SEED)
    x_tr, y_tr, _ = gen.sample(N_TRAIN, rng)
    x_va, y_va, _ = gen.sample(N_VAL, rng)
    x_ca, y_ca, _ = gen.sample(N_CALIB, rng)
    x_te, y_te, p_true_te = gen.sample(N_TEST, rng)
    x_de, y_de, p_true_de = gen.sample(N_DEPLOY, rng)
    assert p_true_te is not None and p_true_de is not None  # proba=True: the true probabilities come back

    out: list[str] = []
    out.append("veracity demo splits — the train/calibration/test study: which data may set T and the threshold?")
    out.append(
        f"synthetic data: 10 classes, 30-dim Gaussians (true probabilities known); "
        f"train {N_TRAIN:,} · val {N_VAL:,}\n· calib {N_CALIB:,} · test {N_TEST:,} · "
        f"deployment {N_DEPLOY:,} fresh points. Class {DEFECT} is the \"defect\"."
    )

    # [1] train 12 models, pick by val accuracy -------------------------------------
    models: list[MLP] = [
        train_mlp(x_tr, y_tr, hidden=h, epochs=EPOCHS, seed=s)
        for h in ARCHITECTURES for s in MODEL_SEEDS
    ]
    train_acc = np.array([vc.accuracy(m.logits(x_tr), y_tr, score_type="logit") for m in models])
    val_acc = np.array([vc.accuracy(m.logits(x_va), y_va, score_type="logit") for m in models])
    best = int(np.argmax(val_acc))
    model = models[best]
    out.append(f"\n[1] train sets the weights, val picks the model: {len(models)} two-hidden-layer "
               f"ReLU networks\n    (mini-batch Adam, {EPOCHS} epochs, no regularisation)")
    out.append(render_table(
        ["model", "hidden", "seed", "train acc", "val acc", ""],
        [[str(i), f"{m.hidden[0]}-{m.hidden[1]}", str(m.seed), f"{train_acc[i]:.4f}",
          f"{val_acc[i]:.4f}", "← chosen (best val accuracy)" if i == best else ""]
         for i, m in enumerate(models)],
        align="lrrrrl", indent="    "))

    z_tr, z_va, z_ca = model.logits(x_tr), model.logits(x_va), model.logits(x_ca)
    z_te, z_de = model.logits(x_te), model.logits(x_de)

    # [2] temperature fitted on each role -------------------------------------------
    with warnings.catch_warnings(record=True) as caught:
        # on train every point is already right, so the NLL falls all the way to T -> 0 and
        # the library warns that it clamped T at the lower bound: that *is* the lesson here
        warnings.simplefilter("always")
        fitted = {"train": _fit_T(z_tr, y_tr)}
    train_warned = any("tau" in str(w.message) for w in caught)
    fitted["val"] = _fit_T(z_va, y_va)
    fitted["calib"] = _fit_T(z_ca, y_ca)
    temps = {role: float(c.temperature_) for role, c in fitted.items()}
    readings: dict[str, tuple[np.ndarray, np.ndarray]] = {
        "none (T = 1)": (_softmax(z_te), _softmax(z_de)),
        **{f"{role}": (c.transform(z_te), c.transform(z_de)) for role, c in fitted.items()},
    }
    ece: dict[str, dict[str, float]] = {}
    conf: dict[str, dict[str, float]] = {}
    for name, (p_te, p_de) in readings.items():
        ece[name] = {"test": vc.ece(p_te, y_te, bins=BINS), "deploy": vc.ece(p_de, y_de, bins=BINS)}
        conf[name] = {"test": float(p_te.max(axis=1).mean()),
                      "deploy": float(p_de.max(axis=1).mean())}
    accuracy = {"test": vc.accuracy(z_te, y_te, score_type="logit"),
                "deploy": vc.accuracy(z_de, y_de, score_type="logit")}
    ece_true = {"test": vc.ece(p_true_te, y_te, bins=BINS),
                "deploy": vc.ece(p_true_de, y_de, bins=BINS)}
    out.append(f"\n[2] the temperature T, fitted by NLL on each role; ECE with {BINS} equal-width "
               "bins (top label)")
    rows = []
    for name in readings:
        t = 1.0 if name.startswith("none") else temps[name]
        rows.append([name, f"{t:.3f}",
                     _pct(conf[name]["test"]), _pct(accuracy["test"]), _pct(ece[name]["test"]),
                     _pct(conf[name]["deploy"]), _pct(accuracy["deploy"]),
                     _pct(ece[name]["deploy"])])
    rows.append(["true P(k | x)", "—", _pct(float(p_true_te.max(axis=1).mean())),
                 _pct(vc.accuracy(p_true_te, y_te)), _pct(ece_true["test"]),
                 _pct(float(p_true_de.max(axis=1).mean())),
                 _pct(vc.accuracy(p_true_de, y_de)), _pct(ece_true["deploy"])])
    out.append(render_table(
        ["T fitted on", "T", "test conf", "acc", "ECE", "deploy conf", "acc", "ECE"], rows,
        indent="    "))
    if fitted["train"].clamped_ == "lower":
        warned = "; the library warns" if train_warned else ""
        out.append("    (on train the NLL keeps falling as T → 0, so the fit stops at the lower "
                   f"bound {fitted['train'].temperature_:g}{warned})")
    out.append("    (true P(k | x): the generator's own probabilities — their ECE is the "
               "estimator's floor at\n    each sample size; no model can be more honest than that)")
    out.append(f"\n    reliability on test under T from calib (bins under {MIN_COUNT} points "
               "are flagged):")
    out.append(_indent(str(vc.reliability(readings["calib"][0], y_te, bins=BINS,
                                          min_count=MIN_COUNT)), "    "))

    # [3] thresholds for the defect -------------------------------------------------
    cal_T = fitted["calib"]
    q_ca = cal_T.transform(z_ca)[:, DEFECT]
    q_te = cal_T.transform(z_te)[:, DEFECT]
    q_de = cal_T.transform(z_de)[:, DEFECT]
    d_ca, d_te, d_de = y_ca == DEFECT, y_te == DEFECT, y_de == DEFECT
    # each read-off threshold rounded down to the 4 decimals the tables print ("0.1466" was printed for
    # 0.146577..., which flags one calib defect fewer than the 93 its row said it caught): the printed t
    # is the one measured, and it flags every row the exact one flags
    t_plain = rounded_down(vc.recall_threshold(q_ca, d_ca, target=TARGET, correction=False))
    t_plus1 = rounded_down(vc.recall_threshold(q_ca, d_ca, target=TARGET, correction=True))
    t_star = vc.cost_threshold(COST_FP, COST_FN)
    thresholds = {"95% on calib": float(t_plain), "95% on calib, +1": float(t_plus1),
                  "t* = c_FP/(c_FP+c_FN)": float(t_star), "the default 0.5": 0.5}
    grid = list(thresholds.values())
    tables = {
        name: vc.threshold_table(q, d, grid, cost_fp=COST_FP, cost_fn=COST_FN)
        for name, q, d in (("calib", q_ca, d_ca), ("test", q_te, d_te), ("deploy", q_de, d_de))
    }
    out.append(f"\n[3] calib sets the threshold for the defect (class {DEFECT}, "
               f"{int(d_ca.sum())} of {N_CALIB} calib points);\n    alarm when P(defect) ≥ t; "
               f"a miss costs {COST_FN:g}× a false alarm\n    (a recall t: the calib score read off, rounded "
               "down to 4 decimals; it flags every row that score flags)")
    for name, label in (("calib", f"calib ({N_CALIB:,}: where t was read)"),
                        ("test", f"test ({N_TEST:,}: decides nothing, only measures)"),
                        ("deploy", f"deployment ({N_DEPLOY:,} fresh points)")):
        tab = tables[name]
        out.append(f"\n    on {label}, {int(tab.tp[0] + tab.fn[0]):,} defects:")
        out.append(render_table(
            ["threshold", "t", "caught", "missed", "false alarms", "recall", "false-alarm rate",
             "precision", "cost/1000"],
            [[key, f"{tab.threshold[i]:.4f}", f"{int(tab.tp[i]):,}", f"{int(tab.fn[i]):,}",
              f"{int(tab.fp[i]):,}", _pct(tab.recall[i]), _pct(tab.false_alarm_rate[i]),
              _pct(tab.precision[i]), f"{tab.cost_per_1000[i]:.1f}"]
             for i, key in enumerate(thresholds)],
            indent="    "))
    q_de_raw = _softmax(z_de)[:, DEFECT]
    raw = vc.threshold_table(q_de_raw, d_de, [t_star], cost_fp=COST_FP, cost_fn=COST_FN)
    out.append(f"\n    t* trusts the probabilities: on deployment it costs "
               f"{tables['deploy'].cost_per_1000[2]:.1f} per 1,000 with T from calib,\n"
               f"    {raw.cost_per_1000[0]:.1f} per 1,000 on the uncalibrated (T = 1) "
               "probabilities — fit T before you threshold.")

    # [4] redraws -------------------------------------------------------------------
    redraw_results = {
        key: vc.simulate_redraws(q_de, d_de, n_calib=N_CALIB, n_test=N_TEST, target=TARGET,
                                 correction=corr, n_resamples=REDRAWS, random_state=SAMPLE_SEED)
        for key, corr in (("plain", False), ("plus1", True))
    }
    redraws = {}
    for key, r in redraw_results.items():
        redraws[f"reported_{key}"] = np.asarray(r.test_recall, dtype=float)
        redraws[f"deployed_{key}"] = np.asarray(r.deployed_recall, dtype=float)
        redraws[f"expected_{key}"] = np.asarray(r.expected_recall, dtype=float)
    out.append(f"\n[4] {REDRAWS} redraws of calib and test ({N_CALIB:,} rows each) from the "
               f"deployment pool; each redraw refits\n    the 95% threshold on its calib "
               "defects and measures it on its test rows and on every other defect")
    rows = []
    for key, label in (("plain", "k = ⌈0.95·n⌉"), ("plus1", "k = ⌈0.95·(n+1)⌉  (+1)")):
        rep, dep = redraws[f"reported_{key}"], redraws[f"deployed_{key}"]
        lo, hi = redraw_results[key].deployed_range
        rows.append([label, _pct(float(redraws[f"expected_{key}"].mean())),
                     _pct(float(rep.mean())), _pct(float(dep.mean())),
                     f"{_pct(lo)} – {_pct(hi)}",
                     str(int(((rep >= TARGET) & (dep < TARGET)).sum())),
                     str(int((dep < TARGET).sum()))])
    out.append(render_table(
        ["threshold rule", "k/(n+1)", "test says", "deployed", "deployed 5–95%",
         "test ≥95%, deployed <95%", "deployed <95%"], rows, indent="    "))

    # [5] conformal -----------------------------------------------------------------
    p_ca_T, p_te_T, p_de_T = cal_T.transform(z_ca), cal_T.transform(z_te), cal_T.transform(z_de)
    conformal = vc.ConformalClassifier(alpha=ALPHA).fit(p_ca_T, y_ca)
    coverage = {"test": conformal.coverage(p_te_T, y_te),
                "deploy": conformal.coverage(p_de_T, y_de)}
    out.append(f"\n[5] calib sets the conformal q̂ (α = {ALPHA}: every class with 1 − p ≤ q̂ "
               f"goes into the set); q̂ = {float(conformal.qhat_)!r}")  # every digit: q̂ builds the sets
    out.append(f"    on test: marginal coverage {coverage['test'].marginal:.4f}, mean set size "
               f"{coverage['test'].mean_set_size:.3f} ({N_TEST:,} rows); on deployment:")
    out.append(_indent(str(coverage["deploy"]), "    "))

    # [6] shift ---------------------------------------------------------------------
    shift_rng = np.random.default_rng(SAMPLE_SEED + 1)
    x_sd, y_sd, _ = gen.sample(N_DEPLOY, shift_rng, noise=SHIFT_NOISE)
    x_fr, y_fr, _ = gen.sample(N_FRESH, shift_rng, noise=SHIFT_NOISE)
    z_sd, z_fr = model.logits(x_sd), model.logits(x_fr)
    refit_T = _fit_T(z_fr, y_fr)
    t_refit = rounded_down(vc.recall_threshold(refit_T.transform(z_fr)[:, DEFECT], y_fr == DEFECT,
                                               target=TARGET, correction=True))
    shift: dict[str, dict[str, float]] = {}
    for key, cal, t, x_z, y_z in (
        ("before", cal_T, t_plus1, z_de, y_de),
        ("stale", cal_T, t_plus1, z_sd, y_sd),
        ("refit", refit_T, t_refit, z_sd, y_sd),
    ):
        p = cal.transform(x_z)
        tab = vc.threshold_table(p[:, DEFECT], y_z == DEFECT, [t], cost_fp=COST_FP, cost_fn=COST_FN)
        shift[key] = {"T": float(cal.temperature_), "t": float(t), "recall": float(tab.recall[0]),
                      "false_alarm_rate": float(tab.false_alarm_rate[0]),
                      "precision": float(tab.precision[0]),
                      "cost_per_1000": float(tab.cost_per_1000[0]),
                      "confidence": float(p.max(axis=1).mean()),
                      "accuracy": vc.accuracy(p, y_z), "ece": vc.ece(p, y_z, bins=BINS)}
    out.append(f"\n[6] the environment shifts: noise × {SHIFT_NOISE} (same model); "
               f"recalibrate on {N_FRESH:,} fresh points from the new environment")
    labels = {"before": "before the shift (calib T, t)",
              "stale": f"noise × {SHIFT_NOISE}, old T and t",
              "refit": f"noise × {SHIFT_NOISE}, T and t refit"}
    out.append(render_table(
        ["deployment", "T", "t", "recall", "false alarms", "precision", "cost/1000", "conf",
         "acc", "ECE"],
        [[labels[k], f"{v['T']:.3f}", f"{v['t']:.4f}", _pct(v["recall"]),
          _pct(v["false_alarm_rate"]), _pct(v["precision"]), f"{v['cost_per_1000']:.1f}",
          _pct(v["confidence"]), _pct(v["accuracy"]), _pct(v["ece"])]
         for k, v in shift.items()], indent="    "))

    # claims --------------------------------------------------------------------------
    none = "none (T = 1)"
    claims = {
        "train_T_collapses": temps["train"] < 0.5 and ece["train"]["deploy"] > ece[none]["deploy"],
        "calib_T_fixes_confidence": temps["calib"] > 1.0
        and ece["calib"]["deploy"] < ece[none]["deploy"]
        and abs(conf["calib"]["deploy"] - accuracy["deploy"]) < 0.02,
        "plus1_is_more_conservative": t_plus1 <= t_plain,
        "plus1_raises_deployed_recall": float(redraws["deployed_plus1"].mean())
        >= float(redraws["deployed_plain"].mean()),
        "conformal_covers": 0.88 <= coverage["deploy"].marginal <= 0.92,
        "shift_drops_recall": shift["stale"]["recall"] < shift["before"]["recall"],
        "refit_recovers_recall": shift["refit"]["recall"] > shift["stale"]["recall"],
    }
    out.append("\nthe study's claims, asserted:")
    out.append(_claim(claims["train_T_collapses"],
                      f"T from train = {temps['train']:.3f} ≪ 1 and it makes things worse: "
                      f"deployment ECE {_pct(ece[none]['deploy'])} → "
                      f"{_pct(ece['train']['deploy'])}"))
    out.append(_claim(claims["calib_T_fixes_confidence"],
                      f"T from calib = {temps['calib']:.3f}: deployment confidence "
                      f"{_pct(conf['calib']['deploy'])} ≈ accuracy {_pct(accuracy['deploy'])}, "
                      f"ECE {_pct(ece[none]['deploy'])} → {_pct(ece['calib']['deploy'])}"))
    out.append(_claim(claims["plus1_is_more_conservative"],
                      f"the +1 correction lowers the threshold: {t_plain:.4f} → {t_plus1:.4f}"))
    out.append(_claim(claims["plus1_raises_deployed_recall"],
                      "over the redraws it raises mean deployed recall: "
                      f"{_pct(float(redraws['deployed_plain'].mean()))} → "
                      f"{_pct(float(redraws['deployed_plus1'].mean()))}"))
    out.append(_claim(claims["conformal_covers"],
                      f"conformal sets cover {_pct(coverage['deploy'].marginal)} of deployment "
                      f"(1 − α = {_pct(1 - ALPHA)}; the expected band for n = 1,000: 88–92%)"))
    out.append(_claim(claims["shift_drops_recall"] and claims["refit_recovers_recall"],
                      f"under shift recall falls {_pct(shift['before']['recall'])} → "
                      f"{_pct(shift['stale']['recall'])} and refitting restores "
                      f"{_pct(shift['refit']['recall'])}"))

    figures: list[Path] = []
    if plots is not None:
        from ._plots import redraw_scatter, reliability_panels

        fooled = int(((redraws["reported_plain"] >= TARGET)
                      & (redraws["deployed_plain"] < TARGET)).sum())

        panels = [(f"{name}" if name.startswith("none") else f"T from {name} = {temps[name]:.2f}",
                   vc.reliability(readings[name][1], y_de, bins=BINS, min_count=MIN_COUNT))
                  for name in (none, "train", "calib")]
        figures.append(reliability_panels(
            panels, Path(plots) / "splits_reliability.png",
            suptitle=f"the train/calibration/test study: the chosen network on {N_DEPLOY:,} deployment points "
                     f"(top label, {BINS} bins)"))
        figures.append(redraw_scatter(
            redraws["deployed_plain"], redraws["reported_plain"], TARGET,
            Path(plots) / "splits_redraws.png",
            title=f"{REDRAWS} redraws of calib/test: 95% threshold, k = ⌈0.95·n⌉",
            note=f"test said ≥ 95% but deployment got less: {fooled} of {REDRAWS}"))
        out.append("\nwrote " + ", ".join(str(f) for f in figures))

    return SplitsDemo(
        chosen=best, val_accuracy=val_acc, train_accuracy=train_acc, temperatures=temps,
        ece=ece, confidence=conf, accuracy=accuracy, ece_true=ece_true, thresholds=thresholds,
        tables=tables, redraws=redraws, coverage=coverage, shift=shift, claims=claims, text="\n".join(out),
        figures=figures)


def main(args: argparse.Namespace | None = None) -> int:
    plots = getattr(args, "plots", None) if args is not None else None
    demo = run(plots)
    print(demo.text)
    return 0
