r"""Anytime-valid bounds on calibration-in-the-large: a confidence sequence you may look at every day.

Each labelled row gives :math:`x_i = y_i - p_i \in [-1, 1]`; under calibration every
:math:`x_i` has conditional mean 0, whatever the stream does. The sequence bounds the
(bet-weighted) running mean of those conditional means — *rate − mean score* — with
coverage that holds **simultaneously at every time**: the chance that 0 ever leaves the
bounds of a calibrated stream, however often and whenever you look, is at most
:math:`\alpha`. A per-window test run daily has no such guarantee (each look spends
another :math:`\alpha`).

What is covered: at each step, the bet-weighted average of the rows' conditional means
:math:`\mathrm{E}[y_i - p_i \mid \text{past}]`. Under calibration that is 0 at every step — the
hypothesis the alarm tests. When calibration drifts the target moves, so the running
intersection (valid for a fixed target) may come to exclude the current running mean,
or even cross; by then the alarm has fired, which is its purpose.

The construction is the predictable plug-in empirical-Bernstein confidence sequence
of Waudby-Smith & Ramdas (2023, *Estimating means of bounded random variables by
betting*, JRSS-B, Theorem 2): a capital process that bets :math:`\lambda_t` on
:math:`z_t = (x_t + 1)/2 \in [0, 1]`,

.. math:: K_t(m) = \prod_{i \le t} \exp\big(\lambda_i (z_i - m) - v_i\,\psi(\lambda_i)\big),
          \qquad v_i = (z_i - \hat\mu_{i-1})^2,\quad \psi(\lambda) = -\log(1-\lambda) - \lambda,

is a nonnegative supermartingale under the mean :math:`m` for predictable bets
:math:`\lambda_i \in [0, 1)` and centres :math:`\hat\mu_{i-1}` (Ville's inequality: it
exceeds :math:`1/\alpha` with probability at most :math:`\alpha`). Because the bets do not
depend on :math:`m`, the set :math:`\{m : K_t(m) < 2/\alpha\}` has a closed-form lower end

.. math:: L_t = \frac{\sum_{i\le t} \lambda_i z_i - \log(2/\alpha) - \sum_{i\le t} v_i\psi(\lambda_i)}
                     {\sum_{i\le t} \lambda_i},

and the upper end is the same for :math:`1 - z` (each side at :math:`\alpha/2`). The bets are
those of the paper, :math:`\lambda_t = \min\big(\tfrac12, \sqrt{2\log(2/\alpha) /
(t\log(1+t)\,\hat\sigma^2_{t-1})}\big)` with the regularised variance
:math:`\hat\sigma^2_{t-1}` of the earlier rows — the ``confseq`` package's
``predmix_empbern_cs``, which the tests reproduce to rounding. The bounds are mapped
back to the :math:`x` scale (:math:`2z - 1`) and reported as a **running intersection**:
they never widen.

**Batches (daily looks).** The same process with the bet and centre held fixed within
each batch, set from the earlier batches (and the batch's size: the count of outcomes
that arrive is assumed not to depend on their values — the same assumption a
maturity horizon makes). Then every quantity is a function of three sums per batch —
rows :math:`n_b`, :math:`\sum x` and :math:`\sum x^2` — so a store updates the sequence from its
daily aggregates (:func:`sequence_from_sums`), and one row per batch reproduces the
row-by-row sequence exactly.
"""

from __future__ import annotations

import datetime
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..core._display import Display
from ..core._text import fmt, render_table
from ..core._validation import VeracityError, _is_missing, check_binary_labels, check_weights, to_numpy
from ..decisions._inputs import check_alpha
from ._ppi import probabilities_1d
from ._ppi_result import bound_texts
from ..core._frameform import rows_form

TRUNCATION = 0.5  # the paper's (and confseq's) cap on the bets


