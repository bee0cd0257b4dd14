"""``python -m dpdeck.hall --dist DIR``: the hall over any built folder (tests, bench/live_load.py).

``build.py serve --hall`` is the presenter's command (it builds dist/ first); this one serves a
folder as it is, or, with ``--live DIR/live.json`` instead of ``--dist``, the hall alone for a
deck served elsewhere (docs/deploy.md). ``--port 0`` picks a free port: the printed URLs carry
the real one.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .options import add_hall_arguments, hall_options
from .run import run


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m dpdeck.hall", description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--dist", type=Path, help="the built deck: served, and its live.json read")
    where.add_argument(
        "--live",
        type=Path,
        metavar="LIVE_JSON",
        help="a hall alone: the deck's live.json (its polls and exercises), the deck served elsewhere",
    )
    add_hall_arguments(parser, renamed=True)
    parser.add_argument("--quiet", action="store_true", help="no access log")
    args = parser.parse_args(argv)
    opts = hall_options(args, args.dist, live=args.live)
    return run(opts, (args.dist or args.live).resolve().parent, quiet=args.quiet)


if __name__ == "__main__":
    raise SystemExit(main())
