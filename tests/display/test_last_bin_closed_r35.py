"""In the notebook view only the table's last bin is closed, as in the text table.

Before: the last row shown got "]" whatever its bin: with the top bin empty (omitted), a reliability
table read "[0.8, 0.9]" under "no rows in [0.9,1.0] (1 empty bin omitted)", where the text table reads
"[0.8,0.9)"."""

from __future__ import annotations

import re

import numpy as np

import veracity as vc


def _rows() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.85, 400)  # nothing in [0.9, 1]
    return p, (rng.uniform(size=p.size) < p).astype(int)


def _bins(html: str) -> list[str]:
    """The bin cells: each table row's first cell, where it is an interval (the others hold the CI)."""
    return re.findall(r"<tr[^>]*>\s*<td[^>]*>(\[[0-9.]+, [0-9.]+[\])])</td>", html.split("<details>")[0])


def test_the_last_row_shown_is_half_open_when_the_top_bin_is_empty():
    p, y = _rows()
    table = vc.reliability(p, y, bins=10)
    assert [r.index for r in table.rows][-1] == 8 and table.empty_bins  # the top bin holds nothing
    assert str(table).splitlines()[-2].startswith("[0.8,0.9)")  # the text's last bin row
    for html in (table._repr_html_(), vc.audit(p, y, bins=10, bootstrap=False)._repr_html_(),
                 vc.audit(p, y, bins=10, sample_weight=np.full(p.size, 2.5), bootstrap=False)._repr_html_()):
        shown = _bins(html)
        assert shown[-1] == "[0.8, 0.9)"
        assert not any(b.endswith("]") for b in shown)


def test_the_top_bin_is_still_closed():
    p, y = _rows()
    p = np.append(p, 1.0)
    y = np.append(y, 1)
    for html in (vc.reliability(p, y, bins=10)._repr_html_(),
                 vc.audit(p, y, bins=10, bootstrap=False)._repr_html_(),
                 vc.audit(p, y, bins=10, strategy="quantile", bootstrap=False)._repr_html_()):
        shown = _bins(html)
        assert shown[-1].endswith("]") and not any(b.endswith("]") for b in shown[:-1])
