"""Options and helpers shared by the sub-commands.

Reading rows lives in :mod:`._rows`, output (stdout, JSON, output paths) in :mod:`._output`; both are
re-exported here, so a command imports what it needs from this one module. What is left here are the
checks of option combinations: an option that cannot change the result is refused, never ignored.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..core._validation import VeracityError
from ._output import (DATA_SUFFIXES, INPUT_OPTIONS, OUTPUT_OPTIONS, _clean, _read_by, _same_file, _show,
                      add_json_argument, check_output_path, check_paths, emit, note, shown_path, write_output)
from ._rows import (AUTO_BYTES, ENGINE_NAMES, Rows, add_engine_arguments, add_input_arguments, auto_engine,
                    feature_names, inputs, lazy_errors, load, needed, read_rows, refuse_label_as_score,
                    refuse_label_as_slice, require_names, score_columns, several_files)

__all__ = [
    "AUTO_BYTES", "DATA_SUFFIXES", "ENGINE_NAMES", "INPUT_OPTIONS", "OUTPUT_OPTIONS", "Rows", "_clean",
    "_read_by", "_same_file", "_show", "add_engine_arguments", "add_input_arguments", "add_json_argument",
    "auto_engine", "check_max_groups", "check_output_path", "check_paths", "emit", "feature_names",
    "in_cli_words", "inputs", "lazy_errors", "load", "needed", "note", "or_default", "read_rows",
    "refuse_label_as_score", "refuse_label_as_slice", "refuse_unused", "require_names", "role_flags",
    "score_columns", "several_files", "shown_path", "write_output",
]


#: the library's advice for labels that look like scores, in Python's words (``core._validation``)
_SCORES_FIRST = "scores come first and labels second, e.g. vc.ece(scores, labels)."


#: what else ``random_state`` may be in Python (``core._validation.check_random_state``), which no command
#: line can pass
_SEED_KINDS = ", a numpy Generator or None"


#: the Python parameter that :class:`~veracity.ConformalClassifier`'s errors open with ("probs must be
#: probabilities in [0, 1]"): on the command line, the ``--score`` column(s) hold them
_PROBS = "probs "


def in_cli_words(exc: VeracityError, args: argparse.Namespace) -> VeracityError:
    """A library error whose advice is written for Python callers, in the command line's words: labels
    that look like scores ("scores come first and labels second, e.g. vc.ece(scores, labels)", the
    positional order of a Python call, which the command line has not) ask whether ``--label`` names
    the 0/1 outcome column; a message about ``probs`` (ConformalClassifier's parameter, which no
    command has) names the ``--score`` column(s) instead ("the scores in the --score column 'p' must
    be probabilities ..."). Other errors: ``exc`` itself."""
    label = getattr(args, "label", None)
    shown = f" {_show(label)}" if isinstance(label, str) and label else ""
    words = (f"is --label{shown} the 0/1 outcome column? --score names the scores, --label the observed "
             "outcomes")
    message = exc.message.replace(_SCORES_FIRST, words)
    if message.startswith(_PROBS):
        score = getattr(args, "score", None)
        columns = [c.strip() for c in score.split(",") if c.strip()] if isinstance(score, str) else []
        where = ("the --score column" if not columns else f"the --score column {columns[0]!r}"
                 if len(columns) == 1 else f"the --score columns {', '.join(repr(c) for c in columns)}")
        message = f"the scores in {where} {message[len(_PROBS):]}"
    if exc.param == "random_state":  # a Generator or None cannot be typed: a seed is the one value here
        message = message.replace(_SEED_KINDS, " (the seed of the draws)")
    hint = None if exc.hint is None else exc.hint.replace(_SCORES_FIRST, words)
    if message == exc.message and hint == exc.hint:
        return exc
    return VeracityError(message, exc.param, hint, value=exc.value)


def or_default(value: Any, default: Any) -> Any:
    """An option whose parser default is None (so that giving it can be told from not): its value or
    ``default``."""
    return default if value is None else value


def refuse_unused(flags: dict[str, bool], why: str) -> None:
    """Options that cannot change the result (``--n-resamples`` without a bootstrap) are refused rather
    than silently ignored: ``flags`` maps each option to whether it was given; ``why`` ends the sentence
    "OPTION has no effect ...", with the remedy (``{it}``: "it" or "them")."""
    named = [flag for flag, on in flags.items() if on]
    if named:
        one = len(named) == 1
        listed = named[0] if one else f"{', '.join(named[:-1])} and {named[-1]}"
        raise VeracityError(f"{listed} {'has' if one else 'have'} no effect "
                            + why.replace("{it}", "it" if one else "them"))


def role_flags(args: argparse.Namespace, has_roles: bool, path: str) -> None:
    """``--fit-role`` / ``--eval-role`` (parser default None) set to their defaults (calib, test); given
    where no column holds the roles (no ``--role-col``, no ``role`` column: every row is fit and measured
    on) they changed nothing, silently, and are refused."""
    named = [flag for flag, value in (("--fit-role", args.fit_role), ("--eval-role", args.eval_role))
             if value is not None]
    args.fit_role = "calib" if args.fit_role is None else args.fit_role
    args.eval_role = "test" if args.eval_role is None else args.eval_role
    if named and not has_roles:
        raise VeracityError(f"{' and '.join(named)} pick{'s' if len(named) == 1 else ''} rows by their role, and "
                            f"{_show(path)} has no 'role' column; pass --role-col COLUMN naming each row's role, "
                            f"or drop {' and '.join(named)} (every row is then fit and measured on)")


def check_max_groups(args: argparse.Namespace) -> int:
    """``--max-groups`` in the command line's words (the library also takes None, which no flag gives);
    given without ``--by`` it would change nothing, so it is refused."""
    value = getattr(args, "max_groups", None)
    if value is None:
        from ..core._stats import MAX_GROUPS

        return MAX_GROUPS
    if not getattr(args, "by", None):
        raise VeracityError("--max-groups caps the slices of --by; pass --by COLUMN too, or drop --max-groups")
    if value < 2:
        raise VeracityError(f"--max-groups must be a whole number >= 2 (the most --by slices shown; the "
                            f"smaller ones are pooled as '(other ...)'), got {value}")
    return int(value)
