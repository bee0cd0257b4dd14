"""Where the build finds what it ships besides the deck: ``templates/``, ``static/``,
``pyodide_pkg/`` (the sources of dplab and the cell runner, built into the page's wheels) and
``node_modules/`` (reveal.js, KaTeX, CodeMirror and Pyodide's core, and what node runs at
build time: KaTeX's renderer, Pyodide for the bytecode).

Two layouts, one answer:

- a checkout of the repository (``build.py``, or an editable install): the folders at the
  repository's root, beside ``dpdeck/``; ``node_modules/`` is what ``npm ci`` installed;
- an installed wheel (``pip install .``, the ``dpdeck`` command): the same folders inside the
  package, under ``dpdeck/share/``, where pyproject.toml's package data puts them (dplab
  aside: the wheel's top-level package, ``package_dir``); the wheel
  carries the front-end files the build reads from ``node_modules/`` (a trimmed copy, made from
  the checkout's ``node_modules/`` when the wheel is built), so an installed tool needs Node.js
  (>= 20) but no npm and no repository.

``$DPDECK_NODE_MODULES`` names another ``node_modules/`` for either layout (the packages and
versions of package.json's ``dependencies``).
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
SHARE = PACKAGE / "share"  # in a wheel: templates/, static/, pyodide_pkg/, node_modules/


def checkout() -> Path | None:
    """The repository this dpdeck runs from, or None when it runs from an installed wheel."""
    root = PACKAGE.parent
    marks = (root / "build.py", root / "templates", root / "pyodide_pkg" / "cellrunner")
    return root if all(p.exists() for p in marks) else None


def asset_root() -> Path:
    """The folder holding templates/, static/, pyodide_pkg/ and node_modules/."""
    return checkout() or SHARE


def node_modules(base: Path) -> Path:
    """``base``'s node_modules/, unless ``$DPDECK_NODE_MODULES`` names another."""
    return (
        Path(os.environ["DPDECK_NODE_MODULES"])
        if os.environ.get("DPDECK_NODE_MODULES")
        else base / "node_modules"
    )


def package_dir(name: str, base: Path) -> Path:
    """The sources of ``dplab`` or ``cellrunner``: ``base/name`` (``base`` a ``pyodide_pkg/``),
    else the folder of the importable package of that name. An installed wheel carries dplab
    once, as its top-level package (``import dplab``), not again under ``share/pyodide_pkg/``."""
    here = base / name
    if (here / "__init__.py").is_file():
        return here
    spec = importlib.util.find_spec(name)
    if spec is None or spec.origin is None:
        raise FileNotFoundError(f"no {name} package in {base} nor installed: reinstall dpdeck")
    return Path(spec.origin).parent


def project_module(name: str):
    """``dplab`` or ``cellrunner`` (or one of their modules) from ``pyodide_pkg/``, the code the
    build ships to the page (the checkout's, or the installed package's copy)."""
    src = str(asset_root() / "pyodide_pkg")
    if src not in sys.path:
        sys.path.append(src)
    return importlib.import_module(name)
