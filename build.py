#!/usr/bin/env python3
"""The deck's command line: build, check, serve (and pdf, see README).

    python build.py build            render deck/ into dist/ (atomically)
    python build.py check            validate deck/ without writing anything
    python build.py serve [--port N] build if needed, then serve dist/ on localhost
    python build.py serve --hall     ... with the live hall (docs/live-hall.md): devices follow
    python build.py pdf [--out F]     build if needed, run every cell in Chromium, print a PDF

Exit codes: 0 done; 1 the deck has a problem (a DeckError naming file, slide and field; for
`pdf`, also cells that ended in an error); 2 a bad command line (argparse); 3 the deck is fine
but the build's environment failed (a BuildEnvironmentError: node, npm, pip or a download
missing or failing, a checksum mismatch), with the command, its exit code and its stderr.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from deckbuild.errors import BuildEnvironmentError, DeckError
from deckbuild.site import Project, build, check

ROOT = Path(__file__).resolve().parent
EXIT_CODES = __doc__[__doc__.index("Exit codes:") :].strip()


def _dist_is_stale(project: Project) -> bool:
    index = project.dist / "index.html"
    if not index.exists():
        return True
    built = index.stat().st_mtime
    sources = [project.root / "deck", project.templates, project.static, project.package_src / "dplab"]
    for base in sources:
        for path in base.rglob("*"):
            if path.is_file() and path.stat().st_mtime > built:
                return True
    return False


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="build.py", description=__doc__.splitlines()[0], epilog=EXIT_CODES)
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="render deck/ into dist/")
    p_build.add_argument("--deck", type=Path, help="the deck file (default deck/deck.yaml)")
    p_build.add_argument("--out", type=Path, help="output folder (default dist/)")
    p_check = sub.add_parser("check", help="validate deck/ without writing anything")
    p_check.add_argument("--deck", type=Path, help="the deck file (default deck/deck.yaml)")
    p_serve = sub.add_parser("serve", help="build if needed and serve on localhost")
    p_serve.add_argument("--port", type=int, default=8000)
    p_serve.add_argument("--host", default="127.0.0.1")
    p_serve.add_argument(
        "--no-isolation",
        action="store_true",
        help="omit COOP/COEP, as a static host would (Stop then restarts)",
    )
    p_serve.add_argument("--cert", type=Path, help="serve HTTPS with this certificate (PEM); needs --key")
    p_serve.add_argument("--key", type=Path, help="the certificate's private key (PEM)")
    p_serve.add_argument("--hall", action="store_true", help="the live hall: devices follow the presenter")
    p_serve.add_argument(
        "--hall-token-file", type=Path, help="keep the presenter's token here across restarts"
    )
    p_serve.add_argument(
        "--hall-db", type=Path, help="the hall's SQLite file (default .hall/hall-<date>.sqlite3)"
    )
    p_pdf = sub.add_parser("pdf", help="print the deck, with computed results, to a PDF")
    p_pdf.add_argument("--out", type=Path, default=Path("dist-pdf/privacidad-diferencial.pdf"))
    p_pdf.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for every cell to run")
    return parser


def _build(project: Project, args) -> int:
    deck = build(project, deck_file=args.deck, dist=args.out)
    print(f"built {len(deck.slides)} slides into {args.out or project.dist}/index.html")
    return 0


def _check(project: Project, args) -> int:
    deck = check(project, deck_file=args.deck)
    cells = sum(1 for s in deck.slides if s.code)
    print(f"ok: {len(deck.slides)} slides, {cells} code cells")
    return 0


def _serve(project: Project, args) -> int:
    from deckbuild.hall.net import INSECURE_NOTE, LOOPBACK, audience_urls, ssl_context
    from deckbuild.serve import make_server

    if _dist_is_stale(project):
        build(project)
    if args.hall:
        from deckbuild.hall.run import HallOptions, run

        opts = HallOptions(project.dist, args.host, args.port, not args.no_isolation, args.hall_token_file,
                           args.hall_db, args.cert, args.key)  # fmt: skip
        return run(opts, project.root)
    server = make_server(
        project.dist, host=args.host, port=args.port, isolate=not args.no_isolation, quiet=False
    )
    context = ssl_context(args.cert, args.key)
    if context:
        server.socket = context.wrap_socket(server.socket, server_side=True)
    urls = audience_urls(args.host, server.server_address[1], "https" if context else "http")
    print(f"serving the deck at {' '.join(urls)} (Ctrl+C stops)", flush=True)
    if not context and args.host not in LOOPBACK:
        print(INSECURE_NOTE, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


def _pdf(project: Project, args) -> int:
    from deckbuild.pdf import export_pdf

    if _dist_is_stale(project):
        build(project)
    report = export_pdf(project.dist, args.out, timeout=args.timeout)
    print(
        f"wrote {args.out}: {report['pages']} pages, {report['cells']} cells run "
        f"in the browser in {report['seconds']} s"
    )
    if report["errors"]:
        print(f"warning: cells with errors: {', '.join(report['errors'])}", file=sys.stderr)
        return 1
    return 0


COMMANDS = {"build": _build, "check": _check, "serve": _serve, "pdf": _pdf}


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        return COMMANDS[args.command](Project(ROOT), args)
    except DeckError as exc:
        print(f"error in the deck: {exc}", file=sys.stderr)
        return 1
    except BuildEnvironmentError as exc:
        print(f"build environment error (not a problem of the deck): {exc}", file=sys.stderr)
        return exc.exit_code


if __name__ == "__main__":
    sys.exit(main())
