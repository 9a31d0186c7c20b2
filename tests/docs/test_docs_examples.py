"""Every code example in README.md and docs/*.md runs, and prints what the page shows (issue 14).

How a page's blocks are read (in order, one namespace per page, like a notebook):

* a block with ``>>>`` lines is a doctest: each statement runs and its output must
  match the lines under it exactly, except floating-point noise below the printed
  precision (``0.30000000000000004`` matches ``0.3``; a shown ``2.220e-16`` must be
  what the run prints, to its shown digits);
* a ```` ```python ```` block without ``>>>`` runs; when the very next block is an
  untagged or ```` ```text ```` block (only blank lines between), that block is its
  expected stdout, compared exactly;
* shell blocks (``$ veracity ...``) are run by tests/test_readme.py for the README;
* a block preceded by the line ``<!-- docs: skip (reason) -->`` is not run — for the
  rare example that cannot run in CI (a cluster, a browser); the reason is required.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SKIP = re.compile(r"<!--\s*docs:\s*skip\s*\((?P<reason>[^)]+)\)\s*-->")
FENCE = re.compile(r"^```(?P<info>[\w+-]*)\s*$")
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


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
        skip = SKIP.search(before)
        gap_blank = all(not ln.strip() for ln in lines[last_end + 1:start]) if out else False
        out.append({"info": m.group("info"), "text": "\n".join(lines[start + 1:j]) + "\n", "line": start + 1,
                    "skip": skip.group("reason") if skip else None, "follows": gap_blank})
        last_end = j
        i = j + 1
    return out


def _same_numbers(want: str, got: str) -> bool:
    """Equal text, numbers compared to the precision the page shows."""
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
        return False
    return True


class Checker(doctest.OutputChecker):
    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        if super().check_output(want, got, optionflags):
            return True
        if optionflags & doctest.ELLIPSIS and "..." in want:
            return False
        return _same_numbers(want.rstrip("\n"), got.rstrip("\n"))


def _cases():
    cases = []
    for page in PAGES:
        if not page.exists():
            continue
        cases.append(pytest.param(page, id=page.relative_to(ROOT).as_posix()))
    return cases


@pytest.mark.parametrize("page", _cases())
def test_page_examples_run_and_match(page, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    import matplotlib

    matplotlib.use("Agg")
    ns: dict = {"__name__": f"docs_{page.stem}"}
    found = blocks(page)
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(checker=Checker(), optionflags=doctest.ELLIPSIS)
    failures: list[str] = []
    for k, b in enumerate(found):
        if b["skip"]:
            continue
        where = f"{page.name}:{b['line']}"
        if ">>>" in b["text"] and b["info"] in ("", "python", "pycon", "text"):
            test = parser.get_doctest(b["text"], ns, where, str(page), b["line"])
            out = io.StringIO()
            result = runner.run(test, out=out.write, clear_globs=False)
            ns.update(test.globs)  # a doctest runs on a copy: keep what it defined for the next blocks
            if result.failed:
                failures.append(out.getvalue())
        elif b["info"] == "python":
            stdout = io.StringIO()
            try:
                with contextlib.redirect_stdout(stdout):
                    exec(compile(b["text"], where, "exec"), ns)
            except Exception as exc:  # noqa: BLE001 - reported with the block's place
                failures.append(f"{where}: {type(exc).__name__}: {exc}")
                continue
            nxt = found[k + 1] if k + 1 < len(found) else None
            if (nxt and nxt["follows"] and nxt["info"] in ("", "text") and ">>>" not in nxt["text"]
                    and not nxt["text"].lstrip().startswith("$") and not nxt["skip"]):
                want, got = nxt["text"].rstrip("\n"), stdout.getvalue().rstrip("\n")
                if not (want == got or _same_numbers(want, got)):
                    failures.append(f"{where}: printed\n{got}\n--- but the page shows ---\n{want}")
    assert not failures, "\n\n".join(failures)


def test_number_normalisation():
    assert _same_numbers("ECE 0.3000", "ECE 0.3000")
    assert _same_numbers("0.3", "0.30000000000000004")
    assert not _same_numbers("0.3", "0.31")
    assert not _same_numbers("2.220e-16", "4.441e-16")
    assert _same_numbers("0.25", "0.25000")
    assert not _same_numbers("2.220e-16", "2.2204e-16")
    assert not _same_numbers("12", "13")
    assert not _same_numbers("ECE 0.3", "MCE 0.3")
