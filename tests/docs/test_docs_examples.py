"""Every code example in README.md and docs/*.md runs, and prints what the page shows (issue 14).

How a page's blocks are read (in order, one namespace and one temporary directory per page,
like a notebook next to a terminal):

* a block with ``>>>`` lines is a doctest: each statement runs and its output must
  match the lines under it exactly, except floating-point noise below the printed
  precision (``0.30000000000000004`` matches ``0.3``; a shown ``2.220e-16`` must be
  what the run prints, to its shown digits);
* a ```` ```python ```` block without ``>>>`` runs; when the very next block is an
  untagged or ```` ```text ```` block (only blank lines between), that block is its
  expected stdout, compared exactly;
* a shell session — a ```` ```console ````/```` ```shell ````/untagged block whose lines start
  with ``$ `` (a line ending in ``\\`` continues the command) — runs in bash, the commands
  of one block in one shell, ``veracity`` and ``python`` from this test's environment; what
  each command prints to the terminal (stdout and stderr, in order) must be the lines under
  it, compared like doctest output (``...`` matches anything, float noise as above, the
  temporary directory shown as a relative path). A command that exits with a non-zero code
  shows ``(exit code N)`` as its last line, unless the next command is ``echo $?``;
* a ```` ```bash ````/```` ```sh ```` block without ``$ `` prompts is a script: it runs with
  ``set -e`` and must succeed (its output is not shown, so not compared);
* the page's directory starts with ``data.csv``, a copy of the bundled demo data
  (``veracity.datasets.demo_path()``); files written by one block are there for the next;
* a block preceded by ``<!-- docs: first (reason) -->`` runs before the page's other
  blocks (a data script printed at the end of a page, read by the commands above it);
* a block preceded by the line ``<!-- docs: skip (reason) -->`` is not run — for the
  rare example that cannot run in CI (a cluster, s3, a machine set-up); the reason is
  required; each skipped block is a skipped test named after its place, so pytest's summary
  (``-ra``) lists how many were skipped and why, and their number is capped below.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP = re.compile(r"<!--\s*docs:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")
FIRST = re.compile(r"<!--\s*docs:\s*first\s*\((?P<reason>[^)]+)\)\s*-->")
FENCE = re.compile(r"^```(?P<info>[\w+-]*)\s*$")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")
SHELL_INFOS = ("", "console", "shell", "shell-session", "bash", "sh", "text")
SCRIPT_INFOS = ("bash", "sh")
#: printed numbers with at least 3 decimals may differ by this many units in their last digit
LAST_DIGIT_UNITS = 2
MAX_SKIPS = 4  # skips are for what truly cannot run in CI; keep them rare
MARK = "\x1edocs-command-done\x1e"


def blocks(path: Path) -> list[dict]:
    """Fenced blocks of a page: info string, text, first line number, skip reason, gap to previous."""
    out: list[dict] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    i, last_end = 0, -10
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start = i
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        before = "\n".join(lines[max(0, start - 2):start])
        skip, first = SKIP.search(before), FIRST.search(before)
        gap_blank = all(not ln.strip() for ln in lines[last_end + 1:start]) if out else False
        out.append({"info": m.group("info"), "text": "\n".join(lines[start + 1:j]) + "\n", "line": start + 1,
                    "skip": skip.group("reason") if skip else None, "first": bool(first),
                    "follows": gap_blank})
        last_end = j
        i = j + 1
    return out


def kind(b: dict) -> str:
    """What a block is: doctest, python, session (``$`` prompts), script (bash), or text (not run)."""
    text, info = b["text"], b["info"]
    if ">>>" in text and info in ("", "python", "pycon", "text"):
        return "doctest"
    if info == "python":
        return "python"
    if info in SHELL_INFOS and any(ln.startswith("$ ") for ln in text.splitlines()):
        return "session"
    if info in SCRIPT_INFOS:
        return "script"
    return "text"


def skipped_blocks() -> list[tuple[str, str]]:
    """(page:line, reason) of every block marked ``docs: skip``, over all pages."""
    return [(f"{p.relative_to(ROOT).as_posix()}:{b['line']}", b["skip"])
            for p in PAGES if p.exists() for b in blocks(p) if b["skip"]]


def session(text: str) -> list[tuple[str, str]]:
    """(command, the output lines shown under it) for each ``$`` prompt of a shell block."""
    steps: list[tuple[str, list[str]]] = []
    lines = text.splitlines()
    k = 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("$ "):
            cmd = [line[2:]]
            while cmd[-1].endswith("\\") and k + 1 < len(lines):
                k += 1
                cmd.append(lines[k])
            steps.append(("\n".join(cmd), []))
        elif steps:
            steps[-1][1].append(line)
        k += 1
    return [(c, "\n".join(out).rstrip("\n")) for c, out in steps]


def _numbers_under_ellipsis(want: str, got: str) -> tuple[list[str], list[str]] | None:
    """The page's numbers and the run's at the same places, where ``...`` in ``want`` skips any text."""
    pattern = "".join(
        r"[\s\S]*?" if piece == "..." else f"({NUMBER.pattern})" if NUMBER.fullmatch(piece) else re.escape(piece)
        for piece in re.split(rf"(\.\.\.|{NUMBER.pattern})", want) if piece
    )
    m = re.fullmatch(pattern, got)
    if m is None:
        return None
    return [p for p in re.split(rf"(\.\.\.|{NUMBER.pattern})", want) if p and NUMBER.fullmatch(p)], list(m.groups())


def _same_numbers(want: str, got: str) -> bool:
    """Equal text, numbers compared to the precision the page shows (``...`` in the page skips text)."""
    if "..." in want:
        found = _numbers_under_ellipsis(want, got)
        if found is None:
            return False
        wn, gn = found
    else:
        wn, gn = NUMBER.findall(want), NUMBER.findall(got)
        if NUMBER.sub("#", want) != NUMBER.sub("#", got) or len(wn) != len(gn):
            return False
    for w, g in zip(wn, gn):
        if w == g:
            continue
        if "." not in w and "e" not in w.lower():
            return False  # integers exactly
        fw, fg = float(w), float(g)
        if abs(fw - fg) <= 1e-12 * max(abs(fw), 1e-300):
            continue  # the same number written differently
        shown = len(w.split(".")[1].lower().split("e")[0]) if "." in w else 0
        printed = len(g.split(".")[1].lower().split("e")[0]) if "." in g else 0
        exp = int(w.lower().split("e")[1]) if "e" in w.lower() else 0
        # float noise: the run printed many more digits (0.30000000000000004) that round to the shown ones
        if printed >= shown + 6 and abs(fw - fg) <= 0.5 * 10 ** (exp - shown) * (1 + 1e-9):
            continue
        # the same digits printed, off by a few units in the last one: floating-point results that
        # differ between CPUs (vectorised sums, libm) in their last bits round either way
        if printed == shown and shown >= 3 and abs(fw - fg) <= LAST_DIGIT_UNITS * 10 ** (exp - shown) * (1 + 1e-9):
            continue
        return False
    return True


class Checker(doctest.OutputChecker):
    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        return _same_numbers(want.rstrip("\n"), got.rstrip("\n"))


def _shell_env() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env.update(PYTHONUNBUFFERED="1", MPLBACKEND="Agg", COLUMNS="200", NO_COLOR="1", TERM="dumb")
    for name in ("PYTEST_CURRENT_TEST", "PYTEST_XDIST_WORKER", "FORCE_COLOR"):
        env.pop(name, None)
    return env


def run_session(text: str, cwd: Path, where: str) -> list[str]:
    """Run a ``$`` block's commands in one bash; the failures (empty when all match)."""
    return session_failures(session_results(text, cwd), where)


