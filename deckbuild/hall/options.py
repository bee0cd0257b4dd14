"""The command-line options of a hall that is not the deck's own server (docs/deploy.md):
the deck's other origins, the audience URL to print, the reverse proxy in front. Shared by
``build.py serve`` and ``python -m deckbuild.hall``; every origin and URL is checked by
:mod:`deckbuild.origin`, so a typo is a usage error naming the option, not a hall that refuses
every page. (No aiohttp here: ``build.py build`` imports the command line too.)
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress

from ..origin import parse_origin, parse_url
from .eventloop import EVENT_LOOPS


def origin_argument(parse, what: str):
    """An argparse ``type`` from a deckbuild.origin parser: its reason as the usage error."""

    def convert(value: str) -> str:
        try:
            return parse(value, what)
        except ValueError as exc:  # argparse names the option itself
            raise argparse.ArgumentTypeError(str(exc).removeprefix(f"{what}: ")) from None

    return convert


def _address(value: str) -> str:
    """An IP address, as the hall compares it with a connection's peer."""
    try:
        return str(ipaddress.ip_address(value))
    except ValueError:
        raise argparse.ArgumentTypeError(f"an IP address such as 127.0.0.1, got {value!r}") from None


def _positive(kind):
    """An argparse ``type``: a number of ``kind`` above 0."""

    def convert(value: str):
        try:
            number = kind(value)
        except ValueError:
            number = 0
        if not number > 0:
            raise argparse.ArgumentTypeError(f"a number above 0, got {value!r}")
        return number

    return convert


def add_connection_arguments(parser: argparse.ArgumentParser) -> None:
    """The bounds on the hall's TCP connections (``connections.py``; defaults in ``limits.Limits``)."""
    parser.add_argument(
        "--header-timeout",
        type=_positive(float),
        metavar="S",
        help="seconds a new connection has to send a complete request head (default 10)",
    )
    parser.add_argument(
        "--idle-timeout",
        type=_positive(float),
        metavar="S",
        help="seconds a keep-alive connection may wait for its next request (default 15)",
    )
    parser.add_argument(
        "--max-connections",
        type=_positive(int),
        metavar="N",
        help="open connections at once (default: the file descriptor limit less 128)",
    )
    parser.add_argument(
        "--max-connections-per-address",
        type=_positive(int),
        metavar="N",
        help="open connections of one address, IPv6 by /64; a --trust-proxy address is exempt "
        "(default: twice the live channels per address, plus 64)",
    )


def connection_limits(args: argparse.Namespace, limits):
    """``limits`` (a ``limits.Limits``) with the connection options given on the command line."""
    names = ("header_timeout", "idle_timeout", "max_connections", "max_connections_per_address")
    given = {name: getattr(args, name) for name in names if getattr(args, name, None) is not None}
    return dataclasses.replace(limits, **given)


def add_deploy_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a hall that is not the deck's own server: other origins, the URL to print,
    the proxy in front (``build.py serve`` and ``python -m deckbuild.hall`` alike; docs/deploy.md)."""
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        type=origin_argument(parse_origin, "--allow-origin"),
        metavar="ORIGIN",
        help="another origin (scheme://host[:port]) whose pages may use the hall (CORS); repeatable",
    )
    parser.add_argument(
        "--audience-url",
        type=origin_argument(parse_url, "--audience-url"),
        metavar="URL",
        help="the deck's address for the audience, when the deck is served elsewhere "
        "(a static host, a proxy): printed, and drawn as the QR code",
    )
    parser.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="another host name the hall answers to under /_hall/ (besides loopback, this machine's "
        "names and addresses, the --audience-url and --allow-origin hosts); repeatable",
    )
    parser.add_argument(
        "--trust-proxy",
        action="append",
        default=[],
        type=_address,
        metavar="ADDRESS",
        help="the reverse proxy's address (e.g. 127.0.0.1): its X-Forwarded-For names the client "
        "for the per-address limits; repeatable",
    )
    parser.add_argument(
        "--event-loop",
        choices=EVENT_LOOPS,
        default="auto",
        help="the hall's asyncio loop: uvloop where it is installed (auto), or the standard one",
    )
    add_connection_arguments(parser)
