"""What ``pip install .`` builds (pyproject.toml): each source file once in the wheel, an SPDX
license the build backend's setuptools reads, and a build without ``npm ci`` that says what to run."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from collections import defaultdict
from importlib.metadata import version
from pathlib import Path

from tests.support.checkout import copy_sources
from tests.support.paths import ROOT

PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _source_dir(package: str, package_dir: dict[str, str]) -> Path:
    """Where setuptools reads ``package`` from: its own ``package-dir``, else its nearest
    mapped parent's folder and the rest of its name, else its name as a path."""
    parts = package.split(".")
    for cut in range(len(parts), 0, -1):
        mapped = package_dir.get(".".join(parts[:cut]))
        if mapped is not None:
            return ROOT / mapped / Path(*parts[cut:])
    return ROOT / Path(*parts)


def wheel_files() -> dict[Path, set[str]]:
    """Each source file the wheel carries → the paths it has in the wheel, from pyproject.toml's
    ``packages``, ``package-dir`` and ``package-data`` (setuptools' rules for explicit packages)."""
    tool = PYPROJECT["tool"]["setuptools"]
    shipped: dict[Path, set[str]] = defaultdict(set)
    for package in tool["packages"]:
        src = _source_dir(package, tool.get("package-dir", {}))
        files = set(src.glob("*.py"))
        for pattern in tool.get("package-data", {}).get(package, []):
            files |= {p for p in src.glob(pattern) if p.is_file()}
        for path in files:
            if "__pycache__" not in path.parts:
                shipped[path.resolve()].add(f"{package.replace('.', '/')}/{path.relative_to(src).as_posix()}")
    return shipped


def test_no_source_file_ships_twice_in_the_wheel():
    # dplab's sources shipped as the top-level `dplab` and again under dpdeck/share/pyodide_pkg/
    # (issue 48, item 13): two copies to keep in step in every install
    shipped = wheel_files()
    twice = {str(src.relative_to(ROOT.resolve())): sorted(at) for src, at in shipped.items() if len(at) > 1}
    assert twice == {}
    dplab = {at for src, ats in shipped.items() for at in ats if "dplab" in at}
    assert "dplab/__init__.py" in dplab and all(at.startswith("dplab/") for at in dplab)
    assert "dpdeck/share/pyodide_pkg/cellrunner/__init__.py" in {at for ats in shipped.values() for at in ats}


def test_the_license_is_an_spdx_expression_the_backend_reads():
    # `license = {text = ...}` is deprecated, and setuptools refuses it from February 2027
    assert PYPROJECT["project"]["license"] == "MIT"
    system = PYPROJECT["build-system"]
    assert "setuptools>=77" in system["requires"]  # the first to read an SPDX `license` (PEP 639)
    # test_install.py builds without build isolation, with this venv's setuptools
    assert int(version("setuptools").split(".")[0]) >= 77
    assert "setuptools>=77" in PYPROJECT["project"]["optional-dependencies"]["test"]


def test_a_wheel_built_without_npm_ci_says_to_run_it(tmp_path):
    """setuptools said only "package directory 'node_modules' does not exist"."""
    src = copy_sources(("pyproject.toml", "README.md", "scripts"), tmp_path / "src")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", "w", "."],
        cwd=src,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode != 0
    assert "Run `npm ci` in" in said and "bash scripts/setup.sh" in said, said[-2000:]
