"""What the editor's completion needs, beside the deck: jedi's wheels and an index of the API.

* **The engine**: jedi and parso, pure-Python wheels from the package registry, downloaded
  once with pip into the wheel cache and verified against the sha256 pinned here, then copied
  into ``static-…/wheels/`` without what the page never needs (:data:`TRIMMED`). The worker
  loads them only on the first completion request (``pyodide_pkg/completion.py``), never during
  a cold visit's boot; it checks each copy's sha256 (in the page's config) before unpacking it.
* **The index** (``api-index.json``): the deck package's public names with their signature,
  kind and a short Spanish summary, read from the package's source (``ast``, nothing is
  imported). The page completes and documents those names from it while a cell runs
  (the interpreter is busy) and before the engine is loaded.
"""

from __future__ import annotations

import ast
import functools
import inspect
import json
import zipfile
from pathlib import Path

from .errors import ChecksumError
from .files import copy, derived, sha256
from .pyodide_dist import pip_download

# name, version, file, sha256 (the registry's), bytes
ENGINE_WHEELS = (
    (
        "jedi",
        "0.20.1",
        "jedi-0.20.1-py2.py3-none-any.whl",
        "0fb16d86c4a4c73c37ba518c77419975e30fcc620658a8d14fbb5720cdd34142",
        4_885_980,
    ),
    (
        "parso",
        "0.8.7",
        "parso-0.8.7-py2.py3-none-any.whl",
        "a8926eb2a1b915486941fdbd31e86a4baf88fe8c210f25f2f35ecec5b574ca1c",
        107_025,
    ),
)


# What the page never needs from jedi's wheel: typeshed's stubs of third-party packages (numpy
# and matplotlib ship their own; the deck imports no other), Django's stubs (their size:
# bench/README.md, "The editor's trimmed jedi").
TRIMMED = ("jedi/third_party/typeshed/stubs/", "jedi/third_party/django-stubs/")


def trimmed(wheel: Path, out: Path) -> Path:
    """A copy of ``wheel`` at ``out`` without the files under :data:`TRIMMED` (nor their lines
    in its RECORD); entries keep their order and dates, so the copy is reproducible."""
    tmp = out.with_name(out.name + ".part")
    with zipfile.ZipFile(wheel) as src, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename.startswith(TRIMMED):
                continue
            data = src.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                lines = data.decode().splitlines(keepends=True)
                data = "".join(line for line in lines if not line.startswith(TRIMMED)).encode()
            dst.writestr(info, data, compress_type=zipfile.ZIP_DEFLATED, compresslevel=9)
    tmp.replace(out)
    return out


def ensure_engine_wheels(cache: Path) -> list[tuple[Path, str]]:
    """jedi's and parso's wheels in ``cache/editor``, each with its pinned sha256."""
    folder = cache / "editor"
    wheels = []
    for name, version, file, digest, size in ENGINE_WHEELS:
        path = folder / file
        if not path.exists():
            pip_download(f"{name}=={version}", folder, size, f"downloading {name} for the editor")
        actual = sha256(path)
        if actual != digest:
            raise ChecksumError(
                path, digest, actual, "dpdeck/build/editor_assets.py", "Delete it and build again."
            )
        wheels.append((path, digest))
    return wheels


def vendor_engine(cache: Path, static_out: Path, static_url: str) -> list[dict]:
    """Copy the verified wheels, trimmed (:func:`trimmed`, made once and kept in the cache), into
    ``static_out/wheels``; return ``[{url, sha256, bytes}]`` of the copies (what the worker
    checks before unpacking)."""
    shipped = []
    rule = inspect.getsource(trimmed)  # a new rule (or TRIMMED) is a new copy, never a kept one
    for path, digest in ensure_engine_wheels(cache):
        target = static_out / "wheels" / path.name
        copy(derived(cache, path.name, [digest, rule, *TRIMMED], functools.partial(trimmed, path)), target)
        shipped.append(
            {
                "url": f"{static_url}wheels/{path.name}",
                "sha256": sha256(target),
                "bytes": target.stat().st_size,
            }
        )
    return shipped


def _signature(node: ast.FunctionDef) -> list[dict]:
    """The parameters of a ``def`` (self dropped), each ``{name, default, kind}``."""
    a = node.args
    params = []
    positional = a.posonlyargs + a.args
    defaults = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for arg, default in zip(positional, defaults, strict=True):
        params.append(
            {"name": arg.arg, "default": None if default is None else ast.unparse(default), "kind": "pos"}
        )
    if a.vararg:
        params.append({"name": "*" + a.vararg.arg, "default": None, "kind": "var"})
    for arg, default in zip(a.kwonlyargs, a.kw_defaults, strict=True):
        params.append(
            {"name": arg.arg, "default": None if default is None else ast.unparse(default), "kind": "kw"}
        )
    if a.kwarg:
        params.append({"name": "**" + a.kwarg.arg, "default": None, "kind": "var"})
    if params and params[0]["name"] in ("self", "cls"):
        params.pop(0)
    return params


