"""The words the wire is declared in: a field's JS type (:class:`F`), a body field's rule
(:class:`Rule`, :class:`Field`), a request's body or query (:class:`Body`) and a JSON object one
side writes and another reads (:class:`Shape`). No route, event or message is declared here
(``hall.py``, ``watch.py``, ``page.py``), and nothing reads a file."""

from __future__ import annotations

from dataclasses import dataclass

MAX_INDEX = 10_000  # a slide or fragment index beyond this is not a deck's
MAX_SEQ = 2**53  # the largest integer a page's JSON keeps exactly
# A hall's poll numbers show from this many answers on: with fewer, each change on the projector
# points at whoever just answered. The slide holds them (poll.js, from PollData.hold) and the
# hall sends no counts before (a tally's `counts` is empty while `n` is below it).
HOLD_UNTIL = 10
# A poll slide offers at least and at most this many answers: the build checks the YAML's
# ``options`` by it (build/fields.py), the hall an answer's index.
POLL_OPTIONS = (2, 10)
HEX128_PATTERN = "[0-9a-f]{32}"  # 128 random bits in hex: a device id, a token, a ticket


@dataclass(frozen=True)
class F:
    """A field of a message, an event or a shape: its name (``name?`` when it may be absent) and
    its JS type."""

    name: str
    js: str


@dataclass(frozen=True)
class Rule:
    """What a body's field must hold (``dpdeck/hall/messages.py`` checks it): ``int``, an
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
class Shape:
    """A JSON object one side writes and another reads: its typedef, one line on it, its
    fields, and who writes it for whom ("" for an event's data: the event says whose stream)."""

    name: str
    summary: str
    fields: tuple[F, ...]
    writer: str = ""

    def js_type(self) -> str:
        return "{" + ", ".join(f"{f.name}: {f.js}" for f in self.fields) + "}"


def shape_of(name: str, summary: str, body_fields: tuple[Field, ...]) -> Shape:
    """The shape whose fields are ``body_fields`` (each always present, of its rule's JS type):
    an event that carries what a POST's body declared, declared once."""
    return Shape(name, summary, tuple(F(f.name, f.rule.js) for f in body_fields))
