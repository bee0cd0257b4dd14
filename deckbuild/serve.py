"""Serve dist/ on localhost with the headers that make the page cross-origin isolated.

A file with precompressed siblings (``x.br``, ``x.gz``, written by ``deckbuild.compress``) is
sent as the sibling the request's ``Accept-Encoding`` accepts (brotli first), with the
original's ``Content-Type`` and ``Last-Modified``, ``Content-Encoding`` and ``Vary``.

Hostile requests get an answer, never a dropped connection, and the server goes on serving
(``refusal``): a path holding a control character (an encoded NUL, ``%00``), a backslash, a
``..`` segment (encoded or not) or invalid percent-encoding is 400; a request target longer
than :data:`MAX_TARGET_CHARS` is 414 (the stdlib's own limits: a request line over 64 KiB is
414, a header line over 64 KiB or more than 100 headers is 431); a path that names no file is
404. ``Range`` is not supported, so any ``Range`` header, valid or not, is ignored and the whole
file sent with 200, as RFC 9110 (14.2) allows.
"""

from __future__ import annotations

import datetime
import email.utils
import functools
import http.server
import os
import threading
import urllib.parse
from http import HTTPStatus
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
# A request target longer than this names no file of a deck (its longest paths are ~100 chars)
MAX_TARGET_CHARS = 2048
# content coding → sibling suffix, in the order preferred when the client accepts both equally
ENCODED_SIBLINGS = {"br": ".br", "gzip": ".gz"}


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


def refusal(target: str) -> tuple[HTTPStatus, str] | None:
    """Why a request target must be refused before any file is looked up, or None.

    414 for a target over :data:`MAX_TARGET_CHARS`; 400 for a path (query and fragment aside)
    that is not valid percent-encoded UTF-8, or that holds, once decoded, a control character
    (``%00`` included), a backslash, or a ``..`` segment.
    """
    if len(target) > MAX_TARGET_CHARS:
        return HTTPStatus.REQUEST_URI_TOO_LONG, "URI too long"
    path = target.split("?", 1)[0].split("#", 1)[0]
    try:
        decoded = urllib.parse.unquote(path, errors="strict")
    except UnicodeDecodeError:
        return HTTPStatus.BAD_REQUEST, "Bad percent-encoding"
    if any(ord(c) < 0x20 or ord(c) == 0x7F for c in decoded):
        return HTTPStatus.BAD_REQUEST, "Control character in path"
    if "\\" in decoded:
        return HTTPStatus.BAD_REQUEST, "Backslash in path"
    if ".." in decoded.split("/"):
        return HTTPStatus.BAD_REQUEST, "Parent segment in path"
    return None


class DeckHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, plus isolation headers and caching fit for versioned folders."""

    isolate = True
    quiet = True

    def parse_request(self) -> bool:
        """The stdlib's parsing, then :func:`refusal`: a hostile target is answered here."""
        if not super().parse_request():
            return False
        refused = refusal(self.path)
        if refused is not None:
            self.send_error(*refused)
            return False
        return True

    def end_headers(self) -> None:
        if self.isolate:
            for key, value in ISOLATION_HEADERS.items():
                self.send_header(key, value)
        path = getattr(self, "path", "").split("?", 1)[0]  # unset when the request line was refused
        if "/vendor/" in path or "/static-" in path:
            # versioned folders: their content never changes under the same URL
            self.send_header("Cache-Control", "public, max-age=31536000, immutable")
        else:
            self.send_header("Cache-Control", "no-cache")
        if getattr(self, "_vary", False):
            self.send_header("Vary", "Accept-Encoding")
        super().end_headers()

    def send_head(self):
        """As SimpleHTTPRequestHandler's, but a file with siblings is negotiated."""
        self._vary = False
        try:
            path = self._file_path()
        except (OSError, ValueError):  # a name the file system refuses: nothing is there
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        if path is None:
            return super().send_head()
        siblings = {
            coding: path + suffix
            for coding, suffix in ENCODED_SIBLINGS.items()
            if os.path.isfile(path + suffix)
        }
        if not siblings:
            return super().send_head()
        self._vary = True
        coding = choose_encoding(", ".join(self.headers.get_all("Accept-Encoding", ())) or None, siblings)
        if coding is None:
            return super().send_head()
        return self._send_encoded(path, siblings[coding], coding)

    def _file_path(self) -> str | None:
        """The regular file the stdlib would send for this URL, or None (redirect, listing, 404)."""
        path = self.translate_path(self.path)
        if os.path.isdir(path):
            if not urllib.parse.urlsplit(self.path).path.endswith("/"):
                return None
            for index in ("index.html", "index.htm"):
                if os.path.isfile(os.path.join(path, index)):
                    path = os.path.join(path, index)
                    break
            else:
                return None
        if path.endswith("/") or not os.path.isfile(path):
            return None
        return path

    def _send_encoded(self, original: str, sibling: str, coding: str):
        """Send ``sibling`` with the headers of ``original`` (type, Last-Modified, 304 rules)."""
        try:
            f = open(sibling, "rb")  # the caller closes it, as with send_head
        except OSError:
            self.send_error(HTTPStatus.NOT_FOUND, "File not found")
            return None
        try:
            mtime = os.stat(original).st_mtime
            if self._not_modified_since(mtime):
                self.send_response(HTTPStatus.NOT_MODIFIED)
                self.end_headers()
                f.close()
                return None
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-type", self.guess_type(original))
            self.send_header("Content-Encoding", coding)
            self.send_header("Content-Length", str(os.fstat(f.fileno()).st_size))
            self.send_header("Last-Modified", self.date_time_string(mtime))
            self.end_headers()
            return f
        except BaseException:
            f.close()
            raise

    def _not_modified_since(self, mtime: float) -> bool:
        """SimpleHTTPRequestHandler's If-Modified-Since rule (ignored when If-None-Match is sent)."""
        if "If-Modified-Since" not in self.headers or "If-None-Match" in self.headers:
            return False
        try:
            ims = email.utils.parsedate_to_datetime(self.headers["If-Modified-Since"])
        except (TypeError, IndexError, OverflowError, ValueError):
            return False
        if ims.tzinfo is None:
            ims = ims.replace(tzinfo=datetime.UTC)
        if ims.tzinfo is not datetime.UTC:
            return False
        last_modified = datetime.datetime.fromtimestamp(mtime, datetime.UTC).replace(microsecond=0)
        return last_modified <= ims

    def guess_type(self, path):  # noqa: D401 - stdlib override
        suffix = Path(str(path)).suffix
        return MIME.get(suffix) or super().guess_type(path)

    def log_message(self, format, *args):  # noqa: A002 - stdlib signature
        if not self.quiet:
            super().log_message(format, *args)


def make_server(
    directory: Path, host: str = "127.0.0.1", port: int = 8000, isolate: bool = True, quiet: bool = True
) -> http.server.ThreadingHTTPServer:
    handler = functools.partial(
        type("Handler", (DeckHandler,), {"isolate": isolate, "quiet": quiet}), directory=str(directory)
    )
    server = _Server((host, port), handler)
    server.daemon_threads = True
    return server


class _Server(http.server.ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # a browser that closes a connection early (navigation, reload) is not an error
        import sys

        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def serve_in_thread(directory: Path, isolate: bool = True):
    """Start a server on a free port in a daemon thread; return (server, base_url)."""
    server = make_server(directory, port=0, isolate=isolate)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}/"
