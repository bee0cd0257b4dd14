"""``build.py serve --hall``: start the hall, print who opens what, serve until Ctrl+C or SIGTERM."""

from __future__ import annotations

import asyncio
import datetime
import logging
import re
import signal
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp import web

from . import eventloop
from .admission import Admission, MemoryAdmission, secret_from_token
from .app import Hall, make_app
from .connections import GuardedRunner, GuardedSite
from .logs import AccessLogger, ServerLog
from .messages import LiveSpec
from .net import INSECURE_NOTE, LOOPBACK, audience_urls, presenter_url, ssl_context
from .options import HallOptions
from .store import HallStore, SqliteStore, Store
from .token import load_or_create

log = logging.getLogger("dpdeck.hall")


SESSION_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")  # fullmatch: no trailing "\n"


def session_name(session: str | None) -> str:
    """The session's name: the one given (letters, digits, ``_.-``), else today's date."""
    name = session or datetime.date.today().isoformat()
    if not SESSION_RE.fullmatch(name):
        raise SystemExit(f"--hall-session {name!r}: use letras, cifras, '-', '_' o '.' (64 como mucho)")
    return name


def default_db(root: Path, session: str | None = None) -> Path:
    """The session's hall file: a server restarted in the same session continues (nothing lost);
    another session (``--hall-session``, or another day) starts empty."""
    return root / ".hall" / f"hall-{session_name(session)}.sqlite3"


def hall_file(opts: HallOptions, root: Path) -> Path:
    """The hall's SQLite file (with ``--hall-redis``: where it would be, the token file's default
    place): ``--hall-db`` as given, else the session's file under ``root/.hall/``.

    ``--hall-db`` and ``--hall-session`` both name that file, so a SQLite hall refuses the two
    together (SystemExit, saying which to keep) rather than silently continue a file the
    professor meant to leave (issue 46, item 16). With ``--hall-redis`` the session names the hall's
    prefix in Redis and ``--hall-db`` only the token file's place: both are kept."""
    if opts.db is not None and opts.session is not None and not opts.redis:
        raise SystemExit(
            f"--hall-session {opts.session} y --hall-db {opts.db} nombran los dos el archivo de la sala: "
            f"use uno solo (otra sesión con --hall-db: otro archivo, p. ej. "
            f"--hall-db {fresh_file(opts.db)})"
        )
    return opts.db or default_db(root, opts.session)


def fresh_file(db: Path) -> Path:
    """A file beside ``db`` for a clean start: ``hall.sqlite3`` → ``hall-clase.sqlite3``
    (``hall-clase.sqlite3`` → ``hall-clase-2.sqlite3``)."""
    tag = "clase-2" if db.stem.endswith("clase") else "clase"
    return db.with_name(f"{db.stem}-{tag}{db.suffix}")


def redis_prefix(session: str | None = None) -> str:
    """The session's hall in Redis, as ``default_db`` is its file: ``hall-<session>:``."""
    return f"hall-{session_name(session)}:"


def token_file(opts: HallOptions, db: Path) -> Path:
    """Where the presenter's token is kept (mode 0600): ``--hall-token-file``, else beside the
    hall's database (``db``: the SQLite file, or where it would be when the hall is in Redis). A
    restarted hall keeps the presenter's page, and so the devices that follow it; delete the file
    to revoke the link (the next start makes a new one)."""
    return opts.token_file or db.with_name(db.stem + ".token")


def session_note(db: Path, existed: bool, name: str | None) -> list[str]:
    """What the terminal says, in Spanish, of the session ``name`` (None: a file given with
    ``--hall-db``): a clean start, or a continued one with what it holds already (a rehearsal's
    answers would show in the lecture), and how to start clean with the options in use."""
    label = f"sesión «{name}»" if name else "archivo de la sala"
    store = HallStore(db)
    try:
        held = store.totals()
    finally:
        store.close()
    if not existed or not any(held.values()):
        same = "la misma sesión" if name else "el mismo archivo"
        return [f"  {label}: empieza limpia, guardada en {db} (un reinicio con {same} la continúa)"]
    if name is None:  # the file was given (--hall-db): another file starts clean, not a session
        fresh = f"--hall-db {fresh_file(db)}"
    else:
        fresh = "--hall-session " + ("clase-2" if name == "clase" else "clase")
    return [
        f"  {label}: CONTINÚA {db} (respuestas de encuestas: {held['answers']}; ejercicios resueltos: "
        f"{held['solves']}; conteos publicados: {held['releases']})",
        f"  (lo de un ensayo se vería en la clase: para empezar limpia, {fresh})",
    ]


def _live_spec(opts: HallOptions) -> LiveSpec:
    """The polls and exercises: ``--live``'s file, else the deck's ``dist/live.json``."""
    if opts.live is not None:
        return LiveSpec.read(opts.live)
    if opts.dist is None:
        raise ValueError("a hall without a deck (no --dist) needs its live.json (--live)")
    return LiveSpec.load(opts.dist)


