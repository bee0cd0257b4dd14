"""The hall behind a reverse proxy (Caddy, nginx): whose address a request counts as.

Behind a proxy every request comes from the proxy's address, so the per-address bounds (live
channels, rate) would put the whole hall under one address. With ``--trust-proxy ADDRESS``
(repeatable), a request whose TCP peer is one of those addresses counts as the address the proxy
names last in ``X-Forwarded-For`` (the one the proxy itself saw: Caddy and nginx append it);
from any other peer the header is ignored, so a client cannot choose its own address. The
address is used for the limits only, and, as before, never stored or logged.
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
            if client is not None:
                request = request.clone(remote=client)
                request[FORWARDED] = True
        return await handler(request)

    return behind_proxy
