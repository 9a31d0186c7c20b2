"""The label-free count interval (vc.monitoring.estimate and a status's estimate) checked by the exact
Poisson-binomial distribution of the count; the per-bin table's rate of a bin without a final label."""

import re

import numpy as np
import pyarrow as pa
import pytest

from veracity.core._special import ndtri
from veracity.monitoring import MonitorStore, estimate

pytest.importorskip("duckdb")

T0 = np.datetime64("2026-01-05T00:00", "s")  # a Monday


def _pmf(p: np.ndarray) -> np.ndarray:
    """The exact distribution of the number of positives (Poisson-binomial), one convolution per row."""
    f = np.zeros(p.size + 1)
    f[0] = 1.0
    for i, q in enumerate(p):
        f[1:i + 2] = f[1:i + 2] * (1 - q) + f[:i + 1] * q
        f[0] *= 1 - q
    return f


def _coverage(p: np.ndarray, low: float, high: float) -> float:
    f = _pmf(p)
    k = np.arange(f.size)
    return float(f[(k >= low) & (k <= high)].sum())


def _score_sets() -> list[tuple[str, np.ndarray]]:
    """Score sets with Σp from 0.1 to 1000: rare events (the Poisson limit), even odds, skewed scores,
    a sharp model (scores near 0 and 1) and a few sure rows beside many unlikely ones."""
    rng = np.random.default_rng(31)
    out = []
    for total in (0.1, 0.2, 0.35, 0.5, 0.7, 1, 1.5, 2, 3, 4, 6, 8, 12, 20, 35, 60, 120, 250, 500, 1000):
        n = int(max(20, 5 * total))
        out.append((f"rare {total}", np.full(n, total / n)))
        n = max(1, int(round(2 * total)))
        out.append((f"even {total}", np.full(n, total / n)))
        p = rng.beta(0.3, 5.0, int(max(3, total / 0.057)) if total <= 200 else int(total / 0.2))
        if total > 200:
            p = rng.beta(0.5, 2.0, int(total / 0.2))
        out.append((f"skewed {total}", np.clip(p * total / p.sum(), 0, 1)))
        sure = int(total)
        rest = np.full(50, (total - 0.98 * sure) / 50)
        out.append((f"sure {total}", np.concatenate([np.full(sure, 0.98), rest])))
        if total <= 500:
            out.append((f"sharp {total}", np.clip(rng.beta(0.1, 0.1, int(max(1, 2 * total))), 0, 1)))
    return out


@pytest.mark.parametrize("level", [0.95, 0.9, 0.99])
def test_count_interval_covers_the_exact_poisson_binomial_count(level):
    # E ± z·sqrt(V) covered 0.91 of the counts at Σp = 0.5 (rare events) and 0.92 at Σp = 1
    worst = []
    for name, p in _score_sets():
        if level != 0.95 and p.size > 1500:
            continue
        e = estimate(p, level=level)
        worst.append((_coverage(p, e.low, e.high), name))
    assert min(worst)[0] >= level - 0.001, sorted(worst)[:5]


def test_small_expected_counts_are_covered_in_a_seeded_simulation():
    # windows of 100 pending rows with rare positives (Σp about 0.5): E ± z·sqrt(V) covered 0.92
    rng = np.random.default_rng(3)
    inside = []
    for _ in range(3000):
        p = rng.uniform(0.0, 0.01, 100)
        e = estimate(p)
        inside.append(e.low <= (rng.random(p.size) < p).sum() <= e.high)
    assert np.mean(inside) >= 0.95


def test_large_counts_keep_about_the_normal_width_in_whole_numbers():
    rng = np.random.default_rng(5)
    z = float(ndtri(0.975))
    for p in (np.full(2000, 0.5), rng.beta(2.0, 3.0, 2500), rng.beta(0.5, 9.0, 20000)):
        e = estimate(p)
        sd = float(np.sqrt((p * (1 - p)).sum()))
        assert e.low == int(e.low) and e.high == int(e.high)
        assert 2 * z * sd - 2 <= e.high - e.low <= 2 * z * sd + 2
        assert e.low <= p.sum() <= e.high
    # a simulation at Σp about 50: not wider than it needs to be (discreteness keeps it a little above 95 %)
    inside = []
    for _ in range(1500):
        p = rng.beta(0.5, 9.0, 1000)
        e = estimate(p)
        inside.append(e.low <= (rng.random(p.size) < p).sum() <= e.high)
    assert 0.94 <= np.mean(inside) <= 0.975


