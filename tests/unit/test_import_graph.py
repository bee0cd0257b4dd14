"""The import graphs of dplab and of deckbuild have no cycle, and no module of either imports a
private name of another (shared private maths lives in a private module, ``dplab/_maths.py``).

Read from the source with ``ast`` (nothing is imported): every ``import`` and ``from … import``
counts, at the top of a module or inside a function, since a deferred import only hides a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGES = {"dplab": ROOT / "pyodide_pkg" / "dplab", "deckbuild": ROOT / "deckbuild"}


def _module_name(package: str, folder: Path, path: Path) -> str:
    return package if path.name == "__init__.py" else f"{package}.{path.stem}"


def _imports(package: str, module: str, tree: ast.Module, is_init: bool) -> list[tuple[str, str]]:
    """(imported module, imported name or "") for each import of the package's own modules."""
    own_package = module if is_init else module.rsplit(".", 1)[0]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.split(".")[0] == package]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = own_package.rsplit(".", node.level - 1)[0] if node.level > 1 else own_package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            if source.split(".")[0] != package:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append((submodule, "") if submodule in _MODULES[package] else (source, alias.name))
    return found


def _graph(package: str) -> tuple[dict[str, set[str]], list[str]]:
    """The package's import graph (module → modules it imports; the package itself left out,
    since every module is loaded through it) and its imports of another module's private names."""
    folder = PACKAGES[package]
    graph: dict[str, set[str]] = {}
    private = []
    for path in sorted(folder.glob("*.py")):
        module = _module_name(package, folder, path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        edges = graph.setdefault(module, set())
        for target, name in _imports(package, module, tree, path.name == "__init__.py"):
            if target != package and target != module:
                edges.add(target)
            if name.startswith("_") and not name.startswith("__") and target != module:
                private.append(f"{module} imports {target}.{name}")
    return graph, private


_MODULES = {
    package: {_module_name(package, folder, p) for p in folder.glob("*.py")}
    for package, folder in PACKAGES.items()
}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a path ``[a, b, …, a]``, or None (depth-first search)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (cycle := visit(nxt)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (cycle := visit(node)):
            return cycle
    return None


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_the_import_graph_has_no_cycle(package):
    graph, _ = _graph(package)
    assert len(graph) > 5, graph  # the package was read
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle in {package}: {' → '.join(cycle)}"


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_module_imports_another_modules_private_name(package):
    _, private = _graph(package)
    assert not private, private


def test_the_checks_see_a_cycle_and_a_private_import():
    """The test above can fail: a deferred import back is a cycle, ``_x`` from a module is private."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    source = "def f():\n    from .accountant import _round_down\n"
    found = _imports("dplab", "dplab.mechanisms", ast.parse(source), False)
    assert found == [("dplab.accountant", "_round_down")]
    assert _imports("dplab", "dplab", ast.parse("from . import census"), True) == [("dplab.census", "")]
