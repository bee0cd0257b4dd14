"""Serve dist/ on localhost with the headers that make the page cross-origin isolated."""

from __future__ import annotations

import functools
import http.server
import threading
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
}


class DeckHandler(http.server.SimpleHTTPRequestHandler):
    """Static files, plus isolation headers and caching fit for versioned folders."""

    isolate = True
    quiet = True

    def end_headers(self) -> None:
        if self.isolate:
            for key, value in ISOLATION_HEADERS.items():
                self.send_header(key, value)
        path = self.path.split("?", 1)[0]
        if "/vendor/" in path or "/static-" in path:
            # versioned folders: their content never changes under the same URL
            self.send_header("Cache-Control", "public, max-age=31536000, immutable")
        else:
            self.send_header("Cache-Control", "no-cache")
        super().end_headers()

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