def banner(
    audience: list[str],
    token: str,
    opts: HallOptions,
    kept_in: str,
    token_path: Path,
    listening: Sequence[str] = (),
    session: Sequence[str] = (),
    event_loop: str | None = None,
) -> str:
    """The hall's start-up lines, in Spanish as the professor's guide (docs/despliegue.md): the
    audience's URLs, the presenter's (kept apart: it moves every device), where the session is
    kept and whether it continues, and what to add when only this machine can reach it."""
    lines = [
        f"La sala está abierta (Ctrl+C la detiene; bucle de eventos: {event_loop})."
        if event_loop
        else "La sala está abierta (Ctrl+C la detiene).",
        "  público (dé esta dirección a la sala; la diapositiva de título y la tecla J la muestran en un QR):",
    ]
    lines += [f"    {url}" for url in audience]
    if opts.audience_url:  # the deck is elsewhere: where this process is, for the proxy in front
        lines.append(f"  la presentación se sirve allí; esta sala escucha en {' '.join(listening)}")
        lines += ["  presentador (guárdelo para usted: quien lo abra mueve todos los dispositivos):"]
        lines += [f"    {audience[0]}#presenter={token}"]
    else:
        lines += [
            "  presentador (en este equipo; guárdelo para usted: quien lo abra mueve todos los dispositivos):"
        ]
        scheme = "https" if opts.cert else "http"
        port = urlsplit(audience[0]).port or opts.port
        lines += [f"    {presenter_url(opts.host, port, scheme, audience)}#presenter={token}"]
    lines += list(session) or [f"  respuestas y posición guardadas en {kept_in}"]
    lines += [f"  el enlace del presentador se guarda en {token_path}"]
    if opts.host in LOOPBACK and not opts.audience_url:
        lines.append(
            "  solo este equipo puede abrirla: añada --host 0.0.0.0 para que entren los dispositivos de la sala"
        )
    if opts.cert is None and opts.host not in LOOPBACK and not opts.audience_url:
        lines.append(INSECURE_NOTE)
    return "\n".join(lines)


async def start(opts: HallOptions, root: Path) -> tuple[web.AppRunner, Hall, list[str]]:
    """Bind and start the hall; its runner, its Hall and the audience URLs (the real port in them)."""
    db = hall_file(opts, root)  # the SQLite file; the token file's place, with Redis too
    db.parent.mkdir(parents=True, exist_ok=True)
    existed = db.exists()
    token = load_or_create(token_file(opts, db))
    secret = secret_from_token(token)
    per_address = opts.limits.max_devices_per_address
    # annotated: mypy checks each back-end against the Store and Admission protocols here
    store: Store
    admission: Admission
    if opts.redis:
        from .redis_store import RedisAdmission, RedisStore

        redis = RedisStore(opts.redis, redis_prefix(opts.session))
        store, admission = redis, RedisAdmission(redis, secret, per_address)
    else:
        sqlite = SqliteStore(db)
        store, admission = sqlite, MemoryAdmission(sqlite, secret, per_address)
    hall = Hall(
        dist=opts.dist,
        store=store,
        token=token,
        admission=admission,
        spec=_live_spec(opts),
        audience=[],
        isolate=opts.isolate,
        limits=opts.limits,
        announce=opts.announce,
        allow_origins=opts.allow_origins,
        trusted_proxies=opts.trusted_proxies,
        allow_hosts=opts.allow_hosts,
    )
    app = make_app(hall)
    for extension in opts.extensions:
        extension.attach(app)
    runner = GuardedRunner(
        app,
        opts.limits,
        opts.trusted_proxies,
        access_log_class=AccessLogger,
        logger=ServerLog(),
        handle_signals=False,
    )
    await runner.setup()
    context = ssl_context(opts.cert, opts.key)
    site = GuardedSite(runner, opts.host, opts.port, ssl_context=context, shutdown_timeout=1.0, backlog=1024)
    await site.start()
    port = runner.addresses[0][1]
    hall.listening = audience_urls(opts.host, port, "https" if context else "http")
    hall.audience[:] = [opts.audience_url] if opts.audience_url else hall.listening
    if opts.redis:  # the session names the hall in Redis: the same one for every process given it
        hall.session_note = [
            f"  sesión «{session_name(opts.session)}»: en Redis, {opts.redis} (claves "
            f"{redis_prefix(opts.session)}*; los procesos con la misma --hall-session comparten la sala)"
        ]
    else:
        hall.session_note = session_note(db, existed, None if opts.db else session_name(opts.session))
    return runner, hall, hall.audience


async def serve(opts: HallOptions, root: Path) -> None:
    runner, hall, audience = await start(opts, root)
    if opts.announce:
        kept = token_file(opts, hall_file(opts, root))
        note = hall.session_note
        print(
            banner(
                audience, hall.token, opts, hall.store.description, kept, hall.listening, note,
                event_loop=eventloop.loop_name(asyncio.get_running_loop()),
            ),
            flush=True,
        )  # fmt: skip
    else:
        print(f"serving the deck at {' '.join(audience)} (Ctrl+C stops)", flush=True)
    for extension in opts.extensions:
        if extension.note:
            print(extension.note, flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


def run(opts: HallOptions, root: Path, quiet: bool = False) -> int:
    hall_file(opts, root)  # options that contradict each other stop here, before anything starts
    logging.basicConfig(level=logging.WARNING if quiet else logging.INFO, format="%(message)s")
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING if quiet else logging.INFO)
    eventloop.run(serve(opts, root), opts.event_loop)
    return 0
