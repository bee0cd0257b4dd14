"""``build.py serve --hall``: start the hall, print who opens what, serve until Ctrl+C or SIGTERM."""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
import signal
from dataclasses import dataclass
from pathlib import Path

from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from .app import Hall, make_app
from .limits import Limits
from .messages import LiveSpec
from .net import INSECURE_NOTE, LOOPBACK, audience_urls, ssl_context
from .store import HallStore
from .token import load_or_create

log = logging.getLogger("deckbuild.hall")


class AccessLogger(AbstractAccessLogger):
    """One line a request: method, path (no query: no device id), status, time. No address, no agent."""

    def log(self, request, response, time: float) -> None:
        self.logger.info("%s %s %s %.3fs", request.method, request.path, response.status, time)


@dataclass
class HallOptions:
    dist: Path
    host: str = "127.0.0.1"
    port: int = 8000
    isolate: bool = True
    token_file: Path | None = None
    db: Path | None = None
    cert: Path | None = None
    key: Path | None = None
    limits: Limits = Limits()
    watch: object | None = None  # a deckbuild.watch.Watcher: rebuild on save, tell the pages
    announce: bool = True  # /_hall/hello answers (a hall); False for --watch alone
    allow_origins: frozenset[str] = frozenset()  # other origins whose pages may POST (--allow-origin)
    session: str | None = None  # --hall-session NAME: the hall file .hall/hall-NAME.sqlite3


SESSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def session_name(session: str | None) -> str:
    """The session's name: the one given (letters, digits, ``_.-``), else today's date."""
    name = session or datetime.date.today().isoformat()
    if not SESSION_RE.match(name):
        raise SystemExit(f"--hall-session {name!r}: use letters, digits, '-', '_' or '.' (at most 64)")
    return name


def default_db(root: Path, session: str | None = None) -> Path:
    """The session's hall file: a server restarted in the same session continues (nothing lost);
    another session (``--hall-session``, or another day) starts empty."""
    return root / ".hall" / f"hall-{session_name(session)}.sqlite3"


def session_note(store: HallStore, db: Path, existed: bool, name: str | None) -> list[str]:
    """What the terminal says of the session ``name`` (None: a file given with ``--hall-db``):
    a clean start, or a continued one with what it holds already (a rehearsal's answers would
    show in the lecture), and how to start clean."""
    label = f"session «{name}»" if name else "hall file"
    held = store.totals()
    if not existed or not any(held.values()):
        return [f"  {label}: a clean start, kept in {db} (a restart in the same session continues it)"]
    fresh = "clase-2" if name == "clase" else "clase"
    return [
        f"  {label}: CONTINUES {db}: {held['answers']} poll answers, {held['solves']} solved exercises, "
        f"{held['releases']} released counts",
        f"  (a rehearsal's answers show in the lecture: for a clean start, --hall-session {fresh})",
    ]


def banner(audience: list[str], token: str, opts: HallOptions, db: Path, session: list[str] = ()) -> str:
    lines = [
        "The hall is open (Ctrl+C stops it).",
        "  audience (give this one to the hall; the title slide and J show it as a QR):",
    ]
    lines += [f"    {url}" for url in audience]
    lines += ["  presenter (keep it to yourself: whoever opens it moves every device):"]
    lines += [f"    {audience[0]}#presenter={token}"]
    lines += list(session) or [f"  answers and position kept in {db}"]
    if opts.host in LOOPBACK:
        lines.append("  only this machine can open it: add --host 0.0.0.0 to let the hall's devices in")
    if opts.cert is None and opts.host not in LOOPBACK:
        lines.append(INSECURE_NOTE)
    return "\n".join(lines)


async def start(opts: HallOptions, root: Path) -> tuple[web.AppRunner, Hall, list[str]]:
    """Bind and start the hall; its runner, its Hall and the audience URLs (the real port in them)."""
    db = opts.db or default_db(root, opts.session)
    db.parent.mkdir(parents=True, exist_ok=True)
    existed = db.exists()
    store = HallStore(db)
    hall = Hall(
        dist=opts.dist,
        store=store,
        token=load_or_create(opts.token_file),
        spec=LiveSpec.load(opts.dist),
        audience=[],
        isolate=opts.isolate,
        limits=opts.limits,
        announce=opts.announce,
        allow_origins=opts.allow_origins,
    )
    app = make_app(hall)
    if opts.watch is not None:
        from ..watch import attach

        attach(app, opts.dist, opts.watch, opts.isolate)  # its own channel: /_watch/events
    runner = web.AppRunner(app, access_log_class=AccessLogger, handle_signals=False)
    await runner.setup()
    context = ssl_context(opts.cert, opts.key)
    site = web.TCPSite(runner, opts.host, opts.port, ssl_context=context, shutdown_timeout=1.0)
    await site.start()
    port = runner.addresses[0][1]
    hall.audience[:] = audience_urls(opts.host, port, "https" if context else "http")
    hall.session_note = session_note(store, db, existed, None if opts.db else session_name(opts.session))
    return runner, hall, hall.audience


async def serve(opts: HallOptions, root: Path) -> None:
    runner, hall, audience = await start(opts, root)
    if opts.announce:
        print(banner(audience, hall.token, opts, Path(hall.store.path), hall.session_note), flush=True)
    else:
        print(f"serving the deck at {' '.join(audience)} (Ctrl+C stops)", flush=True)
    if opts.watch is not None:
        print(
            "watching the deck, templates/, static/ and the Python package: a save rebuilds, open pages follow",
            flush=True,
        )
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def run(opts: HallOptions, root: Path, quiet: bool = False) -> int:
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO, format="%(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING if quiet else logging.INFO)
    asyncio.run(serve(opts, root))
    return 0
