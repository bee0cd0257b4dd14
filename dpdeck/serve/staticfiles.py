"""How ``dist/`` is served: one policy, for ``build.py serve`` (``dpdeck/serve/server.py``, the
stdlib's http.server) and for the hall (``dpdeck/hall/static.py``, aiohttp).

:func:`decide` takes a request target as it arrived (still percent-encoded) and the request's
few headers that matter, and returns a :class:`Verdict`: the status, the headers, and the file
to send as the body, if any. Each server is a thin adapter that writes the verdict out; neither
decides anything of its own, so the two answer every request alike.

Refused before the file system is asked (``refusal``):

- 414 for a request target longer than :data:`MAX_TARGET_CHARS` (1 024 characters). The
  deck's longest URL is ~100 characters: ten times that is room for any query a page adds,
  and 414 says what is wrong, where a 400 would hide it;
- 400 for a target that is not an origin-form path (``/…``), that is not valid percent-encoded
  UTF-8, or whose path holds, raw or decoded, a control character (``%00`` included) or a
  backslash; an encoded separator (``%2F``, ``%5C``); a segment ``.`` or ``..`` (encoded or
  not); or an empty segment (``//``: also what an open redirect would need).

Then a path is served only if it names a regular file whose real path (symlinks followed) is
inside ``dist/``; a folder asked for with its slash serves its ``index.html``, without it is
redirected (301) to the same path with the slash; anything else is 404 (no folder listings).

What is sent: a file with precompressed siblings (``x.br``, ``x.gz``, written by
``dpdeck.build.compress``) is sent as the sibling ``Accept-Encoding`` accepts (brotli first), with
the original's ``Content-Type`` and ``Last-Modified``, plus ``Content-Encoding`` and ``Vary``;
``If-Modified-Since`` (unless ``If-None-Match`` is sent) may give 304; every answer has the
isolation headers (COOP/COEP/CORP, unless ``isolate`` is off) and a ``Cache-Control``: immutable
under the versioned folders (``/vendor/…``, ``/static-<digest>/``), ``no-cache`` elsewhere.
``Range`` is not supported: ignored, the whole file sent with 200, as RFC 9110 (14.2) allows.
Bodies of answers without a file are short Spanish plain text, never HTML, never an echo.
"""

from __future__ import annotations

import datetime
import email.utils
import mimetypes
import os
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

ISOLATION_HEADERS = {
    "Cross-Origin-Opener-Policy": "same-origin",
    "Cross-Origin-Embedder-Policy": "require-corp",
    "Cross-Origin-Resource-Policy": "same-origin",
}
MIME = {
    ".mjs": "text/javascript",
    ".js": "text/javascript",
    ".wasm": "application/wasm",
    ".whl": "application/zip",
    ".py": "text/plain; charset=utf-8",
    ".json": "application/json",
    ".woff2": "font/woff2",
    ".svg": "image/svg+xml",
    # a sibling asked for by its own name is sent as it is, as opaque bytes
    ".br": "application/octet-stream",
    ".gz": "application/gzip",
}
#: characters of the whole request target (path and query) past which it is refused with 414
MAX_TARGET_CHARS = 1024
# content coding → sibling suffix, in the order preferred when the client accepts both equally
ENCODED_SIBLINGS = {"br": ".br", "gzip": ".gz"}
IMMUTABLE = "public, max-age=31536000, immutable"
TEXT = "text/plain; charset=utf-8"
# what is refused, spelled as the answers' bodies are (Spanish: the deck's language)
BAD_PATH = "Ruta no válida."
TOO_LONG = "Ruta demasiado larga."
NOT_FOUND = "No existe."