def _lower_z(n: np.ndarray, s: np.ndarray, q: np.ndarray, alpha: float, truncation: float) -> np.ndarray:
    """Lower bound of the mean of z in [0, 1] after each batch (no intersection), from per-batch
    counts ``n``, sums ``s`` and sums of squares ``q`` (last axis: batches)."""
    N = np.cumsum(n, axis=-1)
    S = np.cumsum(s, axis=-1)
    N_prev = N - n
    S_prev = S - s
    with np.errstate(divide="ignore", invalid="ignore"):
        # centre of v: the plain mean of the earlier rows (0 before any)
        mu_plain = np.where(N_prev > 0, S_prev / N_prev, 0.0)
        # regularised mean after each batch (prior 1/2 with one pseudo-row), and the regularised
        # variance of the rows up to the previous batch (prior 1/4 with one pseudo-row)
        mu_reg = np.minimum((0.5 + S) / (N + 1.0), 1.0)
        dev = q - 2.0 * mu_reg * s + n * mu_reg * mu_reg
        acc = np.cumsum(dev, axis=-1)
        sigma2 = (0.25 + acc) / (N + 1.0)
        sigma2_prev = np.concatenate([np.full(sigma2.shape[:-1] + (1,), 0.25), sigma2[..., :-1]], axis=-1)
        lam = np.sqrt(2.0 * math.log(1.0 / alpha) / (N * np.log1p(N) * sigma2_prev))
        lam = np.where(np.isnan(lam), 0.0, lam)
        lam = np.minimum(lam, truncation)
        psi = -np.log1p(-lam) - lam
        v = q - 2.0 * mu_plain * s + n * mu_plain * mu_plain
        num = np.cumsum(lam * s, axis=-1) - math.log(1.0 / alpha) - np.cumsum(v * psi, axis=-1)
        den = np.cumsum(lam * n, axis=-1)
        low = np.where(den > 0, num / den, -np.inf)
    return np.minimum(low, 1.0)


