"""``vc.log_mlflow``: an audit, a calibrator or a report as metrics and artifacts of an MLflow run.

Calibration shows up where teams already track models: the headline metrics
(ECE, MCE, Brier and its decomposition, NLL, AUC, accuracy, base rate, n) —
per slice too — the audit as JSON, the reliability diagram as PNG and the HTML
report; a calibrator is logged as its JSON artifact (``vc.load`` reads it back)
with its kind, parameters and provenance as run parameters.

MLflow is imported only here, inside the function; it is an optional dependency
(``pip install mlflow-skinny`` is enough).
"""

from __future__ import annotations

import math
import re
import time
import warnings
from dataclasses import dataclass, field
from typing import Any

from ..core._audit import AuditResult
from ..core._display import Display
from ..core._validation import VeracityError

#: characters MLflow accepts in metric and parameter names (others become "_")
_NAME = re.compile(r"[^\w.\- :/]")
#: longest parameter value logged (MLflow's own limit is larger in recent versions)
_PARAM_CHARS = 500
#: MLflow's longest metric or parameter name
_NAME_CHARS = 250
#: longest prefix= (it starts every metric name and artifact path)
_PREFIX_CHARS = 100
#: the longest metric name after a slice's stem ("/brier_uncertainty")
_LONGEST_METRIC = len("/brier_uncertainty")
#: longest "/"-separated segment of a name, in UTF-8 bytes: MLflow's file store writes each segment as a
#: file or folder name, and file systems take at most 255 bytes ("ü" * 200 is 400)
_SEGMENT_BYTES = 200


@dataclass(frozen=True, repr=False)
class MlflowLog(Display):
    """What :func:`log_mlflow` logged: the run, its metrics and params, and the artifact paths."""

    run_id: str
    metrics: dict[str, float] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)
    artifacts: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "metrics": dict(self.metrics), "params": dict(self.params),
                "artifacts": list(self.artifacts), "notes": list(self.notes)}

    def _frame_records(self) -> list[dict[str, Any]]:
        return [{"metric": k, "value": v} for k, v in self.metrics.items()]

    def __str__(self) -> str:
        lines = [f"MLflow run {self.run_id}: {len(self.metrics)} metrics, {len(self.params)} params, "
                 f"{len(self.artifacts)} artifacts"]
        lines += [f"  artifact {a}" for a in self.artifacts]
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def _mlflow() -> Any:
    try:
        import mlflow
    except ImportError:
        raise VeracityError("log_mlflow needs MLflow: pip install mlflow-skinny (or mlflow)") from None
    return mlflow


def _clean_name(text: str) -> str:
    return _NAME.sub("_", str(text))


def _segments(text: str) -> str:
    """``text`` as path segments MLflow takes in a metric name: it refuses a name that a path
    normalisation would change (``seg//x``, ``seg/./x``, ``seg/../x``, a leading ``/``), so an empty,
    ``.`` or ``..`` segment (a slice key ``""``, ``"."``, ``"a/"``) becomes underscores; a segment is cut
    to :data:`_SEGMENT_BYTES` bytes of UTF-8 (MLflow's file store makes each segment a file name)."""
    def one(part: str) -> str:
        if part in ("", ".", ".."):
            return "_" * max(len(part), 1)
        raw = part.encode("utf-8")
        return part if len(raw) <= _SEGMENT_BYTES else raw[:_SEGMENT_BYTES].decode("utf-8", "ignore")

    return "/".join(one(part) for part in text.split("/"))


def _finite(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        x = float(value)
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) else None


