"""The package layout: families of modules, and which family may import which.

The rule, bottom to top: `_globs` (the glob dialect fstools matches itself) imports nothing;
`_core` (context, results, parameters, paths, policy) imports only itself and `_globs`;
`_content` (encodings, fingerprints) and `_walk` (what a walk may see, and the walkers) build
on `_core`; `_index` (the search index) on all of those; `_journal` (the change journal) and
`_syntax` (languages, parsers, the syntax check) on `_core` and `_content`, and on `_lsp` (the
language servers' client, on `_core` alone) for the semantic check after a change; the four tool
families `_read`, `_change`, `_find` and `_grep` on those and never on each other; `_agents`
(registry, CLI, MCP) sits on top and may import anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.helpers.extras import skip_reason

PACKAGE = Path(__file__).resolve().parents[2] / "fstools"

TOOL_FAMILIES = {"_read", "_change", "_find", "_grep"}
BELOW_TOOLS = {"_globs", "_core", "_content", "_walk", "_index", "_journal", "_syntax", "_lsp"}
ALLOWED: dict[str, set[str]] = {
    "_globs": {"_globs"},
    "_core": {"_globs", "_core"},
    "_content": {"_globs", "_core", "_content"},
    "_walk": {"_globs", "_core", "_walk"},
    "_index": {"_globs", "_core", "_content", "_walk", "_index"},
    "_journal": {"_globs", "_core", "_content", "_journal"},
    # Languages, parsers and the syntax check after a change: below the tool families that use it.
    "_syntax": {"_globs", "_core", "_content", "_syntax", "_lsp"},
    # The language servers' client (processes, protocol, diagnostics, navigation): on the core alone.
    "_lsp": {"_globs", "_core", "_lsp"},
    **{family: BELOW_TOOLS | {family} for family in TOOL_FAMILIES},
    # Code navigation (Symbols, References): on the tool families it builds on, Grep's search for its
    # candidate files; no tool family imports it.
    "_nav": {*BELOW_TOOLS, "_grep", "_nav"},
    "_agents": {*BELOW_TOOLS, "_agents", *TOOL_FAMILIES, "_nav"},
    # The public adapters for agent frameworks: tools come from the registry, calls go through the tool layer.
    "integrations": {"_core", "_agents", "integrations"},
}
# Public subpackages: their __init__.py says what they hold (a docstring), and imports nothing.
PUBLIC_FAMILIES = {"integrations"}
# Modules at the package top: the facade may name anything; the version is a leaf.
TOP_LEVEL = {"__init__", "__main__", "__version__"}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _package(path: Path) -> str:
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def imported_modules(path: Path) -> set[str]:
    """Every fstools module `path` imports, at module level or inside a function."""
    return imports_in(path.read_text(), _package(path))


def imports_in(source: str, package: str) -> set[str]:
    return imports_of(ast.parse(source), package)


def imports_of(tree: ast.AST, package: str) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            if target == "fstools" or target.startswith("fstools."):
                # `from . import x` names submodules as well as attributes.
                found.add(target)
                found.update(f"{target}.{alias.name}" for alias in node.names if target != "fstools")
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.startswith("fstools."))
    return found


def family_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in ALLOWED else None


def family_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {family: set() for family in ALLOWED}
    for path in PACKAGE.rglob("*.py"):
        source = family_of(module_name(path))
        if source is None:
            continue
        for target in imported_modules(path):
            family = family_of(target)
            if family is not None and family != source:
                graph[source].add(family)
    return graph


def test_every_module_belongs_to_a_family():
    loose = [p.name for p in PACKAGE.glob("*.py") if p.stem not in TOP_LEVEL]
    assert loose == [], f"modules outside every family: {loose}"
    for path in PACKAGE.rglob("*.py"):
        if path.parent != PACKAGE:
            assert family_of(module_name(path)) is not None, path
    for family in ALLOWED:
        if (PACKAGE / family).is_dir() and family not in PUBLIC_FAMILIES:
            assert (PACKAGE / family / "__init__.py").read_text() == "", f"{family}/__init__.py must stay empty"
    for family in PUBLIC_FAMILIES:
        body = ast.parse((PACKAGE / family / "__init__.py").read_text()).body
        assert len(body) == 1 and isinstance(body[0], ast.Expr), f"{family}/__init__.py holds a docstring only"


def test_families_import_only_downward():
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        source = family_of(module_name(path))
        if source is None:
            continue
        for target in sorted(imported_modules(path)):
            family = family_of(target)
            if target.startswith("fstools.__version__") or family is None and target != "fstools":
                continue
            if family not in ALLOWED[source]:
                violations.append(f"{module_name(path)} imports {target}")
    assert violations == [], "\n".join(violations)


def test_the_family_graph():
    """The graph as it stands, so a change to it is a visible, reviewed change to this test."""
    graph = {family: sorted(targets) for family, targets in family_graph().items() if targets}
    assert graph == {
        "_core": ["_globs"],
        "_content": ["_core"],
        "_walk": ["_core", "_globs"],
        "_read": ["_content", "_core", "_globs", "_syntax", "_walk"],
        "_index": ["_core", "_globs", "_walk"],
        "_journal": ["_core"],
        "_syntax": ["_core", "_lsp"],
        "_lsp": ["_core"],
        "_change": ["_content", "_core", "_index", "_journal", "_syntax"],
        "_find": ["_core", "_globs", "_index", "_walk"],
        "_grep": ["_core", "_index", "_walk"],
        # Navigation asks the file's language server (`_nav/served.py`): a downward edge, so the server side
        # never has to register itself with the tools above it.
        "_nav": ["_content", "_core", "_grep", "_index", "_lsp", "_syntax", "_walk"],
        # The tools themselves come from the list of tools in `_agents/toolset.py` (imported by name).
        "_agents": ["_change", "_content", "_core", "_find", "_index", "_read", "_syntax"],
        "integrations": ["_agents", "_core"],
    }


def test_walks_are_one_layer():
    """What a walk may see lives in `_walk` alone: the tools and the index take it from there."""
    walk = {p.stem for p in (PACKAGE / "_walk").glob("*.py")} - {"__init__"}
    assert {"excludes", "ignorefiles", "ignorelinks", "linkscan", "links", "rules", "walkers"} <= walk
    for family in ("_core", "_index", "_find", "_grep"):
        strays = {p.stem for p in (PACKAGE / family).glob("*.py")} & walk
        assert strays == set(), f"{family} holds walk modules again: {strays}"


def test_no_module_below_the_facade_imports_it():
    """The facade names what lies below it; nothing below reads it back (the list of tools is in `_agents`)."""
    readers = [
        module_name(p) for p in PACKAGE.rglob("*.py") if p.parent != PACKAGE and "fstools" in imported_modules(p)
    ]
    assert readers == []


def runtime_imports(source: str, package: str) -> set[str]:
    """The fstools modules `source` imports when it runs: at module level or inside a function, but not
    under `if TYPE_CHECKING:` (annotations only, never executed)."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        for name in ("body", "orelse"):
            body = getattr(node, name, None)
            if isinstance(body, list):
                kept = [n for n in body if not (isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")]
                setattr(node, name, kept)
    return imports_of(tree, package)


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    cycles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        while work:
            node, targets = work[-1]
            target = next(targets, None)
            if target is not None:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    work.append((target, iter(sorted(graph[target]))))
                elif target in stack:
                    low[node] = min(low[node], index[target])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = stack[stack.index(node) :]
                del stack[stack.index(node) :]
                if len(group) > 1:
                    cycles.append(sorted(group))
    return cycles


def test_no_import_cycles():
    """No circle among fstools modules, counting the imports inside functions too: a lazy import that
    closes a circle makes no trouble at import time, yet it is the same tangle of jobs, and one
    change to a module-level import turns it into an import-time failure. Imports under
    TYPE_CHECKING (annotations) do not count."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {
        m: {t for t in runtime_imports(p.read_text(), _package(p)) if t in modules and t not in (m, "fstools")}
        for m, p in modules.items()
    }
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_cycles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert import_cycles(graph) == [["a", "b", "c"]]
    assert import_cycles({"a": {"b"}, "b": set()}) == []
    source = "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .live import X\ndef f():\n    from .service import y\n"
    assert {"fstools._index.live", "fstools._index.service"} <= imports_in(source, "fstools._index")
    assert {"fstools._index.live", "fstools._index.live.X"}.isdisjoint(runtime_imports(source, "fstools._index"))
    assert "fstools._index.service" in runtime_imports(source, "fstools._index")


def _string_constants(path: Path) -> list[str]:
    return [
        n.value for n in ast.walk(ast.parse(path.read_text())) if isinstance(n, ast.Constant) and n.value == "--files"
    ]


def test_one_walker_lists_files():
    """One place in fstools builds an `rg --files` command line (`_walk/walkers.rg_files_argv`), and the
    index matches names in the project's glob dialect (`_globs`), never with fnmatch's."""
    builders = [module_name(p) for p in sorted(PACKAGE.rglob("*.py")) for _ in _string_constants(p)]
    assert builders == ["fstools._walk.walkers"]
    fnmatch_users = [
        module_name(p)
        for p in (PACKAGE / "_index").rglob("*.py")
        for node in ast.walk(ast.parse(p.read_text()))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and "fnmatch" in ([a.name for a in node.names] if isinstance(node, ast.Import) else [node.module])
    ]
    assert fnmatch_users == []


def test_checker_sees_upward_imports():
    """The checker itself: relative, lazy and absolute imports are all resolved."""
    source = "import fstools._walk.walkers\ndef f():\n    from .._grep.grep import grep\n    from . import paths\n"
    found = imports_in(source, "fstools._core")
    assert {"fstools._grep.grep", "fstools._walk.walkers", "fstools._core.paths"} <= found
    assert family_of("fstools._grep.grep") not in ALLOWED["_core"]


def test_no_function_is_too_complex_by_radon():
    """Radon rates each function's cyclomatic complexity counting every `and`/`or` as a branch (ruff's
    C90 does not): none may rate D or worse (21 and more), the same bound of 20."""
    radon = pytest.importorskip("radon.complexity", reason=skip_reason("radon.complexity"))
    too_complex: set[str] = set()  # a method is listed on its own and within its class
    for path in sorted(PACKAGE.rglob("*.py")):
        for block in radon.cc_visit(path.read_text()):
            for item in [block, *getattr(block, "methods", [])]:
                if item.complexity > 20:
                    where = f"{path.relative_to(PACKAGE.parent)}:{item.lineno}"
                    too_complex.add(f"{where} {item.fullname} ({item.complexity})")
    assert not too_complex, "\n".join(sorted(too_complex))
