r"""The ECE noise floor: the plug-in ECE a perfectly calibrated model would show.

Keep the scores, the weights and the bins, and redraw every label as
:math:`y^*_i \sim \mathrm{Bernoulli}(p_i)` — a world in which the model *is*
calibrated. The plug-in ECE of each redraw is pure sampling noise; its mean is the
**noise floor** (what ECE reads when there is nothing to find) and the fraction of
redraws at least as large as the observed ECE is a Monte-Carlo **p-value** for
"this ECE is distinguishable from noise":

.. math:: \hat{\mathrm{E}}_0 = \frac1R\sum_{r=1}^R \mathrm{ECE}(p, y^{*(r)}),\qquad
          \text{p-value} = \frac{1 + \#\{r:\ \mathrm{ECE}(p, y^{*(r)}) \ge \mathrm{ECE}(p, y)\}}{R + 1}.

The (1 + ·)/(R + 1) form makes the test valid at every level for any R.

**Contradicted certainty.** A probability score of exactly 0 whose label is 1 (or exactly 1 whose label is
0) cannot happen under calibration, and no redraw reproduces it (a score of 0 always draws 0): the exact
p-value is 0, as Spiegelhalter's and Hosmer–Lemeshow's (:func:`~veracity.honest._common.contradicted_rows`,
binary probability scores only; ``contradicted`` counts those rows). The ECE alone cannot see it — in a bin
of other scores the row is one unit of gap among many: one score of 0 that came true among 1,000 calibrated
rows read p = 0.05-0.99 over eight seeds, "within the noise floor" (tests/honest/test_stats_r24.py).

**Exactness.** Each label is drawn from its own :math:`p_i` (a uniform per row and
redraw, compared with :math:`p_i`), so a bin's positive count follows the exact
Poisson-binomial law. Drawing one Binomial(:math:`n_b`, :math:`\bar p_b`) per bin
would be exact only when every score in the bin is equal; otherwise it overstates
the variance (:math:`\sum p_i(1-p_i) \le n_b\bar p_b(1-\bar p_b)`) and so the floor.
The work is vectorised: rows are processed in chunks of rows × all redraws, with
per-bin sums by ``np.add.reduceat``.

**Order.** The rows are first put in a canonical order that depends only on their
multiset (:func:`~veracity.honest._common.canonical_rows`: sorted by score, label,
weight), which also makes the bins contiguous; uniform :math:`u_{r,k}` goes to the
k-th row of that order. Rows equal on every key are equal in every field, so the
redraws, every sum and the p-value are bit-identical for any permutation of the rows:
a shuffled copy, the same table read back by another engine, an ``ORDER BY`` changed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._binning import bin_index, make_edges
from ..core._text import count_noun, fmt, render_table
from ..core._validation import Binary, VeracityError, prepare_binary
from ._common import canonical_rows, check_count, check_seed, contradicted_rows, weighted_rows
from ..core._compat import renamed, renamed_attribute
from ..core._display import Display, html_note, html_page, html_table
from ..core._parallel import advance
from ..core._frameform import rows_form

_CHUNK_ELEMENTS = 1 << 22  # rows x redraws per chunk (~32 MB of uniforms)


@dataclass(frozen=True, eq=False, repr=False)
class NoiseFloor(Display):
    """Observed plug-in ECE beside its distribution under perfect calibration.

    ``expected`` is the noise floor (mean ECE of the redraws), ``sd`` their
    standard deviation, ``quantile_95`` the 95th percentile, ``p_value`` the
    Monte-Carlo p-value and ``excess = ece - expected``. ``samples`` holds the
    ``n_resamples`` redraw ECEs. ``contradicted`` counts the rows whose probability score is exactly 0
    or 1 and whose label says the opposite: impossible under calibration, so ``p_value`` is 0 then.
    """

    ece: float
    expected: float
    sd: float
    quantile_95: float
    p_value: float
    n_resamples: int
    random_state: Any
    n: int
    bins: int
    strategy: str
    norm: str
    samples: np.ndarray
    #: rows whose probability score is exactly 0 with label 1, or exactly 1 with label 0
    #: (:func:`~veracity.honest._common.contradicted_rows`): the p-value is then 0
    contradicted: int = 0

    n_redraws = renamed_attribute("n_redraws", "n_resamples")
    seed = renamed_attribute("seed", "random_state")
    redraws = renamed_attribute("redraws", "samples")

    @property
    def excess(self) -> float:
        return self.ece - self.expected

    @property
    def expected_se(self) -> float:
        """Monte-Carlo standard error of ``expected``."""
        return self.sd / np.sqrt(self.n_resamples)

    def verdict(self, alpha: float = 0.05) -> str:
        r"""The test's reading at level ``alpha``. The p-value is never below :math:`1/(R + 1)`, so with
        :math:`1/(R + 1) > \alpha` (R = ``n_resamples``: fewer than 19 at 0.05) no ECE can read as above the
        floor: the verdict is "undecided" and names the fewest redraws that can decide (it had said "within
        the noise floor" of an ECE of 0.245 above every one of 10 redraws, whose largest was 0.04)."""
        if self.contradicted:
            return (f"above the noise floor: {count_noun(self.contradicted, 'score')} of exactly 0 or 1 "
                    "that the label contradicts, impossible under calibration")
        if self.p_value <= alpha:
            return f"above the noise floor: distinguishable from noise at level {alpha:g}"
        least = 1.0 / (self.n_resamples + 1.0)
        if least > alpha:
            need = fewest_redraws(alpha)
            return (f"undecided: {count_noun(self.n_resamples, 'redraw')} cannot give a p-value below "
                    f"{least:.4f}, so no ECE reads as distinguishable from noise at level {alpha:g}; pass "
                    f"n_resamples (--n-resamples on the command line) of at least {need:,}")
        return f"within the noise floor: not distinguishable from noise at level {alpha:g}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ece": self.ece,
            "expected": self.expected,
            "expected_se": self.expected_se,
            "sd": self.sd,
            "quantile_95": self.quantile_95,
            "excess": self.excess,
            "p_value": self.p_value,
            "n_resamples": self.n_resamples,
            "random_state": self.random_state if isinstance(self.random_state, int) else None,
            "n": self.n,
            "bins": self.bins,
            "strategy": self.strategy,
            "norm": self.norm,
            "contradicted": self.contradicted,
            "verdict": self.verdict(),
        }

    def _html_body(self) -> str:
        return html_table([{
            f"ECE ({self.norm})": self.ece, "noise floor": self.expected, "95% of noise": self.quantile_95,
            "excess": fmt(self.excess, sign=True), "p-value": self.p_value, "verdict": self.verdict().split(":")[0],
        }]) + html_note(f"{self.verdict()} ({self.n_resamples} redraws, random_state {self.random_state}; "
                       f"{count_noun(self.n, 'row')}, {count_noun(self.bins, self.strategy + ' bin')})")

    def _repr_html_(self) -> str:
        return html_page("ECE noise floor", [self._html_body()], str(self))

    def __str__(self) -> str:
        rows = [[
            fmt(self.ece),
            fmt(self.expected),
            fmt(self.quantile_95),
            fmt(self.excess, sign=True),
            f"{self.p_value:.4f}",
        ]]
        table = render_table(
            ["ECE", "noise floor", "95% of noise", "excess", "p-value"], rows, align="rrrrr"
        )
        return (
            f"ECE noise floor ({self.norm}; labels redrawn as Bernoulli(p), {self.n_resamples} "
            f"redraws, random_state {self.random_state}; {count_noun(self.n, 'row')}, "
            f"{count_noun(self.bins, self.strategy + ' bin')}):\n"
            f"{table}\n({self.verdict()})"
        )


