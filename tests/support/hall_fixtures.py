"""Shared pieces of the hall server's tests: a small dist/ with its own live.json, a Hall, a client.

``make_hall`` builds the Hall on SQLite, or on the session's real Redis while a test runs with
the ``hall_store`` fixture's ``redis`` parameter (tests/unit/conftest.py)."""

from __future__ import annotations

import asyncio
import json
import threading
from pathlib import Path
from urllib.parse import urlsplit

from aiohttp.test_utils import TestClient, TestServer

from dpdeck.hall.admission import Admission, MemoryAdmission, exercise_scope, secret_from_token
from dpdeck.hall.app import Hall, make_app
from dpdeck.hall.limits import Limits
from dpdeck.hall.messages import LiveSpec
from dpdeck.hall.redis_store import RedisAdmission, RedisStore
from dpdeck.hall.store import SqliteStore, Store

TOKEN = "t" * 43
LIVE = {
    "polls": {
        "copia": {"k": 2, "epsilon": 1.0986, "slide": 20},
        "color": {"k": 4, "epsilon": 1.0, "slide": 21},
    },
    "exercises": ["ex-escala"],
}
DEV = ["%032x" % (i + 1) for i in range(50)]
STORE: dict = {"redis": None}  # the RedisServer the running test uses, or None: SQLite


def make_store(tmp_path: Path) -> Store:
    """A store for one test: the hall's SQLite file in ``tmp_path``, or the session's Redis."""
    if STORE["redis"] is not None:
        return RedisStore(STORE["redis"].url, prefix="hall:")
    return SqliteStore(tmp_path / "hall.sqlite3")


def make_dist(tmp_path: Path, live: dict | None = LIVE) -> Path:
    dist = tmp_path / "dist"
    (dist / "vendor" / "pkg-1").mkdir(parents=True)
    (dist / "index.html").write_text("<!doctype html><title>deck</title>", encoding="utf-8")
    (dist / "app.js").write_text("console.log('original');", encoding="utf-8")
    (dist / "app.js.br").write_bytes(b"BROTLI")
    (dist / "app.js.gz").write_bytes(b"GZIP")
    (dist / "vendor" / "pkg-1" / "x.wasm").write_bytes(b"\0asm")
    if live is not None:
        (dist / "live.json").write_text(json.dumps(live), encoding="utf-8")
    (tmp_path / "secret.txt").write_text("SECRET-OUTSIDE-DIST", encoding="utf-8")
    return dist


def make_admission(store: Store, cap: int = Limits().max_devices_per_address) -> Admission:
    """The admission ``store``'s hall has (run.py), as a new process makes it: the rounds in
    memory and the pool in SQLite beside SQLite, all shared in Redis beside Redis; ``cap``
    devices per address; its secret from ``TOKEN``."""
    secret = secret_from_token(TOKEN)
    if isinstance(store, RedisStore):
        return RedisAdmission(store, secret, cap)
    return MemoryAdmission(store, secret, cap)


def make_hall(tmp_path: Path, live: dict | None = LIVE, limits: Limits | None = None) -> Hall:
    """A Hall on the test's store, with that store's admission (``make_admission``), the pool's
    cap from ``limits``."""
    dist = make_dist(tmp_path, live)
    limits = limits or Limits()
    store = make_store(tmp_path)
    return Hall(
        dist=dist,
        store=store,
        admission=make_admission(store, limits.max_devices_per_address),
        token=TOKEN,
        spec=LiveSpec.load(dist),
        audience=["http://192.0.2.7:8000/"],
        limits=limits,
    )


def on_fresh_thread(call):
    """``call()`` on a thread of its own, and its result (or its exception, re-raised here).

    The browser tests' Playwright (sync API) keeps an event loop running on the main thread for the
    whole session, where ``asyncio.run`` refuses to start; a fresh thread has no loop.
    """
    box: dict = {}

    def target():
        try:
            box["result"] = call()
        except BaseException as exc:  # re-raised on the caller's thread, with its traceback
            box["error"] = exc

    thread = threading.Thread(target=target, name="hall-test-loop")
    thread.start()
    thread.join()
    if "error" in box:
        raise box["error"]
    return box["result"]


