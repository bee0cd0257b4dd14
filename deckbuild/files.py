"""File helpers shared by the vendoring modules: copy a file or folder, hash a file."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from .errors import BuildEnvironmentError


def sha256(path: Path) -> str:
    """The hex sha256 of the file at ``path``, read in blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def copy(src: Path, dst: Path) -> None:
    """Copy the file or folder ``src`` to ``dst``; a missing ``src`` is not installed yet."""
    if not src.exists():
        raise BuildEnvironmentError(f"{src} is missing: run `npm ci` to install the front-end packages")
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        shutil.copy2(src, dst)
