"""The live hall's HTTP wire, declared once: every route under ``/_hall/`` (who may call it, the
fields of its body with the rule each must meet, what it answers), and the JSON objects the hall
and the build hand the page besides the events (:data:`SHAPES`: the replies, ``live.json``, a
poll slide's ``data-poll``, the privacy-budget payload).

From it, ``python -m deckbuild.protocol`` generates the typedefs of ``static/js/shared/types.js`` and the
route and body tables of ``docs/live-hall-protocol.md`` (``tests/unit/test_protocol.py`` fails
when they are stale); the hall routes its POSTs from :data:`ROUTES` (who may send each), checks
every body and query with ``deckbuild/hall/messages.py``'s ``parse``, which reads the rules here
and nothing else, and checks its replies with :func:`check_shape`, as the build does
``live.json`` and ``data-poll``.

A new hall message: a :class:`Route` (and its :class:`Body`) here, its handler in
``deckbuild/hall/app.py``'s ``HANDLERS``, the page's call (``static/js/page/live.js``); then
``python -m deckbuild.protocol``. The server's events are in ``deckbuild/protocol.py``.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class F:
    """A field of a message, an event or a shape: its name (``name?`` when it may be absent) and
    its JS type (``deckbuild/protocol.py`` declares the messages and events with it too)."""

    name: str
    js: str


MAX_INDEX = 10_000  # a slide or fragment index beyond this is not a deck's
MAX_SEQ = 2**53  # the largest integer a page's JSON keeps exactly
# A hall's poll numbers show from this many answers on: with fewer, each change on the projector
# points at whoever just answered. The slide holds them (poll.js, from PollData.hold) and the
# hall sends no counts before (a tally's `counts` is empty while `n` is below it).
HOLD_UNTIL = 10


@dataclass(frozen=True)
class Rule:
    """What a body's field must hold (``deckbuild/hall/messages.py`` checks it): ``int``, an
    integer (never a boolean) in ``low … high``, where ``high`` ``"k-1"`` is below the options of
    the poll the body names; ``hex128``, 32 lower-case hexadecimal digits (128 random bits);
    ``listed``, a text that ``live.json`` lists under ``table`` (``polls`` or ``exercises``);
    ``flag``, true or false."""

    kind: str
    low: int = 0
    high: int | str = 0
    table: str = ""

    @property
    def js(self) -> str:
        return {"int": "number", "hex128": "string", "listed": "string", "flag": "boolean"}[self.kind]

    def shown(self) -> str:
        """The rule as the body table says it."""
        if self.kind == "int":
            high = "2^53" if self.high == MAX_SEQ else self.high
            return f"an integer {self.low}…{high}"
        return {
            "hex128": "32 hex digits (128 random bits)",
            "listed": f"one of live.json's `{self.table}`",
            "flag": "`true` or `false`",
        }[self.kind]


def Int(low: int, high: int | str) -> Rule:  # noqa: N802 — reads as a type in the declarations
    return Rule("int", low, high)


HEX128 = Rule("hex128")
FLAG = Rule("flag")
POLL = Rule("listed", table="polls")
EXERCISE = Rule("listed", table="exercises")
_REQUIRED = object()


@dataclass(frozen=True)
class Field:
    """A field of a body: its name, its rule, and the value it takes when absent (a field
    without ``absent`` is required)."""

    name: str
    rule: Rule
    absent: object = _REQUIRED

    @property
    def required(self) -> bool:
        return self.absent is _REQUIRED


@dataclass(frozen=True)
class Body:
    """The JSON object a request carries (or its query's fields): its typedef, one line on it,
    and its fields in order."""

    name: str
    summary: str
    fields: tuple[Field, ...]

    def js_type(self) -> str:
        parts = [
            f"{f.name}{'' if f.required else '?'}: {f.rule.js}{' | null' * (f.absent is None)}"
            for f in self.fields
        ]
        return "{" + ", ".join(parts) + "}"

    def shown(self) -> str:
        return "`{" + ", ".join(f'"{f.name}"' + ("" if f.required else "?") for f in self.fields) + "}`"


@dataclass(frozen=True)
class Route:
    """One route of the hall: method and path, who may call it (``anyone``, ``device``: any
    device, under the rate limits; ``presenter``: the token's holder), its body (a POST) or
    its query's fields (a GET), and what it answers (Markdown, the table's column)."""

    method: str
    path: str
    who: str
    body: Body | None
    answers: str

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

STATE_BODY = Body(
    "StateBody",
    "the presenter's position, posted",
    (
        Field("seq", Int(0, MAX_SEQ)),
        Field("indexh", Int(0, MAX_INDEX)),
        Field("indexv", Int(0, MAX_INDEX)),
        Field("indexf", Int(-1, MAX_INDEX)),
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
            "(`deckbuild/hall/release.py`) and spent from the hall's budget (ε 4 per hall file or Redis "
            "prefix, kept in the store across tabs, restarts and processes: spent atomically, once); "
            "`budget` is the meter's payload. Without `again`, an exercise already released gets that "
            "release again (`new: false`, free). `409` same shape with `value: null` and `refused`: the "
            "budget has no room, nothing was drawn. The true count never leaves the server."
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
    ),
    Route(
        "GET",
        "/_hall/qr.svg",
        "anyone",
        None,
        "the audience URL as a QR code (SVG, `segno`), for the title slide and the `J` key.",
    ),
)


def route(path: str) -> Route:
    """The route declared for ``path``."""
    return next(r for r in ROUTES if r.path == path)


@dataclass(frozen=True)
class Shape:
    """A JSON object one side writes and another reads, besides the messages and events: its
    typedef, one line on it, its fields, and who writes it for whom."""

    name: str
    summary: str
    fields: tuple[F, ...]
    writer: str = ""  # "" for an event's data (deckbuild/protocol.py says whose stream)

    def js_type(self) -> str:
        return "{" + ", ".join(f"{f.name}: {f.js}" for f in self.fields) + "}"


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
        "deckbuild/hall/app.py → live.js (`session`: the hall session's own random id, kept in its "
        "store: the same across restarts, new for a new session or hall file; a page keys what it "
        "kept for a hall by it)",
    ),
    Shape(
        "Recorded",
        "an answer or a solve kept (`counted`: a solve's, false when its token was counted already)",
        (F("ok", "boolean"), F("counted?", "boolean")),
        "deckbuild/hall/app.py → live.js",
    ),
    Shape(
        "AccountantState",
        "one `dplab.BudgetAccountant` as the meter shows it",
        (
            F("name", "string | null"),
            F("epsilon_spent", "number"),
            F("epsilon_total", "number"),
            F("delta_spent", "number"),
            F("delta_total", "number"),
            F("releases", "number"),
            F("epsilon_text", "string"),
            F("delta_text", "string | null"),
            F("refused", "string | null"),
        ),
        "cellrunner.meter.budget_entry (a cell's run, the hall's release) → meter.js",
    ),
    Shape(
        "BudgetPayload",
        "the meter's payload: the budgets, in order of first use, and how many more were left out",
        (F("accountants", "AccountantState[]"), F("more", "number")),
        "cellrunner.meter, deckbuild/hall/release.py → meter.js",
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
        "deckbuild/hall/release.py, app.py (`admitted`: the devices admitted to the hall's pool, "
        "the count's upper bound; `cluster`: the most of them from one address) → hallcount.js",
    ),
    Shape(
        "LivePoll",
        "a poll of `live.json`: its options, its ε and its slide's `indexh`",
        (F("k", "number"), F("epsilon", "number"), F("slide", "number")),
        "deckbuild/live.py → deckbuild/hall/messages.py",
    ),
    Shape(
        "LiveManifest",
        "`dist/live.json`: the deck's polls by slide id, and its exercises",
        (F("polls", "{[id: string]: LivePoll}"), F("exercises", "string[]")),
        "deckbuild/live.py → deckbuild/hall/messages.py",
    ),
    Shape(
        "PollData",
        "a poll slide's `data-poll`",
        (
            F("k", "number"),
            F("epsilon", "number"),
            F("epsilonText", "string"),
            F("prior", "number"),
            F("options", "string[]"),
            F("yesNo", "boolean"),
            F("hold", "number"),
            F("heldSpan", "number[]"),
        ),
        "deckbuild/live.py (templates/slides/poll.html.j2) → poll.js",
    ),
)


def check_shape(name: str, data: dict) -> dict:
    """``data`` unchanged, or ``ValueError`` unless it has every required field of the shape
    ``name`` of :data:`SHAPES` and no other (the hall calls it on its replies, the build on
    ``live.json`` and ``data-poll``)."""
    shape = next((s for s in SHAPES if s.name == name), None)
    if shape is None:
        raise ValueError(f"no shape {name!r} is declared (deckbuild/hall_wire.py)")
    names = {f.name.rstrip("?") for f in shape.fields}
    required = {f.name for f in shape.fields if not f.name.endswith("?")}
    if not required <= set(data) <= names:
        raise ValueError(
            f"{name} has fields {sorted(data)}, declared {sorted(names)} (deckbuild/hall_wire.py)"
        )
    return data
