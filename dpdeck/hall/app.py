"""The hall's aiohttp application: ``dist/`` plus the ``/_hall/`` endpoints of docs/live-hall-protocol.md.

Only the token holder moves anyone or asks for an exercise's count (``Authorization: Bearer``,
compared in constant time; a refused attempt is logged with its method and path, never the token
or the address); that count is drawn noised by ``release`` and no true count ever leaves the
server. Every POST needs a JSON body from an allowed ``Origin`` (``_post_guard``); each route's
access is declared once (``dpdeck/wire/hall.py``), bound by ``posts`` and applied by ``_access``: every body is checked by
``messages`` (≤ 1 KiB, known poll, answer in range), every device POST passes the rate limits of
``limits``; streams beyond the bounds (the hall's, an address's, a device's) get a 503 or 429.
Every refusal is a ``Refused`` (or ``Invalid``, ``Unavailable``) answered by ``_refusals``, as a
Spanish text (``texts``). Answers are plain text or JSON, never HTML; nothing a student sends is
echoed.

``Hall`` is the edge: the hall's decisions are pure code in ``state`` (no clock, loop or SQL),
and ``Hall`` only performs them. It holds a ``state.HallState`` (the poll rounds this process
has shown, the devices count it last sent), calls the store (whose ``set_state`` applies the
seq rule ``state.keeps``), spawns tasks, arms the restart timer and sends what the decisions
say: ``state.route`` for each event from the store, ``HallState.show`` in ``_show``,
``HallState.devices`` in ``send_devices``, ``state.greeting`` for a new stream,
``state.reshow_after_reset`` after a reset and ``state.restart_grace`` at start.

A poll admits the devices holding a live channel when the presenter's position first reaches
its slide in a round (``admission``): each gets an ``admit`` event with its ticket on its own
stream, and an answer must spend an unused ticket (403 otherwise). The hooks are ``_show`` (a
state kept, a new round, a restart on a poll's slide), the greeting (a reconnecting device gets
its ticket again) and ``post_answer`` (``redeem``).
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import segno
from aiohttp import web

from dpdeck.serve.sse import pump

from ..wire import check_shape
from ..wire import hall as wire_hall
from ..wire.hall import PREFIX
from ..wire.rules import HOLD_UNTIL
from . import addresses, cors, hosts, logs, messages, proxy, state, static, texts
from .admission import Admission, exercise_scope
from .channel import Channel, Full, TooManyForAddress, TooManyForDevice
from .limits import Limits, RateLimiter
from .messages import Invalid, LiveSpec
from .release import HALL_BUDGET, RELEASE_EPSILON, release_count
from .state import HallState, Route
from .store import Store, StoreFull, Unavailable
from .token import bearer_matches

log = logging.getLogger("dpdeck.hall")
HEARTBEAT = 15.0  # seconds: a comment line that finds closed connections
RETRY_MS = 1000
NO_STORE = {"Cache-Control": "no-store"}
STORE_FULL_RETRY = "5"  # seconds a page waits before it sends again what a full disk refused
DEVICES_CHECK = 2.0  # seconds: how often a shared store's devices count is read again


@dataclass
class Hall:
    """Everything a request handler needs, kept on the application as ``app[HALL]``."""

    dist: Path | None  # None: a hall alone, the deck served elsewhere
    store: Store
    token: str
    spec: LiveSpec
    audience: list[str]
    admission: Admission  # who may contribute to a count (run.py: in memory and SQLite, or Redis)
    isolate: bool = True
    limits: Limits = field(default_factory=Limits)
    announce: bool = True  # False: no hall for the pages (serve --watch alone uses only the channel)
    allow_origins: frozenset[str] = frozenset()  # other origins whose pages may use the hall (cors.py)
    trusted_proxies: frozenset[str] = frozenset()  # peers whose X-Forwarded-For names the client (proxy.py)
    listening: list[str] = field(default_factory=list)  # where this process listens (audience may differ)
    allow_hosts: frozenset[str] = frozenset()  # more names the hall answers to (--allow-host, hosts.py)

    def __post_init__(self):
        self.channel = Channel(
            self.limits.max_streams, self.limits.max_streams_per_device, self.limits.max_streams_per_address
        )
        self.channel.on_devices = lambda: self.spawn(self.send_devices())
        self.limiter = RateLimiter(self.limits)
        self.hall_state = HallState()  # the decisions' memory: rounds shown here, devices count sent
        self.refused = 0
        self.tasks: set[asyncio.Task] = set()
        self._qr: bytes | None = None
        self._regrace: asyncio.TimerHandle | None = None
        self._session: str | None = None
        self.session_note: list[str] = []  # what the terminal says of the session (run.py)

    def hosts(self) -> frozenset[str]:
        """The names ``/_hall/`` answers to (hosts.py), from where this process listens, the
        audience URL, the allowed origins and ``allow_hosts``; made again when those change."""
        key = (tuple(self.listening), tuple(self.audience), self.allow_origins, self.allow_hosts)
        if getattr(self, "_hosts_key", None) != key:
            self._hosts = hosts.allowed_hosts([*key[0], *key[1], *self.allow_origins], self.allow_hosts)
            self._hosts_key = key
        return self._hosts

    async def open(self) -> None:
        """Connect the store: the events any process publishes reach this process's streams."""
        await self.store.open(self.on_event)
        if self.store.shared:  # other processes' devices come and go: read the count again
            self.spawn(self._check_devices())

    async def close(self) -> None:
        for task in list(self.tasks):
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.store.close()

    def spawn(self, coro) -> None:
        """Run ``coro`` in the background (kept until done); a store unreachable meanwhile is skipped."""

        async def guarded():
            try:
                await coro
            except Unavailable:
                log.warning("the store is unreachable: an event was not sent")

        task = asyncio.get_running_loop().create_task(guarded())
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def session(self) -> str:
        """The hall session's own id (``hello``), read from the store once."""
        if self._session is None:
            self._session = await self.store.session_id()
        return self._session

    async def devices(self) -> int:
        return await self.store.devices(self.channel.devices)

    async def send_devices(self, only_changed: bool = False) -> None:
        """This process's streams get the hall's devices count (every process's, with a shared store)."""
        n = await self.devices()  # read before the state: a concurrent caller's update is not lost
        self.hall_state, send = self.hall_state.devices(n, only_changed)
        if send:
            self.channel.publish("devices", {"n": self.hall_state.devices_sent})

    async def _check_devices(self) -> None:
        while True:
            await asyncio.sleep(DEVICES_CHECK)
            await self.send_devices(only_changed=True)

    def on_event(self, event: str, data: dict) -> None:
        """An event from any process (this one included), for this process's streams. A state on
        a poll's slide first admits this process's devices to the poll's round (``_show``)."""
        match state.route(self.spec, event, data):
            case Route.SHOW_THEN_PUBLISH:
                self.spawn(self._show_then_move(data))
            case Route.RELAY_TALLY:
                self.channel.relay_tally(data)
            case Route.PUBLISH:
                self.channel.publish(event, data)

    async def _show_then_move(self, position: dict) -> None:
        try:
            await _show(self, position)  # the tickets go out before the state that shows the poll
        finally:
            self.channel.publish("state", position)

    async def tally(self, poll: str) -> dict:
        """A poll's ``tally`` event: its randomized counts (none below ``HOLD_UNTIL`` answers),
        its round, how many devices the round admitted and the most devices the hall's pool
        admitted from one address (both None until the poll is shown)."""
        counts = await self.store.counts(poll, self.spec.polls[poll])
        n = sum(counts)
        if n < HOLD_UNTIL:  # held on the server too: no stream learns who just answered what
            counts = []
        round_ = await self.store.round(poll)
        admitted = await self.admission.admitted(poll, round_)
        cluster = None if admitted is None else (await self.admission.pool()).cluster
        return {
            "poll": poll,
            "n": n,
            "counts": counts,
            "round": round_,
            "admitted": admitted,
            "cluster": cluster,
        }

    async def publish_tally(self, poll: str) -> None:
        await self.store.publish("tally", await self.tally(poll))

    def qr_svg(self) -> bytes:
        if self._qr is None:
            qr = segno.make(self.audience[0] if self.audience else "http://127.0.0.1/", error="m")
            out = io.BytesIO()
            qr.save(
                out, kind="svg", xmldecl=False, svgns=True, omitsize=True, border=2, dark="#111", light="#fff"
            )
            self._qr = out.getvalue()
        return self._qr


