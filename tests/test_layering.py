"""The layers hold: no module imports from a package above its own, not even inside a function.

Every module of ``src/veracity`` is parsed and every import in it is followed — at module
level and inside function and method bodies (``ast.walk`` over the whole tree), relative
(``from ..report import x``) and absolute (``import veracity.cli``), and the string forms
``importlib.import_module("veracity.x")`` / ``import_module(".x", __package__)`` /
``import_module(f"veracity.demos.{name}")``. Each import is reduced to the package it
reaches (the first name under ``veracity``: ``core``, ``frames``, or a top-level module
such as ``io``) and checked against :data:`RANKS`.

A package may import its own modules and the packages of a lower rank; packages of one
rank are independent of one another. The one edge that runs up is :data:`SEAM`: a result's
``.plot()`` (``core/_display.py``) asks :func:`veracity.plotting.draw` for its picture,
so results never import a figure function. The package graph without that edge has no
cycle. A new package needs a rank here before it can be imported.
"""

from __future__ import annotations

import ast
import functools
import warnings
from collections import deque
from collections.abc import Iterator
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src" / "veracity"

#: one worker under ``make test`` (``-n 2 --dist loadgroup``): the tree is parsed once for the module
#: (:func:`edges`' cache, ~3 s of CPU); spread over both workers, each parsed it (r43)
pytestmark = pytest.mark.xdist_group(__name__)

#: Bottom to top. Top-level modules (``io``, ``_files`` …) rank like packages. Packages of one
#: rank are independent of one another; a higher rank may import every lower one.
RANKS: dict[str, int] = {
    # a leaf: the standard library only
    "_version": 0,
    # validation -> statistics -> metrics -> reliability table -> audit, and Display
    "core": 1,
    # finding files (paths, directories, globs) and writing them atomically
    "_files": 2,
    # the rows seam (frames and databases read through one interface); calibrators as
    # SQL and ONNX (written from a calibrator's JSON artifact)
    "sources": 3, "export": 3,
    # built on the core: calibrators, decisions, honest estimators, reading files, the data
    "calibrators": 4, "decisions": 4, "honest": 4, "io": 4, "datasets": 4,
    # built on those: delayed labels (PPI, confidence sequences; the decisions' input checks),
    # segment discovery and repair (a calibrator per segment)
    "delayed": 5, "segments": 5,
    # monitoring: calibrators (recalibrate), honest tests, delayed-label estimates, segments per
    # window, files
    "monitoring": 6,
    # the frame forms of everything below (vc.monitor on a frame included)
    "frames": 7,
    # built on the frame forms: engines, SQL pushdown, model comparison
    "engines": 8, "sql": 8, "comparison": 8,
    # draws any result (the one package the core may call: see SEAM)
    "plotting": 9,
    # the HTML report, then its old import path ``veracity.report`` (an alias of it)
    "reporting": 10,
    "report": 11,
    # experiment tracking logs results, calibrators and reports
    "tracking": 12, "mlflow": 12,
    # the public face (``veracity/__init__.py``) and what is built on it
    "veracity": 13,
    "demos": 14,
    "cli": 15,
    "__main__": 16,
}

#: The one upward edge (module -> module): Display.plot() -> plotting.draw().
SEAM: set[tuple[str, str]] = {("veracity.core._display", "veracity.plotting")}


# -- the checker ----------------------------------------------------------------------------------
def iter_modules(root: Path) -> Iterator[tuple[str, Path, bool]]:
    """``(dotted name, path, is_package)`` of every module under ``root`` (the ``veracity`` folder)."""
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_pkg = parts[-1] == "__init__"
        if is_pkg:
            parts = parts[:-1]
        yield ".".join(parts), path, is_pkg


