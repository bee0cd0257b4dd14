"""Serve dist/ on localhost with the headers that make the page cross-origin isolated.

The stdlib's http.server, as a thin adapter of :mod:`dpdeck.serve.staticfiles`, which decides every
answer (hostile paths, limits, precompressed siblings, isolation and cache headers) for this
server and for the hall's alike. Hostile requests get an answer, never a dropped connection,
and the server goes on serving; beyond the policy's own refusals, the stdlib's limits answer a
request line over 64 KiB with 414, a header line over 64 KiB or more than 100 headers with 431.

Why the plain ``serve`` is not the hall's aiohttp server without the hall (issue 48, item 9):
the two already share every decision (``staticfiles``); what differs is what a hall is. A hall
keeps a session (its SQLite file or Redis keys, the presenter's token, the admission secret) and
answers ``/_hall/*``; the plain server keeps nothing and writes nothing, so ``serve`` in a
lecture's folder leaves no ``.hall/`` behind, and a page opened from it meets what a static host
gives it (no hall: ``/_hall/hello`` is a 404). It is also what the browser tests serve the deck
with, in a thread of the test's process (``serve_in_thread``), with no event loop to share.
"""

from __future__ import annotations

import functools
import http.server
import shutil
import sys
import threading
from pathlib import Path

from ..wire.hall import route
from . import staticfiles

NO_HALL_PROBE = route("hello").path


class DeckHandler(http.server.BaseHTTPRequestHandler):
    """GET and HEAD of ``directory``'s files, as :func:`dpdeck.serve.staticfiles.decide` says."""

    isolate = True
    quiet = True
    # the stdlib's own refusals (431, 414 past 64 KiB, 501) as plain text, never HTML
    error_message_format = "%(code)d %(message)s\n"
    error_content_type = "text/plain; charset=utf-8"

    def __init__(self, *args, directory: str, **kwargs):
        self.directory = Path(directory)
        super().__init__(*args, **kwargs)

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._answer(body=True)

    def do_HEAD(self) -> None:  # noqa: N802 - stdlib naming
        self._answer(body=False)

    def _answer(self, body: bool) -> None:
        if self._target().split("?", 1)[0] == NO_HALL_PROBE:
            # the page asks once whether a live hall is here: "no", without a 404 in the log and
            # in the browser's console (a static host's 404 says the same, live.js)
            self.send_response(204)
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            return
        accept = ", ".join(self.headers.get_all("Accept-Encoding", ())) or None
        verdict = staticfiles.decide(
            self.directory,
            self._target(),
            accept_encoding=accept,
            if_modified_since=self.headers.get("If-Modified-Since"),
            if_none_match=self.headers.get("If-None-Match"),
            isolate=self.isolate,
        )
        verdict, f = staticfiles.open_body(verdict, self.isolate)
        try:
            self.send_response(verdict.status)
            for key, value in verdict.headers.items():
                self.send_header(key, value)
            if f is None:
                self.send_header("Content-Length", str(len(verdict.body)))
            self.end_headers()
            if body:
                if f is not None:
                    self.copyfile(f, self.wfile)
                else:
                    self.wfile.write(verdict.body)
        finally:
            if f is not None:
                f.close()

    def _target(self) -> str:
        """The request target as sent: the stdlib's ``self.path`` has its leading slashes
        collapsed (``//x`` → ``/x``), which the policy refuses as an empty segment instead."""
        words = self.requestline.split()
        return words[1] if len(words) >= 2 else self.path

    def copyfile(self, source, outputfile) -> None:
        shutil.copyfileobj(source, outputfile)

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
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


def serve_in_thread(directory: Path, isolate: bool = True):
    """Start a server on a free port in a daemon thread; return (server, base_url)."""
    server = make_server(directory, port=0, isolate=isolate)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    return server, f"http://{host!s}:{port}/"
