"""Every computation below the metrics is written once: one bin index, one edge builder (equal-width
and equal-mass), one 2U AUC kernel, one threshold-count kernel, one column lookup, one threshold
check, one set of input-contract counts.

Two checks over ``src/veracity``: each kernel function is defined exactly once, in its module
(an AST walk over every function, nested ones included), and no other module carries the
text of a copy (the expressions each kernel is made of). Copies that other packages still
carry are listed in :data:`KNOWN` with who moves them; a new copy fails this test, and a
planted copy in a scratch tree shows that the checker finds one.
"""

import ast
import functools
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[2] / "src" / "veracity"

#: kernel function -> the one module (relative to src/veracity) that defines it
KERNELS = {
    "bin_index": "core/_binning.py",            # the bin of a score, numpy or narwhals expression
    "uniform_edges": "core/_binning.py",        # [0, 1/M, ..., 1]
    "sorted_edges": "core/_binning.py",         # equal-mass edges of sorted rows or per-value counts
    "quantile_picks": "core/_binning.py",       # the scores at the j/M levels (any ordered axis)
    "rule_positions": "core/_binning.py",       # the sorted positions the equal-mass rules read
    "edges_at": "core/_binning.py",             # the unweighted equal-mass rules from those positions
    "cut_edges": "core/_binning.py",            # quantile picks -> edges (ties never straddle a cut)
    "twice_u": "core/_rank.py",                 # unweighted 2U
    "weighted_twice_u": "core/_rank.py",        # weighted 2U
    "class_numerators": "core/_rank.py",        # 2U per score range
    "range_numerators": "sources/_range_auc.py",  # a partition's ranges through class_numerators
    "combine_ranges": "sources/_aggregates.py",   # per-range 2U -> AUC
    "at_or_above": "sources/_thresholds.py",    # weight at or above thresholds
    "array_gap_sums": "sources/_thresholds.py",
    "require_columns": "sources/_source.py",    # "column 'x' not found; available columns: ..."
    "check_threshold": "core/_metrics.py",      # threshold= is a probability in [0, 1]
    "check_contract": "sources/_aggregates.py",  # the contract's counts -> one-line errors
}

#: the text of a copy -> the module allowed to hold it (the kernel's)
COPIES = {
    "bin index": (re.compile(r"\.floor\(\)\.clip\("), "core/_binning.py"),
    # the bin index as SQL text, for databases (veracity.sql renders it once)
    "bin index (SQL)": (re.compile(r"(?i)least\(\s*floor\(|FLOOR\([^()]*\*[^()]*\)\s+AS\s+BIGINT"), "sql/_query.py"),
    "uniform edges (linspace)": (re.compile(r"linspace\(\s*0(\.0)?\s*,\s*1(\.0)?\s*,[^)]*\+\s*1\s*\)"), None),
    "uniform edges (arange)": (re.compile(r"np\.arange\([^()]*\+\s*1[^()]*\)\s*/"), "core/_binning.py"),
    "2U lookups": (re.compile(r"searchsorted\((s_neg|neg_sorted|neg)\b"), "core/_rank.py"),
    "2U running window": (re.compile(r"\.cum_sum\(\)\.over\("), None),
    "equal-mass edge rule": (re.compile(r"np\.minimum\(j,\s*r\)|\(np\.arange\(1,\s*\w+\)\s*\*\s*[\w.]+\)\s*//"),
                             "core/_binning.py"),
    "contract counts": (re.compile(r"[\"']p_bad[\"']\s*:"), "sources/_aggregates.py"),
    "threshold counts": (re.compile(r"cumsum\(per_gap"), "sources/_thresholds.py"),
    "column lookup": (re.compile(r"; available columns"), "sources/_source.py"),
    "threshold check": (re.compile(r"\bthreshold must be"), "core/_metrics.py"),
}

#: copies still held by packages outside the rows seam, and who moves them onto it
KNOWN = {
    ("delayed/_ppi.py", "uniform edges (linspace)"): "quantile levels, not bin edges (a false match)",
    ("frames/_fit.py", "2U running window"): "DeLong placements per distinct score for a reversed lazy fit's "
                                             "words (the AUC's variance, which the 2U kernels do not give)",
}