def session_failures(results: list[tuple[str, str, str, bool]], where: str) -> list[str]:
    return [f"{where}: `$ {cmd}` printed\n{got}\n--- but the page shows ---\n{want}"
            for cmd, want, got, ok in results if not ok]


def session_results(text: str, cwd: Path) -> list[tuple[str, str, str, bool]]:
    """(command, shown, printed, whether they match) for each ``$`` command of a block, run in one bash."""
    steps = session(text)
    script = ["__docs_rc=0"]
    for cmd, _ in steps:
        script += [f"( exit $__docs_rc ); {cmd}", "__docs_rc=$?", f"printf '\\n{MARK}%d\\n' $__docs_rc"]
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=cwd, env=_shell_env(), timeout=600,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    text_out = proc.stdout.decode("utf-8", "replace").replace(f"{cwd}{os.sep}", "").replace(str(cwd), ".")
    chunks = text_out.split(f"\n{MARK}")
    results, checker = [], Checker()
    for k, (cmd, want) in enumerate(steps):
        if k + 1 >= len(chunks):
            results.append((cmd, want, "(the shell stopped before this command finished)", False))
            break
        got = chunks[k] if k == 0 else chunks[k].split("\n", 1)[1] if "\n" in chunks[k] else ""
        rc = int(chunks[k + 1].split("\n", 1)[0])
        got = got.rstrip("\n")
        next_cmd = steps[k + 1][0].strip() if k + 1 < len(steps) else ""
        if rc != 0 and next_cmd != "echo $?":
            got = f"{got}\n(exit code {rc})" if got else f"(exit code {rc})"
        results.append((cmd, want, got, checker.check_output(want + "\n", got + "\n", doctest.ELLIPSIS)))
    return results


