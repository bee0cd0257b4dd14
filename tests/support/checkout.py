"""A copy of some of the repository's files, as a fresh checkout would hold them (no caches)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.support.paths import ROOT


def copy_sources(names: tuple[str, ...], dest: Path) -> Path:
    """Copy each of ``names`` (files or folders at the repository's root) into ``dest`` (made
    here), leaving out ``__pycache__`` and ``*.pyc``; ``dest``."""
    dest.mkdir(parents=True)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in names:
        path = ROOT / name
        if path.is_dir():
            shutil.copytree(path, dest / name, ignore=ignore)
        else:
            shutil.copy2(path, dest / name)
    return dest