def definitions(tree: ast.Module) -> dict[str, ast.AST]:
    """The module's top-level names (functions, classes, assigned names) and their nodes."""
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = node
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node
    return found


def _public(tree: ast.Module) -> list[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets):
            try:
                return list(ast.literal_eval(node.value))
            except ValueError:  # a computed __all__: its names are some other module's
                return []
    return []


def _entry(name: str, node: ast.AST, module: str, summaries: dict) -> dict:
    entry = {"name": name, "module": module, "summary": summaries.get(name, "")}
    if isinstance(node, ast.FunctionDef):
        entry.update(kind="function", params=_signature(node))
    elif isinstance(node, ast.ClassDef):
        init = next((n for n in node.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"), None)
        entry.update(kind="class", params=_signature(init) if init else [])
    else:
        entry.update(kind="constant", params=None)
    doc = ast.get_docstring(node) if isinstance(node, (ast.FunctionDef, ast.ClassDef)) else None
    entry["doc"] = (doc or "").split("\n\n")[0]
    return entry


def source_tree(path: Path) -> ast.Module:
    """The parsed source of ``path``, parsed once per version of the file in a process (the
    index, the reference and each ``serve --watch`` rebuild read the same package). Read only."""
    stat = path.stat()
    return _parse(str(path), stat.st_mtime_ns, stat.st_size)


@functools.lru_cache(maxsize=256)
def _parse(path: str, _mtime_ns: int, _size: int) -> ast.Module:
    return ast.parse(Path(path).read_text(encoding="utf-8"))


def _literal_dicts(path: Path) -> dict[str, dict]:
    """The module-level ``NAME = {…}`` literals of ``path`` (none if it does not exist)."""
    if not path.exists():
        return {}
    found = {}
    for node in source_tree(path).body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = ast.literal_eval(node.value)
    return found


def _members(cls: ast.ClassDef, summaries: dict) -> list[dict]:
    """The public methods and properties of a class, each an entry named ``Class.member``."""
    members = []
    for node in cls.body:
        if isinstance(node, ast.FunctionDef) and not node.name.startswith("_"):
            entry = _entry(f"{cls.name}.{node.name}", node, "", summaries)
            if any(getattr(d, "id", "") == "property" for d in node.decorator_list):
                entry.update(kind="property", params=None)
            members.append(entry)
    return members


def api_index(package: Path) -> dict:
    """``{package, params, names: [entry…], members: [entry…], globals}``: every name in a
    module's ``__all__`` (its public API), and the public methods of its classes
    (``Census.where``). The Spanish comes from the package's ``_docs_es.py`` if it has one: the
    summaries (``SUMMARIES``, ``MEMBERS``), the parameter glosses (``PARAMS``) and the docs of
    the names a prelude binds beside the package's (``GLOBALS``: ``np``, ``census``…)."""
    spanish = _literal_dicts(package / "_docs_es.py")
    summaries = spanish.get("SUMMARIES", {}) | spanish.get("MEMBERS", {})
    trees = {source.stem: source_tree(source) for source in sorted(package.glob("*.py"))}
    # where each name is defined, in any module (a public module may re-export a private one's)
    anywhere = {name: node for tree in trees.values() for name, node in definitions(tree).items()}
    names: dict[str, dict] = {}
    for stem, tree in trees.items():
        if stem.startswith("_"):  # private modules; __init__ re-exports the others
            continue
        defs = definitions(tree)
        for name in _public(tree):
            node = defs.get(name) or anywhere.get(name)
            if node is not None and name not in names:
                names[name] = _entry(name, node, stem, summaries)
    members = []
    for name in sorted(names):
        node = anywhere.get(name)
        if isinstance(node, ast.ClassDef):
            members += [dict(m, module=names[name]["module"]) for m in _members(node, summaries)]
    return {
        "package": package.name,
        "params": spanish.get("PARAMS", {}),
        "names": [names[n] for n in sorted(names)],
        "members": members,
        "globals": spanish.get("GLOBALS", {}),
    }


def write_api_index(package: Path, static_out: Path) -> str:
    """Write ``api-index.json`` into ``static_out``; return its file name."""
    (static_out / "api-index.json").write_text(
        json.dumps(api_index(package), ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
    )
    return "api-index.json"
