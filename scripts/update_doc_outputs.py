"""Rewrite the printed outputs of README.md and docs/*.md from a real run of their examples.

    .venv/bin/python scripts/update_doc_outputs.py [PAGE ...]

Runs each page exactly as tests/docs/test_docs_examples.py does (one namespace and one
temporary directory per page, the bundled demo data as ``data.csv``) and, where a block's
shown output does not match what the run printed, replaces it with the printed text:

* the text block under a ``python`` block;
* the lines under each ``$`` command of a shell session (``(exit code N)`` kept as the test
  writes it).

Shown outputs that use ``...`` and doctests are never rewritten: they are listed for a person
to fix by hand. Read the diff before committing — the run is the source of the numbers, the
page's prose around them is not checked by this script.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "docs"))

import test_docs_examples as t  # noqa: E402


def _session_text(text: str, results: list[tuple[str, str, str, bool]]) -> str | None:
    """The block rebuilt from its commands and their printed outputs (None: leave it alone)."""
    out: list[str] = []
    for cmd, want, got, ok in results:
        if not ok and "..." in want:
            return None
        out.append("$ " + cmd)
        shown = want if ok else got
        if shown:
            out.extend(shown.split("\n"))
    return "\n".join(out) + "\n"


def update(page: Path) -> list[str]:
    """Rewrite ``page`` in place; the places left for a person."""
    from veracity.datasets import demo_path

    import matplotlib

    matplotlib.use("Agg")
    lines = page.read_text(encoding="utf-8").splitlines()
    found = t.blocks(page)
    order = [k for k, b in enumerate(found) if b["first"]] + [k for k, b in enumerate(found) if not b["first"]]
    replace: dict[int, str] = {}  # block index -> new text
    manual: list[str] = []
    ns: dict = {"__name__": f"docs_{page.stem}"}
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(checker=t.Checker(), optionflags=doctest.ELLIPSIS)
    here = os.getcwd()
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        shutil.copyfile(demo_path(), cwd / "data.csv")
        os.chdir(cwd)
        try:
            for k in order:
                b = found[k]
                if b["skip"]:
                    continue
                where, what = f"{page.name}:{b['line']}", t.kind(b)
                if what == "doctest":
                    test = parser.get_doctest(b["text"], ns, where, str(page), b["line"])
                    out = io.StringIO()
                    if runner.run(test, out=out.write, clear_globs=False).failed:
                        manual.append(out.getvalue())
                    ns.update(test.globs)
                elif what == "python":
                    stdout = io.StringIO()
                    try:
                        with contextlib.redirect_stdout(stdout):
                            exec(compile(b["text"], where, "exec"), ns)
                    except Exception as exc:  # noqa: BLE001
                        manual.append(f"{where}: {type(exc).__name__}: {exc}")
                        continue
                    nxt = found[k + 1] if k + 1 < len(found) else None
                    if nxt and nxt["follows"] and t.kind(nxt) == "text" and nxt["info"] in ("", "text"):
                        want, got = nxt["text"].rstrip("\n"), stdout.getvalue().rstrip("\n")
                        if not (want == got or t._same_numbers(want, got)):
                            if "..." in want:
                                manual.append(f"{where}: shown output uses '...'; printed\n{got}")
                            else:
                                replace[k + 1] = got + "\n"
                elif what == "session":
                    results = t.session_results(b["text"], cwd)
                    if not all(ok for *_, ok in results):
                        new = _session_text(b["text"], results)
                        if new is None:
                            manual.append(f"{where}: a session output with '...' differs")
                        else:
                            replace[k] = new
        finally:
            os.chdir(here)
    for k in sorted(replace, reverse=True):
        b = found[k]
        start = b["line"]  # index of the first line inside the fence
        end = start + len(b["text"].splitlines())
        lines[start:end] = replace[k].rstrip("\n").split("\n")
    if replace:
        page.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"{page.relative_to(ROOT)}: {len(replace)} output block(s) rewritten")
    return manual


def main(argv: list[str]) -> int:
    pages = [Path(a).resolve() for a in argv] or t.PAGES
    left = [m for p in pages for m in update(p)]
    for m in left:
        print("\n--- fix by hand ---\n" + m)
    return 1 if left else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
