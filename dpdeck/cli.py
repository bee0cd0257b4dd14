"""The deck's command line: new, build, check, serve and pdf.

Installed (``pip install .``) it is the ``dpdeck`` command, run from a lecture's folder; in the
repository, ``python build.py …`` runs the same code on the repository's deck/ (build.py):

    dpdeck build            render deck/ into dist/ (atomically)
    dpdeck check            validate deck/ without writing anything
    dpdeck check --run      also run every cell, try: edit and exercise under CPython
    dpdeck serve [--port N] build if needed, then serve dist/ on localhost
    dpdeck serve --watch    ... and rebuild on every save: open pages follow (authors)
    dpdeck serve --hall     ... with the live hall (docs/live-hall.md): devices follow
    dpdeck pdf [--out F]    build if needed, run every cell in Chromium, print a PDF
              [--deck D]    (of another deck file, built apart)
              [--solutions] [--notes]   with each exercise solved and judged; with the notes
    dpdeck new PATH --title T   a new lecture folder that builds and runs as it is

The deck file is deck/deck.yaml under the current folder (installed: ./deck.yaml first), or
--deck. Exit codes: 0 done; 1 the deck has a problem (a DeckError naming file, slide and field; for
`pdf` and `check --run`, also cells that ended in an error); 2 a bad command line (argparse); 3 the deck is fine
but the build's environment failed (a BuildEnvironmentError: node, npm, pip or a download
missing or failing, a checksum mismatch), with the command, its exit code and its stderr;
4 `serve`: the port is taken (another server listens there), said in one line;
130 `check --run` interrupted (Ctrl+C).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from dpdeck.build.errors import BuildEnvironmentError, DeckError
from dpdeck.build.site import Project, build, check

from . import resources
from .hall.options import add_hall_arguments, hall_options, origin_argument
from .origin import parse_origin

EXIT_CODES = __doc__[__doc__.index("Exit codes:") :].strip()
HALL_HELP = (
    "the live hall's origin (https://hall.example.edu), when it is not the deck's own server; "
    "instead of the deck file's hall: (docs/deploy.md)"
)


def default_project(cwd: Path | None = None) -> Project:
    """The repository's project when dpdeck runs from a checkout and the command from inside
    it; otherwise the current folder (its deck and its dist/, so what is written is written
    there, never into the checkout) with the assets of the package it runs from: the
    checkout's, or the installed package's own (dpdeck.resources)."""
    here = Path(cwd or Path.cwd()).resolve()
    root = resources.checkout()
    if root is not None and here.is_relative_to(root.resolve()):
        return Project(root)
    return InstalledProject(here, assets=root or resources.SHARE)


class InstalledProject(Project):
    """A lecture's folder with the installed package's assets: its deck is ./deck.yaml when
    there is one (what ``dpdeck new`` writes), else ./deck/deck.yaml (the repository's layout)."""

    @property
    def deck_file(self) -> Path:
        here = self.root / "deck.yaml"
        return here if here.is_file() else super().deck_file


def _dist_is_stale(project: Project) -> bool:
    index = project.dist / "index.html"
    if not index.exists():
        return True
    built = index.stat().st_mtime
    sources = [project.deck_file.parent, project.templates, project.static, project.dplab_src]
    sources += [project.completion_src]  # a file: the editor's engine, in pyodide_pkg/
    dist = project.dist.resolve()
    for base in sources:
        for path in [base] if base.is_file() else base.rglob("*"):
            # an installed lecture's folder holds its dist/ (and .hall/): what was built is no source
            if path.is_relative_to(dist) or ".hall" in path.parts:
                continue
            if path.is_file() and path.stat().st_mtime > built:
                return True
    return False


def _parser(prog: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog, description=__doc__.splitlines()[0], epilog=EXIT_CODES)
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="render deck/ into dist/")
    p_build.add_argument("--deck", type=Path, help="the deck file (default deck/deck.yaml)")
    p_build.add_argument("--out", type=Path, help="output folder (default dist/)")
    hall = origin_argument(parse_origin, "--hall")
    p_build.add_argument("--hall", type=hall, metavar="ORIGIN", help=HALL_HELP)
    p_check = sub.add_parser("check", help="validate deck/ without writing anything")
    p_check.add_argument("--deck", type=Path, help="the deck file (default deck/deck.yaml)")
    p_check.add_argument(
        "--run",
        action="store_true",
        help="also run every cell (after the prelude), every try: edit and every exercise under "
        "CPython, as the page would: the check to run the night before a lecture",
    )
    p_serve = sub.add_parser("serve", help="build if needed and serve on localhost")
    p_serve.add_argument("--hall", action="store_true", help="the live hall: devices follow the presenter")
    p_serve.add_argument("--watch", action="store_true", help="rebuild on every save; open pages follow")
    p_serve.add_argument("--deck", type=Path, help="another deck file (built into a dist/ beside it)")
    add_hall_arguments(p_serve)
    p_pdf = sub.add_parser("pdf", help="print the deck, with computed results, to a PDF")
    p_pdf.add_argument("--out", type=Path, default=Path("dist-pdf/privacidad-diferencial.pdf"))
    p_pdf.add_argument("--deck", type=Path, help="another deck file (built apart; default deck/deck.yaml)")
    p_pdf.add_argument("--timeout", type=float, default=300.0, help="seconds to wait for every cell to run")
    p_pdf.add_argument(
        "--solutions", action="store_true", help="each exercise's solution, run, with its verdict (a key)"
    )
    p_pdf.add_argument("--notes", action="store_true", help="the speaker notes, on a page after each slide")
    p_new = sub.add_parser("new", help="start a new lecture in a new folder")
    p_new.add_argument("path", type=Path, help="the new lecture's folder (new or empty)")
    p_new.add_argument("--title", required=True, help="the lecture's title")
    p_new.add_argument("--package", help="create a Python package of your own, loaded instead of dplab")
    return parser


