"""The host names the hall answers to under ``/_hall/``: a defence against DNS rebinding.

A page of ``rebind.attacker.example`` whose name an attacker points at the hall's address is,
for the browser, its own origin: without a check its requests carry ``Host`` and ``Origin`` both
``rebind.attacker.example``, the hall took that as its own origin, and a solve was counted and
the live channel read (issue 46). So every request under ``/_hall/`` must name in ``Host`` one
of the hall's own names (compared without the port, case-insensitively, a final dot dropped):

- the loopback names (``localhost``, ``127.0.0.1``, ``::1``) and this machine's own names
  (its host name, its fully qualified name, ``<host name>.local``);
- the hosts of the URLs the hall listens on and prints (its LAN addresses with ``--host
  0.0.0.0``), of ``--audience-url`` and of every ``--allow-origin``;
- every ``--allow-host NAME`` (repeatable: e.g. the name a DNS server gives the hall's machine).

Otherwise ``421`` with a Spanish text. A request without ``Host`` (HTTP/1.0; no browser sends
one) passes. A request from a ``--trust-proxy`` address passes: the proxy's own site block
chose the host (Caddy answers only the names it is configured for, and forwards the public one).
Paths outside ``/_hall/`` (the deck's files, public anyway) are not checked.
"""

from __future__ import annotations

import socket
from collections.abc import Iterable
from urllib.parse import urlsplit

from aiohttp import web

from ..wire.hall import PREFIX
from . import texts

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


def host_name(value: str) -> str:
    """The host of a ``Host`` header or a URL's netloc, without port and brackets, lowercase,
    without a final dot (``[::1]:8000`` → ``::1``, ``Hall.Example.:443`` → ``hall.example``)."""
    value = value.strip().lower()
    if value.startswith("["):
        value = value[1 : value.find("]")] if "]" in value else value[1:]
    elif value.count(":") == 1:
        value = value.split(":", 1)[0]
    return value.rstrip(".")


def machine_names() -> set[str]:
    """This machine's own names: its host name, its fully qualified name, ``<host name>.local``."""
    names = set()
    try:
        hostname = socket.gethostname()
        names |= {hostname, f"{hostname}.local", socket.getfqdn()}
    except OSError:
        pass
    return {host_name(n) for n in names if n}


def allowed_hosts(urls: Iterable[str], extra: Iterable[str] = ()) -> frozenset[str]:
    """The names of the module's list: loopback and this machine's, the hosts of ``urls`` (where
    the hall listens, the audience URL, the allowed origins) and ``extra`` (``--allow-host``)."""
    hosts = set(LOOPBACK_NAMES) | machine_names()
    hosts |= {host_name(urlsplit(url).netloc) for url in urls if urlsplit(url).netloc}
    hosts |= {host_name(name) for name in extra}
    return frozenset(hosts - {""})


def middleware(hosts, trusted: frozenset[str]):
    """The check of the module's docstring; ``hosts()`` gives the allowed names (read for each
    request: where the hall listens is known only once it is bound)."""

    @web.middleware
    async def check_host(request: web.Request, handler):
        if request.path.startswith(PREFIX) and request.remote not in trusted:
            given = request.headers.get("Host")
            if given is not None and host_name(given) not in hosts():
                return web.Response(
                    status=421,
                    text=texts.HOST_REFUSED,
                    content_type="text/plain",
                    headers={"Cache-Control": "no-store"},
                )
        return await handler(request)

    return check_host
