"""The hall's aiohttp application: ``dist/`` plus the ``/_hall/`` endpoints of docs/live-hall-protocol.md.

Only the token holder moves anyone or asks for an exercise's count (``Authorization: Bearer``,
compared in constant time; a refused attempt is logged with its method and path, never the token
or the address); that count is drawn noised by ``release`` and no true count ever leaves the
server. Every POST needs a JSON body from an allowed ``Origin`` (``_post_guard``), every body is
checked by ``messages`` (≤ 1 KiB, known poll, answer in range), every device POST passes the
rate limits of ``limits``, and streams beyond the bounds (the hall's, an address's, a device's)
get a 503 or 429 with a Spanish text. Answers are plain text or JSON, never HTML; nothing a
student sends is echoed.

A poll admits the devices holding a live channel when the presenter's position first reaches
its slide in a round (``admission``): each gets an ``admit`` event with its ticket on its own
stream, and an answer must spend an unused ticket (403 otherwise). The hooks are ``_show`` (a
state kept, a new round, a restart on a poll's slide), the greeting (a reconnecting device gets
its ticket again) and ``post_answer`` (``redeem``).
"""

from __future__ import annotations

import asyncio
import io
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import segno
from aiohttp import web

from ..sse import pump
from . import messages, static
from .admission import Admission, MemoryAdmission
from .channel import Channel, Full, TooManyForAddress, TooManyForDevice
from .limits import Limits, RateLimiter
from .messages import Invalid, LiveSpec
from .release import HALL_BUDGET, RELEASE_EPSILON, release_count
from .store import HallStore
from .token import bearer_matches

log = logging.getLogger("deckbuild.hall")
HEARTBEAT = 15.0  # seconds: a comment line that finds closed connections
RETRY_MS = 1000
NO_STORE = {"Cache-Control": "no-store"}
BUSY_TEXT = "La sala está llena: el servidor no admite más conexiones. Vuelva a intentarlo en un momento."
NOT_ADMITTED_TEXT = (
    "Sin admisión en esta ronda: responden solo los dispositivos conectados a la sala cuando se "
    "mostró la encuesta, una vez cada uno."
)
RESTART_GRACE = 5.0  # seconds after a start on a poll's slide before its devices are admitted again


@dataclass
class Hall:
    """Everything a request handler needs, kept on the application as ``app[HALL]``."""

    dist: Path
    store: HallStore
    token: str
    spec: LiveSpec
    audience: list[str]
    isolate: bool = True
    limits: Limits = field(default_factory=Limits)
    announce: bool = True  # False: no hall for the pages (serve --watch alone uses only the channel)
    allow_origins: frozenset[str] = frozenset()  # origins besides the hall's own that may POST
    admission: Admission = field(default_factory=MemoryAdmission)

    def __post_init__(self):
        self.channel = Channel(
            self.limits.max_streams, self.limits.max_streams_per_device, self.limits.max_streams_per_address
        )
        self.limiter = RateLimiter(self.limits)
        self.tallies = {poll: self.store.counts(poll, k) for poll, k in self.spec.polls.items()}
        self.rounds = {poll: self.store.round(poll) for poll in self.spec.polls}
        self.admitted: dict[str, int | None] = dict.fromkeys(self.spec.polls)  # None: not shown yet
        self.refused = 0
        self._qr: bytes | None = None
        self._regrace: asyncio.TimerHandle | None = None
        self.session_note: list[str] = []  # what the terminal says of the session (run.py)

    def tally(self, poll: str) -> dict:
        """A poll's ``tally`` event: its randomized counts, its round, and how many devices the
        round admitted (None until the poll is shown)."""
        counts = self.tallies[poll]
        return {
            "poll": poll,
            "n": sum(counts),
            "counts": list(counts),
            "round": self.rounds[poll],
            "admitted": self.admitted[poll],
        }

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


def _text(status: int, text: str) -> web.Response:
    return web.Response(status=status, text=text, content_type="text/plain", headers=NO_STORE)


