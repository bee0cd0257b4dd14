"""The command-line options of a hall that is not the deck's own server (docs/deploy.md):
the deck's other origins, the audience URL to print, the reverse proxy in front. Shared by
``build.py serve`` and ``python -m deckbuild.hall``; every origin and URL is checked by
:mod:`deckbuild.origin`, so a typo is a usage error naming the option, not a hall that refuses
every page. (No aiohttp here: ``build.py build`` imports the command line too.)
"""

from __future__ import annotations

import argparse
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