@dataclass(frozen=True)
class Verdict:
    """The answer to one GET or HEAD: ``status``, ``headers`` and, for a 200, the ``file`` whose
    bytes are the body (``Content-Length`` is its size); otherwise ``text`` is the body."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    file: Path | None = None
    text: str = ""

    @property
    def body(self) -> bytes:
        return self.text.encode("utf-8")


def accepted_codings(header: str | None) -> dict[str, float]:
    """The codings of an ``Accept-Encoding`` value with their q, lower-case (``*`` included).

    ``None`` (no header) gives ``{}``. ``x-gzip`` counts as ``gzip``; a malformed or out-of-range q counts as 0.
    """
    out: dict[str, float] = {}
    for item in (header or "").split(","):
        token, *params = (part.strip() for part in item.split(";"))
        if not token:
            continue
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value.strip())
                except ValueError:
                    q = 0.0
                q = q if 0.0 <= q <= 1.0 else 0.0  # also NaN and out-of-range values
        token = token.lower()
        token = "gzip" if token == "x-gzip" else token
        out[token] = max(q, out.get(token, 0.0))
    return out


def choose_encoding(header: str | None, available) -> str | None:
    """The content coding to send among ``available`` (in preference order), or None: identity.

    A coding is acceptable if the header lists it, or ``*``, with q > 0 (``q=0`` refuses it);
    among acceptable ones the highest q wins, ties going to the earlier in ``available``. No
    header, or an ``identity`` listed with a higher q than the winner, means the original.
    """
    codings = accepted_codings(header)
    star = codings.get("*", 0.0)
    best, best_q = None, 0.0
    for coding in available:
        q = codings.get(coding, star)
        if q > best_q:
            best, best_q = coding, q
    return best if best is not None and best_q >= codings.get("identity", 0.0) else None


def _bad(text: str) -> bool:
    return any(ord(c) < 0x20 or ord(c) == 0x7F or c == "\\" for c in text)


def refusal(target: str) -> tuple[int, str] | None:
    """Why a request target must be refused before any file is looked up (status, body), or None."""
    if len(target) > MAX_TARGET_CHARS:
        return 414, TOO_LONG
    path = target.split("?", 1)[0].split("#", 1)[0]
    if not path.startswith("/") or _bad(path):
        return 400, BAD_PATH
    segments = path[1:].split("/")
    for i, raw in enumerate(segments):
        try:
            seg = urllib.parse.unquote(raw, errors="strict")
        except UnicodeDecodeError:
            return 400, BAD_PATH
        if "/" in seg or _bad(seg) or seg in (".", ".."):
            return 400, BAD_PATH
        if not seg and i != len(segments) - 1:
            return 400, BAD_PATH
    return None


def _segments(target: str) -> list[str]:
    """The decoded segments of a target that passed :func:`refusal` (the last may be "")."""
    path = target.split("?", 1)[0].split("#", 1)[0]
    return [urllib.parse.unquote(raw) for raw in path[1:].split("/")]


def content_type(path: Path) -> str:
    return MIME.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def base_headers(url_path: str, isolate: bool) -> dict[str, str]:
    """Every answer's headers for a (decoded) URL path: isolation, and caching."""
    headers = dict(ISOLATION_HEADERS) if isolate else {}
    versioned = "/vendor/" in url_path or "/static-" in url_path
    headers["Cache-Control"] = IMMUTABLE if versioned else "no-cache"
    return headers


def not_modified(if_modified_since: str | None, if_none_match: str | None, mtime: float) -> bool:
    """The stdlib's If-Modified-Since rule (ignored when If-None-Match is sent): the file's
    modification time, to the second, is not after the date sent."""
    if if_modified_since is None or if_none_match is not None:
        return False
    try:
        ims = email.utils.parsedate_to_datetime(if_modified_since)
    except (TypeError, IndexError, OverflowError, ValueError):
        return False
    if ims.tzinfo is None:
        ims = ims.replace(tzinfo=datetime.UTC)
    if ims.utcoffset() != datetime.timedelta(0):
        return False
    last_modified = datetime.datetime.fromtimestamp(mtime, datetime.UTC).replace(microsecond=0)
    return last_modified <= ims


