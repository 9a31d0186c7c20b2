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

import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "docs"))

import test_docs_examples as t  # noqa: E402


def _session_text(results: list[tuple[str, str, str, bool]]) -> str | None:
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

    lines = page.read_text(encoding="utf-8").splitlines()
    found = t.blocks(page)
    replace: dict[int, str] = {}  # block index -> new text
    manual: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        cwd = Path(tmp)
        shutil.copyfile(demo_path(), cwd / "data.csv")
        for record in t.run_page(page, cwd):  # exactly as the test runs the page
            if not record["failures"]:
                continue
            where = record["where"]
            if record["kind"] == "python" and "shown" in record:
                if "..." in record["want"]:
                    manual.append(f"{where}: shown output uses '...'; printed\n{record['got']}")
                else:
                    replace[record["shown"]] = record["got"] + "\n"
            elif record["kind"] == "session":
                new = _session_text(record["results"])
                if new is None:
                    manual.append(f"{where}: a session output with '...' differs")
                else:
                    replace[record["index"]] = new
            else:  # a doctest, a block that raised, a script that failed
                manual.extend(record["failures"])
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