def _new(project: Project, args) -> int:
    from dpdeck.build.scaffold import new_deck

    files = new_deck(args.path, args.title, args.package, invocation=args.invocation)
    deck_file = args.path / "deck.yaml"
    print("\n".join(f"wrote {path}" for path in files))
    print(f"next: {args.invocation} check --deck {deck_file}")
    print(f"      {args.invocation} build --deck {deck_file} --out {args.path / 'dist'}")
    return 0


def _build(project: Project, args) -> int:
    deck = build(project, deck_file=args.deck, dist=args.out, hall=args.hall)
    print(f"built {len(deck.slides)} slides into {args.out or project.dist}/index.html")
    return 0


def _check(project: Project, args) -> int:
    deck = check(project, deck_file=args.deck)
    cells = sum(1 for s in deck.slides if s.code)
    print(f"ok: {len(deck.slides)} slides, {cells} code cells")
    return _run_cells(project, deck) if args.run else 0


def _run_cells(project: Project, deck) -> int:
    from dpdeck.build.progress import Progress
    from dpdeck.build.runcheck import run_deck

    try:
        with Progress("running the cells under CPython") as progress:
            report = run_deck(deck, project.package_src, progress=progress.say)
    except KeyboardInterrupt:
        print("check --run: interrupted", file=sys.stderr)
        return 130
    for warning in report.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    for failure in report.failures:
        print(f"error in the deck: {failure}", file=sys.stderr)
    ran = f"{report.cells} cells, {report.edits} try: edits, {report.exercises} exercises"
    if report.failures:
        print(f"{len(report.failures)} failed of {ran}, in {report.seconds:.1f} s", file=sys.stderr)
        return 1
    print(f"ok: ran {ran} under CPython in {report.seconds:.1f} s, no error")
    return 0


