"""The hall's TCP connections, bounded before aiohttp reads a byte of them.

aiohttp keeps a connection that never completes a request open for its keep-alive timeout (an
hour by default), and has no bound per address or in total: 1 100 idle connections from one
address took every file descriptor of a process (``ulimit -n 1024``), and the presenter's move
got no answer (issue 46). ``GuardedRunner`` is the ``web.AppRunner`` the hall runs on; its
protocol factory wraps each of aiohttp's ``RequestHandler`` in a ``GuardedProtocol`` that tells
the ``Guard`` when the connection opens, what it receives and when it closes. The guarantees,
with the numbers of ``limits.Limits``:

- **Header timeout.** A connection that has not sent a complete request head (request line and
  headers, up to the blank line) ``header_timeout`` seconds after it opened is closed. Over TLS
  the handshake has the same bound (``ssl_handshake_timeout``), and the count starts after it.
- **Idle timeout.** Between two requests on a keep-alive connection, the next complete request
  head must arrive within ``idle_timeout`` seconds of the last answer (aiohttp's keep-alive
  timer), or the connection is closed. A request being answered (a live channel, a file being
  sent) is never cut by either timeout.
- **Per address.** One address (IPv4 as it is, IPv6 by its /64: ``addresses.group``) holds at
  most ``max_connections_per_address`` connections; a trusted proxy's own address is exempt
  (every client of the proxy arrives through it). At the bound a new connection first closes
  that address's oldest *idle* connection (no request in progress: mid-head, or between two
  requests); if none is idle it is answered ``429`` and closed.
- **In total.** At most ``capacity`` connections are open, kept below the process's file
  descriptor limit (``raise_fd_limit`` raises the soft limit to the hard one at start;
  ``capacity`` = the smaller of ``max_connections`` and that limit less ``FD_RESERVE``). At the
  bound a new connection makes room by closing the oldest idle connection of the address that
  holds the most (trusted proxies last); if no connection is idle it is answered ``503`` and
  closed. So whoever holds many idle or half-sent connections loses them first, and the
  presenter's move, an honest ``hello`` and ``index.html`` get their connection.

Nothing here is logged with an address; a connection refused or closed is counted
(``Guard.refused``, ``Guard.evicted``, ``Guard.timed_out``) and never written anywhere.
"""

from __future__ import annotations

import asyncio
import logging
import resource
from collections import OrderedDict
from dataclasses import dataclass, field
from http import HTTPStatus

from aiohttp import web

from . import texts
from .addresses import group
from .limits import Limits

log = logging.getLogger("dpdeck.hall")
FD_RESERVE = 128  # descriptors kept for everything but client connections: files, Redis, logs
HEAD_ENDS = (b"\r\n\r\n", b"\n\n")  # a request head ends at its first blank line


def raise_fd_limit() -> int:
    """Raise ``RLIMIT_NOFILE``'s soft limit to its hard limit; the soft limit now in force."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard == resource.RLIM_INFINITY or soft < hard:
        target = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
        except (ValueError, OSError):
            pass
    return soft


def capacity(limits: Limits, fd_limit: int) -> int:
    """The most connections open at once: ``limits.max_connections`` (None: no bound of its own),
    kept ``FD_RESERVE`` below ``fd_limit``, and at least 1."""
    room = fd_limit - FD_RESERVE
    if limits.max_connections is not None:
        room = min(room, limits.max_connections)
    return max(1, room)


def _refusal(status: int, text: str) -> bytes:
    """A whole HTTP/1.1 answer sent before any request is read: status, Spanish text, close."""
    body = text.encode()
    head = (
        f"HTTP/1.1 {status} {HTTPStatus(status).phrase}\r\n"
        "Content-Type: text/plain; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\n"
        "Cache-Control: no-store\r\nRetry-After: 1\r\nConnection: close\r\n\r\n"
    )
    return head.encode() + body


@dataclass(eq=False)
class _Connection:
    protocol: GuardedProtocol
    transport: asyncio.Transport
    group: str
    exempt: bool
    head_done: bool = False
    tail: bytes = b""
    timer: asyncio.TimerHandle | None = field(default=None, repr=False)

    def idle(self) -> bool:
        """No request is being answered: the first head not complete yet, or between requests."""
        if not self.head_done:
            return True
        # aiohttp's flag for a request whose handler runs (a stream, a file being sent); a
        # version without it counts every connection past its first head as busy (never closed)
        return not getattr(self.protocol.inner, "_request_in_progress", True)


class Guard:
    """The bounds of the module's docstring, over one aiohttp ``web.Server``: called for each new
    connection (the protocol factory), it makes the server's ``RequestHandler`` and wraps it."""

    def __init__(self, server: web.Server, limits: Limits, trusted: frozenset[str], fd_limit: int):
        self.server = server
        self.limits = limits
        self.trusted = trusted
        self.capacity = capacity(limits, fd_limit)
        self.per_address = limits.connections_per_address()
        self.by_group: dict[str, OrderedDict[_Connection, None]] = {}
        self.open: dict[GuardedProtocol, _Connection] = {}
        self.refused = self.evicted = self.timed_out = 0

    def __call__(self) -> GuardedProtocol:
        return GuardedProtocol(self, self.server())

    def __getattr__(self, name):  # pre_shutdown, shutdown, connections, requests_count: the server's
        return getattr(self.server, name)

    def opened(self, protocol: GuardedProtocol, transport: asyncio.Transport) -> bool:
        """A new connection: admitted (True), or answered and closed (False)."""
        peer = transport.get_extra_info("peername")
        address = peer[0] if isinstance(peer, tuple) and peer else None
        exempt = address in self.trusted
        key = group(address)
        mine = self.by_group.get(key, OrderedDict())
        if not exempt and len(mine) >= self.per_address and not self._evict(mine):
            return self._refuse(transport, 429, texts.TOO_MANY_CONNECTIONS_FOR_ADDRESS)
        if len(self.open) >= self.capacity and not self._make_room():
            return self._refuse(transport, 503, texts.HALL_FULL)
        conn = _Connection(protocol, transport, key, exempt)
        self.by_group.setdefault(key, mine)[conn] = None
        self.open[protocol] = conn
        loop = asyncio.get_running_loop()
        conn.timer = loop.call_later(self.limits.header_timeout, self._head_late, conn)
        return True

    def received(self, protocol: GuardedProtocol, data: bytes) -> None:
        conn = self.open.get(protocol)
        if conn is None or conn.head_done:
            return
        seen = conn.tail + data
        if any(end in seen for end in HEAD_ENDS):
            conn.head_done = True
            conn.tail = b""
            if conn.timer is not None:
                conn.timer.cancel()
        else:
            conn.tail = seen[-3:]

    def closed(self, protocol: GuardedProtocol) -> None:
        conn = self.open.pop(protocol, None)
        if conn is None:
            return
        if conn.timer is not None:
            conn.timer.cancel()
        mine = self.by_group.get(conn.group)
        if mine is not None:
            mine.pop(conn, None)
            if not mine:
                del self.by_group[conn.group]

    def _head_late(self, conn: _Connection) -> None:
        if not conn.head_done and conn.protocol in self.open:
            self.timed_out += 1
            conn.transport.close()
            self.closed(conn.protocol)

    def _evict(self, conns) -> bool:
        """Close the oldest idle connection of ``conns``; False when none is idle."""
        for conn in conns:
            if conn.idle():
                self.evicted += 1
                conn.transport.close()
                self.closed(conn.protocol)
                return True
        return False

    def _make_room(self) -> bool:
        """At capacity: close the oldest idle connection of the address holding the most
        (trusted proxies last); False when no connection is idle."""
        order = sorted(self.by_group.values(), key=lambda conns: (next(iter(conns)).exempt, -len(conns)))
        return any(self._evict(conns) for conns in order)

    def _refuse(self, transport: asyncio.Transport, status: int, text: str) -> bool:
        self.refused += 1
        transport.write(_refusal(status, text))
        transport.close()
        return False