def run_async(main):
    """``asyncio.run(main())`` on a thread of its own (:func:`on_fresh_thread`), and its result."""
    return on_fresh_thread(lambda: asyncio.run(main()))


def run_with_client(hall: Hall, scenario):
    """Run ``await scenario(client)`` against the hall's app on a test server (127.0.0.1)."""

    async def main():
        server = TestServer(make_app(hall), host="127.0.0.1")  # its startup opens the store
        await server.start_server()
        # as a page the hall served: its POSTs carry the hall's own origin
        async with TestClient(server, headers={"Origin": origin_of(str(server.make_url("/")))}) as client:
            return await scenario(client)

    return run_async(main)


def stored(hall: Hall, method: str, *args):
    """What the hall's store keeps, read from test code outside a running hall: ``await
    store.<method>(*args)`` on the store opened anew (as a restarted server would)."""

    async def main():
        await hall.store.open(lambda event, data: None)
        try:
            return await getattr(hall.store, method)(*args)
        finally:
            await hall.store.close()

    return run_async(main)


def admit(hall: Hall, poll: str, devices: list[str], round_: int = 1) -> list[str]:
    """Show ``poll``'s round (the first, unless told) to ``devices`` as if each held a channel
    then: their tickets, in order (the tests of validation and limits, which need answers that
    are admitted)."""

    async def main():
        await hall.store.open(lambda event, data: None)  # the pool is the store's
        try:
            for device in devices:  # each joins the pool, as its stream would
                await hall.admission.join(device, "127.0.0.1")
            tickets = await hall.admission.admit(poll, round_, devices)
        finally:
            await hall.store.close()
        hall.hall_state, _ = hall.hall_state.show(poll, round_)
        return [tickets[d] for d in devices]

    return run_async(main)


def solve_ticket(hall: Hall, exercise: str, device: str) -> str:
    """The ticket the hall gives ``device`` for ``exercise`` (its stream's ``tickets`` event)."""
    return hall.admission.tickets.issue(exercise_scope(exercise), device)


def solve_body(hall: Hall, device: str, exercise: str = "ex-escala") -> dict:
    """A solve as ``device``'s page posts it: its token (here the device id itself: one token
    per device) and the ticket the hall gave that device for ``exercise``."""
    return {"token": device, "exercise": exercise, "ticket": solve_ticket(hall, exercise, device)}


def origin_of(url: str) -> str:
    """``scheme://host:port`` of a URL: what a browser sends as ``Origin`` from a page there."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def bearer(token: str = TOKEN) -> dict:
    return {"Authorization": f"Bearer {token}"}


async def read_events(
    response, count: int, timeout: float = 3.0, skip: tuple[str, ...] = ("tickets",)
) -> list[tuple[str, dict]]:
    """The next ``count`` events (name, data) of an SSE response, leaving out those named in
    ``skip`` (by default a greeting's exercise tickets, which only the tests of solves read)."""
    out, event, data = [], None, None

    async def loop():
        nonlocal event, data
        while len(out) < count:
            line = (await response.content.readline()).decode().rstrip("\n")
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: "):
                data = json.loads(line[6:])
            elif line == "" and event is not None:
                if event not in skip:
                    out.append((event, data))
                event, data = None, None

    await asyncio.wait_for(loop(), timeout)
    return out


async def read_until(
    response, names: tuple[str, ...], timeout: float = 3.0, skip: tuple[str, ...] = ("tickets", "devices")
) -> dict[str, dict]:
    """Events of an SSE response, read until every one of ``names`` has come, by name (the last
    of each). For what comes at its own pace beside them, such as the ``devices`` count, sent at
    most once a second: how many of those come first depends on timing, never on the hall."""
    seen: dict[str, dict] = {}

    async def loop():
        while not set(names) <= seen.keys():
            seen.update(await read_events(response, 1, timeout, skip))

    await asyncio.wait_for(loop(), timeout)
    return seen
