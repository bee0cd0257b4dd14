"""The hall's command-line options, declared once for both commands that start a hall:
``dpdeck serve --hall`` (``build.py serve --hall``) and ``python -m dpdeck.hall``. One flag
name per option (``--hall-redis``, ``--hall-max-devices-per-address``…), one place where the
parsed arguments become a :class:`HallOptions` (:func:`hall_options`).

Every origin and URL is checked by :mod:`dpdeck.origin`, so a typo is a usage error naming
the option, not a hall that refuses every page. (No aiohttp here: ``build.py build`` imports the
command line too.) The names the hall's own command used before (``--redis``,
``--max-streams``…) still work, hidden, and say their new name on stderr: a deployed unit file
keeps starting its hall.
"""

from __future__ import annotations

import argparse
import dataclasses
import ipaddress
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..origin import parse_origin, parse_url
from .eventloop import EVENT_LOOPS
from .limits import Limits

if TYPE_CHECKING:
    from aiohttp import web


@dataclasses.dataclass(frozen=True)
class Extension:
    """More on the hall's application than the hall itself (``serve --watch``: the rebuild
    channel). ``attach`` adds its routes and its lifetime to the app; ``note`` is what the
    terminal says of it. The hall knows no more of it than this: it never imports the build."""

    attach: Callable[[web.Application], object]
    note: str = ""


@dataclasses.dataclass
class HallOptions:
    dist: Path | None  # None: a hall alone (``live`` names its live.json), the deck served elsewhere
    host: str = "127.0.0.1"
    port: int = 8000
    isolate: bool = True
    token_file: Path | None = None
    db: Path | None = None
    cert: Path | None = None
    key: Path | None = None
    limits: Limits = Limits()
    extensions: tuple[Extension, ...] = ()  # e.g. serve --watch: rebuild on save, tell the pages
    announce: bool = True  # /_hall/hello answers (a hall); False for --watch alone
    allow_origins: frozenset[str] = frozenset()  # other origins whose pages may use the hall (--allow-origin)
    audience_url: str | None = None  # the deck's URL when it is served elsewhere (--audience-url)
    trusted_proxies: frozenset[str] = frozenset()  # --trust-proxy: whose X-Forwarded-For counts
    allow_hosts: frozenset[str] = frozenset()  # --allow-host: more names the hall answers to (hosts.py)
    live: Path | None = None  # the polls and exercises (live.json); default: dist/live.json
    redis: str | None = None  # --hall-redis URL: the hall's memory in Redis, shared by several processes
    session: str | None = None  # --hall-session NAME: the hall file .hall/hall-NAME.sqlite3
    event_loop: str = "auto"  # --event-loop: uvloop where installed (dpdeck.hall.eventloop)


def hall_options(args: argparse.Namespace, dist: Path | None, **more) -> HallOptions:
    """The options a command line gave (:func:`add_hall_arguments`), as one :class:`HallOptions`;
    ``more``: what the command itself decides (``announce``, ``live``, ``extensions``)."""
    given = {name: getattr(args, f"hall_{name}") for name in LIMIT_NAMES}
    limits = Limits(**{name: n for name, n in given.items() if n is not None})
    return HallOptions(
        dist=dist,
        host=args.host,
        port=args.port,
        isolate=not args.no_isolation,
        token_file=args.hall_token_file,
        db=args.hall_db,
        cert=args.cert,
        key=args.key,
        limits=connection_limits(args, limits),
        allow_origins=frozenset(args.allow_origin),
        audience_url=args.audience_url,
        trusted_proxies=frozenset(args.trust_proxy),
        allow_hosts=frozenset(args.allow_host),
        redis=args.hall_redis,
        session=args.hall_session,
        event_loop=args.event_loop,
        **more,
    )


LIMIT_NAMES = ("max_streams", "max_streams_per_address", "max_devices_per_address")


class _Renamed(argparse.Action):
    """An option's former name: it still sets the option, and says the new name on stderr."""

    def __init__(self, option_strings, dest, new: str, **kw):
        super().__init__(option_strings, dest, help=argparse.SUPPRESS, **kw)
        self.new = new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"{parser.prog}: {option_string} se llama ahora {self.new}", file=sys.stderr)
        setattr(namespace, self.dest, values)


def add_hall_arguments(parser: argparse.ArgumentParser, renamed: bool = False) -> None:
    """Every option of a hall, under one name each: where it listens (``--host``, ``--port``,
    ``--cert``/``--key``, ``--no-isolation``), where it keeps its session (``--hall-db``,
    ``--hall-session``, ``--hall-redis``, ``--hall-token-file``), its bounds and its deployment.
    ``renamed``: also accept the names ``python -m dpdeck.hall`` used before, hidden."""
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (0.0.0.0: every one)")
    parser.add_argument("--port", type=int, default=8000, help="the port (0: a free one, printed)")
    parser.add_argument(
        "--no-isolation",
        action="store_true",
        help="omit COOP/COEP, as a static host would (Stop then restarts)",
    )
    parser.add_argument("--cert", type=Path, help="serve HTTPS with this certificate (PEM); needs --key")
    parser.add_argument("--key", type=Path, help="the certificate's private key (PEM)")
    parser.add_argument(
        "--hall-token-file", type=Path, help="keep the presenter's token here across restarts"
    )
    parser.add_argument(
        "--hall-session",
        metavar="NAME",
        help="the hall's session: answers, solves and counts kept in .hall/hall-NAME.sqlite3 (default: "
        "today's date, so a restart continues; a new NAME is a clean start, e.g. after a rehearsal)",
    )
    parser.add_argument("--hall-db", type=Path, help="the hall's SQLite file itself (instead of a session)")
    parser.add_argument(
        "--hall-redis",
        metavar="URL",
        help="keep the hall in Redis (redis://host:port/db) so several processes serve one hall",
    )
    default = Limits()
    parser.add_argument(
        "--hall-max-streams",
        type=_positive(int),
        metavar="N",
        help=f"live channels at once (default {default.max_streams})",
    )
    parser.add_argument(
        "--hall-max-streams-per-address",
        type=_positive(int),
        metavar="N",
        help=f"live channels one address may hold (default {default.max_streams_per_address}; "
        "raise it for a hall behind one NAT)",
    )
    parser.add_argument(
        "--hall-max-devices-per-address",
        type=_positive(int),
        metavar="N",
        help="device ids one address may bring into the hall's counts in a session (default "
        f"{default.max_devices_per_address}: a hall of 200 devices behind one NAT fits)",
    )
    if renamed:
        parser.add_argument("--redis", dest="hall_redis", action=_Renamed, new="--hall-redis")
        for bound in ("max-streams", "max-streams-per-address", "max-devices-per-address"):
            dest = "hall_" + bound.replace("-", "_")
            parser.add_argument(
                f"--{bound}", dest=dest, action=_Renamed, new=f"--hall-{bound}", type=_positive(int)
            )
    add_deploy_arguments(parser)


def origin_argument(parse, what: str):
    """An argparse ``type`` from a dpdeck.origin parser: its reason as the usage error."""

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
    the proxy in front (``build.py serve`` and ``python -m dpdeck.hall`` alike; docs/deploy.md)."""
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
