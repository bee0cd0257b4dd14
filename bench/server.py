"""The deck's own HTTP handler (COOP/COEP, immutable /vendor/), counting what it sends."""

from __future__ import annotations

import functools
import threading
import time
from pathlib import Path


class RequestLog:
    """What the server sent, request by request (epoch seconds, body bytes), per visit."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries: list[dict] = []

    def add(self, entry: dict) -> None:
        with self.lock:
            self.entries.append(entry)

    def take(self) -> list[dict]:
        with self.lock:
            out, self.entries = self.entries, []
        return out


def counting_handler(log: RequestLog):
    from dpdeck.serve.server import DeckHandler

    class CountingHandler(DeckHandler):
        isolate = True
        quiet = True

        def parse_request(self):
            # the request line has arrived (a preconnected socket may have idled before it)
            self._bench_t0 = time.time()
            return super().parse_request()

        def send_response(self, code, message=None):
            self._bench_code = code
            super().send_response(code, message)

        def copyfile(self, source, outputfile):
            while block := source.read(256 * 1024):
                outputfile.write(block)
                self._bench_bytes += len(block)

        def handle_one_request(self):
            self._bench_t0, self._bench_code, self._bench_bytes = None, None, 0
            self.raw_requestline = b""
            t0 = time.time()
            try:
                super().handle_one_request()
            finally:
                if self.raw_requestline and getattr(self, "command", None):
                    log.add(
                        {
                            "path": self.path.split("?", 1)[0],
                            "status": self._bench_code,
                            "bytes": self._bench_bytes,
                            "t0": self._bench_t0 or t0,
                            "t1": time.time(),
                        }
                    )

    return CountingHandler


def start_server(directory: Path, log: RequestLog):
    """Serve ``directory`` from localhost in a thread: (server, base URL)."""
    from dpdeck.serve.server import _Server

    handler = functools.partial(counting_handler(log), directory=str(directory))
    server = _Server(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}/"