def fewest_redraws(alpha: float) -> int:
    """The fewest redraws R whose least p-value :math:`1/(R + 1)` is at most ``alpha``."""
    need = max(1, math.ceil(1.0 / alpha - 1.0 - 1e-9))
    while 1.0 / (need + 1.0) > alpha:
        need += 1
    return need


def _ece_of_sums(d: np.ndarray, w_bin: np.ndarray, total: float, norm: str) -> np.ndarray:
    """Plug-in ECE of (R, M) gap sums ``d = Σw(y - p)`` over non-empty bins."""
    if norm == "l1":
        return np.abs(d).sum(axis=1) / total
    if norm == "l2":
        return np.sqrt((d * d / w_bin).sum(axis=1) / total)
    return (np.abs(d) / w_bin).max(axis=1)


def redraw_bin_sums(
    p: np.ndarray,
    w: np.ndarray | None,
    idx: np.ndarray,
    n_bins: int,
    n_redraws: int,
    rng: np.random.Generator,
) -> np.ndarray:
    """(R, n_bins) sums Σ w·y* per bin for R redraws y*_i ~ Bernoulli(p_i).

    Uniform ``r, k`` goes to the k-th row in the given order (bins made contiguous by a
    stable sort when they are not already): pass :func:`canonical_rows` for sums that do
    not depend on the order of the rows.
    """
    if np.any(idx[1:] < idx[:-1]):
        order = np.argsort(idx, kind="stable")
        ps, ws, bs = p[order], None if w is None else w[order], idx[order]
    else:  # canonical rows: sorted by score, so by bin
        ps, ws, bs = p, w, idx
    out = np.zeros((n_redraws, n_bins))
    n = ps.size
    step = max(1, _CHUNK_ELEMENTS // n_redraws)
    for a in range(0, n, step):
        b = min(n, a + step)
        seg_bins, seg_starts = np.unique(bs[a:b], return_index=True)
        hits = rng.random((n_redraws, b - a)) < ps[a:b]
        if ws is None:
            sums = np.add.reduceat(hits, seg_starts, axis=1, dtype=np.int64)
        else:
            sums = np.add.reduceat(hits * ws[a:b], seg_starts, axis=1)
        out[:, seg_bins] += sums
        advance(f"noise floor ({n_redraws} redraws)", (b - a) * n_redraws, n * n_redraws, "draws")
    return out


def noise_floor_of(
    data: Binary,
    *,
    bins: int | str = 15,
    strategy: str = "uniform",
    norm: str = "l1",
    n_redraws: int = 1000,
    seed: Any = 0,
    edges: np.ndarray | None = None,
) -> NoiseFloor:
    if norm not in ("l1", "l2", "max"):
        raise VeracityError(f"norm must be 'l1', 'l2' or 'max', got {norm!r}", param="norm")
    n_redraws = check_count(n_redraws, "n_resamples")
    seed = 0 if seed is None else check_seed(seed)  # a report, not a draw: the same rows, the same floor
    # rows of weight 0 draw no labels; the rest in an order that depends only on the rows
    data = canonical_rows(weighted_rows(data))
    if edges is None:
        edges = make_edges(data.p, bins, strategy, data.w)
    m = edges.size - 1
    idx = bin_index(data.p, edges, strategy)
    w = data.w
    w_bin = np.bincount(idx, weights=w, minlength=m).astype(np.float64)
    sum_p = np.bincount(idx, weights=data.p if w is None else data.p * w, minlength=m)
    sum_y = np.bincount(idx, weights=data.y if w is None else data.y * w, minlength=m)
    keep = w_bin > 0
    total = float(w_bin.sum())
    rng = np.random.default_rng(seed)
    sims = redraw_bin_sums(data.p, w, idx, m, n_redraws, rng)[:, keep]
    d_sim = sims - sum_p[keep]
    d_obs = (sum_y - sum_p)[keep][None, :]
    ece_sim = _ece_of_sums(d_sim, w_bin[keep], total, norm)
    ece_obs = float(_ece_of_sums(d_obs, w_bin[keep], total, norm)[0])
    tol = 1e-12 * max(ece_obs, 1e-300)
    contradicted = contradicted_rows(data)  # impossible under calibration: the exact p-value is 0
    p_value = 0.0 if contradicted else (1.0 + np.count_nonzero(ece_sim >= ece_obs - tol)) / (n_redraws + 1.0)
    return NoiseFloor(
        ece=ece_obs,
        expected=float(ece_sim.mean()),
        sd=float(ece_sim.std(ddof=1)) if n_redraws > 1 else 0.0,
        quantile_95=float(np.quantile(ece_sim, 0.95)),
        p_value=float(p_value),
        n_resamples=n_redraws,
        random_state=seed,
        n=data.n,
        bins=m,
        strategy=strategy,
        norm=norm,
        samples=ece_sim,
        contradicted=contradicted,
    )


@renamed(seed="random_state", n_redraws="n_resamples")
@rows_form
def ece_noise_floor(
    scores: Any,
    labels: Any = None,
    *,
    score: Any = None,
    label: Any = None,
    bins: int | str = 15,
    strategy: str = "uniform",
    norm: str = "l1",
    n_resamples: int = 1000,
    random_state: Any = None,
    score_type: str = "probability",
    sample_weight: Any = None,
    pos_label: Any = None,
) -> NoiseFloor:
    r"""The plug-in ECE beside its noise floor under perfect calibration, with a p-value.

    Labels are redrawn as :math:`y^* \sim \mathrm{Bernoulli}(p)` ``n_resamples`` times
    (seeded by ``random_state``: None, the default, is the fixed seed 0, so the same rows print the same
    floor; a ``numpy.random.Generator`` gives fresh redraws) with the same scores, weights and bins; ``expected`` is the mean redraw
    ECE and ``p_value = (1 + #{ECE* ≥ ECE}) / (R + 1)`` — 0 where a probability score of exactly 0 or 1
    meets the opposite label (``contradicted``: impossible under calibration, as the calibration tests
    say). See
    :mod:`veracity.honest._noise_floor` for why the draws are per row.

    >>> import numpy as np
    >>> p = np.r_[np.full(54, 0.004), 0.1697, 0.4281, np.full(7, 0.9976)]  # seed 000's shape
    >>> y = np.r_[1, np.zeros(53), 0, 1, np.ones(7)]
    >>> nf = ece_noise_floor(p, y, bins=10, random_state=0)
    >>> round(nf.ece, 4), nf.p_value > 0.05
    (0.0245, True)
    """
    data = prepare_binary(scores, labels, sample_weight=sample_weight, score_type=score_type,
                          pos_label=pos_label)
    return noise_floor_of(
        data, bins=bins, strategy=strategy, norm=norm, n_redraws=n_resamples, seed=random_state
    )
