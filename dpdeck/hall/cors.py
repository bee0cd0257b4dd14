"""CORS for a deck on another origin (``build --hall``): the hall answers the origins it is
given (``--allow-origin``, exactly) and no other.

The guarantee: under ``/_hall/``, a request whose ``Origin`` is neither the hall's own (the
request's scheme and ``Host``; hosts.py has checked the ``Host``) nor an allowed one is refused with ``403`` before any handler runs (a
preflight, a GET of the live channel or the QR code; a POST by ``_post_guard`` in ``app.py``,
after its ``415`` for a body that is not JSON), so a page of another site can neither read the
hall's answers nor open its channels. An allowed origin gets
``Access-Control-Allow-Origin`` naming it (never ``*``, never with credentials) on every answer,
streams and errors included; its preflight may ask for ``GET`` or ``POST`` with the headers
``Content-Type`` and ``Authorization`` (the presenter's bearer token), nothing else. A request
without ``Origin`` (the hall's own page, a command-line client) passes here: ``_post_guard`` in
``app.py`` still requires an allowed ``Origin`` on every POST.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from aiohttp import web

from ..wire.hall import PREFIX
from . import proxy, texts

ALLOWED_METHODS = ("GET", "POST")
ALLOWED_HEADERS = ("content-type", "authorization")
MAX_AGE = "600"  # seconds a browser may keep a granted preflight


def own_origin(origin: str, host: str | None, scheme: str | None = None) -> bool:
    """``origin`` names the scheme, host and port of the request: the hall's own pages. With
    ``scheme`` None (a caller that does not know it) any of ``http`` and ``https`` matches; the
    hall always passes the request's (an http hall refuses ``Origin: https://`` of its host)."""
    parts = urlsplit(origin)
    if parts.scheme not in ("http", "https") or (scheme is not None and parts.scheme != scheme):
        return False
    return host is not None and host != "" and parts.netloc.lower() == host.lower()


def origin_allowed(
    origin: str | None, host: str | None, allowed: frozenset[str], scheme: str | None = None
) -> bool:
    """An ``Origin`` the hall accepts: its own (``own_origin``), or one of ``allowed``
    (``scheme://host[:port]``, exactly). None, empty or ``null`` is no origin and is not accepted."""
    if not origin or origin == "null":
        return False
    return origin in allowed or own_origin(origin, host, scheme)


def _refuse() -> web.Response:
    return web.Response(
        status=403,
        text=texts.ORIGIN_REFUSED,
        content_type="text/plain",
        headers={"Cache-Control": "no-store"},
    )


def _preflight(request: web.Request, origin: str) -> web.Response:
    method = request.headers.get("Access-Control-Request-Method", "")
    asked = request.headers.get("Access-Control-Request-Headers", "")
    headers = {h.strip().lower() for h in asked.split(",") if h.strip()}
    if method not in ALLOWED_METHODS or not headers <= set(ALLOWED_HEADERS):
        return _refuse()
    return web.Response(
        status=204,
        headers={
            "Access-Control-Allow-Origin": origin,
            "Access-Control-Allow-Methods": ", ".join(ALLOWED_METHODS),
            "Access-Control-Allow-Headers": ", ".join(h.title() for h in ALLOWED_HEADERS),
            "Access-Control-Max-Age": MAX_AGE,
            "Vary": "Origin",
        },
    )


GRANTED = web.RequestKey("cors_origin", str)  # the origin a request's answer is granted to


def middleware(allowed: frozenset[str], trusted: frozenset[str] = frozenset()):
    """The aiohttp middleware that applies the module's rule to every ``/_hall/`` request; the
    answer's headers are set by :func:`on_prepare` (a stream's go out inside its handler).
    ``trusted``: the proxies whose ``X-Forwarded-Proto`` is the request's scheme (proxy.py)."""

    @web.middleware
    async def cors(request: web.Request, handler):
        if not request.path.startswith(PREFIX):
            return await handler(request)
        origin = request.headers.get("Origin")
        if origin is None:
            return _refuse() if request.method == "OPTIONS" else await handler(request)
        if not origin_allowed(origin, request.host, allowed, proxy.scheme_of(request, trusted)):
            # a POST is _post_guard's (app.py): its content type first (415), then this same rule
            return await handler(request) if request.method == "POST" else _refuse()
        if request.method == "OPTIONS":
            return _preflight(request, origin)
        request[GRANTED] = origin
        return await handler(request)

    return cors


async def on_prepare(request: web.Request, response: web.StreamResponse) -> None:
    """Grant the request's allowed origin the answer (streams and errors included)."""
    origin = request.get(GRANTED)
    if origin is not None:
        response.headers["Access-Control-Allow-Origin"] = origin
        # a refusal's wait: the page's resend honours it (retry.js), if the browser lets it read it
        response.headers["Access-Control-Expose-Headers"] = "Retry-After"
        response.headers.add("Vary", "Origin")