def _json(data, status: int = 200) -> web.Response:
    return web.json_response(data, status=status, headers=NO_STORE, dumps=lambda d: json.dumps(d))


async def _body(request: web.Request) -> bytes:
    """The request's body, refused (413) past ``MAX_BODY`` bytes without reading more."""
    if (request.content_length or 0) > messages.MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(
            messages.MAX_BODY, request.content_length or 0, text="Demasiado largo."
        )
    body = await request.content.read(messages.MAX_BODY + 1)
    if len(body) > messages.MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(messages.MAX_BODY, len(body), text="Demasiado largo.")
    return body


def _require_presenter(request: web.Request) -> None:
    hall = _hall(request)
    if not bearer_matches(request.headers.get("Authorization"), hall.token):
        hall.refused += 1
        log.warning(
            "refused a presenter request without the right token: %s %s", request.method, request.path
        )
        raise web.HTTPForbidden(text="Solo quien presenta puede hacer esto.", headers=NO_STORE)


def _limit_request(request: web.Request) -> None:
    if not _hall(request).limiter.allow_request(request.remote, request.transport):
        raise web.HTTPTooManyRequests(text="Demasiadas peticiones: espere un momento.", headers=NO_STORE)


def _limit_device(request: web.Request, device: str) -> None:
    if not _hall(request).limiter.allow_device(device):
        raise web.HTTPTooManyRequests(text="Demasiadas peticiones: espere un momento.", headers=NO_STORE)


async def hello(request: web.Request) -> web.Response:
    hall = _hall(request)
    if not hall.announce:
        raise web.HTTPNotFound(text="No existe.")
    return _json(
        {
            "hall": 1,
            "audience": hall.audience,
            "devices": hall.channel.devices,
            "counts": {"epsilon": RELEASE_EPSILON, "budget": HALL_BUDGET},
        }
    )


async def post_state(request: web.Request) -> web.Response:
    _require_presenter(request)
    hall = _hall(request)
    try:
        state = messages.parse_state(await _body(request))
    except Invalid as exc:
        return _text(400, str(exc))
    if hall.store.set_state(state):
        await _show(hall, state)  # the tickets go out before the state that shows the poll
        hall.channel.publish("state", state)
    return web.Response(status=204, headers=NO_STORE)


async def _show(hall: Hall, state: dict | None) -> None:
    """The presenter is at ``state``: if that is a poll's slide and its round has not been shown,
    admit every device holding a channel now and send each its ticket on its own stream."""
    poll = hall.spec.poll_at(state["indexh"], state["indexv"]) if state else None
    if poll is None or hall.admitted[poll] is not None:
        return
    round_ = hall.rounds[poll]
    tickets = await hall.admission.admit(poll, round_, list(hall.channel.per_device))
    hall.admitted[poll] = await hall.admission.admitted(poll, round_)
    for sub in list(hall.channel.subscribers):
        ticket = tickets.get(sub.device)
        if ticket is not None:
            hall.channel.send(sub, "admit", {"poll": poll, "round": round_, "ticket": ticket})
    hall.channel.publish("tally", hall.tally(poll))


async def _device_message(request: web.Request, parse) -> dict:
    """A device's POST, read as every device POST is: the request's rate limit, the body checked
    by ``parse`` (a 400 with the reason otherwise), then the device's own rate limit."""
    _limit_request(request)
    try:
        message = parse(await _body(request), _hall(request).spec)
    except Invalid as exc:
        raise web.HTTPBadRequest(text=str(exc), content_type="text/plain", headers=NO_STORE) from None
    _limit_device(request, message["token"])
    return message