def _json_safe(value: Any) -> Any:
    """NaN and infinity become null (strict JSON), numpy scalars Python numbers."""
    if isinstance(value, dict):
        return {str(k): _json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_safe(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, (str, bytes)):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def audit_metrics(result: AuditResult, prefix: str = "") -> dict[str, float]:
    """The metrics logged for an audit: the whole table's, then ``{by}/{slice}/{metric}`` per slice."""
    return _audit_metrics(result, prefix)[0]


def _metric_values(r: AuditResult) -> dict[str, float | None]:
    """One audit's (or slice's) metrics by name, None or NaN where it has none. (N, K) scores (the top-label
    reading) have no ``base_rate``: their audit's is the top-label accuracy (``accuracy`` again), which the
    printed audit does not show as a base rate; a run read "base_rate 0.59" of three balanced classes."""
    d = r.decomposition
    return {"ece": r.ece, "mce": r.mce, "brier": r.brier, "nll": r.nll, "auc": r.auc, "accuracy": r.accuracy,
            "base_rate": None if r.top_label else r.base_rate, "n": r.n, "brier_reliability": d.reliability,
            "brier_resolution": d.resolution, "brier_uncertainty": d.uncertainty,
            # the printed decomposition's fourth term: without it the logged three do not add up to
            # brier (binned scores are not constant within a bin)
            "brier_within_bin": d.within_variance - 2.0 * d.within_covariance}


def _audit_metrics(result: AuditResult, prefix: str = "",
                   held: Any = ()) -> tuple[dict[str, float], dict[str, str]]:
    """:func:`audit_metrics`, and each slice's metric folder: ``{folder: slice key}`` (the key as
    ``result.groups`` and ``audit.json`` name it; the folder is the name MLflow takes for it). ``held``: the
    metric names the run already holds (an earlier log's, the user's), which the file store keeps as files
    too: a slice that would need one as its folder, or be the folder of one, is renamed as below."""
    out: dict[str, float] = {}
    whole = _metric_values(result)
    for name, value in whole.items():
        if (x := _finite(value)) is not None:
            out[prefix + name] = x
    # MLflow's file store writes metric "a/b/c" as the file metrics/a/b/c: no name may be both a metric
    # (a file) and the folder of another ("n" and "n/web/ece"; "seg/web/ece" and "seg/web/ece/ece"), in
    # this log or across logs (an earlier audit's slice "a/ece" made "seg/a/ece" a folder: this audit's
    # slice "a" failed with "Is a directory" after some of its metrics were written)
    files = {prefix + name for name in whole} | set(held)
    folders = _folders(files)
    column = _segments(_clean_name(result.group_column or "group"))
    used: set[str] = set()
    folders_of: dict[str, str] = {}
    room = _NAME_CHARS - _LONGEST_METRIC - 8  # "-" and a count for keys that clean (or cut) to one name
    for key, group in result.groups.items():
        # MLflow refuses names over 250 characters; a cut may end in "/" or ".": segments again
        base = _unfiled(_segments(f"{prefix}{column}/{_segments(_clean_name(key))}"[:room]), files)
        stem, i = base, 1
        # two keys that clean to one name stay apart ("-2": MLflow refuses "~"), as does a stem whose
        # metric would be another's folder
        while stem in used or stem in files or any(f"{stem}/{name}" in folders for name in whole):
            i += 1
            stem = f"{base}-{i}"
        used.add(stem)
        folders_of[stem] = str(key)
        folders.update("/".join(stem.split("/")[:j]) for j in range(1, stem.count("/") + 2))
        files.update(f"{stem}/{name}" for name in whole)
        for name, value in _metric_values(group).items():
            if (x := _finite(value)) is not None:
                out[f"{stem}/{name}"] = x
    return out, folders_of


def _stale(held: dict[str, float], written: dict[str, float], result: AuditResult, prefix: str,
           folders_of: dict[str, str], earlier: Any = None) -> tuple[dict[str, float], list[str]]:
    """What an earlier log left in the run that this audit does not overwrite.

    Cleared (logged as NaN, so the run's latest value is this audit's "none"): a whole-table metric, or a
    metric of a slice this audit logs, that this audit has no finite value for (an AUC of one class) but
    the run holds — the run would otherwise show the earlier audit's AUC beside this one's ECE. Gone (a
    warning, nothing written): the metric folders of slices this audit does not have — under this audit's
    ``by=`` folder (``seg/mobile/`` when it has only ``web``), or listed in the ``slices.json`` an earlier
    log wrote at this ``prefix=`` (``earlier``: called with the folders a held metric could be in, it
    returns that file's folders), so an audit with no ``by=`` or another column names the slices of one
    by ``seg`` too (the run showed ``n`` 200 beside ``seg/a/n`` 188 and ``seg/b/n`` 212, unsaid); they may
    be another log's, so they are named, not changed."""
    names = tuple(_metric_values(result))
    mine = {f"{stem}{name}" for stem in [prefix, *(f"{folder}/" for folder in folders_of)] for name in names}
    cleared = {k: math.nan for k, v in held.items()  # (one cleared before stays NaN, unsaid)
               if k in mine and k not in written and not math.isnan(v)}
    columns = {folder[len(prefix):].split("/", 1)[0] for folder in folders_of}
    if result.group_column is not None:
        columns.add(_segments(_clean_name(result.group_column)))
    gone: list[str] = []
    others: set[str] = set()  # folders of held slice-like metrics outside this audit's by= folder
    for k in held:
        rest = k[len(prefix):] if k.startswith(prefix) else None
        if rest is None or k in mine or rest.count("/") < 2 or rest.rsplit("/", 1)[1] not in names:
            continue
        folder = k.rsplit("/", 1)[0]
        if folder in folders_of or f"{folder}/" in gone:
            continue
        if rest.split("/", 1)[0] in columns:
            gone.append(f"{folder}/")
        else:
            others.add(folder)
    if others and earlier is not None:
        logged = set(earlier())
        gone += sorted(f"{folder}/" for folder in others if f"{folder}/" in logged)
    return cleared, gone


def _slices_logged(client: Any, run_id: str, path: str) -> list[str]:
    """The metric folders (``"seg/web/"``) the ``slices.json`` at ``path`` of run ``run_id`` lists (an earlier
    log's), or none where the run has no such file or it cannot be read."""
    import json
    import tempfile
    from pathlib import Path

    try:
        with tempfile.TemporaryDirectory() as folder:
            local = Path(client.download_artifacts(run_id, path, folder))
            doc = json.loads(local.read_text(encoding="utf-8"))
        return [str(s["metrics"]) for s in doc["slices"] if isinstance(s, dict) and "metrics" in s]
    except Exception:  # noqa: BLE001 - no such artifact, or not one this module wrote: nothing to name
        return []


def _folders(names: Any) -> set[str]:
    """Every folder a metric of ``names`` is filed under in MLflow's file store (``"a/b/c"``: ``a``,
    ``a/b``)."""
    return {"/".join(f.split("/")[:i]) for f in names for i in range(1, f.count("/") + 1)}


def _file_store(client: Any) -> bool:
    """Whether ``client`` tracks to MLflow's file store (a ``file:`` URI or a local path), where each metric
    is a file and each ``/`` a folder."""
    from urllib.parse import urlparse

    try:
        uri = str(client.tracking_uri)
    except Exception:  # noqa: BLE001 - an older client without the property: no clash is refused
        return False
    scheme = urlparse(uri).scheme
    return scheme in ("", "file") or len(scheme) == 1  # (a Windows drive letter)


def _check_clashes(names: Any, held: Any, run_id: str) -> None:
    """A one-line error where a whole-table metric of this log cannot be written to the file store beside one
    the run holds: ``ece`` where the run holds ``ece/train`` (a folder), or ``valid/ece`` where it holds
    ``valid`` (a file). Slices are renamed instead (:func:`_audit_metrics`); these names are fixed."""
    held = set(held)
    folders = _folders(held)
    for name in names:
        ancestors = _folders([name])
        if name in folders or ancestors & held:
            other = (sorted(h for h in held if h.startswith(name + "/")) or sorted(ancestors & held))[0]
            raise VeracityError(
                f"run {run_id} holds metric {other!r}, and MLflow's file store keeps each metric as a file in "
                f"a folder per '/': it cannot also write {name!r}; log this one with another prefix= (e.g. "
                "prefix='audit/') or to another run")


def _step(known: Any, keys: Any) -> int:
    """The step to log ``keys`` at: one past the highest step of those the run ``known`` already holds, else 0.

    MLflow shows a metric's value of the highest step (then the latest time): an ``auc`` a training loop
    logged at steps 0 … 9 outranked the audit's, logged at step 0, so the run showed the loop's last AUC as
    the audit's. One past the highest makes this log the run's value of every metric it writes, and two
    audits logged to one run steps 0 and 1."""
    keys = set(keys)
    steps = [int(m.step) for m in known.data.to_proto().metrics if m.key in keys]
    return max(steps) + 1 if steps else 0


def _listed(names: Any, limit: int = 3) -> str:
    """The first few names, and how many more."""
    names = sorted(names)
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def _unfiled(path: str, files: set[str]) -> str:
    """``path`` with each folder that is already a metric's (or parameter's) file renamed ``-2``, ``-3`` …"""
    parts = path.split("/")
    for k in range(len(parts) - 1):
        part, i = parts[k], 1
        while "/".join(parts[:k + 1]) in files:
            i += 1
            parts[k] = f"{part}-{i}"
    return "/".join(parts)


def _hidden(text: str) -> str:
    """``text`` with any password in it replaced by ``***`` (a metadata value such as
    ``source="postgresql://user:PASSWORD@host/db"``): run parameters are shown to whoever can see the run."""
    from ..sql._connect import redact

    return redact(text)


def _without_secrets(doc: dict[str, Any]) -> dict[str, Any]:
    """A calibrator's JSON with the secrets in its metadata hidden, at any depth
    (:func:`~veracity.export._redact.without_secrets`: passwords in text, and the value of a key that names a
    secret, ``db_password``); the map is untouched, so ``vc.load`` reads the logged artifact back to the same
    calibrator."""
    from ..export._redact import without_secrets

    metadata = doc.get("metadata")
    if not isinstance(metadata, dict):
        return doc
    return {**doc, "metadata": without_secrets(metadata)}


def calibrator_params(doc: dict[str, Any], prefix: str = "") -> dict[str, str]:
    """Kind, parameters and provenance of a calibrator's JSON as run parameters (scalars only; a password
    in a value is hidden)."""
    from ..export._redact import without_secrets

    out = {f"{prefix}calibrator.kind": str(doc.get("kind"))}
    folders = {"/".join(prefix.split("/")[:j]) for j in range(1, prefix.count("/") + 1)}
    for section in ("params", "metadata"):
        for key, value in (doc.get(section) or {}).items():
            if value is None or isinstance(value, (dict, list)):
                continue
            text = str(without_secrets(value, str(key)))[:_PARAM_CHARS]  # passwords hidden; db_password: "***"
            # a name MLflow takes (no "a//b" or "/x", at most 250 characters); keys that clean (or cut) to
            # one name, or to "calibrator.kind", stay apart ("-2"), unless they say the same (score_type is
            # in both sections); so does a name that the file store would need as a file and a folder
            # ("calibrator.fit" and "calibrator.fit/window")
            named = _clean_name(f"{prefix}calibrator.{_hidden(str(key))}")  # a key with a URL's password too
            base = _unfiled(_segments(_segments(named)[:_NAME_CHARS - 8]), set(out))
            name, i = base, 1
            while (name in out and out[name] != text) or name in folders:
                i += 1
                name = f"{base}-{i}"
            out[name] = text
            folders.update("/".join(name.split("/")[:j]) for j in range(1, name.count("/") + 1))
    return out


def result_page(result: AuditResult, *, title: str = "Calibration report", source: str | None = None,
                figures: bool = True) -> str:
    """A self-contained HTML report built from an audit alone (no rows: summary, reliability, slices).

    The page is assembled from :mod:`veracity.reporting`'s own sections, so it reads like
    ``vc.report``'s; the threshold explorer and operating curves need the rows and are left out.
    ``figures=False`` draws no figure (the reliability diagram takes seconds): the Reliability section
    keeps its table and says in one line that its figure was omitted.
    """
    from ..reporting import _html, _sections

    reading = "probability" if result.score_type == "probability" else "σ(logit)"
    sections = [("summary", "Summary", _sections._section("summary", "Summary", _sections._summary(result, reading)))]
    if not figures:
        figure = '<p class="note">figures omitted (figures=False, veracity audit --no-figures)</p>'
    elif not _sections._have_matplotlib():
        figure = '<p class="note">figures omitted: install matplotlib</p>'
    else:
        figure = _sections._svg(result.plot(), "rel", "reliability diagram")
        figure = f'<figure class="plot-box">{figure}</figure>'
    body = f'<div class="rel-grid"><div>{figure}</div><div>{_sections._reliability_table(result.table)}</div></div>'
    # sized by its weight where the audit is weighted, as vc.report's lead says (a weighted audit's page read
    # "sized by its count")
    lead = ("Each point is one bin: mean confidence (x) against observed frequency (y), sized by its "
            f"{'weight' if result.table.weighted else 'count'}, with its binomial interval. Points under the "
            "dashed diagonal are over-confident.")
    sections.append(("reliability", "Reliability", _sections._section("reliability", "Reliability", body, lead)))
    if result.groups:
        lead = (f"One audit per value of <code>{_sections._e(result.group_column)}</code>, binned with the same "
                "edges as the whole. The bar shows ECE relative to the worst slice.")
        sections.append(("slices", "Slices", _sections._section(
            "slices", f"Slices by {result.group_column}", _sections._slices(result, ""), lead)))
    return _html._page(title=title, source=source, details=None, result=result, sections=sections, explorer=None)


def _check_prefix(prefix: Any) -> str:
    """``prefix`` as MLflow takes it in metric names and artifact paths, else a one-line error."""
    if not isinstance(prefix, str):
        raise VeracityError(f"prefix must be a string, got {prefix!r}")
    bad = sorted(set(_NAME.findall(prefix)))
    if bad:
        raise VeracityError(
            f"prefix={prefix!r} holds {', '.join(map(repr, bad))}, which MLflow refuses in a metric name; use "
            "letters, digits, spaces and _ - . : /")
    if prefix.startswith("/") or ".." in prefix.split("/") or "//" in prefix or "." in prefix.split("/")[:-1]:
        raise VeracityError(f"prefix={prefix!r} must be a relative artifact path such as 'valid/' (no leading '/', "
                            "no '.' or '..' folder and no empty folder)")
    if len(prefix) > _PREFIX_CHARS:
        raise VeracityError(f"prefix= is {len(prefix)} characters long; MLflow names are at most {_NAME_CHARS}: "
                            f"pass at most {_PREFIX_CHARS}")
    return prefix


def _reason(exc: BaseException) -> str:
    """An MLflow failure's reason on one line, with every password hidden (a tracking URI may hold one)."""
    from ..sql._connect import redact

    text = " ".join(str(exc).split())
    if len(text) > 300:  # cut at a word, and say so (a bare cut read "...new connection: [);")
        text = text[:300].rsplit(" ", 1)[0] + " ..."
    return redact(text or type(exc).__name__)


def _unreachable(mlflow: Any, exc: BaseException) -> VeracityError:
    """A one-line error for a tracking store MLflow cannot open or reach (no traceback, no password):
    an unreachable server, an experiment id that does not exist, MLflow's default SQLite store without the
    modules it needs (``mlflow-skinny`` has no ``alembic``)."""
    from ..sql._connect import redact

    try:
        uri = redact(str(mlflow.get_tracking_uri()))
    except Exception:  # noqa: BLE001 - the URI is only named in the message
        uri = "?"
    return VeracityError(
        f"MLflow cannot open its tracking store {uri} ({_reason(exc)}); set a tracking URI that it can reach "
        "(mlflow.set_tracking_uri(...) or MLFLOW_TRACKING_URI, e.g. 'file:mlruns' with "
        "MLFLOW_ALLOW_FILE_STORE=true) and an existing experiment")


def _known_run(client: Any, run_id: str) -> Any:
    """The run ``run_id`` (checked before anything is logged), or a one-line error."""
    if not run_id:
        raise VeracityError("run= is an empty run id; pass an MLflow Run, its run id, or None for the active run")
    try:
        known = client.get_run(run_id)
    except Exception as exc:  # noqa: BLE001 - MlflowException: not found, a store that cannot be read
        raise VeracityError(f"run={run_id!r}: MLflow cannot find it ({_reason(exc)}); pass an existing run's "
                            "id, or None for the active run") from None
    stage = getattr(known.info, "lifecycle_stage", "active")
    if stage != "active":  # MLflow refused its metrics with a raw MlflowException, after the artifacts
        raise VeracityError(f"run {run_id} is {stage} (it or its experiment was deleted), and MLflow logs "
                            "only to active runs; restore it (MlflowClient().restore_run) or log to another run")
    return known


def _changed_params(existing: dict[str, str], params: dict[str, str], run_id: str) -> None:
    """MLflow refuses a parameter logged again with another value: say so before logging anything."""
    for key, value in params.items():
        if key in existing and existing[key] != value:
            raise VeracityError(
                f"run {run_id} already holds parameter {key}={existing[key][:60]!r} (another calibrator); "
                "log this one with another prefix= (e.g. prefix='recalibrated/') or to another run")


def _run_id(mlflow: Any, run: Any) -> str:
    if run is None:
        active = mlflow.active_run()
        if active is None:  # as mlflow.log_metric does: start a run, left active for what follows
            try:
                active = mlflow.start_run()
            except Exception as exc:  # noqa: BLE001 - a store that cannot be opened or reached
                raise _unreachable(mlflow, exc) from None
        return str(active.info.run_id)
    if isinstance(run, str):
        return run
    info = getattr(run, "info", None)
    if info is not None and getattr(info, "run_id", None):
        return str(info.run_id)
    raise VeracityError(f"run= must be an MLflow Run, a run id (str) or None for the active run; got {run!r}")


def _is_calibrator(obj: Any) -> bool:
    if not hasattr(obj, "to_dict") or not hasattr(obj, "transform"):
        return False
    try:
        doc = obj.to_dict()
    except Exception:  # noqa: BLE001 - an unfitted calibrator says so below
        return True
    return isinstance(doc, dict) and doc.get("format") == "veracity.calibrator"


def log_mlflow(
    result_or_calibrator: Any,
    *,
    run: Any = None,
    prefix: str = "",
    calibrator: Any = None,
    report: Any = None,
    figures: bool = True,
    title: str = "Calibration report",
) -> MlflowLog:
    r"""Log an audit, a calibrator or a report to an MLflow run; return what was logged.

    * an :class:`~veracity.AuditResult` (``vc.audit``, ``audit_sql`` …): metrics ``ece``,
      ``mce``, ``brier`` (+ ``brier_reliability/resolution/uncertainty/within_bin``, which add up to it:
      reliability − resolution + uncertainty + within_bin), ``nll``, ``auc``,
      ``accuracy``, ``base_rate``, ``n``, and per slice ``{by}/{key}/{metric}``; artifacts
      ``audit.json`` (``result.to_dict()``, NaN as null), ``reliability.png`` and
      ``report.html`` (built from the audit's aggregates with :mod:`veracity.reporting`'s sections;
      pass ``report=vc.report(...)`` to log the full page with its threshold explorer instead);
    * a fitted calibrator: ``calibrator.json`` (its ``to_dict()``; ``vc.load`` reads it back)
      and its kind, parameters and provenance as run parameters ``calibrator.*`` (a password in a
      metadata value, ``postgresql://user:PASSWORD@host``, is logged as ``***`` in both);
    * a :class:`~veracity.Report`: ``report.html`` and its summary metrics (its Summary's: the scores as
      given, before the report's calibrator, which a note then says).

    ``calibrator=`` logs a calibrator beside an audit. ``run`` is an MLflow ``Run`` or a run id;
    ``None`` logs to the active run (starting one, as ``mlflow.log_metric`` does, when none is
    active). ``prefix`` is put before every metric, parameter and artifact name (e.g.
    ``"valid/"``). Metrics are logged at one step: 0, or one past the highest step of those the run
    already holds (a training loop's ``auc`` at step 9: this log's ``auc`` at step 10), so the run
    shows this log's values. ``figures=False`` draws no figure: no PNG, and ``report.html`` keeps its
    numbers without the reliability diagram (a line on the page says so). A tracking store MLflow cannot
    open or reach (a server that is down, no tracking URI where MLflow's default SQLite store lacks its
    modules) is one :class:`~veracity.VeracityError` naming the store, its password hidden.
    """
    mlflow = _mlflow()
    prefix = _check_prefix(prefix)
    obj = result_or_calibrator
    from ..reporting import Report

    if not isinstance(obj, (AuditResult, Report)) and not _is_calibrator(obj):
        raise VeracityError(
            f"log_mlflow logs an AuditResult (vc.audit), a fitted calibrator or a Report (vc.report); "
            f"got {type(obj).__name__}")
    if calibrator is not None and not _is_calibrator(calibrator):
        raise VeracityError(f"calibrator= must be a fitted veracity calibrator, got {type(calibrator).__name__}")
    if report is not None and not isinstance(report, Report):
        raise VeracityError(f"report= must be a Report from vc.report(...), got {type(report).__name__}")
    from mlflow.entities import Metric, Param
    from mlflow.tracking import MlflowClient

    try:
        client = MlflowClient()
    except Exception as exc:  # noqa: BLE001 - MLflow's default SQLite store needs modules mlflow-skinny lacks
        raise _unreachable(mlflow, exc) from None
    run_id = _run_id(mlflow, run)
    known = _known_run(client, run_id)
    existing = dict(known.data.params or {})
    held = dict(known.data.metrics or {})  # the latest value of each metric already in the run
    if calibrator is not None or not isinstance(obj, (AuditResult, Report)):
        try:
            doc = (obj if calibrator is None else calibrator).to_dict()
        except VeracityError:
            raise
        except Exception as exc:  # noqa: BLE001 - an unfitted calibrator
            raise VeracityError(f"the calibrator cannot be logged: {exc}") from None
        _changed_params(existing, calibrator_params(doc, prefix), run_id)
    metrics: dict[str, float] = {}
    params: dict[str, str] = {}
    artifacts: list[str] = []
    notes: list[str] = []

    def path(name: str) -> str:
        return prefix + name

    cleared: dict[str, float] = {}
    if isinstance(obj, AuditResult):
        written, folders_of = _audit_metrics(obj, prefix, held)
        if _file_store(client):
            _check_clashes(written, held, run_id)
        metrics.update(written)
        cleared, gone = _stale(held, written, obj, prefix, folders_of,
                               earlier=lambda: _slices_logged(client, run_id, path("slices.json")))
        if cleared:
            many = "s" if len(cleared) > 1 else ""
            notes.append(f"{len(cleared)} metric{many} an earlier log left in this run now read NaN (this "
                         f"audit has no value for them): {_listed(cleared)}")
        if gone:
            many = "s" if len(gone) > 1 else ""
            text = (f"run {run_id} still holds the metrics of {len(gone)} slice{many} an earlier log wrote "
                    f"and this audit has not ({_listed(gone)}): they are that log's numbers; log each "
                    "audit to its own run or prefix=")
            notes.append(text)
            warnings.warn(text, UserWarning, stacklevel=2)
        if obj.top_label:  # what the numbers are: the printed audit's heading says so, the run did not
            notes.append(f"top-label reading of {obj.n_classes} classes: ece, mce, brier, auc and accuracy "
                         "are the top label's (the argmax's confidence against whether it is the label), nll "
                         "the log-loss of the label's probability; no base_rate (it would be the top-label "
                         "accuracy)")
        client.log_dict(run_id, _json_safe(obj.to_dict()), path("audit.json"))
        artifacts.append(path("audit.json"))
        if folders_of:
            slices = [{"metrics": f"{folder}/", "key": key} for folder, key in folders_of.items()]
            client.log_dict(run_id, {"by": obj.group_column, "slices": slices}, path("slices.json"))
            artifacts.append(path("slices.json"))
            renamed = [(key, folder) for folder, key in folders_of.items()
                       if folder != f"{prefix}{obj.group_column or 'group'}/{key}"]
            if renamed:
                key, folder = renamed[0]
                many = "s" if len(renamed) > 1 else ""
                notes.append(f"{len(renamed)} slice key{many} logged under another name (MLflow's characters "
                             f"and lengths; e.g. {key[:40]!r} as {folder}/): slices.json maps each metric "
                             "folder to its key")
        if figures:
            try:
                import matplotlib  # noqa: F401
            except ImportError:
                notes.append("reliability.png omitted: install matplotlib")
            else:
                import matplotlib.pyplot as plt

                fig = obj.plot()
                try:
                    client.log_figure(run_id, fig, path("reliability.png"))
                finally:
                    plt.close(fig)
                artifacts.append(path("reliability.png"))
        html = report.html if report is not None else result_page(obj, title=title, figures=figures)
        client.log_text(run_id, html, path("report.html"))
        artifacts.append(path("report.html"))
    elif isinstance(obj, Report):
        for name, value in (obj.summary.get("metrics") or {}).items():
            if (x := _finite(value)) is not None:
                metrics[prefix + name] = x
        for name in ("n", "base_rate"):
            if (x := _finite(obj.summary.get(name))) is not None:
                metrics[prefix + name] = x
        if _file_store(client):
            _check_clashes(metrics, held, run_id)
        if "calibration" in obj.sections and metrics:
            # the page's Summary is of the scores as given; a run of a calibrated model read its "ece" as
            # the calibrated scores' (the demo's 0.1006 where the calibrator's page shows 0.0683)
            notes.append("the metrics are the report's Summary: the scores as given, before the "
                         "calibrator; log vc.audit(calibrator.transform(scores), labels) for the calibrated "
                         "scores' metrics")
        client.log_text(run_id, obj.html, path("report.html"))
        artifacts.append(path("report.html"))
    else:
        calibrator = obj if calibrator is None else calibrator
    if calibrator is not None:
        try:
            doc = calibrator.to_dict()
        except VeracityError:
            raise
        except Exception as exc:  # noqa: BLE001 - an unfitted calibrator
            raise VeracityError(f"the calibrator cannot be logged: {exc}") from None
        params.update(calibrator_params(doc, prefix))
        client.log_dict(run_id, _json_safe(_without_secrets(doc)), path("calibrator.json"))
        artifacts.append(path("calibrator.json"))
    now = int(time.time() * 1000)
    items = list(metrics.items()) + list(cleared.items())
    step = _step(known, (k for k, _ in items))
    for start in range(0, len(items), 1000):  # MLflow's batch limit
        client.log_batch(run_id, metrics=[Metric(k, v, now, step) for k, v in items[start:start + 1000]])
    param_items = list(params.items())
    for start in range(0, len(param_items), 100):
        client.log_batch(run_id, params=[Param(k, v) for k, v in param_items[start:start + 100]])
    return MlflowLog(run_id=run_id, metrics=metrics, params=params, artifacts=tuple(artifacts), notes=tuple(notes))
