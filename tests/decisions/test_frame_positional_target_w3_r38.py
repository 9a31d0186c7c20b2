"""Round 38 (w3): ``vc.precision_threshold(frame, 0.7, score=, label=)`` was refused as "takes no labels
array", although the array form ``precision_threshold(scores, labels, 0.7)`` reads the positional target
(with its deprecation warning) and ``threshold_table(frame, [0.3], score=, label=)`` shifts its positional
thresholds the same way. The frame form now reads a number after the frame as the first positional option,
with the array form's result and warning; an array there is still refused as a labels array."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import veracity as vc
from veracity import VeracityError
from veracity.core import _compat
from veracity.core._compat import VeracityDeprecationWarning

RNG = np.random.default_rng(38)
P = RNG.uniform(size=300)
Y = (RNG.uniform(size=300) < P).astype(int)
FRAME = pd.DataFrame({"p": P, "y": Y})


@pytest.mark.parametrize(("fn", "options"), [
    (vc.precision_threshold, (0.7,)),
    (vc.recall_threshold, (0.9,)),
    (vc.recall_threshold, (0.9, False)),   # target and correction, both by position
])
def test_a_positional_target_after_the_frame_reads_as_the_array_form_reads_it(fn, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", VeracityDeprecationWarning)
        array = fn(P, Y, *options)
        frame = fn(FRAME, *options, score="p", label="y")  # before: "takes no labels array"
    assert frame == array


def test_the_frame_form_warns_as_the_array_form_does(monkeypatch):
    monkeypatch.setattr(_compat, "_WARNED", set())  # the warning is said once per process
    with pytest.warns(VeracityDeprecationWarning, match=r"pass target= by keyword"):
        assert vc.precision_threshold(FRAME, 0.7, score="p", label="y") == vc.precision_threshold(
            FRAME, score="p", label="y", target=0.7)


def test_a_labels_array_after_the_frame_is_still_refused():
    with pytest.raises(VeracityError, match="takes no labels array"):
        vc.precision_threshold(FRAME, Y, score="p", label="y")
    with pytest.raises(VeracityError, match="takes no labels array"):
        vc.recall_threshold(FRAME, Y, score="p", label="y")


def test_too_many_positional_options_after_the_frame_are_counted_as_given():
    with pytest.raises(TypeError, match=r"takes the frame and at most 1 positional option \(target\) but 3 "):
        vc.precision_threshold(FRAME, 0.7, 0.1, score="p", label="y")
