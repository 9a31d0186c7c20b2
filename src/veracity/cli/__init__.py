"""The ``veracity`` command line.

Each sub-command lives in its own module ``veracity.cli._<name>`` exposing
``add_arguments(parser)`` and ``run(args) -> int``. Conventions shared by all:

* exit 2 on bad input, with one line on stderr that says which kind:
  ``usage error`` (the command line itself, from argparse) or ``input error``
  (the data or an option's value, a :class:`~veracity.VeracityError`); exit 75 (``EX_TEMPFAIL``) with
  ``store busy`` when a monitoring store stays held by another process past ``--timeout``; exit 130 with
  ``interrupted`` on Ctrl-C (never Python's traceback);
* ``-`` as the input file reads stdin (CSV, gzip-compressed CSV or Parquet, told by their magic bytes);
* stdout carries only the table or the JSON; notes (which file was read, where
  JSON was written) go to stderr;
* ``--quiet`` silences the progress bar that slow commands draw on stderr when it
  is a terminal (never under ``--json -``).

One way in: a command reads its rows through the source layer (:mod:`veracity.sources._api`:
``read_path`` into numpy for ``--engine memory``, ``open_frame`` where the rows live for
``duckdb|spark|dask``) and calls the public function once, in the form the engine takes
(:class:`veracity.cli._common.Rows`); ``segments`` and ``monitor log|outcomes|status`` hand the
path to the public function (``vc.segments``, ``vc.MonitorStore``) themselves.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import sys
import warnings
import tempfile
from collections.abc import Sequence

from ..core._validation import VeracityError, python_spelling
from .._version import __version__

#: sub-command -> (module, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "audit": ("_audit", "audit calibration of a scored CSV/Parquet file"),
    "fit": ("_fit", "fit a calibrator on held-out rows and save it as JSON"),
    "apply": ("_apply", "apply a saved calibrator to a file"),
    "compare": ("_compare", "is B better than A (paired intervals, DeLong, CORP) or a calibrator's before/after ledger"),
    "threshold": ("_threshold", "choose a decision threshold (cost, recall, budget)"),
    "conformal": ("_conformal", "split-conformal prediction sets"),
    "monitor": ("_monitor", "calibration over time windows"),
    "report": ("_report", "self-contained HTML report"),
    "segments": ("_segments", "find the segments where the model is miscalibrated, tested"),
    "demo": ("_demo", "run the bundled demonstrations"),
    "export": ("_export", "a saved calibrator as one SQL expression or an ONNX model"),
}


#: the library's parameter -> the command line's flag (errors name the flag, never the keyword)
FLAGS: dict[str, str] = {
    "score": "--score",
    "label": "--label",
    "score_type": "--score-type",
    "sample_weight": "--sample-weight",
    "pos_label": "--pos-label",
    "bins": "--bins",
    "strategy": "--strategy",
    "interval": "--interval",
    "level": "--level",
    "min_count": "--min-count",
    "threshold": "--threshold",
    "n_resamples": "--n-resamples",
    "random_state": "--random-state",
    "allow_role": "--allow-role",
    "by": "--by",
    "engine": "--engine",
    "alpha": "--alpha",
    "method": "--method",
    "cost_fp": "--cost-fp",
    "cost_fn": "--cost-fn",
    "top_k": "--budget",
    "fraction": "--budget",
    "slice": "--slice",
    "max_groups": "--max-groups",
    "target_recall": "--target-recall",
    "features": "--features",
    "depth": "--depth",
    "against": "--against",
    "ties": "--ties",
    "smoothing": "--smoothing",
    "on_reversed": "--on-reversed",
}


#: settings that are a flag of their own: (parameter, value) -> flag
SETTINGS: dict[tuple[str, object], str] = {
    ("correction", False): "--no-correction",
    ("bootstrap", False): "--no-bootstrap",
    ("smoothing", True): "--smoothing",
}


def cli_spelling(param: str, *value: object) -> str:
    """A parameter (or a setting of it) as the command line writes it: ``--pos-label yes``.

    A parameter with no flag keeps its Python spelling (``name=`` / ``name='value'``).
    """
    if value and (param, value[0]) in SETTINGS:
        return SETTINGS[param, value[0]]
    flag = FLAGS.get(param)
    if flag is None:
        return python_spelling(param, *value)
    if not value:
        return flag
    v = value[0]
    v = v.item() if hasattr(v, "item") else v
    text = str(v).lower() if isinstance(v, bool) else str(v)
    return f"{flag} {text}"


def cli_message(exc: VeracityError, flags: dict[str, str] | None = None,
                switches: frozenset[str] = frozenset()) -> str:
    """The library's error in the command line's words: ``param`` through :data:`FLAGS`.

    ``flags`` (a command's :func:`command_flags`): the Python names of that command's flags
    where the message itself writes them are spelled as the flags too (see :func:`flag_words`);
    ``switches`` (:func:`command_switches`): those of them that are on/off flags.
    """
    text = exc.render(cli_spelling)
    # a database URL's error quotes the URL and its own options (``memory_limit=SIZE``), not the command's flags
    return flag_words(text, flags, switches) if flags and exc.param != "url" else text


#: options named after a thing as well as a parameter: a message opening "score column ..." or
#: "calibrator file not found" speaks of the thing, not the flag
_NOUNS = frozenset({"score", "label", "column", "calibrator", "store", "table", "file", "name", "out", "json",
                    "title", "detail", "help"})
#: what a message says of the parameter it opens with: "level must be", "cost_fp and cost_fn are",
#: "by and slice go"
_SAID = r"(?= (?:must|is|are|and|needs|sums|has|old|new|go)\b)"


def command_flags(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Python name -> flag for a command's options: ``--min-count`` stands for ``min_count``, and
    :data:`FLAGS` adds the names that differ (``top_k`` -> ``--budget``) when the command has that flag.
    Hidden old names and options named after a thing (``--score``, ``--column``) are left out."""
    options: set[str] = set()
    todo = [parser]
    while todo:
        p = todo.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
            elif action.help is not argparse.SUPPRESS:
                options.update(o for o in action.option_strings if o.startswith("--"))
    names = {o[2:].replace("-", "_"): o for o in options}
    names.update({param: flag for param, flag in FLAGS.items() if flag in options})
    return {k: v for k, v in names.items() if k not in _NOUNS}


def command_switches(parser: argparse.ArgumentParser) -> frozenset[str]:
    """The Python names of a command's on/off flags (``--mondrian`` -> ``mondrian``): a message's
    ``mondrian=False`` reads "drop --mondrian" on the command line, never "--mondrian False"."""
    names: set[str] = set()
    todo = [parser]
    while todo:
        p = todo.pop()
        for action in p._actions:
            if isinstance(action, argparse._SubParsersAction):
                todo.extend(action.choices.values())
            elif isinstance(action, argparse._StoreTrueAction) and action.help is not argparse.SUPPRESS:
                names.update(o[2:].replace("-", "_") for o in action.option_strings if o.startswith("--"))
    return frozenset(names)


def flag_words(text: str, flags: dict[str, str], switches: frozenset[str] = frozenset()) -> str:
    """``text`` with the Python names of ``flags`` spelled as the flags where the message writes them
    as parameters: at its start ("level must be ..." -> "--level must be ...", "cost_fp and cost_fn
    are ..."), in parentheses after a column ("column 'w' (sample_weight)") and as keywords
    ("cost_fp=-1.0" -> "--cost-fp -1.0", "allow_role='test'" -> "--allow-role test")."""
    names = "|".join(sorted(map(re.escape, flags), key=len, reverse=True))
    on_off = "|".join(sorted((re.escape(k) for k in switches if k in flags), key=len, reverse=True))
    if on_off:  # an on/off flag is given or left out, never given a value: "pass mondrian=False" -> "drop --mondrian"

        def switch(m: re.Match[str]) -> str:
            flag = flags[m.group(2)]
            return (m.group(1) or "") + flag if m.group(3) == "True" else f"drop {flag}"

        text = re.sub(rf"(pass )?(?<![\w'\"-])({on_off})=(True|False)\b", switch, text)

    def lead(m: re.Match[str]) -> str:
        second = m.group(2)
        return flags[m.group(1)] + (f" and {flags[second]}" if second else "")

    text = re.sub(rf"^({names})(?: and ({names}))?=?{_SAID}", lead, text)
    text = re.sub(rf"\(({names})\)", lambda m: f"({flags[m.group(1)]})", text)

    def keyword(m: re.Match[str]) -> str:
        value = m.group(2)
        if value is not None:
            return f"{flags[m.group(1)]} {value}"
        rest = text[m.end():m.end() + 1]
        return flags[m.group(1)] + ("" if not rest or rest in " .,;:)" else " ")

    return re.sub(rf"(?<![\w'\"-])({names})=(?:'([^'\s]*)'(?!\w))?", keyword, text)


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and one line, like every veracity error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        flag = re.match(r"argument (?:\S+/)?(--\S+): expected one argument", message)
        if flag:  # e.g. --score --x: argparse reads the value "--x" as a flag
            message += f"; if the value starts with '-', join it with '=': {flag.group(1)}=VALUE"
        choice = re.match(r"argument (?:\S+/)?(--\S+): invalid choice: '(.+)' \(choose from", message)
        if choice and os.path.isfile(choice.group(2)):  # `audit --bootstrap data.csv`: the file went to the flag
            message += f"; to read {choice.group(2)}, name it before {choice.group(1)}"
        self.exit(2, f"{self.prog}: usage error: {message} (see {self.prog} --help)\n")


def plain_help(doc: str) -> str:
    """A module docstring as --help text: RST markup removed, example blocks kept as blocks."""
    text = re.sub(r"``([^`]+)``", r"\1", doc)
    text = re.sub(r":(?:func|class|meth|mod|attr):`~?([^`]+)`", r"\1", text)
    text = re.sub(r"(\S)::\n", r"\1:\n", text)  # "Examples::" -> "Examples:"
    text = re.sub(r"^::\n", "", text, flags=re.M)
    return text.strip()


def _stdin_to_file(args: argparse.Namespace) -> str | None:
    """``-`` as the input file: stdin copied to a temporary file (CSV, gzip CSV or Parquet, by its magic)."""
    if getattr(args, "file", None) != "-":
        return None
    data = sys.stdin.buffer.read()
    if not data:
        raise VeracityError("no data on stdin: pipe a CSV or Parquet file into '-', e.g. veracity audit - < scores.csv")
    suffix = ".parquet" if data[:4] == b"PAR1" else ".csv.gz" if data[:2] == b"\x1f\x8b" else ".csv"
    fd, name = tempfile.mkstemp(prefix="veracity-stdin-", suffix=suffix)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    args.file = name
    args._input_name = "<stdin>"
    return name


def _add_quiet(cmd: argparse.ArgumentParser, *, nested: bool = False) -> None:
    """-q/--quiet on a command and on each of its actions (``veracity monitor status STORE -q`` as well
    as ``veracity monitor -q status STORE``); an action's flag does not reset the command's."""
    if not any("--quiet" in a.option_strings for a in cmd._actions):
        cmd.add_argument("-q", "--quiet", action="store_true", default=argparse.SUPPRESS if nested else False,
                         help="no progress bar and no informational lines on stderr (errors and warnings stay)")
    for action in cmd._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                _add_quiet(child, nested=True)


#: ``veracity --help``'s closing lines: where to start, and what the exit codes mean
_EPILOG = """\
Without FILE, the commands that read scored rows use the bundled demo data:

    veracity audit                                    # audit the demo data
    veracity audit scores.csv --score p --label y     # your file: name its columns
    veracity COMMAND --help                           # a command's options and examples

Exit codes: 0 success; 2 bad input (one line on stderr: "usage error" or "input error");
1 a calibration alert, only with monitor status --fail-on-alert; 75 store busy (a monitoring
store stayed held by another process past --timeout: try again later); 130 interrupted (Ctrl-C)."""


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``veracity`` parser, every command's options included.

    ``only``: the command about to run (see :func:`_chosen_command`): only its module is imported
    and its options added; the other commands are listed by name and one-line help, as
    ``veracity --help`` shows them, without importing their modules (a command's start-up then
    pays for its own imports only).
    """
    parser = _Parser(
        prog="veracity",
        description="Honest probabilities: audit, repair, decide, monitor.",
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"veracity {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module_name, help_text) in COMMANDS.items():
        if only is not None and name != only:
            sub.add_parser(name, help=help_text)  # listed, never parsed: the command line names `only`
            continue
        try:
            module = importlib.import_module(f"{__name__}.{module_name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"{__name__}.{module_name}":
                continue  # command not built yet
            raise
        cmd = sub.add_parser(name, help=help_text, description=plain_help(module.__doc__ or help_text),
                             formatter_class=argparse.RawDescriptionHelpFormatter)
        module.add_arguments(cmd)
        cmd.formatter_class = argparse.RawDescriptionHelpFormatter  # examples stay a block
        _add_quiet(cmd)
        cmd.set_defaults(_run=module.run)
    return parser


def _one_line(text: str) -> str:
    """A message as one stderr line: line breaks (e.g. from a column name) shown escaped."""
    return text.replace("\r", "\\r").replace("\n", "\\n")


#: a calibrator's class, as the advice of a message names it ("use PlattScaling", "or
#: PlattScaling(smoothing=True)", a list "use A, B or C"): on a command whose --method picks it, that choice
_ADVICE = r"(\b[Uu]se |\bor )({one}(?:(?:, | or | and ){one})*)"


def calibrator_words(text: str, command: argparse.ArgumentParser | None) -> str:
    """The calibrators a message names in Python (``PlattScaling(smoothing=True)``), in the words of a
    command whose ``--method`` picks them: advice ("use PlattScaling", "or PlattScaling(smoothing=True)")
    reads ``--method platt`` / ``--method platt --smoothing``; a calibrator the message speaks of
    ("HistogramBinning(--score-type score) bins ...", its settings already spelled as flags by
    :func:`flag_words`) keeps its name, the flags beside it: "HistogramBinning (--score-type score)".
    ``command`` None: only that."""
    text = re.sub(r"\b([A-Z]\w*)\((--[^()]*)\)", r"\1 (\2)", text)
    if command is None:
        return text
    method = next((a for a in command._actions if "--method" in a.option_strings), None)
    choices = set(method.choices or ()) if method is not None else set()
    from ..calibrators import METHODS

    kinds = {cls.__name__: name for name, cls in METHODS.items() if name in choices}
    if not kinds:
        return text
    one = rf"(?:{'|'.join(map(re.escape, kinds))})\b(?:\([^()]*\)| \(--[^()]*\))?"  # never "(which ...)"

    def method_of(m: re.Match[str]) -> str:
        name, _, args = m.group(0).replace(" (", "(").partition("(")
        settings = " ".join(a.strip() for a in args.rstrip(")").split(",") if a.strip())
        return f"--method {kinds[name]}" + (f" {settings}" if settings else "")

    def advice(m: re.Match[str]) -> str:
        body = re.sub(one, method_of, m.group(2))
        if re.fullmatch(r"--method [\w-]+(?:(?:, | or | and )--method [\w-]+)+", body):  # a list: one flag
            body = "--method " + re.sub(r"(, | or | and )--method ", r"\1", body[len("--method "):])
        return m.group(1) + body

    return re.sub(_ADVICE.format(one=one), advice, text)


def cli_words(text: str, command: argparse.ArgumentParser) -> str:
    """A library message in ``command``'s words: calibrators as its ``--method`` choices
    (:func:`calibrator_words`) and Python keywords as its flags (:func:`flag_words`)."""
    flags = command_flags(command)
    return calibrator_words(flag_words(text, flags, command_switches(command)) if flags else text, command)


def warning_text(message: Warning | str, command: argparse.ArgumentParser) -> str:
    """A library warning in ``command``'s words. A :class:`~veracity.core._validation.VeracityWarning`
    spells its parameter as ``command``'s flag, or, where ``command`` has no such flag, says its fallback
    (advice the command line can follow); then :func:`cli_words`."""
    from ..core._validation import VeracityWarning

    if isinstance(message, VeracityWarning):
        options = {o for a in command._actions for o in a.option_strings if a.help is not argparse.SUPPRESS}

        def spell(param: str, *value: object) -> str | None:
            flag = SETTINGS.get((param, value[0])) if value and isinstance(value[0], (str, bool)) else None
            return cli_spelling(param, *value) if (flag or FLAGS.get(param)) in options else None

        text = message.render(spell)
    else:
        text = str(message)
    return cli_words(text, command)


def _one_line_warning(command: str, parser: argparse.ArgumentParser | None = None):
    """A warning on the command line is one stderr line (no file:line, no source line), its advice in
    the words of the command (``parser``: see :func:`warning_text`)."""

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = str(message) if parser is None else warning_text(message, parser)
        print(f"veracity {command}: warning: {_one_line(text)}",
              file=sys.stderr if file is None else file)

    return show


def _command_parser(parser: argparse.ArgumentParser, command: str) -> argparse.ArgumentParser:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[command]


def _innermost(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The parser of the (sub-)command ``args`` ran: ``veracity monitor status``'s, not ``veracity``'s."""
    while True:
        sub = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
        chosen = None if sub is None else getattr(args, str(sub.dest), None)
        if sub is None or chosen not in sub.choices:
            return parser
        parser = sub.choices[chosen]


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` runs: its first argument that is not an option (``veracity`` itself has
    no option that takes a value), when that is a command's name; otherwise None."""
    first = next((a for a in argv if a == "--" or not a.startswith("-")), None)
    return first if first in COMMANDS else None


#: the exit code of a monitoring store held by another process past --timeout: try again later (sysexits.h)
EXIT_BUSY = 75
#: the exit code of a command stopped by Ctrl-C (128 + SIGINT, as the shell reports it)
EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    # no command named (--version, --help, nothing, a misspelt one): every command listed, none imported
    parser = build_parser(only=_chosen_command(sys.argv[1:] if argv is None else argv) or "")
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named by the command that was given them, with its --help (argparse names `veracity`)
        _innermost(parser, args).error(f"unrecognized arguments: {' '.join(unknown)}")
    if not getattr(args, "_run", None):
        parser.print_help()
        return 2
    stdin_copy = None
    try:
        from ._common import check_paths, refuse_label_as_score
        from ._progress import activity

        stdin_copy = _stdin_to_file(args)
        if isinstance(getattr(args, "file", None), str):  # JSON, an Excel workbook, ...: said before any read
            from .._files import refuse_not_rows_file

            refuse_not_rows_file(args.file)
        check_paths(args)  # every output path, before any work
        refuse_label_as_score(args)
        with warnings.catch_warnings(), activity(args, f"veracity {args.command}"):
            warnings.showwarning = _one_line_warning(args.command, _innermost(parser, args))
            return int(args._run(args) or 0)
    except VeracityError as exc:
        command = _command_parser(parser, args.command)
        from ._common import in_cli_words  # advice written for Python callers, in the command line's words

        message = cli_message(in_cli_words(exc, args), command_flags(command), command_switches(command))
        message = calibrator_words(message, command)  # "use PlattScaling": "use --method platt" on fit
        if stdin_copy is not None:
            message = message.replace(stdin_copy, "<stdin>")
        from ..monitoring._store import StoreBusy

        if isinstance(exc, StoreBusy):  # in use, not a mistake: cron's retry code (sysexits EX_TEMPFAIL)
            print(f"veracity {args.command}: store busy: {_one_line(message)}", file=sys.stderr)
            return EXIT_BUSY
        print(f"veracity {args.command}: input error: {_one_line(message)}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `veracity audit ... | head`
        return 0
    except KeyboardInterrupt:  # Ctrl-C on a long read: one line and the shell's code for SIGINT, no traceback
        print(f"veracity {args.command}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except OSError as exc:  # a path the system refuses: too long, not permitted, a disk full, ...
        where = f" {exc.filename}" if exc.filename else ""
        if len(where) > 120:
            where = where[:100] + "..."
        reason = exc.strerror or type(exc).__name__
        print(f"veracity {args.command}: input error: cannot read or write{where}: {reason}; check the path "
              "and its permissions", file=sys.stderr)
        return 2
    finally:
        if stdin_copy is not None:
            os.unlink(stdin_copy)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