def definitions(root: Path, names: Iterable[str] | None = None) -> dict[str, list[str]]:
    """Function name -> the modules (relative paths) that define it, nested functions included; with
    ``names``, only the modules whose text holds ``def <name>`` for one of them are parsed (a function
    definition is that text, so no definition of those names is missed: ~0.1 s, not ~1.2 s)."""
    found: dict[str, list[str]] = {}
    wanted = None if names is None else re.compile(
        r"\bdef[\s\\]+(" + "|".join(map(re.escape, names)) + r")\b")
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        if wanted is not None and not wanted.search(text):
            continue
        with warnings.catch_warnings():  # another module's invalid escape is not this test's business
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.setdefault(node.name, []).append(path.relative_to(root).as_posix())
    return found


def copies(root: Path) -> set[tuple[str, str]]:
    """``(module, kernel)`` for every module that carries a kernel's text outside its own module."""
    out = set()
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        text = "\n".join(line for line in path.read_text(encoding="utf-8").splitlines()
                         if not line.lstrip().startswith("#"))
        for what, (pattern, home) in COPIES.items():
            if rel != home and pattern.search(text):
                out.add((rel, what))
    return out


@functools.lru_cache(maxsize=1)
def _source_definitions() -> dict[str, list[str]]:
    """The installed tree's definitions of the kernels, parsed once for every kernel below."""
    return definitions(SRC, KERNELS)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_each_kernel_is_defined_once_in_its_module(name):
    assert _source_definitions().get(name) == [KERNELS[name]]


def test_no_module_carries_a_copy_of_a_kernel():
    new = sorted(copies(SRC) - set(KNOWN))
    assert new == [], f"copies of a kernel (import it from its module instead): {new}"


def test_every_known_copy_is_still_there():
    """An entry whose copy is gone must leave the list (the list says what is left to move)."""
    assert sorted(set(KNOWN) - copies(SRC)) == []


def test_the_checker_finds_a_planted_copy(tmp_path):
    root = tmp_path / "veracity"
    (root / "core").mkdir(parents=True)
    (root / "core" / "_binning.py").write_text("def bin_index(p, edges, strategy):\n    return p\n")
    (root / "elsewhere.py").write_text(
        "import numpy as np\n"
        "def bin_index(p, bins):\n"
        "    return (p * bins).floor().clip(upper_bound=bins - 1)\n"
        "def edges(bins):\n"
        "    return np.linspace(0.0, 1.0, bins + 1)\n"
    )
    assert definitions(root)["bin_index"] == ["core/_binning.py", "elsewhere.py"]
    assert definitions(root, ["bin_index"])["bin_index"] == ["core/_binning.py", "elsewhere.py"]
    assert copies(root) == {("elsewhere.py", "bin index"), ("elsewhere.py", "uniform edges (linspace)")}


def test_the_checker_finds_a_planted_auc_window_and_edge_rule(tmp_path):
    # the copies this round removed (the generic backends' window 2U, lazy frames' equal-mass edges)
    root = tmp_path / "veracity"
    root.mkdir()
    (root / "window.py").write_text(
        "def twice_u(per_value, nw):\n"
        "    below = nw.col('_neg').cum_sum().over('_r', order_by='_s') - nw.col('_neg')\n"
        "    return per_value.with_columns(_num=nw.col('_pos') * (2 * below + nw.col('_neg')))\n"
    )
    (root / "edges.py").write_text(
        "import numpy as np\n"
        "def edges_from_distinct(at, n, bins):\n"
        "    return np.unique(at((np.arange(1, bins) * n) // bins))\n"
        "def runs(n, m):\n"
        "    q, r = divmod(n, m)\n"
        "    j = np.arange(1, m)\n"
        "    return j * q + np.minimum(j, r)\n"
    )
    (root / "store.py").write_text('SQL = "SELECT least(floor(score * {bins}), {bins - 1}) AS bin FROM t"\n')
    assert copies(root) == {("window.py", "2U running window"), ("edges.py", "equal-mass edge rule"),
                            ("store.py", "bin index (SQL)")}
