"""``--pos-label``: labels as users have them (strings, booleans, other numbers) on the CLI.

One option and one conversion shared by every command that reads binary labels
(fit, compare, audit, threshold, conformal, report). The text is read in the label
column's own type (``--pos-label true`` on a boolean column, ``--pos-label 2`` on a
numeric one, ``--pos-label yes`` on a text one) by the rule every route and engine shares
(:func:`veracity.core._validation.text_names_label`), and the labels become 0/1 through
:func:`veracity.core._validation.labels_with_pos_label`, the library's one implementation.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from ..core._validation import (VeracityError, check_binary_labels, labels_with_pos_label,
                                 refuse_text_on_inexact_floats)


def add_pos_label_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--pos-label", default=None,
                        help="the positive class of a two-valued label column, e.g. yes "
                             "(default: labels are 0/1 or true/false)")


def pos_label_value(labels: np.ndarray, text: str) -> str:
    """``--pos-label TEXT`` for the label column ``labels``: the text itself, which names a label by the
    library's one rule on every route and engine (:func:`veracity.core._validation.text_names_label`: on a
    true/false column ``true``/``false``/``1``/``0`` in any case, spaces around ignored; on a number column a
    plain decimal numeral whose exact value is the label, ``9007199254740993.0`` the integer
    :math:`2^{53}+1`, never :math:`2^{53}`; ``1_0``, ``0x1``, ``nan`` none). Refused here: any text on a
    column read as floating point that holds values of :math:`2^{53}` or more (the refusal of every route,
    :func:`veracity.core._validation.refuse_text_on_inexact_floats`). Text that names no label (``maybe`` on a
    true/false column) is refused by the library in the words of every route
    (:func:`veracity.core._validation.pos_label_not_among`, naming the column as :func:`apply_pos_label` does:
    "--pos-label maybe is not among the values of column 'y' (labels) (False, True); pass 'true' or 'false'
    (any case), or 1 or 0")."""
    if labels.dtype.kind == "f":  # every route's refusal, on the whole column (before its binary check)
        finite = labels[np.isfinite(labels)]
        refuse_text_on_inexact_floats(text, [float(np.abs(finite).max())] if finite.size else [])
    return text


def apply_pos_label(labels: np.ndarray, text: str | None, *, label: str | None,
                    scores: Any = None) -> np.ndarray:
    """Labels as 0/1 with ``--pos-label`` read in the column's own type.

    Without ``--pos-label`` numeric and boolean labels pass unchanged (the command checks
    them); text labels are checked here so that the advice names ``--pos-label``.
    ``label``: the name of the column ``labels`` were read from (None: no column, e.g. a store's
    0/1 outcomes); a ``--pos-label`` that names none of its values is refused in the words of
    ``--engine duckdb`` and of frames, "--pos-label maybe is not among the values of column 'y'
    (labels) (False, True); ..." (:func:`veracity.core._validation.pos_label_not_among`).
    ``scores`` (optional): (N, K) multiclass scores refuse ``--pos-label``, whose labels are
    class indices.
    """
    multiclass = scores is not None and np.ndim(scores) == 2 and np.shape(scores)[1] > 1
    if multiclass and labels.dtype.kind in "USO":
        shown = next((v for v in labels.tolist() if isinstance(v, str)), None)
        if shown is not None:  # the classifier would say "labels must be numeric ... fill missing rows"
            raise VeracityError(
                f"the label column holds text such as {shown!r}, but with several --score columns the labels are "
                "class indices 0..K-1 in the order of --score; map the text to those indices, or for a binary "
                "label pass one --score column with --pos-label")
    if text is None:
        # text labels (always), numeric ones when the scores are known to be binary
        if multiclass or (labels.dtype.kind not in "USO" and scores is None):
            return labels
        try:
            check_binary_labels(labels)
        except VeracityError as exc:
            if exc.param == "pos_label":  # advice to name the positive class (main() says --pos-label)
                raise
        return labels
    if multiclass:
        raise VeracityError(
            "--pos-label names the positive class of a binary label column; with several --score "
            "columns the labels are class indices 0..K-1, so drop --pos-label"
        )
    value = pos_label_value(labels, text)
    # its errors name pos_label (main() says --pos-label); one naming no label names the column as every
    # column route does ("the values of column 'y' (labels)", :func:`veracity.sources._labels.not_among`)
    where = None if label is None else f"the values of column {label!r} (labels)"
    return labels_with_pos_label(labels, value, where=where)