def _watching(project: Project, deck_file: Path | None, dist: Path, isolate: bool):
    """``serve --watch`` on the hall's server: what it watches (the deck's folder, templates/,
    static/, the Python packages), how it rebuilds (into the served ``dist``), and the channel
    that tells the open pages (dpdeck/serve/watch.py)."""
    from dpdeck.serve.watch import Watcher, attach

    from .hall.options import Extension

    deck_file = (deck_file or project.deck_file).resolve()
    roots = [deck_file.parent, project.templates, project.static, project.package_src]
    watcher = Watcher(roots=roots, rebuild=lambda: build(project, deck_file=deck_file, dist=dist).files)
    return Extension(
        attach=lambda app: attach(app, dist, watcher, isolate),  # its own channel: /_watch/events
        note="watching the deck, templates/, static/ and the Python package: a save rebuilds, open pages follow",
    )


EXIT_PORT_TAKEN = 4


def _serve(project: Project, args) -> int:
    """``serve``; a port already taken is one line in Spanish and exit code 4, not a traceback."""
    import errno

    try:
        return _serve_on(project, args)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            raise
        print(
            f"error: el puerto {args.port} ya está en uso (¿otra presentación o servidor abierto?): "
            f"ciérrelo, o elija otro puerto con --port {args.port + 1}",
            file=sys.stderr,
        )
        return EXIT_PORT_TAKEN


def _serve_on(project: Project, args) -> int:
    from .hall.net import INSECURE_NOTE, LOOPBACK, audience_urls, ssl_context
    from .serve.server import make_server

    dist = args.deck.resolve().parent / "dist" if args.deck else project.dist
    if args.deck or _dist_is_stale(project):
        build(project, deck_file=args.deck, dist=dist)
    if args.hall or args.watch:
        from .hall.run import run

        watching = (_watching(project, args.deck, dist, not args.no_isolation),) if args.watch else ()
        return run(hall_options(args, dist, announce=args.hall, extensions=watching), project.root)
    server = make_server(dist, host=args.host, port=args.port, isolate=not args.no_isolation, quiet=False)
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
    import shutil
    import tempfile

    from dpdeck.serve.pdf import export_pdf

    dist, scratch = project.dist, None
    try:
        if args.deck:  # another deck: built into a folder of its own, removed afterwards
            scratch = Path(tempfile.mkdtemp(prefix="dpdeck-pdf-"))
            dist = scratch / "dist"
            build(project, deck_file=args.deck, dist=dist)
        elif _dist_is_stale(project):
            build(project)
        report = export_pdf(dist, args.out, timeout=args.timeout, solutions=args.solutions, notes=args.notes)
    finally:
        if scratch:
            shutil.rmtree(scratch, ignore_errors=True)
    print(
        f"wrote {args.out}: {report['pages']} pages, {report['cells']} cells run "
        f"in the browser in {report['seconds']} s"
    )
    if "solutions" in report:
        right = sum(v == "ok" for v in report["solutions"].values())
        print(f"  with the solutions: {right} of {len(report['solutions'])} judged correct")
    if report["errors"]:
        print(f"warning: cells with errors: {', '.join(report['errors'])}", file=sys.stderr)
        return 1
    return 0


COMMANDS = {"build": _build, "check": _check, "serve": _serve, "pdf": _pdf, "new": _new}


def _python() -> str:
    """The interpreter running this command, as a hint to type: ``.venv/bin/python`` when it is
    the checkout's venv (a bare ``python`` may be one without the build's packages: brotli…)."""
    exe = Path(sys.executable)
    try:
        return str(exe.relative_to(Path.cwd()))
    except ValueError:
        return str(exe) if exe.name else "python"


def main(argv: list[str] | None = None, prog: str = "dpdeck", project: Project | None = None) -> int:
    """Run one command; its exit code. build.py passes its name and the repository's project."""
    args = _parser(prog).parse_args(argv)
    args.invocation = f"{_python()} {prog}" if prog.endswith(".py") else prog
    try:
        return COMMANDS[args.command](project or default_project(), args)
    except DeckError as exc:
        print(f"error in the deck: {exc}", file=sys.stderr)
        return 1
    except BuildEnvironmentError as exc:
        print(f"build environment error (not a problem of the deck): {exc}", file=sys.stderr)
        return exc.exit_code


def entry_point() -> None:
    """The ``dpdeck`` command (pyproject.toml's ``[project.scripts]``)."""
    sys.exit(main())


if __name__ == "__main__":
    entry_point()