def _inside(root: Path, path: Path) -> Path | None:
    """``path``'s real path (every symlink followed) if it exists inside the resolved ``root``, else None."""
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError, ValueError):  # a name the file system refuses: nothing is there
        return None
    return real if real == root or root in real.parents else None


def locate(root: Path, segments: list[str]) -> Path | None:
    """The regular file inside ``root`` that the decoded ``segments`` name (a folder: its
    ``index.html`` when the last segment is empty), or None. Every path served is checked after
    its symlinks are followed, the folder's ``index.html`` included: a symlink out of ``root``
    is None."""
    root = root.resolve()
    real = _inside(root, root.joinpath(*segments))
    if real is not None and real.is_dir():
        if segments[-1] != "":
            return None
        real = _inside(root, real / "index.html")
    return real if real is not None and real.is_file() else None


def _siblings(root: Path, path: Path) -> dict[str, Path]:
    """``path``'s precompressed siblings (coding → file) that are regular files inside ``root``,
    symlinks followed: a ``.gz`` or ``.br`` linked out of ``root`` is not one."""
    found = {}
    for coding, suffix in ENCODED_SIBLINGS.items():
        real = _inside(root.resolve(), Path(f"{path}{suffix}"))
        if real is not None and real.is_file():
            found[coding] = real
    return found


def _is_folder(root: Path, segments: list[str]) -> bool:
    try:
        real = root.resolve().joinpath(*segments).resolve(strict=True)
        return real.is_dir() and (real == root.resolve() or root.resolve() in real.parents)
    except (OSError, RuntimeError, ValueError):
        return False


def error(status: int, text: str, isolate: bool, url_path: str = "/") -> Verdict:
    headers = base_headers(url_path, isolate)
    headers["Content-Type"] = TEXT
    return Verdict(status, headers, text=text)


def decide(
    root: Path,
    target: str,
    *,
    accept_encoding: str | None = None,
    if_modified_since: str | None = None,
    if_none_match: str | None = None,
    isolate: bool = True,
) -> Verdict:
    """The answer to a GET (or HEAD) of ``target`` (the request target as sent) under ``root``."""
    refused = refusal(target)
    if refused is not None:
        return error(*refused, isolate)
    segments = _segments(target)
    url_path = "/" + "/".join(segments)
    path = locate(root, segments)
    if path is None:
        if segments[-1] != "" and _is_folder(root, segments):
            raw_path, _, query = target.split("#", 1)[0].partition("?")
            verdict = error(301, "", isolate, url_path)
            verdict.headers["Location"] = raw_path + "/" + (f"?{query}" if query else "")
            return verdict
        return error(404, NOT_FOUND, isolate, url_path)
    headers = base_headers(url_path, isolate)
    siblings = _siblings(root, path)
    coding = None
    if siblings:
        headers["Vary"] = "Accept-Encoding"
        coding = choose_encoding(accept_encoding, siblings)
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return error(404, NOT_FOUND, isolate, url_path)
    if not_modified(if_modified_since, if_none_match, mtime):
        return Verdict(304, headers)
    headers["Content-Type"] = content_type(path)
    headers["Last-Modified"] = email.utils.formatdate(mtime, usegmt=True)
    if coding:
        headers["Content-Encoding"] = coding
    return Verdict(200, headers, file=siblings[coding] if coding else path)


def open_body(verdict: Verdict, isolate: bool):
    """``(verdict, open file or None)``: the file of a 200 opened, or a 404 if it went meanwhile."""
    if verdict.file is None:
        return verdict, None
    try:
        f = open(verdict.file, "rb")  # noqa: SIM115 - the adapter closes it
    except OSError:
        return error(404, NOT_FOUND, isolate), None
    verdict.headers["Content-Length"] = str(os.fstat(f.fileno()).st_size)
    return verdict, f
