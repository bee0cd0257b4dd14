"""``build.py serve --watch``: rebuild when an author saves, and tell the open pages.

What is watched: the deck's folder (its YAML, images, its own package), ``templates/``,
``static/`` and ``pyodide_pkg/``. Every ``POLL_SECONDS`` the watcher compares a snapshot of
those files (path → size and modification time); a change that holds still for ``SETTLE_SECONDS``
is rebuilt into the served ``dist/`` (atomically, as every build), and the pages hear:

- ``built`` ``{"reload": false}`` when only the deck's YAML changed: the page swaps in the
  slides whose text changed and keeps Python as it is (a slide with a cell, or a change to
  the prelude or the slides' order, makes it reload itself onto the same slide instead);
- ``built`` ``{"reload": true}`` when templates, static files or a Python package changed:
  the page reloads onto the same slide (Python restarts: the package may have changed; the
  audience's edits are kept in the browser as always);
- ``failed`` ``{"message"}`` when the build refused the deck: the page shows the terminal's
  message (file, line, slide and field) over the slides until the next good build.

The pages hear them on the watcher's own Server-Sent Events stream, ``/_watch/events``, never
on the hall's ``/_hall/events``: a watching page is no device of the hall (with ``--hall``, it
would count twice). The page's side is ``watch_client.js`` beside this file: the server adds it
to the page it serves, so a built ``dist/`` never carries any of it.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from dpdeck.wire import check_event

from .sse import pump

POLL_SECONDS = 0.25
SETTLE_SECONDS = 0.1  # an editor's save is several writes: wait for the last
CLIENT = Path(__file__).with_name("watch_client.js")
CLIENT_URL = "/_watch/client.js"
EVENTS_URL = "/_watch/events"  # the watcher's own channel: never the hall's /_hall/events
MAX_WATCH_STREAMS = 64  # an author's tabs, not a hall
HEARTBEAT_SECONDS = 15.0
NO_STORE = {"Cache-Control": "no-store"}
SKIPPED_PARTS = {"__pycache__", "dist", "node_modules", ".git", ".venv"}

Snapshot = dict[str, tuple[int, int]]


def snapshot(roots: Iterable[Path]) -> Snapshot:
    """Every file under ``roots`` (hidden files, caches and build outputs left out) → (size, mtime ns)."""
    files: Snapshot = {}
    for root in roots:
        if not root.exists():
            continue
        for path in [root] if root.is_file() else root.rglob("*"):
            rel = path.relative_to(root.parent)
            if any(p in SKIPPED_PARTS or p.startswith(".") for p in rel.parts) or not path.is_file():
                continue
            try:
                stat = path.stat()
            except OSError:  # deleted between the listing and the stat: the next poll sees it
                continue
            files[str(path)] = (stat.st_size, stat.st_mtime_ns)
    return files


def changed_files(before: Snapshot, after: Snapshot) -> set[str]:
    """The files added, removed or modified between two snapshots."""
    return {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}


def needs_reload(changed: Iterable[str], deck_yaml: Iterable[Path]) -> bool:
    """True unless every changed file is one of the deck's YAML files (text the page can swap in)."""
    yaml_files = {str(p.resolve()) for p in deck_yaml}
    return any(str(Path(p).resolve()) not in yaml_files for p in changed)


def inject_client(html: str) -> str:
    """The served page with the watch client added (a module script from this origin: the
    page's CSP, ``script-src 'self'``, allows it without a hash)."""
    tag = f'<script type="module" src="{CLIENT_URL}"></script>\n'
    return html.replace("</head>", tag + "</head>", 1)


