"""Both servers of dist/ on real ports, for tests that send them the same raw requests:
``build.py serve`` (dpdeck/serve/server.py) and the hall (dpdeck/hall/app.py, in a thread of its own)."""

from __future__ import annotations

import asyncio
import socket
import threading
from contextlib import contextmanager
from pathlib import Path

from aiohttp import web

from dpdeck.serve.server import serve_in_thread


def raw_request(address: tuple[str, int], raw: bytes, timeout: float = 10.0) -> bytes:
    """Send ``raw`` on a new connection; everything the server answers until it closes."""
    with socket.create_connection(address, timeout=timeout) as sock:
        sock.sendall(raw)
        chunks = []
        while True:
            try:
                chunk = sock.recv(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            chunks.append(chunk)
    return b"".join(chunks)


def get(address, target: str | bytes, headers: bytes = b"", method: bytes = b"GET"):
    """(status, headers as a lower-case dict, body) of one request; status 0 when dropped."""
    target = target.encode("latin-1") if isinstance(target, str) else target
    answer = raw_request(
        address, method + b" " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n" + headers + b"\r\n"
    )
    if not answer:
        return 0, {}, b""
    head, _, body = answer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = dict(line.split(": ", 1) for line in lines[1:] if ": " in line)
    return int(lines[0].split(" ", 2)[1]), {k.lower(): v for k, v in fields.items()}, body


@contextmanager
def serve_py(dist: Path):
    server, _ = serve_in_thread(dist)
    try:
        yield server.server_address[:2]
    finally:
        server.shutdown()
        server.server_close()


@contextmanager
def hall_server(make_hall, tmp_path: Path):
    """The hall's whole application on 127.0.0.1 (a free port), its loop in a thread: the
    address. ``make_hall(tmp_path)`` makes its Hall (on that thread: SQLite stays there)."""
    from dpdeck.hall.app import make_app

    ready: dict = {}
    started = threading.Event()

    async def main():
        hall = make_hall(tmp_path)
        runner = web.AppRunner(make_app(hall), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, "127.0.0.1", 0)
        await site.start()
        ready["address"] = runner.addresses[0][:2]
        ready["stop"] = stop = asyncio.Event()
        ready["loop"] = asyncio.get_running_loop()
        ready["hall"] = hall
        started.set()
        await stop.wait()
        await runner.cleanup()

    def target():
        try:
            asyncio.run(main())
        finally:
            started.set()

    thread = threading.Thread(target=target, name="hall-server", daemon=True)
    thread.start()
    started.wait(30)
    if "address" not in ready:
        raise RuntimeError("the hall did not start")
    try:
        yield ready["address"], ready["hall"]
    finally:
        ready["loop"].call_soon_threadsafe(ready["stop"].set)
        thread.join(10)
