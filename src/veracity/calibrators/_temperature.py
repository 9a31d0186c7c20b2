r"""Temperature scaling: one scalar :math:`\tau > 0` shared by every score.

Binary: :math:`p = \sigma(s/\tau)`; multiclass: :math:`p = \mathrm{softmax}(z/T)`.
:math:`\tau` minimises the negative log-likelihood on the calibration rows
(seed 000, with :math:`y^\pm = 2y - 1`):

.. math::
    \mathrm{NLL}(\tau) = \frac1N\sum_i \mathrm{softplus}\!\Big(-\frac{y^\pm_i s_i}{\tau}\Big)
    \qquad\text{(multiclass: }\frac1N\sum_i \big[\mathrm{logsumexp}(z_i/T) - z_{i,y_i}/T\big]\text{)}

Each term is convex in the inverse temperature :math:`\beta = 1/\tau`, so the
objective is unimodal in :math:`\tau` on any bracket. Two optimisers:

* ``method="newton"`` (default): safeguarded Newton on :math:`\beta`, started from
  a Newton fit on a strided subsample of ~65k rows; on the full data it then needs
  two or three steps (quadratic convergence). Steps that leave the current
  bracket fall back to bisection.
* ``method="golden"``: seed 000's deterministic golden-section search over
  ``bounds`` with ``iterations`` probes; the bracket width after ``k`` iterations is
  :math:`(b - a)\varphi^k`, :math:`\varphi = (\sqrt5-1)/2` (19.95·φ¹⁰ = 0.1622).

By default (``bounds=None``) τ is unbounded: Newton searches β over
:math:`[10^{-10}, 10^{10}]` (bisecting on the log scale when a step leaves the
bracket), so optima such as τ ≈ 131 or τ ≈ 0.01 are found, not clamped. That range is
read around the typical logit size; where τ reaches an end of it and some rows' logits lie
far beyond that size (a tenth of the rows at 1e100), Newton runs again on those rows' scale
(τ ≈ 7e99 there). τ reaches an end only when no finite optimum exists, and a warning says
why: perfectly separated calibration rows (the NLL keeps falling as τ → 0), or reversed
scores (higher scores go with fewer positives, so the best "temperature" would be
negative; the warning names rows far beyond the typical size that dominate the likelihood). Binary
scores are called reversed only when the rows' AUC lies below 1/2 beyond noise (DeLong's 95 %
interval, :func:`veracity.calibrators._platt.association`); within noise the warning says the scores
show no association with the labels, where negating them would repair nothing.
With explicit ``bounds`` a fit that lands on a bound warns that the optimum lies beyond it.

>>> import numpy as np
>>> ts = TemperatureScaling(score_type="logit")
>>> ts.temperature_ = 2.0; ts.n_classes_ = 3
>>> np.round(ts.transform(np.array([[3.0, 1.0, 0.0]])), 2)   # seed 003: 63/23/14 % at T = 2
array([[0.63, 0.23, 0.14]])
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, ClassVar

import numpy as np
from ..core._special import expit, log_softmax, softmax

from ..core._validation import VeracityError
from ._base import Calibrator, warn, warn_certain_contradicted
from ._platt import FAR_ROWS_ADVICE, NO_SIGNAL_ADVICE, Association, association

PHI = (math.sqrt(5.0) - 1.0) / 2.0
_CHUNK = 1 << 16
_SUB = 1 << 16
#: Newton's search range for β = 1/τ with ``bounds=None`` (τ in [1e-10, 1e10]).
BETA_MIN, BETA_MAX = 1e-10, 1e10
#: seed 000's bracket for golden-section search.
GOLDEN_BOUNDS = (0.05, 20.0)
#: the doubles next to 1/2 (0.49999999999999994, 0.5000000000000001): where a nonzero binary logit's
#: probability stops short of the 0.5 cut (see TemperatureScaling._transform)
_BELOW_HALF, _ABOVE_HALF = float(np.nextafter(0.5, 0.0)), float(np.nextafter(0.5, 1.0))


@dataclass(frozen=True)
class TraceRow:
    """One row of the golden-section trace: bracket width and best NLL after ``iteration``."""

    iteration: int
    width: float
    tau: float
    nll: float

    def to_dict(self) -> dict[str, float]:
        return {"iteration": self.iteration, "width": self.width, "tau": self.tau, "nll": self.nll}


# ----------------------------------------------------------------------------------
# objectives (chunked so temporaries stay in cache; no Python loop over rows)
# ----------------------------------------------------------------------------------
class _BinaryObjective:
    """NLL in β of binary logits s: f(β) = Σ w softplus(−y±·βs) / W.

    Derivatives from the margins m = y±·s: f'(β) = Σ w s (σ(βs) − y) / W = −Σ w m σ(−βm) / W,
    f''(β) = Σ w m² σ(βm)(1 − σ(βm)) / W. Each row's term is formed on its own: the older
    Σ w s σ(βs) − Σ w s y cancelled catastrophically when a few rows' scores dwarfed the
    rest (two correctly labelled logits of ±1e10 or ±1e308 among logits of order 1 left
    f' = 0 and a temperature of 1 or 1e306, where those rows do not move the optimum).
    """

    def __init__(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None):
        self.s = s
        self.y = y
        self.w = w
        self.m = (2.0 * y - 1.0) * s                # margin y±·s
        self.wm = self.m if w is None else w * self.m
        self.total = float(s.size if w is None else w.sum())

    def _softplus_sum(self, a: int, betas: tuple[float, ...], mean: bool = False) -> list[float]:
        sc = self.s[a:a + _CHUNK]
        m = self.y[a:a + _CHUNK] * 2.0
        m -= 1.0
        m *= sc                                  # margin y±·s
        out = []
        for beta in betas:
            z = m * (-beta)
            t = np.abs(z)
            np.negative(t, out=t)
            np.exp(t, out=t)
            np.log1p(t, out=t)
            np.maximum(z, 0.0, out=z)
            t += z                               # softplus(−β m), overflow-free
            if self.w is not None:
                t *= self.w[a:a + _CHUNK]
            if mean:
                t /= self.total
            with np.errstate(over="ignore"):  # terms near max-float: see nll_many
                out.append(float(t.sum()))
        return out

    def nll(self, beta: float) -> float:
        return self.nll_many((beta,))[0]

    def nll_many(self, betas: tuple[float, ...]) -> list[float]:
        """f(β) for each β; where Σ w softplus overflows though each term is finite (two margins of
        −1e308: the NLL at τ = 1 is ~1e308 / N), the terms are divided by W before they are summed, so the
        NLL stays finite (an infinite ``nll_before_`` could not be saved: JSON has no inf)."""
        totals = [0.0] * len(betas)
        with np.errstate(over="ignore"):
            for a in range(0, self.s.size, _CHUNK):
                for i, v in enumerate(self._softplus_sum(a, betas)):
                    totals[i] += v
        out = [t / self.total for t in totals]
        for i, v in enumerate(out):
            if v == math.inf:
                scaled = [self._softplus_sum(a, (betas[i],), mean=True)[0] for a in range(0, self.s.size, _CHUNK)]
                with np.errstate(over="ignore"):
                    out[i] = float(np.sum(scaled))
        return out

    def derivs(self, beta: float) -> tuple[float, float]:
        with np.errstate(over="ignore"):  # β m -> ±inf (margins near 1e308): σ is 0 or 1, the limit
            return self._derivs(beta)

    def _derivs(self, beta: float) -> tuple[float, float]:
        g = 0.0
        h = 0.0
        for a in range(0, self.s.size, _CHUNK):
            mc = self.m[a:a + _CHUNK]
            wm = self.wm[a:a + _CHUNK]
            p = mc * (-beta)
            expit(p, out=p)                      # σ(−βm) = 1 − σ(βm)
            q = 1.0 - p
            q *= p
            q *= mc                              # m σ(βm)(1 − σ(βm))
            p *= wm
            q *= wm
            # plain sums, not BLAS dot: no thread start-up per chunk
            g -= float(p.sum())
            h += float(q.sum())
        return g / self.total, h / self.total

    def separated(self) -> bool:
        """Every (positively weighted) margin y±·s >= 0: the NLL falls for ever as β grows."""
        m = (2.0 * self.y - 1.0) * self.s
        if self.w is not None:
            m = m[self.w > 0]
        return bool(m.min() >= 0.0)

    def extent(self) -> tuple[float, float]:
        """Smallest and largest nonzero :math:`|s|` (see :meth:`TemperatureScaling._fit_objective`)."""
        return _nonzero_extent(self.s)

    def subsample(self) -> _BinaryObjective:
        stride = max(1, self.s.size // _SUB)
        return _BinaryObjective(
            self.s[::stride], self.y[::stride], None if self.w is None else self.w[::stride]
        )


def _true_class_shift(obj: Any, level: float = 0.95) -> tuple[float, float, float] | None:
    r"""The multiclass score test of :math:`\beta = 1/\tau = 0`: the (weighted) mean of
    :math:`d_i = z_{i,y_i} - \frac1K\sum_k z_{i,k}` (minus the NLL's slope at :math:`\beta = 0`, where the
    softmax is uniform) with its ``level`` Student-t interval (:func:`veracity.core._paired_mean.paired_mean`,
    the library's one weighted mean with an interval): (mean, low, high). A reversal (score columns in another
    order than the labels) shows as an interval wholly below 0; one that holds 0 is no signal told from noise.
    None where the objective holds no rows (a lazy frame's aggregates), too few of them, or no finite test."""
    from ..core._paired_mean import paired_mean

    z, dy, m = getattr(obj, "z", None), getattr(obj, "dy", None), getattr(obj, "m", None)
    if z is None or dy is None or m is None or z.shape[0] < 2:
        return None
    w = None if obj.w is None else np.asarray(obj.w, dtype=np.float64)
    if w is not None:  # relative to the largest (the test is scale-free): no w^2 overflow
        top = float(w.max())
        if not (top > 0.0 and math.isfinite(top)):
            return None
        w = w / top
    with np.errstate(over="ignore", invalid="ignore"):  # logits near 1e200: d^2 beyond the doubles
        d = (dy + m) - z.mean(axis=1)
        if not np.all(np.isfinite(d)):
            return None
        e = paired_mean(d, w, level)
    if not all(math.isfinite(v) for v in (e.value, e.low, e.high)):
        return None
    return e.value, e.low, e.high


def _off_centre(obj: Any, scale: float) -> tuple[str, float, float, float] | None:
    r"""Why τ ran to its upper end when the binary logits are not reversed, or None when they are.

    :math:`f'(\beta \to 0^+) > 0` says the flat map (every p = 0.5) beats every positive temperature. That is
    so for reversed scores (:math:`\mathrm{cov}_w(s, y) < 0`), and also for scores that rank the labels the
    right way but sit on the wrong side of 0 (logits near +4 at a positive rate of 5 %: a model trained on
    down-sampled negatives), or are all equal: those are off-centre, and passing −s would be the wrong
    repair. Returns (how the scores go with the labels, the mean logit, the positive rate, its logit),
    on the logits' own scale (``obj`` holds them divided by ``scale``). A lazy frame's objective
    (``veracity.frames``) has no arrays: its ``centre()`` gives (the covariance's sign, whether every score
    is equal, the mean logit on the logits' own scale, the positive rate) from its aggregates."""
    if hasattr(obj, "centre"):
        cov, equal, mean, rate = obj.centre()
    else:
        s, y, w = obj.s, obj.y, obj.w
        top = float(np.max(np.abs(s)))
        u = s / top if top > 0.0 else s                   # the sign of a covariance; no square of 1e308
        wt = np.ones_like(s) if w is None else w
        total = float(wt.sum())
        rate = float(np.dot(wt, y)) / total
        cov = float(np.dot(wt, (u - float(np.dot(wt, u)) / total) * (y - rate)))
        equal = float(np.min(s)) == float(np.max(s))
        with np.errstate(over="ignore"):
            mean = float(np.dot(wt, u)) / total * top * scale
    if cov < 0.0:
        return None
    how = ("every score is equal" if equal else
           "higher scores go with MORE positives" if cov > 0.0 else "the scores do not rank the labels")
    with np.errstate(divide="ignore"):
        centre = float(np.log(rate) - np.log1p(-rate))
    return how, mean, rate, centre


class _MulticlassObjective:
    """NLL in β of logits z with row maxima m: f(β) = Σ w [log Σ_k e^{β(z−m)} − β (z_y − m)] / W.

    Shifting by the row maximum keeps every exponent ≤ 0 (no overflow) and the
    row sum ≥ 1 (no log of 0). Row sums use ``einsum`` (several times faster than
    ``sum(axis=1)`` on (n, K) blocks, and BLAS-free). ``derivs`` also records
    f(β), so the final NLL costs no extra pass.
    """

    def __init__(self, z: np.ndarray, y: np.ndarray, w: np.ndarray | None):
        self.z = np.ascontiguousarray(z)
        self.m = z.max(axis=1)
        self.dy = z[np.arange(z.shape[0]), y] - self.m
        self.w = w
        self.total = float(z.shape[0] if w is None else w.sum())
        self.chunk = max(1, _CHUNK // z.shape[1])
        self.last: tuple[float, float, float, float] | None = None

    def _sum(self, v: np.ndarray, a: int) -> float:
        return float(v.sum() if self.w is None else np.dot(self.w[a:a + v.size], v))

    def _block(self, a: int) -> np.ndarray:
        zc = self.z[a:a + self.chunk]
        return zc - self.m[a:a + self.chunk, None]

    def nll(self, beta: float) -> float:
        total = 0.0
        with np.errstate(over="ignore"):  # β d -> -inf: e^{β d} = 0, as it underflows anyway
            for a in range(0, self.z.shape[0], self.chunk):
                d = self._block(a)
                d *= beta
                np.exp(d, out=d)
                v = np.log(np.einsum("ij->i", d)) - beta * self.dy[a:a + self.chunk]
                total += self._sum(v, a)
        return total / self.total

    def derivs(self, beta: float) -> tuple[float, float]:
        with np.errstate(over="ignore"):  # β d -> -inf (d/c of logits spanning ~1e308): e^{β d} = 0
            return self._derivs(beta)

    def _derivs(self, beta: float) -> tuple[float, float]:
        g = 0.0
        h = 0.0
        f = 0.0
        for a in range(0, self.z.shape[0], self.chunk):
            d = self._block(a)
            e = d * beta
            np.exp(e, out=e)
            s0 = np.einsum("ij->i", e)
            e *= d
            s1 = np.einsum("ij->i", e)
            e *= d
            s2 = np.einsum("ij->i", e)
            mean = s1 / s0
            dy = self.dy[a:a + self.chunk]
            g += self._sum(mean - dy, a)
            h += self._sum(s2 / s0 - mean * mean, a)
            f += self._sum(np.log(s0) - beta * dy, a)
        self.last = (beta, f / self.total, g / self.total, h / self.total)
        return g / self.total, h / self.total

    def separated(self) -> bool:
        """Every (positively weighted) row's label holds the row maximum: f falls for ever."""
        dy = self.dy if self.w is None else self.dy[self.w > 0]
        return bool(dy.min() >= 0.0)

    def extent(self) -> tuple[float, float]:
        """Smallest and largest nonzero :math:`|z - \\max_k z|` (see ``_fit_objective``)."""
        with np.errstate(over="ignore"):
            return _nonzero_extent(self.z - self.m[:, None])

    def subsample(self) -> _MulticlassObjective:
        return _MulticlassObjective._from(self, max(1, self.z.shape[0] // _SUB))

    @staticmethod
    def _from(parent: _MulticlassObjective, stride: int) -> _MulticlassObjective:
        obj = object.__new__(_MulticlassObjective)
        obj.z = np.ascontiguousarray(parent.z[::stride])
        obj.m = parent.m[::stride]
        obj.dy = parent.dy[::stride]
        obj.w = None if parent.w is None else parent.w[::stride]
        obj.total = float(obj.z.shape[0] if obj.w is None else obj.w.sum())
        obj.chunk = parent.chunk
        obj.last = None
        return obj


#: Newton runs on the logits as they are while their typical scale (:func:`typical_scale`) lies in here
TYPICAL_LO, TYPICAL_HI = 1e-3, 1e3
_FLOAT_MAX = float(np.finfo(np.float64).max)


def typical_scale(n_nonzero: int, n_small: int, n_large: int, top: float,
                  median: Callable[[], float]) -> float:
    r"""The scale :math:`c` Newton's β runs on, from the nonzero :math:`|d|` (binary :math:`d = s`,
    multiclass :math:`d = z - \max_k z`, every entry): their count, how many lie below
    :data:`TYPICAL_LO` (``n_small``) and above :data:`TYPICAL_HI` (``n_large``), and their maximum ``top``.

    * 0 when every :math:`d` is 0 (nothing to scale);
    * 1 when fewer than half lie below 1e-3, fewer than half above 1e3 and :math:`\mathrm{top}/10^{300}
      \le 10^3`: the median then lies in [1e-3, 1e3] and so does :math:`c`, and Newton runs on :math:`d`
      itself (``median`` is not called: on a lazy frame it is one more pass);
    * otherwise :math:`c = \max(\mathrm{median}(), \mathrm{top}/10^{300})`, ``median()`` the median
      nonzero :math:`|d|`, so that :math:`d/c` stays finite. A ``top`` that overflowed (multiclass logits
      spanning more than the largest double) counts as :math:`2 \cdot 1.8\times10^{308}`, the widest span
      of finite logits.

    Not :math:`\max|d|`: two rows at :math:`\pm10^{10}` among logits of order 1 would shrink the
    others to :math:`10^{-10}` (subnormal at :math:`10^{308}`), so their β would lie beyond
    Newton's range. The one rule for the array fit (:func:`array_typical_scale`) and the lazy frame fits
    (``frames/_fit.py``, from aggregates); :meth:`TemperatureScaling._fit_scaled` applies it.

    >>> typical_scale(4, 0, 4, 2e6, lambda: 1e5)      # every |d| above 1e3: the median
    100000.0
    >>> typical_scale(4, 0, 1, 2e6, lambda: 1e5)      # the median lies in range: not read
    1.0
    """
    if n_nonzero == 0:
        return 0.0
    floor = top / 1e300 if math.isfinite(top) else 2.0 * (_FLOAT_MAX / 1e300)
    if 2 * n_small < n_nonzero and 2 * n_large < n_nonzero and floor <= TYPICAL_HI:
        return 1.0
    return float(max(median(), floor))


def array_typical_scale(z: np.ndarray) -> float:
    """:func:`typical_scale` of binary scores ``(N,)`` or multiclass logits ``(N, K)``; the median is
    that of a strided subsample of ~65k of the nonzero :math:`|d|` (a scale, not an estimate to report)."""
    with np.errstate(over="ignore"):  # a span beyond the largest double: inf, as typical_scale expects
        a = np.abs(z if z.ndim == 1 else z - z.max(axis=1, keepdims=True)).ravel()
    a = a[a > 0.0]
    if a.size == 0:
        return 0.0
    return typical_scale(a.size, int(np.count_nonzero(a < TYPICAL_LO)), int(np.count_nonzero(a > TYPICAL_HI)),
                         float(a.max()), lambda: float(np.median(a[::max(1, a.size // _SUB)])))


def scaled_differences(z: np.ndarray, c: float) -> np.ndarray:
    r""":math:`d/c = (z/2 - \max_k z/2)/(c/2)` of multiclass logits ``(N, K)``: the halves never overflow
    (a span of logits beyond the largest double stays finite) and halving is exact, so this is
    :math:`(z - \max_k z)/c` to rounding wherever that is finite."""
    h = 0.5 * z
    h -= h.max(axis=1, keepdims=True)
    h /= 0.5 * c
    return h


def _nonzero_extent(d: np.ndarray) -> tuple[float, float]:
    """(min, max) of the nonzero :math:`|d|`; (1, 1) when every entry is 0."""
    a = np.abs(d).ravel()
    a = a[a > 0.0]
    return (float(a.min()), float(a.max())) if a.size else (1.0, 1.0)


def _newton(obj: Any, beta_lo: float, beta_hi: float, beta0: float,
            *, rtol: float = 1e-11, max_iter: int = 100) -> tuple[float, str | None, int, bool]:
    """Safeguarded Newton for the convex f(β) on [beta_lo, beta_hi].

    Returns (β, clamp, iterations, converged) where clamp is None, "low" (β = beta_lo, i.e.
    τ at its upper bound) or "high" (β = beta_hi, τ at its lower bound); ``converged`` is False
    only where ``max_iter`` steps ran out (β is then the last iterate, not an optimum).

    A Newton step that is not at most half the previous one in the same direction is not converging
    quadratically: it bisects the bracket instead. Where the objective falls off exponentially (one
    row of logit differences 1e304 among logits of order 1: f'(β) = B − A e^{−β} on its scale) every
    Newton step moved β by exactly +1, and 100 of them stopped at β = 101 (or 201 after the warm start)
    with no word, where the optimum lies at β ≈ 699.
    """
    lo, hi = beta_lo, beta_hi
    beta = min(max(beta0, lo), hi)
    last = 0.0  # the previous Newton step (0.0 after a bisection)
    for it in range(1, max_iter + 1):
        g, h = obj.derivs(beta)
        if g == 0.0 and h == 0.0 and beta > 1.0:
            # Every margin saturated with the right sign (σ(βs) = y to the last bit):
            # the labels are separated and the NLL keeps falling as β grows.
            return beta_hi, "high", it, True
        if g == 0.0:
            return beta, None, it, True
        if g > 0.0:
            if beta <= beta_lo:
                return beta_lo, "low", it, True
            hi = beta
        else:
            if beta >= beta_hi:
                return beta_hi, "high", it, True
            lo = beta
        new = beta - g / h if h > 0.0 else math.nan
        if abs(new - beta) <= math.sqrt(rtol) * 0.1 * beta and lo <= new <= hi:
            # Newton converges quadratically: after a step this small the remaining
            # error is ~step² <= rtol·β/100, so take it without another pass.
            return new, None, it, True
        slow = (new - beta) * last > 0.0 and abs(new - beta) > 0.5 * abs(last)
        last = new - beta
        if slow or not (lo < new < hi):
            # Newton left the bracket (or crawls): try the bound itself once (it may be the answer),
            # otherwise bisect -- geometrically while the bracket spans decades (the
            # search runs on log β = −log τ), arithmetically once it is narrow.
            last = 0.0
            if new >= hi and hi == beta_hi and beta != beta_hi:
                new = beta_hi
            elif new <= lo and lo == beta_lo and beta != beta_lo:
                new = beta_lo
            elif hi > 16.0 * lo:
                new = math.sqrt(lo * hi)
            else:
                new = 0.5 * (lo + hi)
        beta = new
    return beta, None, max_iter, False


def _golden(f: Any, a: float, b: float, iterations: int) -> tuple[float, list[TraceRow]]:
    """Seed 000's golden-section search for the minimum of unimodal ``f`` on [a, b]."""
    c = b - PHI * (b - a)
    d = a + PHI * (b - a)
    fc, fd = f(c), f(d)
    trace: list[TraceRow] = []
    # the trace shows the width the search guarantees, (b - a)·φ^k: the same on every CPU (the
    # floating-point b - a after 60 steps differs in its 4th digit with the last bits of the NLL)
    width0 = b - a
    for k in range(1, iterations + 1):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - PHI * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + PHI * (b - a)
            fd = f(d)
        if k % 10 == 0 or k == iterations:
            trace.append(TraceRow(k, float(width0 * PHI ** k), float(0.5 * (a + b)), float(min(fc, fd))))
    return 0.5 * (a + b), trace


class TemperatureScaling(Calibrator):
    r"""Temperature scaling :math:`\sigma(s/\tau)` (binary) or :math:`\mathrm{softmax}(z/T)`.

    Parameters: ``score_type`` (``"probability"`` default, e.g. ``predict_proba``
    output, mapped to logits first; ``"logit"`` for raw logits), ``method``
    (``"newton"`` or ``"golden"``), ``bounds`` for τ (default ``None``: unbounded for
    Newton, seed 000's ``(0.05, 20.0)`` for golden-section), ``iterations`` for
    golden-section.

    Fitted: ``temperature_`` (τ), ``nll_before_`` / ``nll_after_`` (fit-data NLL at
    τ = 1 and τ*), ``trace_`` (golden-section rows; empty for Newton),
    ``n_iter_``, ``clamped_`` (None, ``"lower"`` or ``"upper"`` bound hit).
    τ > 1 means the raw scores were over-confident.

    The map s ↦ s/τ keeps every strict order and sign, so ranking, AUC and every
    0.5 decision are unchanged (checked exactly by :func:`veracity.compare`).
    """

    kind = "temperature"
    multiclass = "both"
    _params = ("score_type", "method", "bounds", "iterations")
    _state = ("temperature_", "nll_before_", "nll_after_", "trace_", "n_iter_", "clamped_")
    preserves_order: ClassVar[bool] = True
    temperature_: float  # fitted

    def __init__(self, *, score_type: str = "probability", method: str = "newton",
                 bounds: tuple[float, float] | None = None, iterations: int = 80):
        self.score_type = score_type
        self.method = method
        self.bounds = bounds
        self.iterations = iterations

    def _check_params(self) -> None:
        super()._check_params()
        if self.method not in ("newton", "golden"):
            raise VeracityError(f"method must be 'newton' or 'golden', got {self.method!r}", param="method")
        if self.bounds is not None:
            try:
                lo, hi = (float(v) for v in self.bounds)
            except (TypeError, ValueError):
                raise VeracityError(
                    f"bounds must be None or two numbers (lo, hi), got {self.bounds!r}") from None
            if not (0.0 < lo < hi < math.inf):
                raise VeracityError(f"bounds must satisfy 0 < lo < hi, got {self.bounds!r}", param="bounds")
        if isinstance(self.iterations, bool) or not isinstance(self.iterations, int) or self.iterations < 1:
            raise VeracityError(f"iterations must be a positive integer, got {self.iterations!r}", param="iterations")

    def _clamp_message(self, obj: Any, clamp: str, lo: float, hi: float, scale: float = 1.0,
                       dominant: float = 1.0) -> str:
        """One line: which end τ reached, what it means, what to try. A finite range (``bounds=``, or the
        golden search's default bracket :data:`GOLDEN_BOUNDS`) says the optimum lies beyond its end; only
        the unbounded Newton range's ends mean that no finite optimum exists. ``obj`` may be the objective
        of the logits divided by ``scale`` (:meth:`_fit_scaled`): τ is then named times it. ``dominant``: the
        largest :math:`|d|` over the typical one where a second fit ran on the scale of the largest rows."""
        lo, hi = min(scale * lo, _FLOAT_MAX), min(scale * hi, _FLOAT_MAX)
        user = self.bounds is not None or self.method == "golden"
        where = "of bounds=" if self.bounds is not None else (
            f"of the golden-section bracket ({lo:g}, {hi:g}) (bounds=None)")
        reach = "Widen bounds= or leave bounds=None (unbounded)"
        if self.method == "golden":
            reach = "Widen bounds=, or use method='newton' with bounds=None (unbounded)"
        if clamp == "upper":
            # f'(β) at β -> 0+: positive means the unconstrained optimum has β < 0; within rounding of 0
            # (f'' there is the scores' mean square / 4, for binary) the scores carry no signal either way
            # probed where β·|d| stays ~1e-12 for the largest |d| too: at β = 1e-12 rows of 1e100 are
            # saturated, and a wrong class among them read as 'reversed'
            large = obj.extent()[1] if hasattr(obj, "extent") else 1.0
            with np.errstate(over="ignore", invalid="ignore"):  # f'' of logits near 1e300: inf or NaN
                g0, h0 = obj.derivs(1e-12 if large <= TYPICAL_HI else 1e-12 / large)
            reversed_ = g0 > 1e-9 * (math.sqrt(max(h0, 0.0)) if math.isfinite(h0) else large)
            if reversed_ and dominant > TYPICAL_HI:  # the second fit, on the scale of the largest rows
                what = "logits" if hasattr(obj, "nll_many") else "logit differences"
                return (
                    f"TemperatureScaling: rows with {what} up to {scale:.3g}, far beyond the typical size, "
                    "dominate the likelihood, and their scores are reversed (their top score mostly goes "
                    "with the WRONG label), so no positive temperature fits them; tau was "
                    f"clamped at {hi:g}, which flattens every probability towards uniform. Check those rows' "
                    "scores, or fit without them"
                )
            # the rows' own arrays, or a lazy frame's aggregates (its objective's centre(), veracity.frames)
            binary = isinstance(obj, _BinaryObjective) or hasattr(obj, "centre")
            off = _off_centre(obj, scale) if reversed_ and binary else None
            if off is not None:
                return (
                    f"TemperatureScaling: the scores are off-centre, not reversed ({off[0]}): their mean "
                    f"logit is {off[1]:.3g} but the positive rate {off[2]:.3g} is logit {off[3]:.3g}, and "
                    "dividing by tau cannot move the centre s = 0 (p = 0.5), so no positive temperature "
                    f"fits; tau was clamped at {hi:g}, which flattens every probability towards uniform. "
                    "Use PlattScaling or BetaCalibration, whose intercept moves the centre (a model trained "
                    "on down-sampled negatives has logits shifted by the log of the sampling rate)"
                )
            shift = _true_class_shift(obj) if reversed_ and not binary else None
            if shift is not None and shift[2] >= 0.0:  # the interval holds 0: no reversal told from noise
                return (
                    f"TemperatureScaling: the true class's score does not differ from the others' beyond "
                    f"noise (mean z_y - mean_k z_k {shift[0]:+.3g}, 95% interval [{shift[1]:+.3g}, "
                    f"{shift[2]:+.3g}]): the fit cannot tell reversed score columns from no signal, and no "
                    f"positive temperature fits; tau was clamped at {hi:g}, which flattens every probability "
                    f"towards uniform. {NO_SIGNAL_ADVICE}"
                )
            if reversed_ and not binary:
                # (N, K) scores have no "positives", no -scores or 1 - p to pass, and PlattScaling would fit
                # the same reversal class by class: the usual cause is score columns in another order
                # than the label indices
                return (
                    f"TemperatureScaling: the scores are reversed (the true class scores LOWER than the "
                    f"other classes on average), so no positive temperature fits; tau was clamped at {hi:g}, "
                    "which flattens every probability towards uniform. Check that score column k is class "
                    "k's (the order of the label indices, e.g. model.classes_) and that the scores are not "
                    "negated"
                )
            if reversed_:
                # cov_w(s, y) < 0, but only a rank test tells a reversal from noise: the rows' AUC with
                # DeLong's interval (a lazy frame's objective computes it from sums in its engine)
                assoc: Association | None
                if isinstance(obj, _BinaryObjective):
                    assoc = association(obj.s, obj.y, obj.w)
                else:
                    assoc = obj.association() if hasattr(obj, "association") else None
                flat = f"tau was clamped at {hi:g}, which flattens every probability towards uniform"
                if assoc is not None and assoc.verdict == "noise":
                    return (f"TemperatureScaling: {assoc.no_signal()}, and no positive temperature fits; "
                            f"{flat}. {NO_SIGNAL_ADVICE}")
                if assoc is not None and assoc.verdict == "forward":
                    return (f"TemperatureScaling: the scores rank the labels the right way "
                            f"({assoc.describe()}), but a few scores far from the rest go with the wrong "
                            f"label and outweigh them, so no positive temperature fits; {flat}. "
                            f"{FAR_ROWS_ADVICE}")
                return (  # reversed beyond noise (or untested)
                    f"TemperatureScaling: the scores are reversed (higher scores go with FEWER "
                    f"positives), so no positive temperature fits; {flat}. Check the score's sign "
                    "convention (pass -scores, or 1 - p) or use PlattScaling"
                )
            if user:
                return (
                    f"TemperatureScaling: tau landed on the upper bound {hi:g} {where}; the "
                    f"NLL still falls beyond it (the scores are very over-confident). {reach}"
                )
            return (
                f"TemperatureScaling: tau reached {hi:g}: the scores carry almost no signal "
                "about the labels; every calibrated probability is near uniform"
            )
        if self.bounds is not None or (self.method == "golden" and not obj.separated()):
            return (
                f"TemperatureScaling: tau landed on the lower bound {lo:g} {where}; the NLL "
                "still falls beyond it (under-confident scores, or calibration rows the score "
                f"separates perfectly). {reach}"
            )
        return (
            f"TemperatureScaling: the NLL keeps falling as tau -> 0 because the score separates "
            f"the calibration labels perfectly; tau stopped at {lo:g}, so every probability "
            "is 0 or 1. Use more calibration rows, or PlattScaling(smoothing=True)"
        )

    def _refuse_flat(self, binary: bool) -> None:
        r"""Every (positively weighted) calibration row has logit 0 (binary: p = 0.5) or equal logits
        for all classes (uniform probabilities): :math:`s/\tau` is 0 for every τ, so the NLL is flat
        (f'(β) = f''(β) = 0) and the data say nothing about τ; any τ returned would be arbitrary, and
        on fresh scores τ → 0 would turn every probability into 0 or 1."""
        what = ("every calibration score is 0 on the logit scale (probability 0.5)" if binary else
                "every calibration row gives all classes the same score (uniform probabilities)")
        raise VeracityError(
            f"TemperatureScaling cannot be fit: {what}, so s/tau is the same for every tau and the "
            "NLL cannot choose one. Fit on the model's varying scores, or use PlattScaling (which "
            "then outputs the base rate)")

    def _warn_one_signed_score(self, z: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        """sigma(s / tau) is 0.5 at s = 0 and keeps the sign of s: a ranking score that never
        changes sign (vote counts 0..6, a share in [0, 1]) can only give probabilities on one
        side of 0.5, whatever tau is."""
        lo, hi = float(z.min()), float(z.max())
        if lo < 0.0 < hi:
            return
        side = ">= 0.5" if lo >= 0.0 else "<= 0.5"
        rate = float(np.average(y, weights=w))
        warn(f"TemperatureScaling(score_type='score') maps a score of 0 to p = 0.5 and keeps its sign, "
             f"but all {z.size} scores lie in [{lo:.4g}, {hi:.4g}], so every output is {side} "
             f"(the base rate is {rate:.4g}); use PlattScaling (sigmoid(a * s + b)) or "
             "IsotonicCalibration for a ranking score, or center it")

    @property
    def beta_(self) -> float:
        """Inverse temperature 1/τ."""
        return 1.0 / self.temperature_

    def _tau_range(self) -> tuple[float, float]:
        if self.bounds is not None:
            lo, hi = (float(v) for v in self.bounds)
            return lo, hi
        if self.method == "golden":
            return GOLDEN_BOUNDS
        return 1.0 / BETA_MAX, 1.0 / BETA_MIN

    def _fit(self, s: np.ndarray, y: np.ndarray, w: np.ndarray | None) -> None:
        z = self._logit_input(s)
        if self.score_type == "score" and z.ndim == 1:
            self._warn_one_signed_score(z, y, w)
        if z.ndim == 1:
            self._fit_scaled(lambda: array_typical_scale(z), lambda c: _BinaryObjective(
                np.ascontiguousarray(z if c == 1.0 else z / c), y, w))
        else:
            self._fit_scaled(lambda: array_typical_scale(z), lambda c: _MulticlassObjective(
                z if c == 1.0 else scaled_differences(z, c), y, w))
        warn_certain_contradicted(self, s, y, w)

    def _fit_scaled(self, scale: Callable[[], float], objective: Callable[[float], Any]) -> None:
        r"""Fit on the typical scale: ``objective(c)`` is the objective of the logits divided by
        :math:`c` (multiclass: of :math:`d/c`), ``scale()`` gives :math:`c` by :func:`typical_scale`.

        Scores of extreme magnitude (decision values of 1e5, scores of 1e-5, two rows at ±1e308) with
        ``method="newton"`` and ``bounds=None``: where :math:`c` lies outside [1e-3, 1e3], Newton runs
        on :math:`z/c` and :math:`\tau = c\,\tau'` maps the fit back, so :math:`z/\tau` is exact on the
        original scale, and ``nll_before_`` is the scaled objective at :math:`\beta' = c` (τ = 1).
        Otherwise the fit runs on ``objective(1.0)``, the logits as they are. The array fit and the
        lazy frame fits (``frames/_fit.py``) both come here.
        """
        c = scale() if self.method == "newton" and self.bounds is None else 1.0
        if TYPICAL_LO <= c <= TYPICAL_HI or not c > 0.0:
            c = 1.0
        self._fit_objective(objective(c), c, rescale=lambda f: objective(c * f))

    def _fit_objective(self, obj: Any, scale: float = 1.0,
                       rescale: Callable[[float], Any] | None = None) -> None:
        r"""Minimise ``obj`` (f, f', f'' in β from any source: arrays, or a frame's aggregates).

        ``obj`` offers ``derivs(β) -> (f', f'')``, ``nll(β)``, ``separated()`` and
        ``subsample()`` (a cheaper objective for the warm start, or None to start at
        β = 1); a binary objective also ``nll_many(βs)``, a multiclass one ``last``. It is the objective
        of the logits divided by ``scale`` (:meth:`_fit_scaled`); ``rescale(f)`` gives that of the logits
        divided by ``scale * f``.

        Rows far from the typical size: where Newton runs to an end of its range (τ' at 1e10 or 1e-10) and the
        objective offers ``extent()`` (the smallest and largest nonzero :math:`|d|`; the frame objectives read
        them in their first query), the fit runs again on the scale of the rows beyond the range,
        ``rescale(max|d|)`` (τ' at 1e10, :math:`\max|d| > 10^3`) or ``rescale(min|d|)`` (τ' at 1e-10,
        :math:`\min|d| < 10^{-3}`), and keeps that answer. A tenth of the rows at 1e100 among logits of order
        1 put the MLE at τ ≈ 7e99 (the huge rows calibrated, the others near uniform); the ordinary rows among
        a majority at 1e-200 (whose typical scale made them 1e200) at τ ≈ 0.65. Where the second fit also runs
        to its end, no finite τ fits those rows (its τ, 1e10 times their size, makes them near uniform, where
        1e10 left them an NLL of 1e89).

        One row of logits 1e304 among rows with no signal puts the optimum inside that range, at
        :math:`\beta' \approx 699` on the huge row's scale, where f falls off as :math:`e^{-\beta'}`:
        :func:`_newton` bisects where its steps stop shrinking, and a fit that still runs out of steps warns
        that it stopped, with the τ it stopped at (it ended silently at :math:`\beta' = 101` or 201).
        """
        lo, hi = self._tau_range()
        trace: list[TraceRow] = []
        beta = math.nan
        converged = True
        dominant = 1.0  # the largest |d| in units of the fit's scale where a second fit ran on it
        if self.method == "golden" or obj.separated():
            with np.errstate(over="ignore", invalid="ignore"):  # f'' of logits near 1e200: inf or NaN
                flat = obj.derivs(0.0) == (0.0, 0.0)
            if flat:
                self._refuse_flat(hasattr(obj, "nll_many"))
        if self.method == "golden":
            tau, trace = _golden(lambda t: obj.nll(1.0 / t), lo, hi, self.iterations)
            clamp = None
            n_iter = self.iterations
            # At a bound? Then the true optimum may lie beyond it: check the slope there (only f' is read:
            # f'' of logits near 1e200 overflows to inf or NaN, which is no concern of the user's)
            with np.errstate(over="ignore", invalid="ignore"):
                if tau - lo <= 1e-9 * (hi - lo) and obj.derivs(1.0 / lo)[0] < 0.0:
                    clamp, tau = "lower", lo
                elif hi - tau <= 1e-9 * (hi - lo) and obj.derivs(1.0 / hi)[0] > 0.0:
                    clamp, tau = "upper", hi
        elif obj.separated():
            clamp, tau, n_iter = "lower", lo, 0
        else:
            sub = obj.subsample()
            b0 = 1.0 if sub is None else _newton(sub, 1.0 / hi, 1.0 / lo, 1.0, rtol=1e-6)[0]
            beta, side, n_iter, converged = _newton(obj, 1.0 / hi, 1.0 / lo, b0)
            small, large = obj.extent() if side is not None and hasattr(obj, "extent") else (1.0, 1.0)
            f = 0.0
            if side == "low" and large > TYPICAL_HI:
                f = large
            elif side == "high" and small < TYPICAL_LO:
                f = small
            if rescale is not None and self.bounds is None and 0.0 < scale * f < math.inf:
                dominant = large if side == "low" else 1.0
                obj, scale = rescale(f), scale * f  # the same logits, on the scale of those rows
                sub = obj.subsample()
                b0 = 1.0 if sub is None else _newton(sub, 1.0 / hi, 1.0 / lo, 1.0, rtol=1e-6)[0]
                beta, side, it_2, converged = _newton(obj, 1.0 / hi, 1.0 / lo, b0)
                n_iter += it_2
            clamp = {None: None, "high": "lower", "low": "upper"}[side]
            tau = lo if clamp == "lower" else hi if clamp == "upper" else 1.0 / beta
        if clamp is not None:
            warn(self._clamp_message(obj, clamp, lo, hi, scale, dominant))
        elif not converged:
            warn(f"TemperatureScaling: Newton stopped after {n_iter} steps without converging (tau = "
                 f"{min(scale / beta, _FLOAT_MAX):.6g}, not an optimum); the fitted probabilities may be "
                 "off. Check the calibration scores for extreme rows, or fit with method='golden' and "
                 "bounds=")
        self.temperature_ = float(tau)
        if hasattr(obj, "nll_many"):  # binary
            self.nll_before_, self.nll_after_ = obj.nll_many((1.0, 1.0 / tau))
        else:
            # The last Newton pass evaluated f, f', f'' at a point within ~1e-6·β of the
            # answer; a second-order Taylor step from there is exact to rounding.
            last = obj.last
            near = (self.method == "newton" and clamp is None and last is not None
                    and abs(beta - last[0]) <= 1e-6 * beta)
            if near:
                step = beta - last[0]
                after = last[1] + last[2] * step + 0.5 * last[3] * step * step
            else:
                after = obj.nll(1.0 / tau)
            self.nll_before_, self.nll_after_ = obj.nll(1.0), after
        if scale != 1.0:  # back to the original scale: τ = scale·τ', τ = 1 is β' = scale
            self.temperature_ = float(min(scale * self.temperature_, _FLOAT_MAX))
            self.nll_before_ = float(obj.nll(scale))
        self.trace_ = tuple(trace)
        self.n_iter_ = int(n_iter)
        self.clamped_ = clamp

    def transform_logit(self, scores: Any) -> np.ndarray:
        """Calibrated logits ``s/τ`` (binary: ±inf where it overflows, probability 1 or 0) or ``z/T``
        (multiclass; in a row where it overflows, logits with the same softmax, −inf for a class whose
        probability is 0 in the limit: see :meth:`_shifted_logits`)."""
        self._require_fitted()
        z = self._logit_input(self._scores(scores, fitting=False))
        if z.ndim == 2:
            return self._shifted_logits(z)
        with np.errstate(over="ignore"):
            out: np.ndarray = z / self.temperature_
        return out

    def _transform(self, s: np.ndarray) -> np.ndarray:
        r""":math:`\sigma(s/\tau)` (binary) or :math:`\mathrm{softmax}(z/T)`.

        Binary: :math:`s/\tau` keeps the sign of :math:`s`, so p keeps its side of 1/2 and the decisions
        at :math:`p \ge 1/2` (the ledger's certificate) and at :math:`p > 1/2` (a classifier's argmax) are
        the raw scores'. A nonzero :math:`s` whose :math:`\sigma(s/\tau)` rounds to exactly 1/2
        (:math:`|s/\tau|` below about :math:`2^{-53}`, or underflowing to 0: p = 0.49999999999999994 read 0.5
        at τ = 1.56, a negative decision turned positive) is given the nearest double on its own side,
        within an ulp of the value.
        """
        z = self._logit_input(s)
        if z.ndim == 2:
            return softmax(self._shifted_logits(z), axis=1)
        p: np.ndarray = expit(z / self.temperature_)  # s/tau = ±inf gives 0 or 1, the limit
        p[(z < 0.0) & (p >= 0.5)] = _BELOW_HALF
        p[(z > 0.0) & (p <= 0.5)] = _ABOVE_HALF
        return p

    def _shifted_logits(self, z: np.ndarray) -> np.ndarray:
        r"""Logits with the same softmax as :math:`z/T` and no NaN or :math:`+\infty` in any row.

        :math:`z/T` as it is where every entry is finite; in a row where it overflows (logits near
        :math:`\pm10^{308}` with :math:`T < 1`, where :math:`\infty - \infty` in the softmax gave NaN)
        :math:`(z - \max_k z)/T`, computed as :func:`scaled_differences` (the halves
        :math:`(z/2 - \max_k z/2)/(T/2)` never overflow before the division, and halving is exact):
        an entry that then overflows is :math:`-\infty`, probability 0, which is the limit.
        """
        with np.errstate(over="ignore"):
            q = z / self.temperature_
            bad = ~np.isfinite(q).all(axis=1)
            if bad.any():
                q[bad] = scaled_differences(z[bad], self.temperature_)
        return q

    def log_proba(self, scores: Any) -> np.ndarray:
        r"""Calibrated log-probabilities: of the classes, :math:`\log\mathrm{softmax}(z/T)`, ``(N, K)`` for
        (N, K) input; of the positive class, :math:`\log\sigma(s/\tau) = -\log(1 + e^{-s/\tau})`, ``(N,)``
        for binary scores, as :meth:`transform` shapes its output (binary scores raised numpy's bare
        ``AxisError``)."""
        self._require_fitted()
        z = self._logit_input(self._scores(scores, fitting=False))
        if z.ndim == 1:
            with np.errstate(over="ignore"):
                out: np.ndarray = 0.0 - np.logaddexp(0.0, -(z / self.temperature_))  # 0.0, not -0.0
            return out
        return log_softmax(self._shifted_logits(z), axis=1)

    def _state_dict(self) -> dict[str, Any]:
        state = super()._state_dict()
        state["trace_"] = [r.to_dict() for r in self.trace_]
        return state

    def _load_state(self, state: dict[str, Any]) -> None:
        state = dict(state)
        trace = tuple(TraceRow(**r) for r in state.get("trace_", []))
        state["trace_"] = 0
        super()._load_state(state)
        self.trace_ = trace

    def _is_fitted(self) -> bool:
        return hasattr(self, "temperature_")

    def __str__(self) -> str:
        if not self._is_fitted():
            return repr(self)
        tau = self.temperature_  # 1e-10 printed as 0.0000 read as a division by zero
        shown = f"{tau:.4f}" if 1e-3 <= tau < 1e5 else f"{tau:.4g}"
        lines = [f"temperature scaling ({self.method}): tau* = {shown}"]
        if self.trace_:
            from ..core._text import render_table

            lines.append(render_table(
                ["iter", "bracket width", "best NLL"],
                [[str(r.iteration), f"{r.width:.3e}", f"{r.nll:.6f}"] for r in self.trace_],
                indent="  ",
            ))
        direction = ("over" if self.temperature_ > 1 else "under" if self.temperature_ < 1 else "")
        clamped = getattr(self, "clamped_", None)
        if clamped is not None:
            # an end of the range is no optimum: reversed or signal-free scores also end at the upper one,
            # where "the raw reading was OVERconfident" would be false
            lines.append(
                "  (tau stopped at the upper end of its range, not at an optimum: every probability is flattened "
                "towards uniform; the scores are reversed, carry no signal, or need tau beyond bounds=)"
                if clamped == "upper" else
                "  (tau stopped at the lower end of its range, not at an optimum: every probability is pushed "
                "towards 0 or 1; the score separates the calibration rows, or needs tau below bounds=)")
        elif direction:
            lines.append(f"  (tau {'>' if direction == 'over' else '<'} 1: the raw reading was "
                         f"{direction.upper()}confident)")
        lines.append(f"  NLL on the fit rows: {self.nll_before_:.4f} (tau=1) -> "
                     f"{self.nll_after_:.4f} (tau*)")
        return "\n".join(lines)
