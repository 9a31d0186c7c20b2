"""Export a saved calibrator as one SQL expression or as an ONNX model.

--sql DIALECT prints the SQL text on stdout: a comment with the artifact's provenance,
then one expression over the score column (multiclass: one aliased expression per
class, a select list). --onnx PATH writes an ONNX model with double input "score"
([N] or [N, K]) and double output "probability". Dialects: bigquery, duckdb, postgres,
snowflake, spark, sqlite, trino. Examples:

    veracity export cal.json --sql duckdb --column p
    veracity export cal.json --sql postgres > calibrate.sql
    veracity export cal.json --onnx cal.onnx
    veracity export cal.json --sql sqlite --prior-shift 0.01 0.10
    veracity export seg.json --sql postgres --column p --feature region=region_col

A segment calibrator (SegmentCalibration) reads its feature columns beside the score: each
feature's column is the feature's own name unless --feature NAME=COLUMN names another. It has
an SQL form only.
"""

from __future__ import annotations

import argparse

from ..core._validation import VeracityError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("calibrator", help="JSON artifact written by `veracity fit` or calibrator.save(path)")
    target = parser.add_mutually_exclusive_group(required=True)
    target.add_argument("--sql", metavar="DIALECT", default=None,
                        help="print one SQL expression in this dialect (bigquery, duckdb, postgres, snowflake, "
                             "spark, sqlite, trino)")
    target.add_argument("--onnx", metavar="PATH", default=None, help="write an ONNX model to PATH")
    parser.add_argument("--column", default=None,
                        help="score column the SQL reads (default: the column the calibrator was fit on, "
                             "else 'score'); multiclass: K comma-separated names, or a prefix for "
                             "PREFIX_0..PREFIX_{K-1}")
    parser.add_argument("--json", nargs="?", const="-", default=None, metavar="PATH|-",
                        help="print (or write to PATH) a JSON object: the calibrator kind, the dialect, the "
                             "column(s) the SQL reads (multiclass: the K names) and the SQL, or the ONNX file "
                             "and its size")
    parser.add_argument("--feature", action="append", default=None, metavar="NAME=COLUMN",
                        help="a segment calibrator: the column holding feature NAME (default: the column "
                             "named NAME); repeat for each feature to map")
    parser.add_argument("--prior-shift", nargs="+", type=float, metavar="RATE", default=None,
                        help="OLD NEW: also adjust the output from base rate OLD to NEW; multiclass: the K old "
                             "class priors, then the K new ones")


def _column(args: argparse.Namespace, cal) -> object:  # type: ignore[no-untyped-def]
    """The column(s) the SQL reads: a calibrator fit on one score column named with a comma ("p,1") reads
    that name whole; else --column (or the recorded name) is K comma-separated names (or a prefix)."""
    one = (getattr(cal, "metadata", None) or {}).get("n_columns") == 1
    recorded = (getattr(cal, "metadata", None) or {}).get("score_column")
    if args.column is not None:
        if one and args.column == recorded:  # the column it was fit on, named with a comma
            return args.column
        names = [c.strip() for c in args.column.split(",")]
        return names[0] if len(names) == 1 else names
    if isinstance(recorded, str) and recorded and ("," not in recorded or one):
        return recorded
    if isinstance(recorded, str) and "," in recorded:
        return [c.strip() for c in recorded.split(",")]
    return "score"


