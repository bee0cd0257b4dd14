"""The hall behind a reverse proxy (Caddy, nginx): whose address a request counts as.

Behind a proxy every request comes from the proxy's address, so the per-address bounds (live
channels, rate) would put the whole hall under one address. With ``--trust-proxy ADDRESS``
(repeatable), a request whose TCP peer is one of those addresses counts as the address the proxy
names last in ``X-Forwarded-For`` (the one the proxy itself saw: Caddy and nginx append it);
from any other peer the header is ignored, so a client cannot choose its own address. The
address is used for the limits only, and, as before, never stored or logged. The proxy's
``X-Forwarded-Proto`` is the request's scheme (``scheme_of``), which the hall's own origin is
compared with (cors.py).
"""

from __future__ import annotations

import ipaddress

from aiohttp import web


def forwarded_client(header: str | None) -> str | None:
    """The last address in an ``X-Forwarded-For`` header, or None when it is not an IP address."""
    if not header:
        return None
    last = header.split(",")[-1].strip()
    try:
        return str(ipaddress.ip_address(last))
    except ValueError:
        return None


def scheme_of(request: web.Request, trusted: frozenset[str]) -> str:
    """The scheme the client used: ``X-Forwarded-Proto`` (``http`` or ``https``) from a trusted
    proxy (which ends TLS itself), else the connection's own (``https`` over TLS)."""
    if request.remote in trusted:
        proto = (request.headers.get("X-Forwarded-Proto") or "").split(",")[-1].strip().lower()
        if proto in ("http", "https"):
            return proto
    return request.scheme


FORWARDED = web.RequestKey("forwarded", bool)  # True: request.remote is the client a trusted proxy named


def forwarded(request: web.Request) -> bool:
    """Whether ``request.remote`` is a client a trusted proxy named (not the TCP peer): its
    per-connection rate is then the client's own (``limits.RateLimiter``)."""
    return request.get(FORWARDED, False)


def middleware(trusted: frozenset[str]):
    """Requests from a ``trusted`` proxy carry the client's address as ``request.remote``."""

    @web.middleware
    async def behind_proxy(request: web.Request, handler):
        if request.remote in trusted:
            client = forwarded_client(request.headers.get("X-Forwarded-For"))
            scheme = scheme_of(request, trusted)
            if client is not None or scheme != request.scheme:
                request = request.clone(remote=client or request.remote, scheme=scheme)
                request[FORWARDED] = client is not None
        return await handler(request)

    return behind_proxy
