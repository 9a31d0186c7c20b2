"""Round 41: ``vc.ppi_mean(...).plot()`` keeps a long note inside the figure, and its rows apart.

With 5 labels, none positive, the result carries three notes (too few labels, a rate near 0, the rectifier):
wrapped at 95 characters from the axes' left edge (right of the row names) the lines ran off the figure's
right edge ("vc.labels_needed" cut), and the fixed 3-inch figure squeezed the three rows under seven lines of
note. The note now starts at the figure's left edge, wrapped to its width, and the figure grows with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import veracity as vc


@pytest.mark.parametrize("unlabelled", [4_700, 3_000_000])
def test_long_ppi_note_stays_inside_the_figure(unlabelled: int) -> None:
    rng = np.random.default_rng(0)
    p = rng.uniform(0, 0.3, unlabelled + 5)  # 3,000,000: wider row names ("5 labels + 3,000,000 scores")
    y = np.zeros(5, dtype=int)
    r = vc.ppi_mean(y, p[:5], p[5:])
    assert len(r.note) > 400  # the case: several notes
    fig = r.plot()
    FigureCanvasAgg(fig).draw()
    renderer = fig.canvas.get_renderer()
    (note,) = [t for t in fig.axes[0].texts if t.get_gid() == "note"]
    box, page = note.get_window_extent(renderer), fig.bbox
    assert box.x0 >= page.x0 and box.x1 <= page.x1, (box, page)
    assert box.y1 <= page.y1
    assert " ".join(note.get_text().split()) == " ".join(r.note.split())  # every word of it
    # the rows are not squeezed: the axes keep at least 1.4 in of height for their three rows
    assert fig.axes[0].get_window_extent(renderer).height / fig.dpi >= 1.4