def raw_bounds_z(n: Any, s: Any, q: Any, *, alpha: float = 0.05, truncation: float = TRUNCATION
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds for the mean of z ∈ [0, 1] (per-batch sums of z), each side at α/2,
    without clipping or intersection — ``confseq.predmix.predmix_empbern_cs`` for one row per batch."""
    n, s, q = (np.asarray(a, dtype=np.float64) for a in (n, s, q))
    low = _lower_z(n, s, q, alpha / 2.0, truncation)
    high = 1.0 - _lower_z(n, n - s, n - 2.0 * s + q, alpha / 2.0, truncation)
    return low, high


def sequence_from_sums(n: Any, sum_x: Any, sum_xx: Any, *, alpha: float = 0.05
                       ) -> tuple[np.ndarray, np.ndarray]:
    r"""Running bounds on the mean of :math:`x = y - p \in [-1, 1]` after each batch.

    ``n``, ``sum_x``, ``sum_xx`` — per batch (last axis, in arrival order; leading axes are
    independent streams, e.g. cohorts): rows, :math:`\sum (y - p)`, :math:`\sum (y - p)^2`.
    Returns ``(low, high)`` of the same shape: the running intersection (never wider than
    before), :math:`[-1, 1]` before any row. Vectorised: no loop over batches or streams. Sums that no
    batch of rows has (NaN, a negative count, :math:`|\sum x| > n`, ...) are refused
    (:func:`_check_batch_sums`).
    """
    alpha = check_alpha(alpha)
    n = np.asarray(n, dtype=np.float64)
    sx = np.asarray(sum_x, dtype=np.float64)
    sxx = np.asarray(sum_xx, dtype=np.float64)
    if not (n.shape == sx.shape == sxx.shape) or n.ndim == 0:
        raise VeracityError(f"n, sum_x and sum_xx must be arrays of one shape (batches on the last axis); got "
                            f"{n.shape}, {sx.shape}, {sxx.shape}")
    _check_batch_sums(n, sx, sxx)
    # z = (x + 1) / 2: sums of z and z^2 per batch
    sz = (sx + n) / 2.0
    qz = (sxx + 2.0 * sx + n) / 4.0
    low_z, high_z = raw_bounds_z(n, sz, qz, alpha=alpha)
    low = np.maximum.accumulate(np.clip(2.0 * low_z - 1.0, -1.0, 1.0), axis=-1)
    high = np.minimum.accumulate(np.clip(2.0 * high_z - 1.0, -1.0, 1.0), axis=-1)
    return low, high


def _check_batch_sums(n: np.ndarray, sx: np.ndarray, sxx: np.ndarray) -> None:
    r"""Refuse per-batch sums that no batch of rows with :math:`x = y - p \in [-1, 1]` has: a value that is
    not finite (a NULL read as NaN made every later bound NaN, and NaN bounds never alarm: a silent "no
    alarm" for ever), a negative count, :math:`|\sum x| > n`, :math:`\sum x^2` outside :math:`[0, n]`, or
    :math:`(\sum x)^2 > n \sum x^2` (Cauchy–Schwarz) — each up to rounding (relative 1e-9). A batch with no
    rows is ``n = 0`` with zero sums."""
    problems = []
    if not (np.isfinite(n).all() and np.isfinite(sx).all() and np.isfinite(sxx).all()):
        bad = sum(int((~np.isfinite(a)).sum()) for a in (n, sx, sxx))
        are = " is" if bad == 1 else "s are"
        problems.append(f"{bad} value{are} NaN or infinite (a batch with no rows has n = 0 and sums 0)")
    else:
        slack = 1e-9 * np.maximum(n, 1.0)
        if (n < 0).any():
            problems.append(f"n holds a negative count ({float(n[n < 0].min()):g})")
        elif (np.abs(sx) > n + slack).any():
            problems.append("sum_x exceeds n in absolute value in some batch (each x = y - p lies in "
                            "[-1, 1])")
        elif ((sxx < -slack) | (sxx > n + slack)).any():
            problems.append("sum_xx lies outside [0, n] in some batch (each x^2 lies in [0, 1])")
        elif (sx * sx > n * sxx * (1.0 + 1e-9) + 1e-300).any():
            problems.append("sum_x^2 > n * sum_xx in some batch, which no rows have (is sum_xx the sum of "
                            "squares of x = y - p?)")
    if problems:
        raise VeracityError(f"sequence_from_sums needs per-batch rows n, sum of x = y - p and sum of x^2: "
                            f"{problems[0]}")


def _weighted_lower_z(z: np.ndarray, om: np.ndarray, idx: np.ndarray, shape: tuple[int, int], alpha: float,
                      truncation: float) -> np.ndarray:
    """Lower bound of the (bet-weighted) mean of z in [0, 1] after each batch, rows weighted by ``om``
    (weights over their mean); ``idx`` = group * batches + batch per row, ``shape`` = (groups, batches)."""
    size = shape[0] * shape[1]

    def per_batch(v: np.ndarray) -> np.ndarray:
        return np.bincount(idx, weights=v, minlength=size).reshape(shape)

    w_b, s_b, q_b = per_batch(om), per_batch(om * z), per_batch(om * z * z)
    W, S = np.cumsum(w_b, axis=-1), np.cumsum(s_b, axis=-1)
    W_prev, S_prev = W - w_b, S - s_b
    with np.errstate(divide="ignore", invalid="ignore"):
        mu_plain = np.where(W_prev > 0, S_prev / W_prev, 0.0)
        mu_reg = np.minimum((0.5 + S) / (W + 1.0), 1.0)
        acc = np.cumsum(q_b - 2.0 * mu_reg * s_b + w_b * mu_reg * mu_reg, axis=-1)
        sigma2 = (0.25 + acc) / (W + 1.0)
        sigma2_prev = np.concatenate([np.full(shape[:-1] + (1,), 0.25), sigma2[..., :-1]], axis=-1)
        lam = np.sqrt(2.0 * math.log(1.0 / alpha) / (W * np.log1p(W) * sigma2_prev))
        lam = np.minimum(np.where(np.isnan(lam), 0.0, lam), truncation)
        flat_lam, flat_mu = lam.reshape(-1), mu_plain.reshape(-1)
        bet = np.minimum(flat_lam[idx] * om, truncation)  # each row's bet: the batch's, scaled by its weight
        psi = -np.log1p(-bet) - bet
        v = (z - flat_mu[idx]) ** 2
        num = np.cumsum(per_batch(bet * z), axis=-1) - math.log(1.0 / alpha) - np.cumsum(per_batch(v * psi), axis=-1)
        den = np.cumsum(per_batch(bet), axis=-1)
        low = np.where(den > 0, num / den, -np.inf)
    return np.minimum(low, 1.0)


def weighted_sequence(x: np.ndarray, w: np.ndarray, idx: np.ndarray, shape: tuple[int, int], *, alpha: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    r"""Running bounds on the weighted mean of :math:`x \in [-1, 1]` per (group, batch) — the row-level
    form behind ``sample_weight=`` (see :func:`confidence_sequence`); running intersection."""
    om = w / w[w > 0].mean()  # the mean of the rows of positive weight: a row of weight 0 is a dropped row
    z = (x + 1.0) / 2.0
    low_z = _weighted_lower_z(z, om, idx, shape, alpha / 2.0, TRUNCATION)
    high_z = 1.0 - _weighted_lower_z(1.0 - z, om, idx, shape, alpha / 2.0, TRUNCATION)
    low = np.maximum.accumulate(np.clip(2.0 * low_z - 1.0, -1.0, 1.0), axis=-1)
    high = np.minimum.accumulate(np.clip(2.0 * high_z - 1.0, -1.0, 1.0), axis=-1)
    return low, high


def uneven_weights(w: np.ndarray | None) -> bool:
    """Whether the rows of positive weight weigh differently (relative 1e-12): equal weights give the
    unweighted sequence and running mean exactly (a row of weight 0 is a dropped row)."""
    if w is None:
        return False
    pos = w[w > 0]
    return bool(pos.size and float(pos.max()) - float(pos.min()) > 1e-12 * float(pos.max()))


def bounds_cell(low: float, high: float) -> str:
    """A step's bounds as the printout shows them (:func:`~veracity.delayed._ppi_result.bound_texts`), marked
    ``(crossed)`` where the lower is above the upper — as a monitoring store's status marks them: the running
    intersection of a gap that moved over time, which ``[+0.0925, +0.0874]`` alone would read as a range.

    >>> bounds_cell(0.0004, 0.013), bounds_cell(0.0925, 0.0874)
    ('[+0.0004, +0.0130]', '[+0.0925, +0.0874] (crossed)')
    """
    return "[{}, {}]".format(*bound_texts(low, high)) + (" (crossed)" if low > high else "")


def first_alarm(low: np.ndarray, high: np.ndarray, tolerance: float = 0.0) -> np.ndarray:
    """Index of the first step whose bounds lie wholly outside ``[-tolerance, tolerance]`` (last
    axis; 0 with the default), -1 if never."""
    out = (low > tolerance) | (high < -tolerance)
    hit = out.any(axis=-1)
    return np.where(hit, np.argmax(out, axis=-1), -1)


#: the printout's line where a weighted running mean lies outside the bounds: with very uneven weights it
#: does so on calibrated streams of a constant gap (log-normal weights of sigma 2, 6,000 rows: 17 % of
#: streams, where the line had said "the gap moved over time"), as a few heavy rows carry the weighted mean
#: and each row's bet is capped at 1/2
WEIGHTED_OUTSIDE = ("(the weighted running mean lies outside the bounds: the bounds weigh each row by its "
                    "bet — the batch's bet times the row's weight over the mean weight, capped at 1/2 — so "
                    "they lean less on the heaviest rows than the weighted mean does, and a few heavy rows "
                    "can carry that mean outside them; or the gap moved over time. The bounds test "
                    "'calibrated at every step' — a constant 0 — and stay valid for that)")


@dataclass(frozen=True, eq=False, repr=False)
class ConfidenceSequence(Display):
    r"""Running bounds on *rate − mean score* after each step (row, or batch), anytime-valid.

    ``low``, ``high`` — the bounds after each step (a running intersection: they never
    widen); ``estimate`` — the running mean of y − score; ``n`` — labelled rows so far;
    ``steps`` — the batch keys (None row by row); ``alarm_at`` — the first step whose
    bounds exclude 0 (None if never); ``delay`` — steps from ``shift_at`` to the alarm
    (when ``shift_at`` was given). The chance of any alarm on a calibrated stream, over
    all steps, is at most ``alpha``.
    """

    low: np.ndarray
    high: np.ndarray
    estimate: np.ndarray
    n: np.ndarray
    alpha: float
    alarm_at: int | None
    shift_at: int | None
    steps: np.ndarray | None = None
    tolerance: float = 0.0
    #: uneven ``sample_weight=``: ``estimate`` is the weighted running mean, which the bounds (each row
    #: weighted by its bet, capped at ½) need not hold even for a constant gap
    weighted: bool = False

    def _alert(self, i: int) -> bool:
        return bool(self.low[i] > self.tolerance or self.high[i] < -self.tolerance)

    @property
    def delay(self) -> int | None:
        if self.alarm_at is None or self.shift_at is None:
            return None
        return self.alarm_at - self.shift_at

    @property
    def alarm_step(self) -> Any:
        """The batch key (or row index) of the alarm, or None."""
        if self.alarm_at is None:
            return None
        return self.alarm_at if self.steps is None else _plain(self.steps[self.alarm_at])

    def _key(self, i: int) -> Any:
        return i if self.steps is None else _plain(self.steps[i])

    def key_text(self, i: int) -> str:
        """Step ``i``'s key as a printout and a plot's axis show it (:func:`shown_keys`: batches of times all
        at midnight as their dates, ``2026-01-01``)."""
        if self.steps is None:
            return str(i)
        return shown_keys([self._key(j) for j in range(self.steps.size)])[i]

    def rows(self) -> list[dict[str, Any]]:
        return [{"step": self._key(i), "n": int(self.n[i]), "estimate": float(self.estimate[i]),
                 "low": float(self.low[i]), "high": float(self.high[i]),
                 "status": "alert" if self._alert(i) else "ok"}
                for i in range(self.low.size)]

    def to_dict(self) -> dict[str, Any]:
        return {"alpha": self.alpha, "tolerance": self.tolerance, "alarm_at": self.alarm_at,
                "alarm_step": json_key(self.alarm_step),
                "shift_at": self.shift_at, "delay": self.delay, "n": int(self.n[-1]) if self.n.size else 0,
                "steps": [{**r, "step": json_key(r["step"])} for r in self.rows()]}

    def _frame_records(self) -> list[dict[str, Any]]:
        return self.rows()

    def _delay_text(self, unit: str) -> str:
        """The detection delay in words: ``123 batches after the shift``; an alarm before ``shift_at`` is no
        detection of it (it had printed "detection delay -43 batches after the shift"): ``none: the alarm came
        43 batches before the shift (a false alarm, or the shift began earlier)``."""
        d = self.delay
        if d is None or d >= 0:
            return f"{d:,} {unit} after the shift"
        return (f"none: the alarm came {-d:,} {unit} before the shift (a false alarm, or the shift began "
                "earlier)")

    def _summary_items(self) -> dict[str, Any]:
        """The notebook's key numbers in words, as the printout says them (not the fields ``alarm_at`` and
        ``delay n/a``): alpha, the alarm's step or none, the detection delay where a shift was given, the
        tolerance where set."""
        what = "row" if self.steps is None else "batch"
        items: dict[str, Any] = {"alpha": f"{self.alpha:g}",
                                 "alarm": "none" if self.alarm_at is None else
                                 f"at {what} {self.key_text(self.alarm_at)}"}
        if self.delay is not None:
            items["detection delay"] = self._delay_text(f"{what}{'es' if what == 'batch' else 's'}")
        if self.tolerance:
            items["tolerance"] = f"{self.tolerance:g}"
        return items

    def _shown(self) -> list[int]:
        """The steps a printout shows: 8 spread evenly from first to last, and the alarm."""
        k = self.low.size
        return sorted(set(np.unique(np.linspace(0, k - 1, min(k, 8)).round().astype(int)).tolist())
                      | ({self.alarm_at} if self.alarm_at is not None else set()))

    def _html_records(self) -> list[dict[str, Any]]:
        # the notebook table shows the printout's steps, not the first 40 (whose bounds are all near ±1);
        # to_frame() keeps every step
        rows = self.rows()
        return [rows[i] for i in self._shown()]

    def _repr_html_(self) -> str:
        """The notebook view: the printout's steps with their bounds as the text prints them (signed; an end
        clear of 0 never printed as 0: :func:`~veracity.delayed._ppi_result.bound_texts` — the default
        table's 4-decimal cells showed an upper bound of -0.00002 as "0.0000" beside an alert)."""
        from ..core._display import html_kv, html_page, html_table

        records = [{"step": self.key_text(i), "labelled": int(self.n[i]),
                    "rate-score": float(self.estimate[i]),
                    "bounds": bounds_cell(float(self.low[i]), float(self.high[i])),
                    "status": "alert" if self._alert(i) else "ok"} for i in self._shown()]
        return html_page(self._title(), [html_kv(self._summary_items()),
                                         html_table(records, signed=("rate-score",))], str(self))

    def __str__(self) -> str:
        k = self.low.size
        shown = self._shown()
        body = [[self.key_text(i), f"{int(self.n[i]):,}", fmt(self.estimate[i], sign=True),
                 bounds_cell(float(self.low[i]), float(self.high[i])),
                 "ALARM" if i == self.alarm_at else ("alert" if self._alert(i) else "")]
                for i in shown]
        what = "row" if self.steps is None else "batch"
        total = int(self.n[-1]) if k else 0
        rows = f"{total:,} labelled row{'' if total == 1 else 's'}"
        count = f"{k:,} batch{'es' if k != 1 else ''} of {rows}" if what == "batch" else rows
        lines = [f"confidence sequence for rate - mean score (anytime-valid, alpha={self.alpha:g}; {count})",
                 render_table([what, "labelled", "rate-score", "bounds", ""], body, align="lrrll")]
        if k and np.isfinite(self.estimate[-1]) and not (self.low[-1] <= self.estimate[-1] <= self.high[-1]):
            lines.append(WEIGHTED_OUTSIDE if self.weighted else
                         "(the running mean has left the bounds: the gap moved over time. The bounds test "
                         "'calibrated at every step' — a constant 0 — and stay valid for that; they are not an "
                         "interval for a moving gap)")
        if self.alarm_at is None:
            lines.append("alarm: none (0 stayed inside the bounds at every look)" if not self.tolerance else
                         f"alarm: none (the bounds met [-{self.tolerance:g}, {self.tolerance:g}] at every look)")
        else:
            unit = "batches" if what == "batch" else "rows"
            left = "0 left the bounds" if not self.tolerance else \
                f"the bounds left [-{self.tolerance:g}, {self.tolerance:g}]"
            lines.append(f"alarm: at {what} {self.key_text(self.alarm_at)} ({left})"
                         + (f"; detection delay {self._delay_text(unit)}" if self.delay is not None else ""))
        return "\n".join(lines)


def _plain(v: Any) -> Any:
    """A batch (or group) key as a plain Python value: a numpy scalar by ``.item()``, except a
    ``datetime64``, which becomes the ``date`` (a unit of a day or coarser) or ``datetime`` it names, and a
    ``timedelta64`` the ``timedelta`` — ``.item()`` of nanoseconds, the unit of every pandas, polars and
    Arrow time column, is a bare integer: the printout read ``batch 1767225600000000000`` for 2026-01-01
    and ``alarm_step`` was that integer. numpy's value where no ``datetime`` holds it exactly (below a
    microsecond, beyond the year 9999)."""
    if isinstance(v, (np.datetime64, np.timedelta64)):
        if isinstance(v, np.datetime64) and np.datetime_data(v.dtype)[0] in ("Y", "M", "W", "D"):
            return v.astype("datetime64[D]").item()
        micro = v.astype(f"{v.dtype.kind}8[us]")
        item = micro.item()
        return item if not isinstance(item, int) and micro == v else v
    return v.item() if isinstance(v, np.generic) else v


def shown_keys(keys: list[Any]) -> list[str]:
    """Keys (:func:`_plain`'s) as a printout shows them: times that are all at midnight and without a zone
    (a pandas, polars or Arrow date column holds nanoseconds) as their dates, ``2026-01-01`` rather than
    ``2026-01-01 00:00:00``; anything else as ``str`` gives it."""
    if keys and all(isinstance(k, datetime.datetime) and k.tzinfo is None and k.time() == datetime.time(0)
                    for k in keys):
        return [k.date().isoformat() for k in keys]
    return [str(k) for k in keys]


def json_key(v: Any) -> Any:
    """A key for JSON: a date, time or duration (:func:`_plain`'s) as its ISO text, numpy's as its text;
    anything else as it is."""
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    if isinstance(v, (datetime.timedelta, np.datetime64, np.timedelta64)):
        return str(v)
    return v


def check_tolerance(tolerance: Any) -> float:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.floating)) or \
            not 0.0 <= tolerance < 1.0:
        raise VeracityError(f"tolerance must be a gap in [0, 1) that counts as calibrated, e.g. 0.01; got "
                            f"{tolerance!r}")
    return float(tolerance)


