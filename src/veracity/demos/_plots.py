"""PNG figures for the demos (matplotlib, imported lazily, Agg backend)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _pyplot() -> Any:
    try:
        import matplotlib
    except ModuleNotFoundError as exc:  # pragma: no cover - depends on the install
        from ..core._validation import VeracityError

        raise VeracityError(
            "--plots needs matplotlib; install it with: pip install 'veracity[plot]'"
        ) from exc
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def reliability_panels(
    panels: Sequence[tuple[str, Any]], path: Path, *, suptitle: str = ""
) -> Path:
    """Side-by-side reliability diagrams, one per ``(title, ReliabilityTable)``.

    Each non-empty bin is a bar from the bin's lower edge to its upper edge with
    height acc_b; a dot marks (conf_b, acc_b) with its binomial interval; bins
    flagged insufficient are drawn hollow and grey; the count is written above.
    """
    plt = _pyplot()
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.6), squeeze=False)
    for ax, (title, table) in zip(axes[0], panels):
        ax.plot([0, 1], [0, 1], ls="--", color="0.55", lw=1, label="perfect calibration")
        for row in table.rows:
            ok = row.sufficient
            ax.bar(row.lo, row.acc, width=row.hi - row.lo, align="edge",
                   color="#4c72b0" if ok else "none", alpha=0.35 if ok else 1.0,
                   edgecolor="#4c72b0" if ok else "0.6", lw=1)
            ax.errorbar(row.conf, row.acc,
                        yerr=[[max(row.acc - row.ci_low, 0.0)], [max(row.ci_high - row.acc, 0.0)]],
                        fmt="o", ms=4, color="#c44e52" if ok else "0.6", capsize=2, lw=1)
            ax.annotate(str(row.count), (row.lo + (row.hi - row.lo) / 2, max(row.ci_high, row.acc)),
                        textcoords="offset points", xytext=(0, 3), ha="center", va="bottom",
                        fontsize=6.5, color="0.25", rotation=90)
        ax.set_xlim(-0.02, 1.02)
        ax.set_ylim(-0.02, 1.18)
        ax.set_aspect("equal")
        ax.set_xlabel("predicted probability (bar = bin, dot = mean confidence)")
        ax.set_ylabel("observed frequency")
        ax.set_title(f"{title}\nECE {table.ece:.4f}   ({table.n} points)", fontsize=10)
    from matplotlib.patches import Patch

    handles, _ = axes[0][0].get_legend_handles_labels()
    handles += [Patch(facecolor="#4c72b0", alpha=0.35, label="observed frequency in bin"),
                Patch(facecolor="none", edgecolor="0.6",
                      label="fewer than min_count points (insufficient)")]
    fig.legend(handles=handles, loc="lower center", ncol=3, fontsize=8, frameon=False)
    if suptitle:
        fig.suptitle(suptitle, fontsize=11)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def redraw_scatter(
    deployed: Sequence[float] | np.ndarray, reported: Sequence[float] | np.ndarray, target: float, path: Path,
    *, title: str = "", note: str = "",
) -> Path:
    """Test-reported vs deployed recall, one dot per redraw, with the diagonal and the target."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(5.2, 5.2))
    lo = min(min(deployed), min(reported), target) - 0.01
    hi = max(max(deployed), max(reported), target) + 0.01
    ax.plot([lo, hi], [lo, hi], ls="--", color="0.55", lw=1, label="reported = deployed")
    ax.axhline(target, color="#c44e52", lw=0.8, ls=":", label=f"target {target:.0%}")
    ax.axvline(target, color="#c44e52", lw=0.8, ls=":")
    ax.scatter(deployed, reported, s=16, color="#4c72b0", alpha=0.7, label="one redraw")
    ax.set_xlim(lo, hi)
    ax.set_ylim(lo, hi)
    ax.set_aspect("equal")
    ax.set_xlabel("recall on deployment data (truth)")
    ax.set_ylabel("recall reported by the test set")
    ax.set_title(title, fontsize=10)
    ax.legend(loc="upper left", fontsize=8, frameon=False)
    if note:
        ax.text(0.98, 0.02, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=8,
                color="0.25", bbox={"facecolor": "white", "edgecolor": "0.8", "pad": 3})
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