def _features(given: list[str] | None, cal) -> dict[str, str] | None:  # type: ignore[no-untyped-def]
    """``--feature NAME=COLUMN`` (repeated) as ``{NAME: COLUMN}``: split at the ``=`` whose left side names a
    feature of the calibrator (a name or a column may hold ``=`` itself)."""
    if not given:
        return None
    from ._apply import feature_columns

    names = feature_columns(cal)
    if not names:
        raise VeracityError(f"--feature maps the feature columns of a segment calibrator; this {cal.name} "
                            "reads only its score column: drop --feature")
    out: dict[str, str] = {}
    for item in given:
        cuts = [i for i, ch in enumerate(item) if ch == "=" and item[:i] in names]
        if not cuts:
            raise VeracityError(f"--feature takes NAME=COLUMN with NAME one of the calibrator's features "
                                f"({', '.join(map(repr, names))}), got {item!r}")
        name, column = item[:cuts[0]], item[cuts[0] + 1:]
        if name in out:
            raise VeracityError(f"--feature names feature {name!r} twice; give one column for it")
        out[name] = column
    return out


def _prior(values: list[float] | None) -> tuple[object, object] | None:
    """``--prior-shift OLD NEW`` (binary) or ``o_1 .. o_K n_1 .. n_K`` (K classes) as ``(old, new)``."""
    if values is None:
        return None
    half = len(values) // 2
    if len(values) % 2:
        raise VeracityError(f"--prior-shift takes OLD NEW (two base rates), or K old class priors then K new "
                            f"ones; got {len(values)} number{'' if len(values) == 1 else 's'}")
    return (values[0], values[1]) if half == 1 else (values[:half], values[half:])


def _prior_json(prior: tuple[object, object] | None) -> dict[str, object] | None:
    """``--prior-shift`` for the JSON object: ``{"old": .., "new": ..}`` (base rates, or K class priors each),
    or None where no shift is applied (the output is then the calibrator's own)."""
    return None if prior is None else {"old": prior[0], "new": prior[1]}


def run(args: argparse.Namespace) -> int:
    from ..calibrators import load as load_calibrator
    from ._common import emit, note, write_output

    cal = load_calibrator(args.calibrator)
    if cal.kind == "venn-abers-ovo":  # the export's own words name a Python option this command line lacks
        raise VeracityError(
            f"{args.calibrator} holds a multiclass Venn-ABERS of the pairwise form (what `veracity fit "
            "--method venn-abers` fits on K score columns), which has no SQL/ONNX form; for export fit a "
            "one-vs-rest map (--method isotonic, histogram, platt or beta on the K columns), or "
            "VennAbers(multiclass='ovr') in Python")
    prior = _prior(args.prior_shift)
    if args.sql is not None:
        from ..export import sql_and_columns

        features = _features(args.feature, cal)
        text, names = sql_and_columns(cal, _column(args, cal), dialect=args.sql, prior_shift=prior,
                                      features=features)
        if args.json:  # the column(s) the SQL reads: one name, or the K names a prefix stands for
            doc = {"calibrator": cal.kind, "dialect": args.sql,
                   "column": names[0] if len(names) == 1 else names,
                   "prior_shift": _prior_json(prior), "sql": text}
            if cal.kind == "segment":  # the feature columns it reads beside the score
                from ._apply import feature_columns

                doc["features"] = {name: (features or {}).get(name, name) for name in feature_columns(cal)}
            emit(args, text, doc)
        else:
            print(text)
        return 0
    if not args.onnx:
        raise VeracityError("--onnx needs a path, e.g. --onnx cal.onnx")
    if args.feature:  # an ONNX model reads the score alone
        raise VeracityError("--feature maps the feature columns the SQL reads (--sql); an ONNX model has no "
                            "feature input: drop --feature")
    if args.column is not None:  # else dropped unsaid: the model would be taken to read that column
        raise VeracityError(f"--column names the column the SQL reads (--sql); an ONNX model's input is "
                            f"always named 'score' (feed it column {args.column!r} under that name): drop --column")
    data = cal.to_onnx(prior_shift=prior)
    out = write_output(args.onnx, data, "--onnx")
    note(args, f"{args.calibrator}: wrote {cal.name} as ONNX ({len(data):,} bytes) -> {out}")
    if args.json:
        emit(args, "", {"calibrator": cal.kind, "prior_shift": _prior_json(prior), "onnx": str(out),
                        "bytes": len(data)})
    return 0