def _resolve(name: str, level: int, module: str, is_pkg: bool) -> str:
    """The absolute name of ``from <level dots><name> import ...`` written in ``module``."""
    if level == 0:
        return name
    base = module.split(".") if is_pkg else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _string_target(call: ast.Call, module: str, is_pkg: bool) -> str | None:
    """The module named by ``import_module(...)`` / ``__import__(...)`` when it can be read."""
    func = call.func
    fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if fname not in ("import_module", "__import__") or not call.args:
        return None
    arg = call.args[0]
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        text = arg.value
    elif isinstance(arg, ast.JoinedStr):  # f"veracity.demos.{name}": its constant head
        text = ""
        for part in arg.values:
            if isinstance(part, ast.Constant):
                text += str(part.value)
            elif isinstance(part.value, ast.Name) and part.value.id in ("__name__", "__package__"):
                text += module if part.value.id == "__name__" or is_pkg else module.rpartition(".")[0]
            else:
                break
        text = text.rstrip(".")
        if not text:
            return None
    else:
        return None
    level = len(text) - len(text.lstrip("."))
    if not level:
        return text
    anchor = call.args[1] if len(call.args) > 1 else None
    if isinstance(anchor, ast.Constant) and isinstance(anchor.value, str):  # ("._api", "veracity.frames")
        return _resolve(text[level:], level, anchor.value, True)
    return _resolve(text[level:], level, module, is_pkg)  # (".x", __package__) or (".x", __name__)


@functools.lru_cache(maxsize=None)  # each module is parsed once for every test that walks it (trees are only read)
def _parse(path: Path) -> ast.Module:
    with warnings.catch_warnings():  # a stray escape in a docstring is not this test's business
        warnings.simplefilter("ignore")
        return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


#: the nodes that hold statements: an import or a class is a statement, and a statement's parent is a
#: statement, an ``except`` clause, a ``case`` or the module (expressions hold no statements)
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def _statements(tree: ast.Module) -> Iterator[ast.AST]:
    """The statements of ``tree`` (and its ``except`` clauses and ``case`` blocks), in the order
    ``ast.walk`` visits them (breadth first, children in field order), without walking into any
    expression: an ``ast.walk`` of the whole tree visits ~500,000 nodes of ``src/veracity``, most of
    them inside expressions, and took as long as parsing it."""
    todo = deque([tree])
    while todo:
        node = todo.popleft()
        for field in node._fields:
            value = getattr(node, field, None)
            if isinstance(value, list):
                todo.extend(child for child in value if isinstance(child, _HOLDERS))
        yield node


@functools.lru_cache(maxsize=None)
def _calls_import_module(path: Path) -> bool:
    """Whether a module's text names ``import_module`` or ``__import__`` (a call of either can only be
    read where its name is written): only then are its expressions walked for :func:`_string_target`."""
    text = path.read_text(encoding="utf-8")
    return "import_module" in text or "__import__" in text


