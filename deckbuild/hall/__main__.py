"""``python -m deckbuild.hall --dist DIR``: the hall over any built folder (tests, bench/live_load.py).

``build.py serve --hall`` is the presenter's command (it builds dist/ first); this one serves a
folder as it is, or, with ``--live DIR/live.json`` instead of ``--dist``, the hall alone for a
deck served elsewhere (docs/deploy.md). ``--port 0`` picks a free port: the printed URLs carry
the real one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .limits import Limits
from .options import add_deploy_arguments, connection_limits
from .run import HallOptions, run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m deckbuild.hall", description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--dist", type=Path, help="the built deck: served, and its live.json read")
    where.add_argument(
        "--live",
        type=Path,
        metavar="LIVE_JSON",
        help="a hall alone: the deck's live.json (its polls and exercises), the deck served elsewhere",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--no-isolation", action="store_true")
    parser.add_argument("--hall-token-file", type=Path)
    parser.add_argument("--hall-db", type=Path)
    parser.add_argument("--hall-session", metavar="NAME", help="the hall file .hall/hall-NAME.sqlite3")
    parser.add_argument("--cert", type=Path)
    parser.add_argument("--key", type=Path)
    parser.add_argument("--max-streams", type=int, default=Limits().max_streams)
    parser.add_argument(
        "--max-streams-per-address",
        type=int,
        default=Limits().max_streams_per_address,
        help="live channels one address may hold (raise it for a hall behind one NAT)",
    )
    parser.add_argument(
        "--max-devices-per-address",
        type=int,
        default=Limits().max_devices_per_address,
        help="device ids one address may bring into the hall's counts in a session (default "
        f"{Limits().max_devices_per_address}: a hall of 200 devices behind one NAT fits)",
    )
    add_deploy_arguments(parser)
    parser.add_argument(
        "--redis",
        metavar="URL",
        help="keep the hall in Redis (redis://host:port/db) so several processes serve one hall",
    )
    parser.add_argument("--quiet", action="store_true", help="no access log")
    args = parser.parse_args(argv)
    opts = HallOptions(
        args.dist,
        args.host,
        args.port,
        not args.no_isolation,
        args.hall_token_file,
        args.hall_db,
        args.cert,
        args.key,
        connection_limits(
            args,
            Limits(
                max_streams=args.max_streams,
                max_streams_per_address=args.max_streams_per_address,
                max_devices_per_address=args.max_devices_per_address,
            ),
        ),
        allow_origins=frozenset(args.allow_origin),
        audience_url=args.audience_url,
        trusted_proxies=frozenset(args.trust_proxy),
        allow_hosts=frozenset(args.allow_host),
        live=args.live,
        redis=args.redis,
        session=args.hall_session,
        event_loop=args.event_loop,
    )
    return run(opts, (args.dist or args.live).resolve().parent, quiet=args.quiet)


if __name__ == "__main__":
    raise SystemExit(main())