HALL = web.AppKey("hall", Hall)


def _hall(request: web.Request) -> Hall:
    return request.app[HALL]


def _text(status: int, text: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.Response(
        status=status, text=text, content_type="text/plain", headers={**NO_STORE, **(headers or {})}
    )


class Refused(Exception):
    """A request the hall refuses: raised anywhere under a handler, answered by ``_refusals`` as
    plain Spanish text with ``status`` (the one way the hall answers an error)."""

    def __init__(self, status: int, text: str, headers: dict[str, str] | None = None):
        super().__init__(text)
        self.status, self.text, self.headers = status, text, headers or {}


def _json(shape: str, data: dict, status: int = 200) -> web.Response:
    """A JSON answer, of a shape ``dpdeck/wire`` declares (``ValueError`` otherwise)."""
    return web.json_response(check_shape(shape, data), status=status, headers=NO_STORE, dumps=json.dumps)


async def _body(request: web.Request) -> bytes:
    """The request's whole body (however many packets it comes in), refused (413) past
    ``MAX_BODY`` bytes without reading more, and (408) when it has not all arrived within
    ``limits.header_timeout`` seconds (a body sent a byte at a time holds a connection)."""
    if (request.content_length or 0) > messages.MAX_BODY:
        raise Refused(413, texts.REQUEST_TOO_LONG)
    body = b""
    try:
        async with asyncio.timeout(_hall(request).limits.header_timeout):
            while len(body) <= messages.MAX_BODY:
                chunk = await request.content.read(messages.MAX_BODY + 1 - len(body))
                if not chunk:
                    break
                body += chunk
    except TimeoutError:
        raise Refused(408, texts.BODY_TOO_SLOW, {"Connection": "close"}) from None
    if len(body) > messages.MAX_BODY:
        raise Refused(413, texts.REQUEST_TOO_LONG)
    return body


def _require_presenter(request: web.Request) -> None:
    hall = _hall(request)
    if not bearer_matches(request.headers.get("Authorization"), hall.token):
        hall.refused += 1
        log.warning(
            "refused a presenter request without the right token: %s %s",
            logs.printable(request.method),
            logs.printable(request.path),
        )
        raise Refused(403, texts.PRESENTER_ONLY)


@dataclass(frozen=True)
class Post:
    """A POST route of the hall, as ``posts`` binds it: its handler, who may send it and how
    its body is read. ``_access`` applies it before the handler runs: the presenter's token, or
    a device's rate limits (the request's, then the device's own once the body names it); the
    body checked by ``parse(body, spec)`` (400 with the reason) and handed to the handler as
    ``request[MESSAGE]``."""

    handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    parse: Callable[[bytes, LiveSpec], Any]
    presenter: bool  # True: the token holder only; False: any device, rate limited


MESSAGE = web.RequestKey[dict[str, Any]]("message", dict)


@web.middleware
async def _access(request: web.Request, handler):
    """Every POST of ``posts()``, before its handler: who may send it, its rate limits, its body."""
    post = request.app[POSTS].get(request.path) if request.method == "POST" else None
    if post is not None:
        hall = _hall(request)
        if post.presenter:
            _require_presenter(request)
        elif not hall.limiter.allow_request(request.remote, request.transport, proxy.forwarded(request)):
            raise Refused(429, texts.TOO_MANY_REQUESTS)
        message = post.parse(await _body(request), hall.spec)
        if not post.presenter and not await hall.store.take(message["token"], hall.limits.device):
            raise Refused(429, texts.TOO_MANY_REQUESTS)
        request[MESSAGE] = message
    return await handler(request)


async def hello(request: web.Request) -> web.Response:
    hall = _hall(request)
    if not hall.announce:  # --watch alone: no hall, said without a 404 (dpdeck/serve/server.py)
        return web.Response(status=204, headers=NO_STORE)
    return _json(
        "HelloReply",
        {
            "hall": 1,
            "audience": hall.audience,
            "devices": await hall.devices(),
            "counts": {"epsilon": RELEASE_EPSILON, "budget": HALL_BUDGET},
            "session": await hall.session(),
        },
    )


async def post_state(request: web.Request) -> web.Response:
    """The presenter's position: kept by the store if ``state.keeps`` says so, then published.
    A store that cannot write (a full disk) still relays it to every stream, then answers
    ``503`` (``StoreFull``): the devices follow, and a restarted hall has the last kept one."""
    hall, position = _hall(request), request[MESSAGE]
    try:
        kept = await hall.store.set_state(position)
    except StoreFull:
        await hall.store.publish("state", position)
        raise
    if kept:
        await hall.store.publish("state", position)
    return web.Response(status=204, headers=NO_STORE)


async def _show(hall: Hall, position: dict | None) -> None:
    """The presenter is at ``position``: performs ``HallState.show`` for the poll's current round
    there (if any): admit every device holding a channel here now and send each its ticket on
    its own stream; then every process's streams get the tally (how many admitted)."""
    poll = state.poll_on(hall.spec, position)
    if poll is None:
        return
    # the round first, the decision after: the state is read and written with no await between,
    # so two positions shown at once cannot both decide from the state before either (a lost update)
    round_ = await hall.store.round(poll)
    hall.hall_state, show = hall.hall_state.show(poll, round_)
    if show is None:
        return
    pooled = {sub.device for sub in hall.channel.subscribers if sub.pooled}
    tickets = await hall.admission.admit(show.poll, show.round, sorted(pooled))
    for sub in list(hall.channel.subscribers):
        ticket = tickets.get(sub.device)
        if ticket is not None:
            hall.channel.send(sub, *state.admit_event(show.poll, show.round, ticket))
    await hall.publish_tally(show.poll)


async def post_answer(request: web.Request) -> web.Response:
    """An answer spends its admission ticket, then is stored under its token: the ticket is not
    stored, and nothing records which ticket an answer spent."""
    hall, answer = _hall(request), request[MESSAGE]
    poll = answer["poll"]
    round_ = await hall.store.round(poll)
    ticket = answer["ticket"]
    if ticket is None or not await hall.admission.redeem(poll, round_, ticket):
        if await hall.store.has_answer(poll, answer["token"]):  # a resend of an answer kept already
            raise Refused(409, texts.ALREADY_ANSWERED)
        raise Refused(403, texts.NOT_ADMITTED)
    try:
        kept = await hall.store.add_answer(poll, answer["token"], answer["answer"])
    except Unavailable:  # nothing kept: the page's resend (same token, same ticket) may count
        with contextlib.suppress(Unavailable):
            await hall.admission.give_back(poll, round_, ticket)
        raise
    if not kept:
        raise Refused(409, texts.ALREADY_ANSWERED)
    hall.channel.tally_changed(poll, lambda: hall.spawn(hall.publish_tally(poll)))
    return _json("Recorded", {"ok": True}, status=201)


async def post_solved(request: web.Request) -> web.Response:
    """A solve with a ticket the hall issued for its exercise (``admission``) is recorded, and
    spends that ticket, so each admitted device counts at most once per exercise; nothing else
    happens: no event, no count, to no stream (only the presenter's released counts, noised,
    ever say anything about solves)."""
    hall, solved = _hall(request), request[MESSAGE]
    if not hall.admission.tickets.valid(exercise_scope(solved["exercise"]), solved["ticket"]):
        raise Refused(403, texts.NOT_ADMITTED_EXERCISE)
    if not await hall.store.add_solved(solved["exercise"], solved["token"], solved["ticket"]):
        return _json("Recorded", {"ok": True, "counted": False})
    return _json("Recorded", {"ok": True, "counted": True}, status=201)


async def post_release(request: web.Request) -> web.Response:
    """The presenter's noised count of an exercise (release.py): ``200`` with the count and the
    hall's budget, or ``409`` with the budget and why, when the budget has no room."""
    hall, asked = _hall(request), request[MESSAGE]
    released = await release_count(hall.store, asked["exercise"], asked["again"])
    pool = await hall.admission.pool()  # the count's bound, and whether one address holds it
    return _json(
        "Released", {**released.payload(), **pool.payload()}, status=409 if released.refused else 200
    )


async def post_reset(request: web.Request) -> web.Response:
    hall, poll = _hall(request), request[MESSAGE]["poll"]
    await hall.store.reset_poll(poll)
    position = await hall.store.state()
    if position is not None and state.reshow_after_reset(
        hall.spec, poll, position
    ):  # every process shows the new round
        await hall.store.publish("state", position)
    await hall.publish_tally(poll)
    return web.Response(status=204, headers=NO_STORE)


async def post_broadcast(request: web.Request) -> web.Response:
    """A presenter's broadcast (a route declared with ``broadcast=``, dpdeck/wire/hall.py): its
    body, the event's data, kept in the store as that event's last (``Store.keep``), then
    published; every new stream's greeting replays it (``_greeting``). A store that cannot
    write still relays it, then answers ``503``, as a position does."""
    hall, data = _hall(request), request[MESSAGE]
    event = wire_hall.route(request.path).broadcast
    try:
        await hall.store.keep(event, data)
    except StoreFull:
        await hall.store.publish(event, data)
        raise
    await hall.store.publish(event, data)
    return web.Response(status=204, headers=NO_STORE)


async def qr_svg(request: web.Request) -> web.Response:
    return web.Response(body=_hall(request).qr_svg(), content_type="image/svg+xml", headers=NO_STORE)


async def events(request: web.Request) -> web.StreamResponse:
    """The live channel: ``retry``, the current state, devices and tallies, then every event."""
    hall = _hall(request)
    device = messages.device_id(request.query)
    client = addresses.group(request.remote)  # IPv6 by its /64: one network, one share
    try:
        sub = hall.channel.open(device, client)
    except Full:
        raise Refused(503, texts.HALL_FULL) from None
    except TooManyForDevice:
        raise Refused(429, texts.TOO_MANY_STREAMS_FOR_DEVICE) from None
    except TooManyForAddress:
        raise Refused(429, texts.TOO_MANY_STREAMS_FOR_ADDRESS) from None
    try:
        try:
            sub.pooled = await hall.admission.join(device, client)
        except StoreFull:  # the pool cannot be written (a full disk): it follows, without tickets
            sub.pooled = False
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        await pump(request, response, sub.queue, await _greeting(hall, device, sub.pooled), HEARTBEAT)
    finally:
        hall.channel.close(sub)
    return response


async def _greeting(hall: Hall, device: str, pooled: bool) -> bytes:
    """``retry``, then what ``state.greeting`` says a new stream starts with, read from the store:
    a device of the pool's tickets (for every exercise, and for the poll rounds being answered
    that admitted it), the kept position, devices, every tally."""
    tickets = []
    for poll in hall.spec.polls:
        round_ = await hall.store.round(poll)
        tickets.append((poll, round_, await hall.admission.ticket(poll, round_, device) if pooled else None))
    exercise_tickets = [
        (exercise, hall.admission.tickets.issue(exercise_scope(exercise), device))
        for exercise in (sorted(hall.spec.exercises) if pooled else ())
    ]
    position = await hall.store.state()
    devices = hall.hall_state.greeting_devices(hall.store.shared)
    if devices is None:
        devices = await hall.devices()
    tallies = [await hall.tally(poll) for poll in hall.spec.polls]
    kept = await hall.store.kept()
    broadcasts = [(e.name, kept[e.name]) for e in wire_hall.EVENTS if e.kept and e.name in kept]
    events = state.greeting(tickets, position, devices, tallies, exercise_tickets, broadcasts)
    return f"retry: {RETRY_MS}\n\n".encode() + b"".join(hall.channel.encode(*event) for event in events)


# the handler of every route of the hall, by the name dpdeck/wire/hall.py declares it under
# (with its path, who may send it, its body's or query's rules and its answers); a broadcast's
# is ``post_broadcast``
HANDLERS: dict[str, Callable[[web.Request], Awaitable[web.StreamResponse]]] = {
    "hello": hello,
    "events": events,
    "qr.svg": qr_svg,
    "state": post_state,
    "answer": post_answer,
    "solved": post_solved,
    "release": post_release,
    "reset": post_reset,
}


def posts() -> dict[str, Post]:
    """Every POST route of the declaration (``wire.hall.ROUTES``, read now), by path: its handler,
    its body's check and who may send it."""
    return {
        r.path: Post(
            post_broadcast if r.broadcast else HANDLERS[r.name],
            partial(messages.parse, r.body),
            presenter=r.who == "presenter",
        )
        for r in wire_hall.ROUTES
        if r.method == "POST" and r.body is not None  # a POST route declares its body (dpdeck/wire)
    }


POSTS = web.AppKey("posts", dict[str, Post])


@web.middleware
async def _refusals(request: web.Request, handler):
    """The one way the hall answers an error, as plain Spanish text that is never cached: a
    ``Refused`` with its status; a body or a query ``messages`` refused, ``400`` with the
    reason; the store unreachable (Redis restarting), ``503`` with ``Retry-After`` (nothing was
    kept, so the page may send the same body again); the store unable to write (a full disk),
    ``503`` with ``Retry-After: 5`` and its own text."""
    try:
        return await handler(request)
    except Refused as refused:
        return _text(refused.status, refused.text, refused.headers)
    except Invalid as exc:
        return _text(400, str(exc))
    except StoreFull:
        return _text(503, texts.STORE_FULL, {"Retry-After": STORE_FULL_RETRY})
    except Unavailable:
        return _text(503, texts.STORE_UNAVAILABLE, {"Retry-After": "1"})


@web.middleware
async def _post_guard(request: web.Request, handler):
    """Every POST under ``/_hall/``: a JSON body (``Content-Type: application/json``, which a
    page of another site cannot send without a CORS preflight the hall never grants) from an
    allowed ``Origin``; else ``415`` or ``403``, before the body is read."""
    if request.method == "POST" and request.path.startswith(PREFIX):
        if request.content_type != "application/json":
            raise Refused(415, texts.JSON_EXPECTED)
        if not cors.origin_allowed(
            request.headers.get("Origin"), request.host, request.app[HALL].allow_origins, request.scheme
        ):
            raise Refused(403, texts.ORIGIN_REFUSED)
    return await handler(request)


async def _isolation_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Isolation headers on every ``/_hall/`` answer too (streams and errors included)."""
    if request.app[HALL].isolate and request.path.startswith(PREFIX):
        for key, value in static.ISOLATION_HEADERS.items():
            response.headers.setdefault(key, value)


def make_app(hall: Hall) -> web.Application:
    """The application: ``/_hall/*`` routes, then ``dist/`` (if any) for every other GET or HEAD."""
    app = web.Application(
        client_max_size=messages.MAX_BODY,
        # cors first: the request it marks is the one aiohttp prepares an answer with (proxy.py
        # clones it for the handlers, marks included, and a stream is prepared with the clone)
        middlewares=[
            hosts.middleware(hall.hosts, hall.trusted_proxies),  # DNS rebinding: a Host of the hall's own
            cors.middleware(hall.allow_origins, hall.trusted_proxies),
            proxy.middleware(hall.trusted_proxies),
            _refusals,
            _post_guard,
            _access,
        ],
    )
    app[HALL] = hall
    app[POSTS] = posts()

    async def deck_file(request: web.Request) -> web.StreamResponse:
        if hall.dist is None:  # a hall alone (--live): the deck is served elsewhere
            return _text(404, texts.HALL_ONLY)
        return await static.send_file(request, hall.dist, hall.isolate)

    for r in wire_hall.ROUTES:  # each route as dpdeck/wire/hall.py declares it (a stream: no HEAD)
        if r.method == "GET":
            app.router.add_get(r.path, HANDLERS[r.name], allow_head=r.head)
        else:
            app.router.add_post(r.path, app[POSTS][r.path].handler)
    # HEAD too; (?s): a path whose decoded form holds a line break is the policy's 400 as well
    app.router.add_get("/{tail:(?s:.*)}", deck_file)
    app.on_response_prepare.append(_isolation_headers)
    app.on_response_prepare.append(cors.on_prepare)
    app.cleanup_ctx.append(_lifetime)
    app.on_shutdown.append(_shutdown)  # before the cleanup: the streams end, so the server stops
    return app


async def _lifetime(app: web.Application) -> AsyncIterator[None]:
    """The hall's lifetime with the app's (``cleanup_ctx``): the store opened before the first
    request and closed after the last, also when a later start-up step fails."""
    await app[HALL].open()
    try:
        await _regrace_after_restart(app)
        yield
    finally:
        await app[HALL].close()


async def _regrace_after_restart(app: web.Application) -> None:
    """``state.restart_grace``: a hall (re)started on a poll's slide,
    when the round's tickets were in the old process's memory only (one process), admits the
    devices connected ``RESTART_GRACE`` s later (they reconnect within ~3 s) again; those that
    answered already are refused as duplicates (their poll token). With a shared admission
    (Redis) the tickets outlive a process."""
    hall = app[HALL]
    grace = state.restart_grace(hall.spec, hall.admission.shared, await hall.store.state())
    if grace is not None:

        async def regrace():
            await _show(hall, await hall.store.state())

        hall._regrace = asyncio.get_running_loop().call_later(grace, lambda: hall.spawn(regrace()))


async def _shutdown(app: web.Application) -> None:
    hall = app[HALL]
    if hall._regrace is not None:
        hall._regrace.cancel()
    hall.channel.shutdown()  # streams end, so the server stops at once
