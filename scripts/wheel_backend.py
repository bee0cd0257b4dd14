"""The project's build backend: setuptools' own, after one check that names the step it needs.

The wheel carries files of the checkout's ``node_modules/`` (pyproject.toml,
``dpdeck.share.node_modules``): without them setuptools stops with "package directory
'node_modules' does not exist", which does not say what to run. This module says it before
setuptools starts; everything else is ``setuptools.build_meta``'s (pyproject.toml names this
module as ``build-backend``, from ``backend-path = ["scripts"]``).
"""

from __future__ import annotations

from pathlib import Path

from setuptools import build_meta as _setuptools
from setuptools.build_meta import *  # noqa: F403 — the hooks this module does not wrap

ROOT = Path(__file__).resolve().parent.parent
MISSING = (
    "The wheel carries the front-end files of node_modules/ (reveal.js, KaTeX, CodeMirror, "
    "Pyodide), and {root} has none installed. Run `npm ci` in {root} first "
    "(or `bash scripts/setup.sh`, which runs it), then build the wheel again."
)


class FrontEndMissing(RuntimeError):
    """``node_modules/`` is not installed: the wheel cannot carry the front end."""


def check_front_end(root: Path = ROOT) -> None:
    """Raise ``FrontEndMissing``, saying to run ``npm ci``, when ``root``'s node_modules/ is not installed."""
    # npm writes it at the end of `npm ci`: a node_modules/ without it is missing or half-installed
    if not (root / "node_modules" / ".package-lock.json").is_file():
        raise FrontEndMissing(MISSING.format(root=root))


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    check_front_end()  # pip asks for the metadata first: setuptools' own message came from here
    return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(metadata_directory, config_settings=None):
    check_front_end()
    return _setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings)


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    check_front_end()
    return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    check_front_end()
    return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory, config_settings=None):
    check_front_end()
    return _setuptools.build_sdist(sdist_directory, config_settings)