@dataclass
class Watcher:
    """Polls ``roots``; on a change that held still for one poll, calls ``rebuild`` (in a thread)
    and ``publish(event, data)`` with what the pages should hear. ``rebuild`` returns the deck's
    YAML files on success and raises ``DeckError`` (its text is the terminal's) on a refusal."""

    roots: list[Path]
    rebuild: Callable[[], list[Path]]
    publish: Callable[[str, dict], None] = print
    deck_yaml: list[Path] = field(default_factory=list)
    log: Callable[[str], None] = print

    async def run(self) -> None:
        from dpdeck.build.errors import DeckError

        loop = asyncio.get_running_loop()
        seen = await loop.run_in_executor(None, snapshot, self.roots)
        while True:
            await asyncio.sleep(POLL_SECONDS)
            now = await loop.run_in_executor(None, snapshot, self.roots)
            changes = changed_files(seen, now)
            if not changes:
                continue
            await asyncio.sleep(SETTLE_SECONDS)
            now = await loop.run_in_executor(None, snapshot, self.roots)
            changes |= changed_files(seen, now)
            seen = now
            started = time.monotonic()
            try:
                self.deck_yaml = await loop.run_in_executor(None, self.rebuild)
            except DeckError as exc:
                self.log(f"error in the deck: {exc}")
                self.publish("failed", {"message": str(exc)})
                continue
            reload = needs_reload(changes, self.deck_yaml)
            self.log(
                f"rebuilt in {time.monotonic() - started:.2f} s ({len(changes)} file(s) changed; "
                f"pages {'reload' if reload else 'swap slides'})"
            )
            self.publish("built", {"reload": reload})


class WatchChannel:
    """The watcher's own Server-Sent Events stream, ``/_watch/events``: the author's open pages
    hear ``built`` and ``failed`` here, apart from the hall's live channel, so a watching page is
    never counted as a device of the hall (``serve --hall --watch``), and needs no device id."""

    def __init__(self, max_streams: int = MAX_WATCH_STREAMS):
        self.max_streams = max_streams
        self.queues: set[asyncio.Queue] = set()

    def publish(self, event: str, data: dict) -> None:
        check_event("watch", event, data)  # only what dpdeck/wire declares
        message = f"event: {event}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n".encode()
        for queue in list(self.queues):
            if queue.full():  # a page that stopped reading: ended, it reconnects
                self._end(queue)
            else:
                queue.put_nowait(message)

    def _end(self, queue: asyncio.Queue) -> None:
        self.queues.discard(queue)
        while queue.full():
            queue.get_nowait()
        queue.put_nowait(None)

    def shutdown(self) -> None:
        for queue in list(self.queues):
            self._end(queue)

    async def stream(self, request, headers: dict[str, str]):
        from aiohttp import web

        if len(self.queues) >= self.max_streams:
            return web.Response(status=503, text="Demasiadas páginas abiertas.", headers=headers)
        queue: asyncio.Queue = asyncio.Queue(64)
        self.queues.add(queue)
        response = web.StreamResponse(
            headers={**headers, "Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        try:
            await pump(request, response, queue, b"retry: 1000\n\n", HEARTBEAT_SECONDS)
        finally:
            self.queues.discard(queue)
        return response


def attach(app, dist: Path, watcher: Watcher, isolate: bool = True) -> WatchChannel:
    """Serve the page with the client added, the client itself and its channel
    (``EVENTS_URL``), and run ``watcher`` while ``app`` (the hall's aiohttp application) runs;
    its events go out on that channel only. Returns the channel. The three answers carry the
    static files' isolation headers (``isolate``), and are never cached."""
    from aiohttp import web

    from .staticfiles import base_headers

    channel = WatchChannel()
    headers = {**base_headers("/", isolate), **NO_STORE}

    @web.middleware
    async def pages(request, handler):
        if request.method == "GET" and request.path == CLIENT_URL:
            return web.Response(text=CLIENT.read_text(encoding="utf-8"), content_type="text/javascript",
                                headers=headers)  # fmt: skip
        if request.method == "GET" and request.path == EVENTS_URL:
            return await channel.stream(request, headers)
        if request.method == "GET" and request.path in ("/", "/index.html"):
            html = inject_client((dist / "index.html").read_text(encoding="utf-8"))
            return web.Response(text=html, content_type="text/html", headers=headers)
        return await handler(request)

    async def watching(app):  # cleanup_ctx: the watcher runs as long as the app
        task = asyncio.get_running_loop().create_task(watcher.run())
        try:
            yield
        finally:
            task.cancel()

    async def shutdown(app) -> None:
        channel.shutdown()  # streams end, so the server stops at once

    watcher.publish = channel.publish
    app.middlewares.append(pages)
    app.cleanup_ctx.append(watching)
    app.on_shutdown.append(shutdown)
    return channel
