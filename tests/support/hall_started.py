"""The hall as ``run.start`` starts it (its runner, its site, its loggers: what ``build.py serve
--hall`` runs), in the test's process, and raw connections to it from chosen loopback addresses."""

from __future__ import annotations

import asyncio
import socket

from dpdeck.hall.options import HallOptions
from dpdeck.hall.run import start
from tests.support.hall_fixtures import make_dist, run_async


def hall_options(tmp_path, **kw) -> HallOptions:
    """A hall on 127.0.0.1, a free port, its files in ``tmp_path``."""
    dist = make_dist(tmp_path)
    return HallOptions(dist, port=0, db=tmp_path / "hall.sqlite3", token_file=tmp_path / "hall.token", **kw)


def with_started_hall(opts: HallOptions, scenario):
    """``await scenario(port, hall, runner)`` against the hall ``run.start`` starts, on a thread of its own."""

    async def main():
        runner, hall, _ = await start(opts, opts.dist.parent)
        try:
            return await scenario(runner.addresses[0][1], hall, runner)
        finally:
            await runner.cleanup()

    return run_async(main)


async def connect(port: int, source: str = "127.0.0.1", send: bytes = b""):
    """A connection from ``source`` (any 127.0.0.0/8 address) that sends ``send``: (reader, writer)."""
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0)), 5
    )
    if send:
        writer.write(send)
        await writer.drain()
    return reader, writer


async def closed_within(reader: asyncio.StreamReader, seconds: float) -> bool:
    """Whether the server closes the connection (EOF or reset) within ``seconds``; what it sent is read and dropped."""
    try:
        async with asyncio.timeout(seconds):
            while await reader.read(65536):
                pass
        return True
    except TimeoutError:
        return False
    except ConnectionError:
        return True


async def answer(port: int, request: bytes, source: str = "127.0.0.1", timeout: float = 5.0) -> bytes:
    """The whole answer to ``request`` (sent with ``Connection: close``) from ``source``."""
    reader, writer = await connect(port, source, request)
    try:
        async with asyncio.timeout(timeout):
            return await reader.read()
    finally:
        writer.close()


def raw_request(ip: str, port: int, request: bytes, timeout: float = 5.0) -> bytes:
    """Send ``request`` as bytes, as it is, from ``ip`` to 127.0.0.1:``port``, and read the
    answer until the hall closes (or ``timeout`` s of silence)."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout, source_address=(ip, 0)) as s:
        s.sendall(request)
        out = b""
        try:
            while chunk := s.recv(65536):
                out += chunk
        except (TimeoutError, ConnectionError):
            pass
        return out
