"""The import graphs of dpdeck, dplab and the cell runner have no cycle, no module imports a
private name of another module, and no package imports a private module of another package
(shared private maths lives in a private module, ``dplab/_maths.py``, used inside dplab only;
what another package needs is re-exported under a public name, as ``dplab.noise_session``).

Read from the source with ``ast`` (nothing is imported), every module of every package and
subpackage (``dpdeck/hall/`` …): every ``import`` and ``from … import`` counts, at the top of
a module or inside a function, since a deferred import only hides a cycle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from tests.support.paths import ROOT

PACKAGES = {
    "dpdeck": ROOT / "dpdeck",
    "dplab": ROOT / "pyodide_pkg" / "dplab",
    "cellrunner": ROOT / "pyodide_pkg" / "cellrunner",
}


def _files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _module_name(package: str, folder: Path, path: Path) -> str:
    parts = [package, *path.relative_to(folder).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


_MODULES = {_module_name(top, folder, p) for top, folder in PACKAGES.items() for p in _files(folder)}


def _is_private(part: str) -> bool:
    return part.startswith("_") and not part.startswith("__")


def _package_of(module: str, is_init: bool) -> str:
    return module if is_init else module.rsplit(".", 1)[0]


def _imports(module: str, tree: ast.Module, is_init: bool) -> list[tuple[str, str]]:
    """(imported module, imported name or "") for each import of one of ``PACKAGES``' modules."""
    own_package = _package_of(module, is_init)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(a.name, "") for a in node.names if a.name.split(".")[0] in PACKAGES]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = own_package.rsplit(".", node.level - 1)[0] if node.level > 1 else own_package
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            if source.split(".")[0] not in PACKAGES:
                continue
            for alias in node.names:
                submodule = f"{source}.{alias.name}"
                found.append((submodule, "") if submodule in _MODULES else (source, alias.name))
    return found


def _violations(module: str, is_init: bool, target: str, name: str) -> list[str]:
    """What is wrong with ``module`` importing ``target`` (and ``name`` from it)."""
    out = []
    if name and _is_private(name) and target != module:
        out.append(f"{module} imports {target}.{name}")
    own = _package_of(module, is_init)
    target_package = target.rsplit(".", 1)[0] if "." in target else target
    if any(_is_private(part) for part in target.split(".")) and target_package != own:
        out.append(f"{module} imports {target}, private to {target_package}")
    return out


def _graph(packages) -> tuple[dict[str, set[str]], list[str]]:
    """The import graph of ``packages`` (module → modules it imports; a package that contains
    the importer is left out, since every module is loaded through it) and the private imports."""
    graph: dict[str, set[str]] = {}
    private = []
    for top in packages:
        folder = PACKAGES[top]
        for path in _files(folder):
            module = _module_name(top, folder, path)
            is_init = path.name == "__init__.py"
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            edges = graph.setdefault(module, set())
            for target, name in _imports(module, tree, is_init):
                if target != module and not module.startswith(target + "."):
                    edges.add(target)
                private += _violations(module, is_init, target, name)
    return graph, private


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


def test_every_package_and_subpackage_is_read():
    assert {"dpdeck.hall.app", "dpdeck.hall", "cellrunner.noise", "dplab._rng"} <= _MODULES


@pytest.mark.parametrize("package", [*sorted(PACKAGES), "all"])
def test_the_import_graph_has_no_cycle(package):
    graph, _ = _graph(PACKAGES if package == "all" else [package])
    assert len(graph) > 5, graph  # the package was read
    cycle = find_cycle(graph)
    assert cycle is None, f"import cycle in {package}: {' → '.join(cycle)}"


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_module_imports_a_private_name_of_another_module_or_package(package):
    _, private = _graph([package])
    assert not private, private