def test_sure_scores_promise_their_count_and_the_text_prints_whole_numbers():
    e = estimate([0.0, 1.0, 1.0, 1.0])
    assert (e.low, e.high) == (3.0, 3.0)
    e = estimate(np.full(100, 0.005))
    # Poisson-binomial(100, 0.005): P(X <= 1) = 0.910 < 0.975 <= P(X <= 2) = 0.986
    assert (e.low, e.high) == (0.0, 2.0)
    assert "expect 0.5 positives [0, 2] (95%)" in str(e)


def _log(store, weeks, labelled):
    ids, ts, ps = [], [], []
    rng = np.random.default_rng(11)
    start = 0
    for w, p in enumerate(weeks):
        ids.append(np.arange(start, start + p.size))
        ts.append(T0 + np.timedelta64(7 * 86400, "s") * w
                  + rng.integers(0, 7 * 86400, p.size).astype("timedelta64[s]"))
        ps.append(p)
        start += p.size
    ids_a, ts_a, ps_a = map(np.concatenate, (ids, ts, ps))
    store.log(pa.table({"id": ids_a, "ts": ts_a, "p": ps_a}), id="id", time="ts", score="p")
    for w in labelled:
        y = (rng.random(weeks[w].size) < weeks[w]).astype(int)
        store.outcomes(pa.table({"id": ids[w], "y": y}), id="id", label="y")


def test_the_store_reads_the_same_interval_as_the_scores(tmp_path):
    # the store's third cumulant comes from its Σp, Σp², Σp³ (DuckDB, exact sums): the same whole numbers as
    # vc.monitoring.estimate on the same scores, and each covers the exact count
    rng = np.random.default_rng(8)
    weeks = [rng.beta(0.2, 40.0, 100), rng.beta(0.3, 20.0, 150), np.full(200, 0.0025),
             rng.beta(0.5, 3.0, 400)]
    store = MonitorStore(tmp_path / "m.duckdb")
    _log(store, weeks, labelled=[])
    rows = store.status(freq="W", as_of="2030-01-01").rows
    assert len(rows) == len(weeks)
    for r, p in zip(rows, weeks):
        want = estimate(p)
        assert (r.estimate.low, r.estimate.high) == (want.low, want.high)
        assert r.estimate.positives == pytest.approx(p.sum(), rel=1e-12)
        assert _coverage(p, r.estimate.low, r.estimate.high) >= 0.95


def _bin_rate_cells(text: str) -> list[str]:
    lines = text.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("per score bin"))
    header = lines[at + 1]
    assert re.split(r"\s{2,}", header.strip())[:5] == ["scores", "rows", "conf", "labelled", "rate"]
    cells = []
    for line in lines[at + 2:]:
        if not line.startswith("["):
            break
        cells.append(re.split(r"\s{2,}", line.strip())[4])
    return cells


def test_a_bin_without_final_labels_reads_n_a_in_the_per_bin_table(tmp_path):
    rng = np.random.default_rng(9)
    weeks = [rng.beta(2.0, 3.0, 300) for _ in range(4)]
    store = MonitorStore(tmp_path / "m.duckdb")
    _log(store, weeks, labelled=[0, 1, 2])  # the last week has no label yet
    status = store.status(freq="W", as_of="2030-01-01", alerts="sequential")
    assert status.rows[-1].labelled == 0
    cells = _bin_rate_cells(str(status))
    assert cells and set(cells) == {"n/a"}  # was a blank cell: the weekly table's rate reads n/a
    html = status._repr_html_()
    section = html[html.index("Per score bin"):]
    section = section[:section.index("</table>")]
    cell = r"<td>[^<]*</td>"
    row = r"<tr><td class=\"vc-l\">\[[^<]*</td>" + cell * 3  # the bin, rows, conf, labelled; then rate
    rate_cells = re.findall(row + r"(<td[^>]*>[^<]*</td>)", section)
    # n/a in the numbers' column, as the weekly table prints it (not a left-aligned text cell)
    assert rate_cells and set(rate_cells) == {"<td>n/a</td>"}
