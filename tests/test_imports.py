"""Dependencies run one way: no import cycle among the modules of ``hiveai/``.

The graph is read from the source with the standard library's :mod:`ast`, not
by importing anything, and it counts every import statement wherever it is:
at the top, inside a function (a lazy import is still a dependency: the
module cannot work without the other one), in a ``try`` or an ``if``. Only
imports under ``if TYPE_CHECKING:`` are left out, since they never run (type
annotations only). ``from a import b`` is an edge to ``a`` (it runs ``a``)
and, when ``b`` is a submodule, to ``a.b``.
"""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = "hiveai"
ROOT = Path(__file__).resolve().parent.parent / PACKAGE


def module_name(path: Path) -> str:
    """``hiveai/tournament/runner.py`` -> ``hiveai.tournament.runner``; a package's ``__init__`` is the package."""
    parts = path.relative_to(ROOT.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def lazy_exports() -> dict[str, str]:
    """The package's lazy re-exports (``_LAZY`` in ``hiveai/__init__.py``: ``hiveai.Board`` loads
    ``hiveai.rules.board`` on first use), so ``from hiveai import Board`` counts as importing ``hiveai.rules.board``."""
    for node in ast.parse((ROOT / "__init__.py").read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "_LAZY" for t in node.targets):
            return {f"{PACKAGE}.{name}": module for name, module in ast.literal_eval(node.value).items()}
    return {}


LAZY = lazy_exports()


def is_type_checking(test: ast.expr) -> bool:
    """``TYPE_CHECKING`` or ``typing.TYPE_CHECKING``."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def imported_names(tree: ast.AST, module: str, is_package: bool) -> list[str]:
    """Absolute names of every module imported in ``tree`` outside ``if TYPE_CHECKING:`` blocks."""
    out: list[str] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and is_type_checking(node.test):
            for child in node.orelse:  # the else branch does run
                visit(child)
            return
        if isinstance(node, ast.Import):
            out.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's own package
                package = module.split(".") if is_package else module.split(".")[:-1]
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            else:
                base = node.module or ""
            out.append(base)
            # Kept below only if a module (or a lazy re-export of one).
            out.extend(LAZY.get(f"{base}.{alias.name}", f"{base}.{alias.name}") for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return out


def import_graph() -> dict[str, set[str]]:
    """Module -> the hiveai modules it imports (edges to itself dropped)."""
    graph: dict[str, set[str]] = {}
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        targets = imported_names(tree, name, path.name == "__init__.py")
        graph[name] = {t for t in targets if t in MODULES and t != name}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle (a list of modules, the first repeated at the end) per strongly connected
    component of more than one module, by Tarjan's algorithm; [] when the graph is acyclic."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[set[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(component)

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return [cycle_in(graph, c) for c in components]


def cycle_in(graph: dict[str, set[str]], component: set[str]) -> list[str]:
    """A shortest cycle through the first module (by name) of a strongly connected component."""
    start = min(component)
    paths = {start: [start]}
    todo = [start]
    while todo:
        nxt = []
        for v in todo:
            for w in sorted(graph[v] & component):
                if w == start:
                    return paths[v] + [start]
                if w not in paths:
                    paths[w] = paths[v] + [w]
                    nxt.append(w)
        todo = nxt
    raise AssertionError(f"{sorted(component)} is not strongly connected")


def test_the_graph_sees_lazy_imports_and_skips_type_checking_ones():
    source = """
from typing import TYPE_CHECKING
import hiveai.rules.bug
from hiveai.rules import hex_grid
from hiveai import __version__, Searcher
from . import zobrist
if TYPE_CHECKING:
    from hiveai.rules.board import Board
else:
    import hiveai.rules.notation
def f():
    from hiveai.svg import board
    try:
        import hiveai.player.book as book
    except ImportError:
        pass
"""
    found = {n for n in imported_names(ast.parse(source), "hiveai.rules.x", False) if n in MODULES}
    assert found == {"hiveai", "hiveai.rules", "hiveai.rules.bug", "hiveai.rules.hex_grid", "hiveai.rules.zobrist", "hiveai.rules.notation", "hiveai.svg",
                     "hiveai.player.book", LAZY["hiveai.Searcher"]}


def test_cycles_are_found_and_printed_shortest_first():
    graph = {"a": {"b"}, "b": {"c", "a"}, "c": {"a"}, "d": {"a"}, "e": {"e"}}
    assert find_cycles(graph) == [["a", "b", "a"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_the_real_graph_is_read():
    graph = import_graph()
    assert "hiveai.uhp.server" in graph and "hiveai.tournament.runner" in graph
    assert "hiveai.rules.position" in graph["hiveai.rules.movegen"]
    assert "hiveai.svg" in graph["hiveai"]  # a lazy import inside a function counts (the board drawer)
    assert LAZY["hiveai.Board"] == "hiveai.rules.board"


def test_no_import_cycle():
    cycles = find_cycles(import_graph())
    assert not cycles, "import cycles in hiveai/: " + "; ".join(" -> ".join(c) for c in cycles)