class GuardedProtocol(asyncio.Protocol):
    """aiohttp's ``RequestHandler`` for one connection (``inner``), behind the ``Guard``: a
    connection the guard refuses never reaches it."""

    def __init__(self, guard: Guard, inner: asyncio.Protocol):
        self.guard = guard
        self.inner = inner
        self.admitted = False

    def connection_made(self, transport) -> None:
        if self.guard.opened(self, transport):
            self.admitted = True
            self.inner.connection_made(transport)

    def data_received(self, data: bytes) -> None:
        if self.admitted:
            self.guard.received(self, data)
            self.inner.data_received(data)

    def eof_received(self):
        return self.inner.eof_received() if self.admitted else None

    def connection_lost(self, exc) -> None:
        if self.admitted:
            self.guard.closed(self)
            self.inner.connection_lost(exc)

    def pause_writing(self) -> None:
        if self.admitted:
            self.inner.pause_writing()

    def resume_writing(self) -> None:
        if self.admitted:
            self.inner.resume_writing()


class GuardedRunner(web.AppRunner):
    """``web.AppRunner`` whose server is a ``Guard`` (the protocol factory every site uses), and
    whose connections wait ``limits.idle_timeout`` between requests (aiohttp's keep-alive)."""

    def __init__(self, app: web.Application, limits: Limits, trusted: frozenset[str] = frozenset(), **kwargs):
        super().__init__(app, keepalive_timeout=limits.idle_timeout, **kwargs)
        self.limits = limits
        self.trusted = trusted
        self.guard: Guard | None = None

    async def _make_server(self):
        self.guard = Guard(await super()._make_server(), self.limits, self.trusted, raise_fd_limit())
        return self.guard


class GuardedSite(web.TCPSite):
    """``web.TCPSite`` with the TLS handshake bounded by ``header_timeout`` (asyncio's default
    is 60 s)."""

    def __init__(self, runner: GuardedRunner, *args, **kwargs):
        super().__init__(runner, *args, **kwargs)
        self.handshake_timeout = runner.limits.header_timeout

    async def start(self) -> None:
        if self._ssl_context is None:
            return await super().start()
        self._runner._reg_site(self)  # what BaseSite.start does, then TCPSite.start's bind with the bound
        loop = asyncio.get_running_loop()
        server = self._runner.server
        if server is None:  # set up by the runner's setup(), before any site starts
            raise RuntimeError("the hall's runner was not set up")
        self._server = await loop.create_server(
            server,
            self._host,
            self._port,
            ssl=self._ssl_context,
            backlog=self._backlog,
            reuse_address=self._reuse_address,
            reuse_port=self._reuse_port,
            ssl_handshake_timeout=self.handshake_timeout,
        )
        sockets = self._server.sockets
        self._bound_port = sockets[0].getsockname()[1] if sockets else self._port