def run_script(text: str, cwd: Path, where: str) -> list[str]:
    proc = subprocess.run(["bash", "-e", "-c", text], cwd=cwd, env=_shell_env(), timeout=600,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    if proc.returncode != 0:
        tail = proc.stdout.decode("utf-8", "replace")[-2000:]
        return [f"{where}: the script exited with code {proc.returncode}:\n{tail}"]
    return []


def _cases():
    return [pytest.param(page, id=page.relative_to(ROOT).as_posix()) for page in PAGES if page.exists()]


def run_page(page: Path, cwd: Path) -> list[dict]:
    """Run ``page``'s blocks in order in ``cwd`` (one namespace; ``docs: first`` blocks first,
    ``docs: skip`` blocks not at all): one record per block run, with ``where``, ``kind`` and
    ``failures`` (empty when it ran and printed what the page shows). A python block whose
    output the page shows also has ``shown`` (the index of that block), ``want`` and ``got``; a
    session has ``results`` (see :func:`session_results`). The test and
    ``scripts/update_doc_outputs.py`` both read these, so they cannot run a page differently."""
    import matplotlib

    matplotlib.use("Agg")
    ns: dict = {"__name__": f"docs_{page.stem}"}
    found = blocks(page)
    order = [k for k, b in enumerate(found) if b["first"]] + [k for k, b in enumerate(found) if not b["first"]]
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(checker=Checker(), optionflags=doctest.ELLIPSIS)
    records: list[dict] = []
    here = os.getcwd()
    os.chdir(cwd)
    try:
        for k in order:
            b = found[k]
            if b["skip"]:
                continue
            where, what = f"{page.name}:{b['line']}", kind(b)
            record: dict = {"index": k, "where": where, "kind": what, "failures": []}
            records.append(record)
            if what == "doctest":
                test = parser.get_doctest(b["text"], ns, where, str(page), b["line"])
                out = io.StringIO()
                result = runner.run(test, out=out.write, clear_globs=False)
                ns.update(test.globs)  # a doctest runs on a copy: keep what it defined for the next blocks
                if result.failed:
                    record["failures"].append(out.getvalue())
            elif what == "python":
                stdout = io.StringIO()
                try:
                    with contextlib.redirect_stdout(stdout):
                        exec(compile(b["text"], where, "exec"), ns)
                except Exception as exc:  # noqa: BLE001 - reported with the block's place
                    record["failures"].append(f"{where}: {type(exc).__name__}: {exc}")
                    continue
                nxt = found[k + 1] if k + 1 < len(found) else None
                if nxt and nxt["follows"] and kind(nxt) == "text" and nxt["info"] in ("", "text") and not nxt["skip"]:
                    want, got = nxt["text"].rstrip("\n"), stdout.getvalue().rstrip("\n")
                    record.update(shown=k + 1, want=want, got=got)
                    if not (want == got or _same_numbers(want, got)):
                        record["failures"].append(f"{where}: printed\n{got}\n--- but the page shows ---\n{want}")
            elif what == "session":
                record["results"] = session_results(b["text"], cwd)
                record["failures"] += session_failures(record["results"], where)
            elif what == "script":
                record["failures"] += run_script(b["text"], cwd, where)
    finally:
        os.chdir(here)
    return records


@pytest.mark.parametrize("page", _cases())
def test_page_examples_run_and_match(page, tmp_path):
    from veracity.datasets import demo_path

    shutil.copyfile(demo_path(), tmp_path / "data.csv")
    failures = [f for record in run_page(page, tmp_path) for f in record["failures"]]
    assert not failures, "\n\n".join(failures)


def test_every_shell_and_python_block_is_run_or_marked():
    """No code block is silently ignored: each is run (doctest, python, session, script) or skipped
    with a reason; anything else is output or text (no prompt, not python, not a shell script)."""
    for page in PAGES:
        for b in blocks(page):
            if b["info"] in ("console", "shell", "shell-session", "pycon"):
                assert kind(b) in ("session", "doctest") or b["skip"], (
                    f"{page.name}:{b['line']}: a {b['info']} block without `$ ` or `>>>` prompts")


@pytest.mark.parametrize("where, reason", skipped_blocks() or [("none", "")], ids=lambda v: v)
def test_block_not_run(where, reason):
    """One skipped test per block marked ``docs: skip``: pytest's summary lists them with the reason."""
    if where != "none":
        pytest.skip(f"docs block {where} not run: {reason}")


def test_skips_are_rare_and_explained():
    skips = skipped_blocks()
    assert len(skips) <= MAX_SKIPS, skips
    assert all(reason.strip() for _, reason in skips)


def test_session_parsing_and_exit_codes(tmp_path):
    text = "$ echo one \\\n    two\none two\n$ false\n$ echo $?\n1\n$ sh -c 'echo oops >&2; exit 3'\noops\n(exit code 3)\n"
    assert [c for c, _ in session(text)] == ["echo one \\\n    two", "false", "echo $?", "sh -c 'echo oops >&2; exit 3'"]
    assert run_session(text, tmp_path, "t") == []
    wrong = run_session("$ echo 0.31\n0.3\n$ sh -c 'exit 2'\n", tmp_path, "t")
    assert len(wrong) == 2 and "(exit code 2)" in wrong[1]
    assert run_session(f"$ echo {tmp_path}/x.csv\nx.csv\n", tmp_path, "t") == []
    assert run_session("$ printf 'a\\nb\\nc\\n'\na\n...\nc\n", tmp_path, "t") == []


def test_number_normalisation():
    assert _same_numbers("ECE 0.3000", "ECE 0.3000")
    assert _same_numbers("0.3", "0.30000000000000004")
    assert not _same_numbers("0.3", "0.31")
    assert not _same_numbers("2.220e-16", "4.441e-16")
    assert _same_numbers("0.25", "0.25000")
    assert not _same_numbers("2.220e-16", "2.2204e-16")
    assert not _same_numbers("12", "13")
    assert not _same_numbers("ECE 0.3", "MCE 0.3")
    # "..." skips any text; the numbers around it are still compared
    assert _same_numbers('{"ece": 0.012992285714285715,\n...\n}', '{"ece": 0.012992285714285722,\n "x": 1\n}')
    assert not _same_numbers('{"ece": 0.0129,\n...\n}', '{"ece": 0.0135,\n "x": 1\n}')
    assert not _same_numbers("a 1 ... b", "a 1 x c")
    # a few units in the last printed digit (CPU-dependent rounding), never more, never in integers
    assert _same_numbers("width 5.763e-12", "width 5.764e-12")
    assert _same_numbers("ECE 0.1006", "ECE 0.1008")
    assert not _same_numbers("ECE 0.1006", "ECE 0.1009")
    assert not _same_numbers("ECE 0.10", "ECE 0.11")
    assert not _same_numbers("n 1006", "n 1007")
