"""Precompressed siblings (``x.br``, ``x.gz``) beside the built files, for servers to negotiate.

``precompress(root, cache)`` walks a finished build folder and, for every file whose suffix
is in ``SUFFIXES``, writes ``<file>.br`` (brotli, quality 11) and ``<file>.gz`` (gzip level 9)
beside it. It guarantees:

- a sibling is written only when it is at least ``MIN_GAIN`` (5 %) smaller than its original,
  and it always decompresses to exactly the original's bytes (cached output is checked);
- the same inputs give the same bytes: gzip's header carries no file name and mtime 0, and
  brotli's output depends only on its input and parameters. A sibling's mtime is set to its
  original's, so ``Last-Modified`` is the same whichever variant a server sends;
- compressing is done once per content: outputs are kept in ``<cache>/compressed/<sha256 of
  the input>.<br|gz>``, so a second build of unchanged files takes seconds, not a minute;
- files (siblings and cache entries) are written to a temp file and renamed into place, so
  two builds running at once never see a half-written file;
- ``DPDECK_NO_COMPRESS=1`` skips all of it (no siblings: servers send the originals);
- a first build (nothing cached) takes minutes on two cores: it says on the terminal what it
  compresses and how much of how much is done (:class:`~dpdeck.build.progress.Progress`).
"""

from __future__ import annotations

import gzip
import hashlib
import os
import tempfile
import threading
import zlib
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import brotli

from .files import sha256
from .progress import Progress, megabytes

SUFFIXES = frozenset(
    {".wasm", ".js", ".mjs", ".css", ".json", ".html", ".svg", ".py", ".txt", ".ttf", ".otf", ".map"}
    | {".whl", ".zip"}
)
MIN_GAIN = 0.05  # keep a sibling only if it saves at least 5 % of the original's bytes
BROTLI_QUALITY = 11
GZIP_LEVEL = 9


CHUNK = 1 << 20  # brotli is fed 1 MiB at a time, so a 12 MB wheel's minutes show progress
_progress = threading.local()  # .tick(n): n more bytes of the current file compressed


def _brotli(data: bytes) -> bytes:
    # streamed in chunks: the same bytes as one brotli.compress(data) call (the encoder buffers
    # its input), and progress within a big file
    tick = getattr(_progress, "tick", None)
    encoder = brotli.Compressor(quality=BROTLI_QUALITY)
    parts = []
    for start in range(0, len(data), CHUNK):
        parts.append(encoder.process(data[start : start + CHUNK]))
        if tick:
            tick(min(CHUNK, len(data) - start))
    parts.append(encoder.finish())
    return b"".join(parts)


def _gzip(data: bytes) -> bytes:
    # gzip.compress writes no file name; mtime=0 keeps the header free of the build time
    return gzip.compress(data, compresslevel=GZIP_LEVEL, mtime=0)


def _gunzip(data: bytes) -> bytes:
    return zlib.decompress(data, wbits=31)


# sibling suffix → (cache extension, compress, decompress)
ENCODINGS: dict[str, tuple[str, Callable[[bytes], bytes], Callable[[bytes], bytes]]] = {
    ".br": ("br", _brotli, brotli.decompress),
    ".gz": ("gz", _gzip, _gunzip),
}


def enabled() -> bool:
    """False when ``DPDECK_NO_COMPRESS`` is set to anything but ``""`` or ``"0"``."""
    return os.environ.get("DPDECK_NO_COMPRESS", "") in ("", "0")


def compressible(path: Path) -> bool:
    """Whether ``path`` gets siblings: a suffix in ``SUFFIXES`` (not a sibling itself)."""
    return path.suffix.lower() in SUFFIXES


def precompress(root: Path, cache: Path, workers: int | None = None) -> list[Path]:
    """Write ``.br``/``.gz`` siblings beside every compressible file under ``root``.

    Returns the siblings written, sorted. ``cache`` is the user cache folder (compressed
    outputs go to ``cache/compressed``). Nothing happens when ``DPDECK_NO_COMPRESS`` is set.
    """
    if not enabled():
        return []
    root = Path(root)
    store = Path(cache) / "compressed"
    store.mkdir(parents=True, exist_ok=True)
    files = [p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and compressible(p)]
    # the largest first, so the wasm does not start last and keep one thread busy alone
    files.sort(key=lambda p: (-p.stat().st_size, str(p)))
    total = sum(p.stat().st_size for p in files)
    label = f"compressing {len(files)} files ({megabytes(total)}) with brotli and gzip, cached per content"
    # brotli and zlib release the GIL while they compress
    with Progress(label, total=total, unit="bytes") as progress:
        with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
            runs = pool.map(lambda p: _siblings(p, store, progress), files)
            written = [s for siblings in runs for s in siblings]
    return sorted(written)


def _siblings(path: Path, store: Path, progress: Progress | None = None) -> list[Path]:
    """Write ``path``'s siblings; count its bytes on ``progress`` as brotli goes through them."""
    if progress is None:
        return _write_siblings(path, store)
    size = path.stat().st_size
    progress.say(f"{path.name} ({megabytes(size)})")
    counted = [0]

    def tick(n: int) -> None:
        counted[0] += n
        progress.advance(n)

    _progress.tick = tick
    try:
        return _write_siblings(path, store)
    finally:
        _progress.tick = None
        progress.advance(max(0, size - counted[0]))  # a cached file, or the gzip pass


def _write_siblings(path: Path, store: Path) -> list[Path]:
    digest = sha256(path)
    stat = path.stat()
    data: bytes | None = None
    written = []
    for suffix, (ext, compress, decompress) in ENCODINGS.items():
        entry = store / f"{digest}.{ext}"
        packed = _cached(entry, digest, decompress)
        if packed is None:
            if data is None:
                data = path.read_bytes()
            packed = compress(data)
            _write_atomic(entry, packed)
        if len(packed) <= stat.st_size * (1 - MIN_GAIN):
            sibling = path.with_name(path.name + suffix)
            _write_atomic(sibling, packed)
            os.utime(sibling, ns=(stat.st_atime_ns, stat.st_mtime_ns))
            written.append(sibling)
    return written


def _cached(entry: Path, digest: str, decompress: Callable[[bytes], bytes]) -> bytes | None:
    """The cache entry's bytes if it decompresses to the content named ``digest``, else None."""
    try:
        packed = entry.read_bytes()
        if hashlib.sha256(decompress(packed)).hexdigest() == digest:
            return packed
    except (OSError, brotli.error, zlib.error):
        pass
    return None


def _write_atomic(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` through a temp file in the same folder and a rename."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
