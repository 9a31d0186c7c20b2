"""The report's "Over time" table reads as the status text (session 24).

* A week with rows and no final label showed conf "n/a" in the report while the status text (and
  ``status.plot()``) shows the mean score of all its rows, starred: the report now prints the same
  starred number with the text's note under the table; n/a stays only for a week without a prediction.
* With sequential alerts the table said "ok" for weeks no test had judged, under a lead promising three
  tests per window: it now says "not tested", and the lead says what alerts.
"""

import html
import re

import numpy as np
import pyarrow as pa
import pytest

import veracity as vc
from veracity.monitoring import MonitorStore
from veracity.reporting._store import store_section

pytest.importorskip("duckdb")
T0 = np.datetime64("2026-01-05", "s")  # a Monday: ISO week 2026-W02
DAY = np.timedelta64(86400, "s")


def _cells(section: str) -> list[list[str]]:
    """The visible text of each cell of the section's store table (a hidden alignment star left out)."""
    body = re.search(r'<table class="store">.*?<tbody>(.*?)</tbody>', section, re.S).group(1)
    rows = []
    for tr in re.findall(r"<tr[^>]*>(.*?)</tr>", body, re.S):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", tr, re.S)
        rows.append([html.unescape(re.sub(r"<[^>]+>", "", re.sub(
            r'<span style="visibility:hidden">.*?</span>', "", c))).strip() for c in cells])
    return rows


def _text_cells(status) -> list[list[str]]:
    """The status text's table cells, split at the header's column ends (columns are right-aligned up to
    the CI, left-aligned for the status)."""
    lines = str(status).splitlines()
    header, table = lines[1], lines[2:2 + len(status.rows)]
    conf_end = header.index("conf") + len("conf") + 1  # the star sits one past the header
    status_at = header.index("status")
    return [[line[:conf_end].split()[-1], line[status_at:].strip()] for line in table]


@pytest.fixture(scope="module")
def gappy(tmp_path_factory):
    """Five weeks, the third without a prediction; labels final after 7 days, read on the sixth Monday:
    the fifth week has no final label."""
    rng = np.random.default_rng(5)
    t = T0 + rng.integers(0, 35 * 86400, 3000).astype("timedelta64[s]")
    t = t[(t < T0 + 14 * DAY) | (t >= T0 + 21 * DAY)]
    n = t.size
    p = rng.beta(2, 8, n)
    y = (rng.random(n) < p).astype(np.int8)
    store = MonitorStore(tmp_path_factory.mktemp("gappy") / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    store.outcomes(pa.table({"id": np.arange(n), "y": y, "ts": t + DAY}), id="id", label="y", time="ts")
    as_of = T0 + 35 * DAY
    status = store.status(freq="W", as_of=str(as_of), horizon="7d")
    return status, dict(t=t, p=p, y=y, final=t + 7 * DAY <= as_of)


@pytest.fixture(scope="module")
def shifted(tmp_path_factory):
    """Ten weeks of scores calibrated for a base rate whose odds rise 2.5-fold from the sixth week (a
    prior shift); labels final 30 days on, read on 20 March."""
    rng = np.random.default_rng(3)
    n = 24_000
    t = T0 + rng.integers(0, 70 * 86400, n).astype("timedelta64[s]")
    week = ((t - T0) // (7 * DAY)).astype(int)
    logit = rng.normal(-1.8, 1.2, n)
    p = 1 / (1 + np.exp(-logit))
    y = (rng.random(n) < 1 / (1 + np.exp(-(logit + np.where(week >= 5, np.log(2.5), 0.0))))).astype(np.int8)
    store = MonitorStore(tmp_path_factory.mktemp("shifted") / "m.duckdb")
    store.log(pa.table({"id": np.arange(n), "ts": t, "p": p}), id="id", time="ts", score="p")
    final = t + 30 * DAY <= np.datetime64("2026-03-20")
    store.outcomes(pa.table({"id": np.arange(n)[final], "y": y[final], "ts": (t + 30 * DAY)[final]}), id="id",
                   label="y", time="ts")
    return store


def test_pending_week_conf_is_the_starred_mean_score(gappy):
    status, w = gappy
    section = store_section(status, source="m.duckdb", plots=False)
    week = ((w["t"] - T0) // (7 * DAY)).astype(int)
    want = []  # from the logged rows: labelled rows' mean score; none final: all rows', starred; none: n/a
    for k in range(5):
        rows, lab = week == k, (week == k) & w["final"]
        want.append("n/a" if not rows.any() else f"{w['p'][lab].mean():.4f}" if lab.any()
                    else f"{w['p'][rows].mean():.4f}*")
    assert want[2] == "n/a" and want[4].endswith("*")
    conf_col = 4  # period, rows, labelled, pending, conf
    assert [row[conf_col] for row in _cells(section)] == want
    # the footnote under the table: the status text's own note on its conf column, word for word
    foot = re.search(r'</table></div><p class="note">(.*?)</p>', section, re.S)
    assert foot, "no note under the table"
    text_note = next(line for line in str(status).splitlines() if line.startswith("(conf: "))
    assert f"({html.unescape(foot.group(1))})" == text_note
    assert "* no final label yet" in text_note


def test_report_table_and_status_text_agree_cell_by_cell(gappy, shifted):
    for status in (gappy[0], shifted.status(freq="W", as_of="2026-03-20", horizon="30d"),
                   shifted.status(freq="W", as_of="2026-03-20", horizon="30d", alerts="sequential")):
        section = store_section(status, source="m.duckdb", plots=False)
        got = [[row[4], row[-1]] for row in _cells(section)]  # conf, status
        assert got == _text_cells(status)


def test_sequential_report_says_not_tested_and_what_alerts(shifted):
    status = shifted.status(freq="W", as_of="2026-03-20", horizon="30d", alerts="sequential")
    section = vc.report(store=status, scores=[0.1, 0.9], labels=[0, 1], bootstrap=False,
                        figures=False).html
    section = section[section.index('<section id="over-time">'):]
    section = section[:section.index("</section>")]
    statuses = [row[-1] for row in _cells(section)]
    assert statuses == [r.status for r in status.rows]
    assert "ok" not in statuses and "not tested" in statuses
    # weeks whose rate is far from their conf (their own interval excludes it) are not called ok
    assert any(r.status == "not tested" and not r.ci_low <= r.conf <= r.ci_high for r in status.rows)
    lead = html.unescape(re.search(r'<p class="lead">(.*?)</p>', section, re.S).group(1))
    assert "three tests" not in lead and "not tested" in lead
    alarm = status.sequence_alarms["(all)"]
    assert f"left the calibrated region on {alarm['day']}" in lead
    assert f"{len(status.alert_rows)} window{'s' if len(status.alert_rows) != 1 else ''} alerted" in lead
    # the window tests' report keeps its lead and its verdicts
    window = store_section(shifted.status(freq="W", as_of="2026-03-20", horizon="30d"), source="m",
                           plots=False)
    assert "three tests" in window and "not tested" not in window