async def post_answer(request: web.Request) -> web.Response:
    """An answer spends its admission ticket, then is stored under its token: the ticket is not
    stored, and nothing records which ticket an answer spent."""
    hall = _hall(request)
    answer = await _device_message(request, messages.parse_answer)
    poll = answer["poll"]
    ticket = answer["ticket"]
    if ticket is None or not await hall.admission.redeem(poll, hall.rounds[poll], ticket):
        if hall.store.has_answer(poll, answer["token"]):  # a resend of an answer kept already
            return _text(409, "Este dispositivo ya respondió a esta encuesta.")
        return _text(403, NOT_ADMITTED_TEXT)
    if not hall.store.add_answer(poll, answer["token"], answer["answer"]):
        return _text(409, "Este dispositivo ya respondió a esta encuesta.")
    hall.tallies[poll][answer["answer"]] += 1
    hall.channel.tally_changed(poll, lambda: hall.tally(poll))
    return _json({"ok": True}, status=201)


async def post_solved(request: web.Request) -> web.Response:
    """A solve is recorded and nothing else happens: no event, no count, to no stream (only the
    presenter's released counts, noised, ever say anything about solves)."""
    hall = _hall(request)
    solved = await _device_message(request, messages.parse_solved)
    if not hall.store.add_solved(solved["exercise"], solved["token"]):
        return _json({"ok": True, "counted": False})
    return _json({"ok": True, "counted": True}, status=201)


async def post_release(request: web.Request) -> web.Response:
    """The presenter's noised count of an exercise (release.py): ``200`` with the count and the
    hall's budget, or ``409`` with the budget and why, when the budget has no room."""
    _require_presenter(request)
    hall = _hall(request)
    try:
        asked = messages.parse_release(await _body(request), hall.spec)
    except Invalid as exc:
        return _text(400, str(exc))
    released = release_count(hall.store, asked["exercise"], asked["again"])
    return _json(released.payload(), status=409 if released.refused else 200)


async def post_reset(request: web.Request) -> web.Response:
    _require_presenter(request)
    hall = _hall(request)
    try:
        poll = messages.parse_reset(await _body(request), hall.spec)
    except Invalid as exc:
        return _text(400, str(exc))
    hall.rounds[poll] = hall.store.reset_poll(poll)
    hall.tallies[poll] = [0] * hall.spec.polls[poll]
    hall.admitted[poll] = None
    await _show(hall, hall.store.state())  # on the poll's slide: the new round is shown now
    if hall.admitted[poll] is None:
        hall.channel.publish("tally", hall.tally(poll))
    return web.Response(status=204, headers=NO_STORE)


async def qr_svg(request: web.Request) -> web.Response:
    return web.Response(body=_hall(request).qr_svg(), content_type="image/svg+xml", headers=NO_STORE)


async def events(request: web.Request) -> web.StreamResponse:
    """The live channel: ``retry``, the current state, devices and tallies, then every event."""
    hall = _hall(request)
    try:
        device = messages.device_id(request.query.get("device"))
    except Invalid as exc:
        return _text(400, str(exc))
    try:
        sub = hall.channel.open(device, request.remote or "?")
    except Full:
        return _text(503, BUSY_TEXT)
    except TooManyForDevice:
        return _text(429, "Demasiadas conexiones abiertas desde este dispositivo.")
    except TooManyForAddress:
        return _text(429, "Demasiadas conexiones abiertas desde esta dirección.")
    try:
        response = web.StreamResponse(
            headers={
                "Content-Type": "text/event-stream",
                "Cache-Control": "no-store",
                "X-Accel-Buffering": "no",
            }
        )
        await pump(request, response, sub.queue, await _greeting(hall, device), HEARTBEAT)
    finally:
        hall.channel.close(sub)
    return response


async def _greeting(hall: Hall, device: str) -> bytes:
    """``retry``, the device's tickets for the rounds being answered (a reload or a reconnect
    gets them again), the current state, devices and every tally."""
    parts = [f"retry: {RETRY_MS}\n\n".encode()]
    for poll, round_ in hall.rounds.items():
        ticket = await hall.admission.ticket(poll, round_, device)
        if ticket is not None:
            parts.append(hall.channel.encode("admit", {"poll": poll, "round": round_, "ticket": ticket}))
    state = hall.store.state()
    if state is not None:
        parts.append(hall.channel.encode("state", state))
    parts.append(hall.channel.encode("devices", {"n": hall.channel.devices}))
    parts.extend(hall.channel.encode("tally", hall.tally(poll)) for poll in hall.spec.polls)
    return b"".join(parts)


