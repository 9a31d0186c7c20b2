"""Where is a model miscalibrated? Segment search with honest statistics, and its repair.

* :func:`segments` — every segment over the named features up to a depth, tested for
  calibration-in-the-large with FDR control, plus MCGrad's multicalibration error;
* :class:`SegmentCalibration` — a global calibrator plus per-segment corrections shrunk
  by empirical Bayes.
"""

from ._api import segments
from ._repair import SegmentCalibration
from ._result import SegmentRow, SegmentsResult

__all__ = ["SegmentCalibration", "SegmentRow", "SegmentsResult", "segments"]