def test_the_checks_see_a_cycle_and_a_private_import():
    """The tests above can fail: a deferred import back is a cycle, ``_x`` from a module is
    private, and so is another package's ``_module`` (however it is imported)."""
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None
    source = "def f():\n    from .accountant import _round_down\n"
    found = _imports("dplab.mechanisms", ast.parse(source), False)
    assert found == [("dplab.accountant", "_round_down")]
    assert _violations("dplab.mechanisms", False, *found[0])
    assert _imports("dplab", ast.parse("from . import census"), True) == [("dplab.census", "")]
    for source in ("from dplab import _rng", "import dplab._rng", "from dplab._rng import noise_session"):
        (target, name), *_ = _imports("cellrunner.noise", ast.parse(source), False)
        assert _violations("cellrunner.noise", False, target, name), source
    assert not _violations("dplab.mechanisms", False, "dplab._maths", "")  # inside its package
    assert _imports("dpdeck.hall.app", ast.parse("from ..serve import watch"), False) == [
        ("dpdeck.serve.watch", "")
    ]
    assert _violations("dpdeck.hall.app", False, "dpdeck._x", "")  # a parent's private module


# The layers of dpdeck, lowest first (docs/architecture.md draws them): a module imports only
# from its own layer or from lower ones. ``dpdeck.origin`` and ``dpdeck.resources`` are the
# ground every layer stands on; the command line (``dpdeck.cli``) is the top.
LAYERS = ("ground", "wire", "build", "serve", "hall", "cli")


def layer_of(module: str) -> str:
    """The layer of a module of dpdeck: its subpackage, ``cli``, or ``ground``."""
    parts = module.split(".")
    if len(parts) > 1 and parts[1] == "__main__":
        return "cli"  # ``python -m dpdeck`` runs the command line
    if len(parts) > 1 and parts[1] in LAYERS:
        return parts[1]
    return "ground"


# What the hall may use of the layers below it, besides the wire's declarations: what serving
# files and events shares with the build's server (staticfiles, sse). Never the build itself
# (site, render, watch, cli…): ``serve --watch`` hands the hall an ``options.Extension`` instead
# (issue 48, item 9), and a poll's number of options is the wire's (``rules.POLL_OPTIONS``).
HALL_MAY_IMPORT = {
    "dpdeck.serve.sse",
    "dpdeck.serve.staticfiles",
}


def _crossings() -> set[tuple[str, str]]:
    graph, _ = _graph(["dpdeck"])
    return {
        (module, target)
        for module, targets in graph.items()
        for target in targets
        if target.startswith("dpdeck.") and layer_of(module) != layer_of(target)
    }


def test_every_layer_imports_only_the_layers_below_it():
    crossings = _crossings()
    assert len(crossings) > 10, "the layers were read"
    upward = {(m, t) for m, t in crossings if LAYERS.index(layer_of(t)) > LAYERS.index(layer_of(m))}
    assert upward == set()


def test_the_hall_imports_nothing_of_the_build_or_the_server():
    below = {t for m, t in _crossings() if layer_of(m) == "hall" and layer_of(t) in ("build", "serve")}
    assert below, "the hall was read"
    assert below - HALL_MAY_IMPORT == set()


def test_the_layer_checks_see_an_upward_import():
    assert layer_of("dpdeck.hall.app") == "hall" and layer_of("dpdeck.origin") == "ground"
    assert layer_of("dpdeck.cli") == "cli" and layer_of("dpdeck") == "ground"
    assert LAYERS.index(layer_of("dpdeck.build.site")) < LAYERS.index(layer_of("dpdeck.serve.watch"))


def test_the_halls_docstring_names_every_module_of_the_hall_and_only_those():
    """Issue 48, item 14: ``dpdeck/hall/__init__.py`` listed 13 of 22 modules, and said
    «all kept in SQLite» after Redis came."""
    import re

    folder = PACKAGES["dpdeck"] / "hall"
    doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text(encoding="utf-8"))) or ""
    named = set(re.findall(r"``(\w+)`` \(", doc))
    modules = {p.stem for p in folder.glob("*.py")} - {"__init__", "__main__"}
    assert named == modules