def imports_of(path: Path, module: str, is_pkg: bool, root: Path) -> list[tuple[str, int]]:
    """Every ``veracity`` module that ``path`` imports anywhere in its body, with the line."""
    tree = _parse(path)
    top = root.name
    found: list[tuple[str, int]] = []
    for node in (ast.walk(tree) if _calls_import_module(path) else _statements(tree)):
        if isinstance(node, ast.Import):
            found += [(a.name, node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _resolve(node.module or "", node.level, module, is_pkg)
            for alias in node.names:  # `from . import io` names a module, `from .x import f` a name
                sub = f"{target}.{alias.name}"
                is_module = (root.parent / sub.replace(".", "/")).with_suffix(".py").exists() or (
                    root.parent / sub.replace(".", "/")).is_dir()
                found.append((sub if is_module else target, node.lineno))
        elif isinstance(node, ast.Call):
            target = _string_target(node, module, is_pkg)
            if target is not None:
                found.append((target, node.lineno))
    return [(name, line) for name, line in found if name == top or name.startswith(top + ".")]


def package_of(module: str) -> str:
    """``veracity.core._audit`` -> ``core``; ``veracity.io`` -> ``io``; ``veracity`` -> ``veracity``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


@functools.lru_cache(maxsize=None)
def edges(root: Path) -> tuple[tuple[str, str, int, str, str], ...]:
    """``(importer module, imported module, line, importer package, imported package)``."""
    out = []
    for module, path, is_pkg in iter_modules(root):
        for target, line in imports_of(path, module, is_pkg, root):
            out.append((module, target, line, package_of(module), package_of(target)))
    return tuple(out)


def allowed(src: str, dst: str) -> bool:
    return src == dst or RANKS[dst] < RANKS[src]


def upward_imports(root: Path) -> list[str]:
    """One line per import that breaks the table (the seam aside)."""
    bad = []
    for module, target, line, src, dst in edges(root):
        if (module, target) in SEAM:
            continue
        if src not in RANKS or dst not in RANKS:
            bad.append(f"{module}:{line} imports {target}: give package {src if src not in RANKS else dst!r} "
                       "a rank in tests/test_layering.py")
        elif not allowed(src, dst):
            bad.append(f"{module}:{line} imports {target}: {src} (rank {RANKS[src]}) may not import "
                       f"{dst} (rank {RANKS[dst]}); move the code down or invert the dependency")
    return bad


def package_graph(root: Path) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for module, target, _, src, dst in edges(root):
        if src != dst and (module, target) not in SEAM:
            graph.setdefault(src, set()).add(dst)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(set(graph) | {w for ws in graph.values() for w in ws}):
        if v not in index:
            visit(v)
    return found


# -- the tree ------------------------------------------------------------------------------------
def test_every_package_has_a_rank():
    packages = {package_of(m) for m, _, _ in iter_modules(SRC)}
    assert packages - set(RANKS) == set(), "rank the new package(s) in RANKS"


def test_no_module_imports_from_a_layer_above():
    assert upward_imports(SRC) == []


def test_no_cycles_between_packages():
    assert cycles(package_graph(SRC)) == []


def test_the_plotting_seam_is_the_only_upward_edge():
    found = {(m, t) for m, t, _, src, dst in edges(SRC) if src in RANKS and dst in RANKS
             and RANKS[dst] > RANKS[src]}
    assert found == SEAM
    # results never import a figure function: below the plotting package only Display knows it
    reaching = {m for m, t, _, src, dst in edges(SRC) if dst == "plotting" and RANKS[src] < RANKS["plotting"]}
    assert reaching == {"veracity.core._display"}


def test_the_checker_sees_imports_inside_function_bodies():
    # known lazy edges of the real tree: if the resolver lost them, the tests above would be vacuous
    found = {(m, t) for m, t, *_ in edges(SRC)}
    assert ("veracity.core._display", "veracity.plotting") in found  # inside Display.plot
    # cli/_demo.py loads the demos with importlib.import_module(f"veracity.demos.{module}")
    assert any(m.startswith("veracity.cli") and t.startswith("veracity.demos") for m, t in found)


def test_results_never_draw_themselves():
    # a picture is a figure function in veracity.plotting, registered in plotting/_dispatch.py;
    # Display.plot() (core/_display.py) is the only plot method and no class has a _plot of its own
    found = []
    for module, path, _ in iter_modules(SRC):
        for node in _statements(_parse(path)):  # a class is a statement
            if isinstance(node, ast.ClassDef):
                found += [f"{module}.{node.name}.{f.name}" for f in node.body
                          if isinstance(f, ast.FunctionDef) and f.name in ("plot", "_plot")]
    assert found == ["veracity.core._display.Display.plot"]


def test_every_registered_picture_is_a_result_and_a_function_of_the_plotting_package():
    from veracity.core._display import Display
    from veracity.plotting._dispatch import drawers

    table = drawers()
    assert len(table) >= 15
    for cls, draw in table.items():
        assert issubclass(cls, Display), cls
        assert draw.__module__.startswith("veracity.plotting."), (cls, draw)


def test_core_honest_estimators_and_metrics_have_no_import_cycle():
    found = {(m, t) for m, t, *_ in edges(SRC)}
    assert ("veracity.core._honest", "veracity.core._metrics") not in found


# -- the checker fails where it must (a throwaway package tree) ----------------------------------
BAD_TREE = {
    "__init__.py": "",
    "core/__init__.py": "",
    "core/_fine.py": "from ._other import x\nfrom .._version import __version__\n",
    "core/_other.py": "x = 1\n",
    "core/_lazy.py": (
        "def draw(result):\n"
        "    if result:\n"
        "        from ..reporting._html import report  # upward, hidden in a function body\n"
        "        return report\n"
    ),
    "core/_absolute.py": "class A:\n    def f(self):\n        import veracity.cli\n",
    "core/_string.py": (
        "import importlib\n\n\ndef load(name):\n"
        "    importlib.import_module('.frames._api', 'veracity')\n"
        "    return importlib.import_module(f'veracity.monitoring.{name}')\n"
    ),
    "_version.py": "",
    "reporting/__init__.py": "",
    "reporting/_html.py": "from ..core._other import x\n\n\ndef report():\n    return x\n",
    "cli/__init__.py": "",
    "frames/__init__.py": "",
    "frames/_api.py": "",
    "monitoring/__init__.py": "",
    "newpkg/__init__.py": "from ..core import _other\n",
}


@pytest.fixture()
def bad_tree(tmp_path: Path) -> Path:
    root = tmp_path / "veracity"
    for name, text in BAD_TREE.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_an_upward_import_inside_a_function_fails(bad_tree):
    bad = upward_imports(bad_tree)
    assert any(line.startswith("veracity.core._lazy:3 imports veracity.reporting._html: core (rank 1)")
               for line in bad), bad
    assert any(line.startswith("veracity.core._absolute:3 imports veracity.cli") for line in bad), bad
    assert any(line.startswith("veracity.core._string:5 imports veracity.frames._api") for line in bad), bad
    assert any(line.startswith("veracity.core._string:6 imports veracity.monitoring") for line in bad), bad
    assert any("give package 'newpkg' a rank" in line for line in bad), bad
    assert not any(line.startswith("veracity.core._fine") for line in bad), bad  # downward and in-package
    assert len(bad) == 5, bad


def test_a_cycle_between_packages_is_found(bad_tree):
    assert cycles(package_graph(bad_tree)) == [["core", "reporting"]]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


# -- speed-only guard (r37): the statement walk reads what a walk of every node read --------------
GUARD_MODULE = '''
import os
from . import a
try:
    from .b import c
except ImportError as exc:
    import veracity.d as d
else:
    from ..e import f
finally:
    pass
class K:
    def m(self):
        if True:
            with open(os.devnull) as fh:
                from veracity.g import h
        for _ in ():
            while False:
                import veracity.i
        match 1:
            case 1:
                from veracity import j
            case _:
                async def n():
                    async with x:
                        from .k import z
        return lambda: [z for _ in ()]
x = [y for y in (1, 2)]
'''


def test_the_statement_walk_finds_every_import_a_full_walk_finds_r37(tmp_path, monkeypatch):
    """Speed-only guard: outside the few modules that name ``import_module``/``__import__``, the imports are
    read from the statements alone (:func:`_statements`); on a module with imports in every kind of block
    and on the largest modules of the tree they are the same, in the same order, as ``ast.walk`` finds."""
    root = tmp_path / "veracity"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "__init__.py").write_text("", encoding="utf-8")
    (root / "pkg" / "m.py").write_text(GUARD_MODULE, encoding="utf-8")
    cases = [(root / "pkg" / "m.py", "veracity.pkg.m", False, root)]
    largest = sorted((m for m in iter_modules(SRC) if not _calls_import_module(m[1])),
                     key=lambda m: -m[1].stat().st_size)[:3]
    cases += [(path, module, is_pkg, SRC) for module, path, is_pkg in largest]
    assert not any(_calls_import_module(path) for path, *_ in cases)
    fast = [imports_of(*case) for case in cases]
    assert len(fast[0]) == 8  # one for each import of the guard module, nested in try/except/with/match/async
    monkeypatch.setitem(globals(), "_calls_import_module", lambda path: True)  # every node walked
    assert [imports_of(*case) for case in cases] == fast
    # the classes: what test_results_never_draw_themselves reads
    for path, *_ in cases:
        tree = _parse(path)
        assert [n for n in _statements(tree) if isinstance(n, ast.ClassDef)] == [
            n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