def origin_allowed(origin: str | None, host: str | None, allowed: frozenset[str]) -> bool:
    """A POST's ``Origin``: the hall's own (the same host and port as the request's ``Host``, so a
    page the hall served) or one of ``allowed`` (``scheme://host[:port]``, exactly). A request
    without ``Origin`` is refused: every browser sends it on a POST."""
    if not origin or origin == "null":
        return False
    if origin in allowed:
        return True
    parts = urlsplit(origin)
    return parts.scheme in ("http", "https") and bool(host) and parts.netloc.lower() == host.lower()


@web.middleware
async def _post_guard(request: web.Request, handler):
    """Every POST under ``/_hall/``: a JSON body (``Content-Type: application/json``, which a
    page of another site cannot send without a CORS preflight the hall never grants) from an
    allowed ``Origin``; else ``415`` or ``403``, before the body is read."""
    if request.method == "POST" and request.path.startswith("/_hall/"):
        if request.content_type != "application/json":
            return _text(415, "Se esperaba un cuerpo JSON (Content-Type: application/json).")
        if not origin_allowed(request.headers.get("Origin"), request.host, request.app[HALL].allow_origins):
            return _text(403, "Origen no permitido.")
    return await handler(request)


async def _isolation_headers(request: web.Request, response: web.StreamResponse) -> None:
    """Isolation headers on every ``/_hall/`` answer too (streams and errors included)."""
    if request.app[HALL].isolate and request.path.startswith("/_hall/"):
        for key, value in static.ISOLATION_HEADERS.items():
            response.headers.setdefault(key, value)


def make_app(hall: Hall) -> web.Application:
    """The application: ``/_hall/*`` routes, then ``dist/`` for every other GET or HEAD."""
    app = web.Application(client_max_size=messages.MAX_BODY, middlewares=[_post_guard])
    app[HALL] = hall

    async def deck_file(request: web.Request) -> web.StreamResponse:
        return await static.send_file(request, hall.dist, hall.isolate)

    app.router.add_get("/_hall/hello", hello)
    app.router.add_get("/_hall/events", events)
    app.router.add_post("/_hall/state", post_state)
    app.router.add_post("/_hall/answer", post_answer)
    app.router.add_post("/_hall/solved", post_solved)
    app.router.add_post("/_hall/release", post_release)
    app.router.add_post("/_hall/reset", post_reset)
    app.router.add_get("/_hall/qr.svg", qr_svg)
    # HEAD too; (?s): a path whose decoded form holds a line break is the policy's 400 as well
    app.router.add_get("/{tail:(?s:.*)}", deck_file)
    app.on_response_prepare.append(_isolation_headers)
    app.on_startup.append(_startup)
    app.on_shutdown.append(_shutdown)
    app.on_cleanup.append(_cleanup)
    return app


async def _startup(app: web.Application) -> None:
    """A hall (re)started on a poll's slide: the round's tickets were in the old process's
    memory, so the devices connected ``RESTART_GRACE`` s later (they reconnect within ~3 s) are
    admitted again; those that answered already are refused as duplicates (their poll token)."""
    hall = app[HALL]
    state = hall.store.state()
    if state is not None and hall.spec.poll_at(state["indexh"], state["indexv"]) is not None:
        loop = asyncio.get_running_loop()
        hall._regrace = loop.call_later(
            RESTART_GRACE, lambda: loop.create_task(_show(hall, hall.store.state()))
        )


async def _shutdown(app: web.Application) -> None:
    hall = app[HALL]
    if hall._regrace is not None:
        hall._regrace.cancel()
    hall.channel.shutdown()  # streams end, so the server stops at once


async def _cleanup(app: web.Application) -> None:
    app[HALL].store.close()
