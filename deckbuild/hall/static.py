"""``dist/`` over aiohttp, as ``build.py serve`` sends it, with hostile paths refused.

The headers are serve.py's (``ISOLATION_HEADERS``, ``MIME``, immutable caching of versioned
folders) and so is the negotiation of precompressed siblings (``choose_encoding``). A path is
served only if it names a regular file under ``dist/`` after every check of ``resolve``: no NUL,
no backslash, no encoded slash or dot-segment, no segment ``.``/``..``, not over-long, and its
real path (symlinks followed) still inside ``dist/``. Anything else is 400 (malformed) or 404.
"""

from __future__ import annotations

import asyncio
import email.utils
import mimetypes
import os
import urllib.parse
from pathlib import Path

from aiohttp import web

from deckbuild.serve import ENCODED_SIBLINGS, ISOLATION_HEADERS, MIME, choose_encoding

MAX_PATH = 1024  # characters of the raw path
CHUNK = 256 * 1024


class HostilePath(ValueError):
    """A path no deck file has: refused before the file system is asked (400)."""


def resolve(root: Path, raw_path: str) -> Path | None:
    """The regular file under ``root`` that ``raw_path`` (still percent-encoded) names, or None.

    Raises ``HostilePath`` for a path no browser asks for when reading the deck.
    """
    if len(raw_path) > MAX_PATH:
        raise HostilePath("path too long")
    path = raw_path.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/") or "\\" in path or "\x00" in path:
        raise HostilePath("bad characters")
    segments = path[1:].split("/")
    clean = []
    for i, raw in enumerate(segments):
        seg = urllib.parse.unquote(raw, errors="strict") if "%" in raw else raw
        if any(c in seg for c in "/\\\x00") or seg in (".", ".."):
            raise HostilePath("encoded separator or dot-segment")
        if not seg and i != len(segments) - 1:
            raise HostilePath("empty segment")
        clean.append(seg)
    root = root.resolve()
    target = root.joinpath(*clean) if any(clean) else root
    try:
        real = target.resolve(strict=True)
    except (OSError, RuntimeError):
        return None
    if real != root and root not in real.parents:
        return None
    if real.is_dir():
        if not path.endswith("/"):
            return None
        real = real / "index.html"
    return real if real.is_file() else None


def content_type(path: Path) -> str:
    return MIME.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def cache_headers(path: str, isolate: bool) -> dict[str, str]:
    """serve.py's headers for a URL path: isolation, and caching (versioned folders immutable)."""
    headers = dict(ISOLATION_HEADERS) if isolate else {}
    versioned = "/vendor/" in path or "/static-" in path
    headers["Cache-Control"] = "public, max-age=31536000, immutable" if versioned else "no-cache"
    return headers


def not_modified(request: web.Request, mtime: float) -> bool:
    """serve.py's If-Modified-Since rule (ignored when If-None-Match is sent)."""
    since = request.headers.get("If-Modified-Since")
    if since is None or "If-None-Match" in request.headers:
        return False
    try:
        stamp = email.utils.parsedate_to_datetime(since).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return False
    return int(mtime) <= stamp


async def send_file(request: web.Request, root: Path, isolate: bool) -> web.StreamResponse:
    """GET/HEAD of a deck file, negotiated, streamed in chunks."""
    try:
        path = resolve(root, request.raw_path)
    except (HostilePath, UnicodeDecodeError):
        raise web.HTTPBadRequest(text="Ruta no válida.") from None
    if path is None:
        if request.path.rstrip("/") and (root / request.path.lstrip("/")).is_dir():
            raise web.HTTPMovedPermanently(request.path + "/")
        raise web.HTTPNotFound(text="No existe.")
    headers = cache_headers(request.path, isolate)
    siblings = {c: Path(str(path) + s) for c, s in ENCODED_SIBLINGS.items() if Path(str(path) + s).is_file()}
    coding = None
    if siblings:
        headers["Vary"] = "Accept-Encoding"
        accept = ", ".join(request.headers.getall("Accept-Encoding", ())) or None
        coding = choose_encoding(accept, siblings)
    sent = siblings[coding] if coding else path
    mtime = path.stat().st_mtime
    if not_modified(request, mtime):
        return web.Response(status=304, headers=headers)
    headers["Content-Type"] = content_type(path)
    headers["Last-Modified"] = email.utils.formatdate(mtime, usegmt=True)
    if coding:
        headers["Content-Encoding"] = coding
    response = web.StreamResponse(headers=headers)
    response.content_length = os.path.getsize(sent)
    await response.prepare(request)
    if request.method != "HEAD":
        await _stream(response, sent)
    await response.write_eof()
    return response


async def _stream(response: web.StreamResponse, path: Path) -> None:
    loop = asyncio.get_running_loop()
    with open(path, "rb") as f:
        while chunk := await loop.run_in_executor(None, f.read, CHUNK):
            await response.write(chunk)
