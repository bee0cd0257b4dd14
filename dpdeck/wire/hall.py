"""The live hall's wire, declared once: the events of its stream (:data:`EVENTS`), its routes
under ``/_hall/`` (:data:`ROUTES`: who may call each, its body's or query's fields with the rule
each must meet, each answer's status with what it means), and the JSON objects it answers
(:data:`SHAPES`). The hall imports this at run time: ``app.py`` registers every route from
:data:`ROUTES`, ``messages.py`` checks every body and query by its rules, ``channel.py`` encodes
only the events declared here (``dpdeck.wire.check_event``). ``python -m
dpdeck.wire.generate`` writes from it the page's typedefs (``static/js/shared/types.js``), its client
(``static/js/page/wire.js``: URLs, queries, status → result, the hex-id pattern, the state's check),
the retry-safe routes of ``deploy/hall.caddy`` and the tables of ``docs/live-hall-protocol.md``.

A presenter's broadcast (a position-like message every device gets, replayed to late joiners
and kept across restarts) is one :class:`Event` with ``kept=True`` and one POST :class:`Route`
with ``broadcast=`` its name: the hall keeps its last body in the store (SQLite or Redis, one
generic table or hash: ``Store.keep``), publishes it, and replays it in every new stream's
greeting; no handler or store code is written for it. Such a message touches five files besides
the generated ones: this one, the page's handling (``live.js`` dispatches every broadcast as a
DOM event of its name and sends one with ``broadcast``; the module that shows it listens, as
``live-view.js``), its Spanish (``phrases.js``, and its phrase's type in ``types.js``), and its
test; a «pausa para todos» was added so on a scratch branch (docs/architecture.md, "A new hall
message"). A message that is not a broadcast also needs its handler in ``app.py``'s ``HANDLERS``.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import EXERCISE, FLAG, HEX128, MAX_INDEX, MAX_SEQ, POLL, Body, F, Field, Int, Shape, shape_of

PREFIX = "/_hall/"
# The presenter's position: the state event's fields and the state POST's body, declared once.
STATE_FIELDS = (
    Field("seq", Int(0, MAX_SEQ)),
    Field("indexh", Int(0, MAX_INDEX)),
    Field("indexv", Int(0, MAX_INDEX)),
    Field("indexf", Int(-1, MAX_INDEX)),
)


@dataclass(frozen=True)
class Event:
    """One Server-Sent Event of a server's ``stream``: its ``name`` (the SSE ``event:`` line), its
    ``data`` (a :class:`~dpdeck.wire.rules.Shape`: the typedef, one line on it, and the JSON
    object's keys, all always present), what it means (Markdown, the table's column), and
    whether the hall keeps its last data and replays it to every new stream (``kept``: a
    presenter's broadcast, see the module)."""

    name: str
    stream: str
    data: Shape
    doc: str
    kept: bool = False

    @property
    def fields(self) -> tuple[F, ...]:
        return self.data.fields

    def shown(self) -> str:
        """The table's data column's start: ``{"seq", "indexh", …}``."""
        return "`{" + ", ".join(f'"{f.name}"' for f in self.fields) + "}`"


@dataclass(frozen=True)
class Answer:
    """One answer of a route: its HTTP ``status``, the ``result`` the page's client
    (``static/js/page/wire.js``'s ``resultOf``) reads it as, and the declared shape of its JSON body
    ("" when it has none)."""

    status: int
    result: str
    shape: str = ""


@dataclass(frozen=True)
class Route:
    """One route of the hall: method and path, who may call it (``anyone``, ``device``: any
    device, under the rate limits; ``presenter``: the token's holder), its body (a POST) or
    its query's fields (a GET), what it answers (Markdown, the table's column) and each answer's
    status and meaning (``results``); ``retry_safe``: a proxy may send it again to another
    process (the hall keeps it once whatever happens); ``head``: a GET that also answers HEAD;
    ``broadcast``: the kept event a presenter's POST body is published as."""

    method: str
    path: str
    who: str
    body: Body | None
    answers: str
    results: tuple[Answer, ...] = ()
    retry_safe: bool = False
    head: bool = True
    broadcast: str = ""

    @property
    def name(self) -> str:
        """The route's name: its path under ``/_hall/`` (``answer``, ``qr.svg``)."""
        return self.path.removeprefix(PREFIX)

    def shown(self) -> str:
        if self.body is None:
            return f"`{self.method} {self.path}`"
        if self.method == "GET":
            return f"`{self.method} {self.path}?" + "&".join(f"{f.name}=<id>" for f in self.body.fields) + "`"
        return f"`{self.method} {self.path}` {self.body.shown()}"


WHO = {
    "anyone": "anyone",
    "device": "a device",
    "presenter": "presenter (`Authorization: Bearer <token>`)",
}

STATE_BODY = Body("StateBody", "the presenter's position, posted", STATE_FIELDS)

EVENTS = (
    Event(
        "state",
        "hall",
        shape_of("HallState", "the presenter's position", STATE_FIELDS),
        "the presenter's position; a follower applies only a `seq` greater than the last it applied",
    ),
    Event(
        "devices",
        "hall",
        Shape("DevicesCount", "how many devices the hall holds", (F("n", "number"),)),
        "devices connected now (distinct device ids), at most once a second",
    ),
    Event(
        "tally",
        "hall",
        Shape(
            "Tally",
            "a poll's randomized answers so far",
            (
                F("poll", "string"),
                F("n", "number"),
                F("counts", "number[]"),
                F("round", "number"),
                F("admitted", "number | null"),
                F("cluster", "number | null"),
            ),
        ),
        "the randomized answers so far in the poll's current `round` (1, 2, … : grows with each "
        "`reset`), `counts` one per option (`[c0, …, c(k-1)]`), or `[]` while `n` is below "
        "`HOLD_UNTIL` (10: the hall holds the counts as the slide does), at most once a second per poll on "
        "each stream, however many processes announce it (and soon after a round is shown or "
        "reset); `admitted` is how many devices the round admitted, `null` until it is shown, and `cluster` "
        "the most of them from one address (`null` likewise): a cluster near `admitted` means one "
        "network (a NAT, or one client making up device ids) holds the round. "
        "`n ≤ admitted` always holds within a process's life. For yes/no, `counts[0]` is «no» and "
        "`counts[1]` «sí».",
    ),
    Event(
        "admit",
        "hall",
        Shape(
            "Admit",
            "this device's ticket for a poll's round",
            (F("poll", "string"), F("round", "number"), F("ticket", "string")),
        ),
        "sent on **this device's stream only**, when the round is shown (before the `state` that "
        "shows it), and again at the start of every new stream of the same device id while the "
        "round lasts (a reload keeps the right to answer). `ticket`: 128 random bits in hex, for "
        "this poll and round alone.",
    ),
    Event(
        "tickets",
        "hall",
        Shape(
            "ExerciseTickets",
            "this device's tickets for the exercises",
            (F("exercises", "{[exercise: string]: string}"),),
        ),
        "sent on **this device's stream only**, last in its greeting: one ticket per exercise, when "
        "the device is in the hall's pool (its address brought fewer than "
        "`--hall-max-devices-per-address` device ids; otherwise none is sent, and its solves are not "
        "counted). The same device always gets the same tickets; a solve spends its exercise's "
        "(`POST /_hall/solved`), once per device and exercise.",
    ),
)

ROUTES = (
    Route(
        "GET",
        "/_hall/hello",
        "anyone",
        None,
        (
            '`200` `HelloReply` `{"hall": 1, "audience": ["http://…/"], "devices": n, "counts": '
            '{"epsilon": 0.5, "budget": 4}}` (`counts`: the ε of one released exercise count and the '
            "hall's budget for them). Any other answer (`204` from `build.py serve` without `--hall` "
            "or with `--watch` alone, so that no 404 shows in its log and the console; 404 on a static "
            "host; a network error; `file://`) means: no hall. The page asks once and never retries "
            "then."
        ),
        results=(Answer(200, "hall", "HelloReply"), Answer(204, "absent")),
        retry_safe=True,
    ),
    Route(
        "GET",
        "/_hall/events",
        "anyone",
        Body("StreamQuery", "the live channel's query", (Field("device", HEX128),)),
        (
            "Server-Sent Events (below). `503` with a Spanish text body when the server holds its "
            "maximum of streams (4000 by default) and no address holds more than two streams more "
            "than this one would (otherwise the oldest stream of the address holding the most is "
            "ended to make room: every address keeps its fair share); `429` when one device id "
            "already holds 16 streams (tabs of one browser), or one address 400 "
            "(`--hall-max-streams-per-address` / `--hall-max-streams-per-address`); `400` bad device id. "
            "A device that opens a stream joins the hall's pool, which gives it its tickets, unless "
            "its address brought `--hall-max-devices-per-address` (300) other device ids already: then it "
            "follows, but no answer or solve of it is counted."
        ),
        results=(Answer(200, "stream"), Answer(400, "invalid"), Answer(429, "rate"), Answer(503, "busy")),
        retry_safe=True,
        head=False,
    ),
    Route(
        "POST",
        "/_hall/state",
        "presenter",
        STATE_BODY,
        (
            "`204`; `403` without the right token (compared in constant time; the attempt is logged "
            "without the token); `400` a field outside its rule (`indexf` −1: no fragment shown). "
            "`seq` must grow: an older one is ignored (`204`)."
        ),
        results=(Answer(204, "ok"), Answer(400, "invalid"), Answer(403, "refused"), Answer(503, "busy")),
        retry_safe=True,
    ),
    Route(
        "POST",
        "/_hall/answer",
        "device",
        Body(
            "AnswerBody",
            "a randomized answer to a poll",
            (
                Field("token", HEX128),
                Field("poll", POLL),
                Field("answer", Int(0, "k-1")),
                Field("ticket", HEX128, absent=None),
            ),
        ),
        (
            "`201` `Recorded` recorded; `409` this token already answered this poll (also when the "
            "ticket is spent or missing: a resend); `403` (Spanish text «Sin admisión en esta ronda: "
            "…») no ticket, or one this round did not issue, or one spent already: only the devices "
            "that held a live channel when the poll was shown answer, once each; `400` a field outside "
            "its rule; `429` rate limited. `ticket` is the admission ticket the hall sent this device "
            "for the poll's current round (`admit` event); it is spent by the answer and never stored. "
            "`answer` is the **randomized** answer: the true one never leaves the device. `token` is "
            "128 random bits in hex that the device drew for **this poll alone** (kept in the poll's "
            "`localStorage` entry), never its device id: the server stores no id that links two polls."
        ),
        results=(
            Answer(201, "ok", "Recorded"),
            Answer(400, "invalid"),
            Answer(403, "refused"),
            Answer(409, "duplicate"),
            Answer(429, "rate"),
            Answer(503, "busy"),
        ),
        retry_safe=True,
    ),
    Route(
        "POST",
        "/_hall/solved",
        "device",
        Body(
            "SolvedBody",
            "a solved exercise",
            (Field("token", HEX128), Field("exercise", EXERCISE), Field("ticket", HEX128, absent=None)),
        ),
        (
            "`201` `Recorded` counted / `200` not counted again: this token was counted already (a "
            "resend), or this ticket was (the same device under another token) / `403` (Spanish "
            "text) no ticket, or not one the hall issued for this exercise: only devices admitted to "
            "the hall's pool count, once per exercise each / `400` a field outside its rule / `429`. "
            "`token`: drawn for this exercise alone (`localStorage` `dpdeck-hall-solve:<exercise>`); "
            "`ticket`: the one the hall sent this device for this exercise (`tickets` event). "
            "Nothing is published: no event, no count, to no stream."
        ),
        results=(
            Answer(201, "ok", "Recorded"),
            Answer(200, "ok", "Recorded"),
            Answer(400, "invalid"),
            Answer(403, "refused"),
            Answer(429, "rate"),
            Answer(503, "busy"),
        ),
        retry_safe=True,
    ),
    Route(
        "POST",
        "/_hall/release",
        "presenter",
        Body(
            "ReleaseBody",
            "the presenter asks for an exercise's noised count",
            (Field("exercise", EXERCISE), Field("again", FLAG, absent=False)),
        ),
        (
            '`200` `Released` `{…, "refused": null}`: the number of devices that solved it with '
            "discrete Laplace noise (ε 0.5, `sd` its standard deviation), drawn by the server "
            "(`dpdeck/hall/release.py`) and spent from the hall's budget (ε 4 per hall file or Redis "
            "prefix, kept in the store across tabs, restarts and processes: spent atomically, once); "
            "`budget` is the meter's payload. Without `again`, an exercise already released gets that "
            "release again (`new: false`, free). `409` same shape with `value: null` and `refused`: the "
            "budget has no room, nothing was drawn. The true count never leaves the server."
        ),
        results=(
            Answer(200, "released", "Released"),
            Answer(400, "invalid"),
            Answer(403, "refused"),
            Answer(409, "spent", "Released"),
            Answer(503, "busy"),
        ),
    ),
    Route(
        "POST",
        "/_hall/reset",
        "presenter",
        Body("ResetBody", "a new round of a poll", (Field("poll", POLL),)),
        (
            "`204`: a new round: the poll's answers are deleted, its round number grows (kept in the "
            "store), the old round's tickets are void, and the new round is shown at once if the "
            "presenter is on the poll's slide (else when it gets there). The slide's «Nueva ronda» "
            "asks first, saying it is a second release."
        ),
        results=(Answer(204, "ok"), Answer(400, "invalid"), Answer(403, "refused"), Answer(503, "busy")),
    ),
    Route(
        "GET",
        "/_hall/qr.svg",
        "anyone",
        None,
        "the audience URL as a QR code (SVG, `segno`), for the title slide and the `J` key.",
        results=(Answer(200, "ok"),),
    ),
)

SHAPES = (
    Shape(
        "HelloReply",
        "the hall's `GET /_hall/hello`",
        (
            F("hall", "1"),
            F("audience", "string[]"),
            F("devices", "number"),
            F("counts", "{epsilon: number, budget: number}"),
            F("session", "string"),
        ),
        "dpdeck/hall/app.py → live.js (`session`: the hall session's own random id, kept in its "
        "store: the same across restarts, new for a new session or hall file; a page keys what it "
        "kept for a hall by it)",
    ),
    Shape(
        "Recorded",
        "an answer or a solve kept (`counted`: a solve's, false when its token was counted already)",
        (F("ok", "boolean"), F("counted?", "boolean")),
        "dpdeck/hall/app.py → live.js",
    ),
    Shape(
        "Released",
        "an exercise's noised count, or why the hall's budget refused it (`POST /_hall/release`)",
        (
            F("exercise", "string"),
            F("value", "number | null"),
            F("new", "boolean"),
            F("epsilon", "number"),
            F("sd", "number"),
            F("budget", "BudgetPayload"),
            F("refused", "string | null"),
            F("admitted", "number"),
            F("cluster", "number"),
        ),
        "dpdeck/hall/release.py, app.py (`admitted`: the devices admitted to the hall's pool, "
        "the count's upper bound; `cluster`: the most of them from one address) → hallcount.js",
    ),
)


def route(name: str) -> Route:
    """The route declared under ``name`` (``events``) or ``path`` (``/_hall/events``)."""
    return next(r for r in ROUTES if name in (r.name, r.path))