def batch_sums(x: np.ndarray, batches: Any, *, extra: np.ndarray | None = None, groups: int = 1
               ) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(keys, inverse, n, sum x, sum x^2)`` per batch (keys None and one batch per row without
    ``batches``). ``extra`` (a group index in ``0..groups-1`` per row, e.g. a score bin) adds a
    leading axis of size ``groups``."""
    if batches is None:
        keys, inv = None, np.arange(x.size)
    else:
        raw = to_numpy(batches, "batches")
        if raw.ndim != 1 or raw.shape[0] != x.shape[0]:
            raise VeracityError(f"batches must give one key per row ({x.shape[0]}), got shape {raw.shape}")
        missing = int(np.isnan(raw).sum()) if raw.dtype.kind in "fc" else \
            int(np.isnat(raw).sum()) if raw.dtype.kind in "mM" else \
            int(np.frompyfunc(_is_missing, 1, 1)(raw).astype(bool).sum()) if raw.dtype == object else 0
        if missing:  # NaN sorts last: its rows would silently count as the latest batch
            raise VeracityError(f"batches has {missing} missing keys (NaN/NaT); every row needs the batch (e.g. "
                                "the day its outcome matured): fill them or drop those rows", param="batches")
        _refuse_mixed_offsets(raw)
        declared = _declared_order(batches, raw.shape[0])
        try:
            if declared is not None:  # a categorical's own order (its categories), as pandas sorts it
                codes, categories = declared
                used, inv = np.unique(codes, return_inverse=True)
                keys = categories[used]
            else:
                keys, inv = np.unique(raw, return_inverse=True)
        except TypeError:
            raise VeracityError("batches must be sortable keys of one type (day numbers, dates, ISO strings)"
                                ) from None
        if declared is None:
            _refuse_text_numbers_out_of_order(keys)
    k = x.size if keys is None else keys.size
    lead = 1 if extra is None else groups
    idx = inv if extra is None else extra * k + inv
    size = lead * k

    def total(v: np.ndarray | None) -> np.ndarray:
        return np.bincount(idx, weights=v, minlength=size).astype(np.float64).reshape(lead, k)

    n, sx, sxx = total(None), total(x), total(x * x)
    if extra is None:
        n, sx, sxx = n[0], sx[0], sxx[0]
    return keys, inv, n, sx, sxx


#: an ISO time written with its UTC offset (``2026-10-25T02:30:00+02:00``, ``...Z``): the offset is group 1
_ISO_WITH_OFFSET = r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?\s*(Z|[+-]\d\d(?::?\d\d)?)"


def _refuse_mixed_offsets(raw: np.ndarray) -> None:
    """Batch keys that are ISO times written with different UTC offsets are refused: sorted as text, the
    order of the steps, they are out of time order (``2026-10-25T02:10:00+01:00`` is after
    ``2026-10-25T02:30:00+02:00``, across a change of summer time) — a silent wrong order of the bets and of
    ``alarm_at``. Keys with one offset throughout (or none) sort as their times do."""
    if raw.dtype.kind != "U" and not (raw.dtype == object and raw.size and isinstance(raw.flat[0], str)):
        return
    import re

    texts = np.unique(raw.astype(str))
    offsets = set()
    for t in texts[:: max(1, texts.size // 10_000)].tolist() if texts.size > 20_000 else texts.tolist():
        m = re.fullmatch(_ISO_WITH_OFFSET, t.strip())
        if m is not None:
            offsets.add("+00:00" if m.group(1) in ("Z", "+00", "+0000", "+00:00", "-00:00") else m.group(1))
    if len(offsets) > 1:
        shown = ", ".join(sorted(offsets)[:4])
        raise VeracityError(f"batches are times written with different UTC offsets ({shown}); sorted as text they "
                            "are out of time order (a change of summer time, or mixed sources): convert them to "
                            "UTC first, e.g. pandas.to_datetime(keys, utc=True), or pass day numbers",
                            param="batches")


def _declared_order(batches: Any, n: int) -> tuple[np.ndarray, np.ndarray] | None:
    """``(codes, categories)`` of batch keys that declare their order — a pandas ``Categorical`` (or a
    categorical Series) or a polars ``Enum`` Series: the step order is that of their categories, as pandas and
    polars sort them (an ordered week of ``mon`` ... ``sun`` had been sorted as text, ``fri`` first: a
    silent wrong order of the bets and of ``alarm_at``). None for any other keys (missing keys were refused
    before)."""
    import sys

    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(getattr(batches, "dtype", None), pd.CategoricalDtype):
        cat = batches.array if isinstance(batches, pd.Series) else batches
        codes = np.asarray(cat.codes, dtype=np.int64)
        categories = np.asarray(cat.categories.to_numpy())
    else:
        pl = sys.modules.get("polars")
        if pl is None or not isinstance(batches, pl.Series) or not isinstance(batches.dtype, pl.Enum):
            return None
        codes = batches.to_physical().to_numpy().astype(np.int64)
        categories = np.asarray(batches.dtype.categories.to_list(), dtype=object)
    if codes.shape != (n,) or (codes < 0).any():
        return None
    return codes, categories


def _natural_key(text: str) -> tuple[Any, ...]:
    """``text`` with each run of digits read as its number (a run after a ``.`` stays text: the digits of a
    fraction, as in ISO times, compare as text), for :func:`_refuse_text_numbers_out_of_order`."""
    import re

    parts = re.split(r"(?<!\.)(\d+)", text)
    return tuple((0, int(p), p) if i % 2 else (1, p, p) for i, p in enumerate(parts) if p)


def _refuse_text_numbers_out_of_order(keys: np.ndarray) -> None:
    """Text batch keys whose numbers sort differently as text than as numbers are refused: ``week10`` sorts
    before ``week2`` as text, and ``2026-1-10`` before ``2026-1-5`` — the order of the steps, so the bets and
    ``alarm_at`` would follow a silently wrong order of the looks (an alarm at "batch week10" read after three
    weeks). Zero-padded keys (``week02``, ISO dates) sort alike both ways and pass. Checked on up to 5,000 of
    the sorted keys, evenly spread."""
    if keys.dtype.kind != "U" and not (keys.dtype == object and keys.size and isinstance(keys[0], str)):
        return
    if keys.size < 2:
        return
    texts = [str(k) for k in keys[:: -(-keys.size // 5_000)]]  # at most 5,000, evenly spread
    if not any(c.isdigit() for t in texts for c in t):
        return
    natural = [_natural_key(t) for t in texts]
    for i in range(len(natural) - 1):
        if natural[i + 1] < natural[i]:
            raise VeracityError(
                f"batches are text keys whose numbers sort differently as text: {texts[i]!r} sorts before "
                f"{texts[i + 1]!r}, so the steps (the order of the looks, of the bets and of alarm_at) would "
                "be out of order; pass day numbers or dates, zero-padded keys ('week02'), or a pandas "
                "Categorical with the categories in order", param="batches")


def check_shift_at(shift_at: Any, steps: int) -> int | None:
    if shift_at is None:
        return None
    if isinstance(shift_at, bool) or not isinstance(shift_at, (int, np.integer)) or not 0 <= shift_at < steps:
        raise VeracityError(f"shift_at must be a step index in 0..{steps - 1}, got {shift_at!r}")
    return int(shift_at)


@rows_form(columns=("batches",))
def confidence_sequence(scores: Any, labels: Any = None, *, score: Any = None, label: Any = None,
                        alpha: float = 0.05, batches: Any = None,
                        tolerance: float = 0.0, shift_at: int | None = None, sample_weight: Any = None,
                        pos_label: Any = None, score_type: str = "probability") -> ConfidenceSequence:
    r"""Anytime-valid running bounds on *rate − mean score* for a stream of scored outcomes.

    Rows are in the order their outcomes mature. ``batches`` (one key per row, e.g. the day the
    row matures: its scoring day plus one fixed maturity horizon; sorted keys give the order, rows
    of a batch in any order — a pandas ``Categorical`` or a polars ``Enum`` in the order of its categories;
    ISO strings with different UTC offsets, and text whose numbers are not zero-padded (``week10`` sorts
    before ``week2``), are refused: as text they sort out of time order) reports one step per batch — the
    bounds a daily look sees. Key rows by maturity, not by the day a label happened to come in where the
    wait depends on the outcome (fraud confirmed in days, a legitimate payment only at the horizon): the
    labels in so far then over-represent the fast class, and a calibrated stream alarmed in every one of 20
    simulated years (tests/delayed/test_sequence_maturity_r20.py). ``alarm_at`` is the first step whose bounds
    exclude 0 — or, with ``tolerance`` t > 0, lie wholly outside [−t, t] (a gap that small
    counts as calibrated; the false-alarm guarantee then holds whenever every row's gap is
    within t). ``shift_at`` (a step index, known in a backtest or simulation) gives ``delay``.
    ``pos_label`` names the positive class of two-valued labels; ``score_type="logit"`` reads the
    scores as logits, each the probability expit(s).

    ``sample_weight`` (one non-negative weight per row, known when the row is scored — a
    survey or importance weight, never a function of the outcome): the estimate is the
    weighted running mean :math:`\sum w x / \sum w`, and each row's bet is scaled by its
    weight, :math:`\beta_i = \min(\lambda_b\,\omega_i, \tfrac12)` with :math:`\omega = w /
    \bar w` (only the ratios of the weights matter), so that

    .. math:: L_b = \frac{\sum \beta_i z_i - \log(2/\alpha) - \sum (z_i - \hat\mu_{b-1})^2\,
              \psi(\beta_i)}{\sum \beta_i}

    with the centre :math:`\hat\mu` and the regularised variance weighted by :math:`\omega`,
    and :math:`t` in :math:`\lambda` replaced by :math:`\sum \omega` so far. The capital
    process is the same supermartingale (every bet is predictable and in [0, ½]), so the
    false-alarm guarantee is unchanged; equal weights give the unweighted sequence exactly.

    >>> cs = confidence_sequence([0.2] * 400, [1, 0, 0, 0, 0] * 80)
    >>> cs.alarm_at is None, round(float(cs.estimate[-1]), 3)
    (True, 0.0)
    """
    alpha = check_alpha(alpha)
    tolerance = check_tolerance(tolerance)
    p = probabilities_1d(scores, score_type=score_type, what="vc.confidence_sequence")
    y = check_binary_labels(labels, p.shape[0], pos_label)
    w = check_weights(sample_weight, p.shape[0])
    x = y - p
    keys, inv, n, sx, sxx = batch_sums(x, batches)
    shift_at = check_shift_at(shift_at, n.size)
    cum = np.cumsum(n)
    if w is None:
        low, high = sequence_from_sums(n, sx, sxx, alpha=alpha)
        est = np.cumsum(sx) / cum
    else:
        low, high = (a[0] for a in weighted_sequence(x, w, inv, (1, n.size), alpha=alpha))
        cum = np.cumsum(np.bincount(inv, weights=(w > 0).astype(np.float64), minlength=n.size))  # rows of weight > 0
        with np.errstate(invalid="ignore", divide="ignore"):
            est = np.cumsum(np.bincount(inv, weights=w * x, minlength=n.size)) / \
                np.cumsum(np.bincount(inv, weights=w, minlength=n.size))
    a = int(first_alarm(low, high, tolerance))
    return ConfidenceSequence(low=low, high=high, estimate=est, n=cum.astype(np.int64), alpha=alpha,
                              alarm_at=None if a < 0 else a, shift_at=shift_at, steps=keys,
                              tolerance=tolerance, weighted=uneven_weights(w))
