"""File helpers shared by the vendoring modules: copy a file or folder, hash a file, keep a
file derived from others so the next build copies it instead of making it again."""

from __future__ import annotations

import functools
import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from .errors import BuildEnvironmentError


def sha256(path: Path) -> str:
    """The hex sha256 of the file at ``path``, read in blocks; read once per version of the file
    (its size and modification time) in a process: a build hashes Pyodide's 20 MB several times."""
    stat = Path(path).stat()
    return _sha256(str(path), stat.st_size, stat.st_mtime_ns)


@functools.lru_cache(maxsize=1024)
def _sha256(path: str, _size: int, _mtime_ns: int) -> str:
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


def derived(cache: Path, name: str, key: list[bytes | str], make: Callable[[Path], object]) -> Path:
    """The file ``make`` writes, kept in ``cache/derived/`` under a digest of ``key`` (every input
    it depends on: a source's sha256, the rule's own parameters), so a build that would make it
    again copies the kept one instead. ``make(path)`` writes ``path``; a failure keeps nothing.
    The result is the same file either way: the key names everything it is made from."""
    digest = hashlib.sha256()
    for item in key:
        data = item.encode() if isinstance(item, str) else item
        digest.update(len(data).to_bytes(8, "big") + data)
    kept = cache / "derived" / f"{digest.hexdigest()[:20]}-{name}"
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        # a name of its own: two builds at once (a watch and a build) never write one file
        fd, part_name = tempfile.mkstemp(prefix=kept.name + ".", suffix=".part", dir=kept.parent)
        os.close(fd)
        part = Path(part_name)
        try:
            make(part)
            part.replace(kept)  # atomic: a reader never sees half a file
        finally:
            part.unlink(missing_ok=True)
    return kept
