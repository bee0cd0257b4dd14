"""The fields of the deck's YAML, each stated once: name, type, default, the slide kinds that
allow it, and what it means.

Everything else follows from these tables: ``schema.py`` validates against them (unknown keys,
types, required fields, the kinds a field belongs to, the values it takes) and builds
:class:`~dpdeck.build.schema.Slide` with one attribute per stored slide field; ``jsonschema.py``
writes ``dist/*.schema.json`` from them for authors' editors; and the field list of
``docs/writing-slides.md`` is :func:`markdown` of them (``python -m dpdeck.build.fields`` rewrites
it; ``tests/unit/test_schema_fields.py`` fails when it is stale).

To add a slide field: one :class:`Field` in :data:`SLIDE_FIELDS`, then ``python -m
dpdeck.build.fields``. A field whose value needs more than a type check (Python, a binding) also
gets its check in ``schema.py``'s ``_FIELD_CHECKS``.
"""

from __future__ import annotations

import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from dpdeck.resources import project_module
from dpdeck.wire.rules import POLL_OPTIONS

REQUIRED = object()  # the default of a field the author must give
NUMBER = "number"  # a field's type: an int or a float (not a bool)

# dplab (pyodide_pkg/, the package the build ships) says how far randomized response keeps its
# epsilon: a poll's epsilon is refused above it, here and in the JSON Schema, from its one value
MAX_POLL_EPSILON: float = project_module("dplab.local").MAX_LOCAL_EPSILON


@dataclass(frozen=True)
class Field:
    """One key of a mapping in the deck's YAML."""

    name: str
    type: Any  # str, bool, list, dict, NUMBER, or None (any literal)
    default: Any  # REQUIRED, or the value when the key is absent
    doc: str  # one line for authors (the JSON Schema's description, the docs' field list)
    kinds: tuple[str, ...] = ()  # slides: the kinds that take it; () = every kind
    needed_by: tuple[str, ...] = ()  # slides: the kinds that need it (non-empty)
    choices: tuple[str, ...] = ()  # the only values it takes
    attr: str | None = ""  # the Slide attribute: "" = its name, None = not stored as given
    own_check: bool = False  # True: schema.py's own check of it speaks, not the type check
    above: float | None = None  # NUMBER: the value must be > this (schema.py's check says so)
    maximum: float | None = None  # NUMBER: ... and <= this
    below: float | None = None  # NUMBER: ... and < this
    maximum_why: str = ""  # why ``maximum`` is the bound (the build's error says it)
    items: tuple[int, int | None] | None = None  # list: (fewest, most) entries; None = no bound
    shown_default: str = ""  # how the docs write the default, when its value is not readable

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    @property
    def attribute(self) -> str | None:
        return self.name if self.attr == "" else self.attr


# Slide kinds, in the order the docs and error messages list them.
KINDS = {
    "title": "the opening slide: its title, `body`, and the deck file's author, affiliation, date",
    "section": "a section's title (and `body`)",
    "content": "Markdown text, math and boxes (the default)",
    "code": "an editable, runnable Python cell and its output",
    "question": "a question whose `answer` is revealed on a click",
    "table": "a Markdown table from `table`",
    "exercise": "a prompt, an editor with blanks to fill, and a check (below)",
    "poll": "a question each device answers under randomized response ([live-polls.md](live-polls.md))",
}
LAYOUTS = ("stack", "side")
# The kinds whose slide carries an authored cell (its ``code``): a code slide always, a poll when
# it has one beside the question. An exercise has an editor too, with its ``starter``.
CELL_KINDS = ("code", "poll")
# A poll's answers when the author gives none: answer 0 is «no», answer 1 «sí»
YES_NO = ("no", "sí")

# The deck file (deck/deck.yaml): what the title slide shows and which chapters, in order.
DECK_FIELDS = (
    Field("title", str, REQUIRED, "the lecture's title (title slide, <title>)"),
    Field("subtitle", str, "", "one line under the title"),
    Field("author", str, "", "shown on the title slide"),
    Field("affiliation", str, "", "shown under the author"),
    Field("date", str, "", "shown on the title slide, as written"),
    Field("lang", str, "es", "<html lang>"),
    Field("chapters", list, REQUIRED, "chapter files, relative to the deck file, in order"),
    Field("prelude", str, "", "Python run once after numpy and dplab load, before any cell"),
    Field(
        "package", str, "", "the deck's own Python package (a folder beside the deck file) instead of dplab"
    ),
    Field(
        "hall",
        str,
        "",
        "the live hall's origin (https://hall.example.edu) when it is not the deck's own; "
        "`build --hall` overrides it ([deploy.md](deploy.md))",
    ),
)

# One slide of a chapter file (``slides:`` list).
SLIDE_FIELDS = (
    Field("id", str, None, "stable id for deep links and saved edits; default: from the title"),
    Field("kind", str, "content", "one of the slide kinds", choices=tuple(KINDS)),
    Field("title", str, REQUIRED, "the slide's title, as in the author's seed"),
    Field(
        "body",
        str,
        "",
        "Markdown with $…$ / $$…$$ math and ::: box containers",
        needed_by=("content", "question", "exercise", "poll"),
    ),
    Field(
        "code", str, None, "Python: an editable, runnable cell (kind 'code')", CELL_KINDS, needed_by=("code",)
    ),
    Field(
        "layout",
        str,
        "stack",
        "code slides: 'stack' (cell over output) or 'side' (side by side)",
        CELL_KINDS,
        (),
        LAYOUTS,
    ),
    Field("notes", str, "", "speaker notes, Markdown"),
    Field("fragments", bool, False, "reveal list items one at a time"),
    Field("answer", str, None, "kind 'question': Markdown revealed on a click", ("question",), ("question",)),
    Field(
        "table",
        dict,
        None,
        "kind 'table': {columns: [...], rows: [[...], ...]} (Markdown cells)",
        ("table",),
        ("table",),
    ),
    Field("params", list, [], "code slides: live parameters bound to names in the code", CELL_KINDS),
    Field(
        "try",
        list,
        [],
        "code slides: suggested live edits, [{label, replace: [old, new]}]",
        CELL_KINDS,
        attr="tries",
    ),
    # kind 'exercise' (the prompt is 'body'; see dpdeck/build/exercise.py for how a check works):
    Field(
        "starter",
        str,
        None,
        "Python in the editor at first, with blanks to fill: ``b = ...``",
        ("exercise",),
        ("exercise",),
    ),
    Field(
        "check",
        str,
        None,
        'Python, the body of a function run after the student\'s code, in its namespace: ``return ok, "mensaje"`` or ``assert cond, "mensaje"``',
        ("exercise",),
        ("exercise",),
    ),
    Field("hints", list, [], "Markdown hints, revealed one at a time", ("exercise",)),
    Field(
        "solution",
        str,
        None,
        "Python: a right answer (shown on a click, loadable into the editor)",
        ("exercise",),
        ("exercise",),
    ),
    # kind 'poll' (the question is 'body'; an optional 'code' cell beside it; see live.py),
    # read into Slide.poll:
    Field(
        "options",
        list,
        list(YES_NO),
        "the answers (distinct texts; answer i is option i)",
        ("poll",),
        attr=None,
        own_check=True,
        items=POLL_OPTIONS,
    ),
    Field(
        "epsilon",
        NUMBER,
        math.log(3),
        "each device's randomized response; ln 3 tells the truth 3 times in 4 (the bound is dplab's"
        " MAX_LOCAL_EPSILON: above it the float coin reveals more than ε)",
        ("poll",),
        attr=None,
        own_check=True,
        above=0.0,
        maximum=MAX_POLL_EPSILON,
        maximum_why="randomized response draws its coin as a float, and above it the lie is too"
        " unlikely for the coin to keep ε (dplab.local.MAX_LOCAL_EPSILON)",
        shown_default="ln 3",
    ),
    Field(
        "prior",
        NUMBER,
        0.5,
        "the belief about one student the slide states the posterior bound at",
        ("poll",),
        attr=None,
        own_check=True,
        above=0.0,
        below=1.0,
    ),
)

# A table slide's ``table:`` mapping (Markdown in every cell).
TABLE_FIELDS = (
    Field("columns", list, REQUIRED, "the header's cells", items=(1, None)),
    Field("rows", list, REQUIRED, "the rows: each a list of as many cells as `columns`", items=(1, None)),
)

# A suggested live edit (``try:``): a button in the speaker view that replaces ``old`` (found
# exactly once in the authored code) by ``new`` in the main window's cell, and runs it.
TRY_FIELDS = (
    Field("label", str, REQUIRED, 'what the button says (Spanish, short: "ε = 0,1")'),
    Field("replace", list, REQUIRED, "[old, new]: two strings"),
)

# A live parameter (a slider, or a select when ``options`` is given).
PARAM_FIELDS = (
    Field("name", str, REQUIRED, "a name assigned in the cell's code (``epsilon = 1.0``)"),
    Field("label", str, None, "what the control says; default: the name"),
    Field("min", NUMBER, None, "slider range (numbers), required without ``options``"),
    Field("max", NUMBER, None, "the slider's upper end"),
    Field("step", NUMBER, None, "default: (max - min) / 100"),
    Field("value", None, None, "default: the value the code assigns"),
    Field("options", list, None, "a list of values: a select instead of a slider"),
    Field("log", bool, False, "a logarithmic slider (min > 0)"),
)


def holds(value: Any, type_: Any) -> bool:
    """Whether ``value`` is of a field's ``type`` (a bool is not a NUMBER)."""
    if type_ is NUMBER:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return type_ is None or isinstance(value, type_)


def type_name(type_: Any) -> str:
    """A field's type as the build's messages name it: ``str``, ``bool``, ``number``."""
    return type_ if isinstance(type_, str) else type_.__name__


def defaults(fields: tuple[Field, ...]) -> dict[str, Any]:
    """``{name: default}`` in the table's order (REQUIRED for a required field)."""
    return {f.name: f.default for f in fields}


def field_named(fields: tuple[Field, ...], name: str) -> Field:
    """The field ``name`` of a table."""
    return next(f for f in fields if f.name == name)


def range_words(f: Field) -> str:
    """A NUMBER field's open range as the build's messages say it: ``> 0``, ``in (0, 1)``."""
    if f.above is not None and f.below is not None:
        return f"in ({f.above:g}, {f.below:g})"
    if f.above is not None:
        return f"> {f.above:g}"
    return f"< {f.below:g}" if f.below is not None else ""


def bounds_words(f: Field) -> str:
    """A NUMBER field's whole range, for the docs: ``> 0, at most 20``."""
    at_most = f"at most {f.maximum:g}" if f.maximum is not None else ""
    return ", ".join(w for w in (range_words(f), at_most) if w)


def items_words(f: Field) -> str:
    """A list field's length as the docs say it: ``2 to 10 entries``, ``at least 1 entry``."""
    low, high = f.items or (0, None)
    if high is None:
        return f"at least {low} {'entry' if low == 1 else 'entries'}"
    return f"{low} to {high} entries"


def needed_by_kind() -> dict[str, tuple[str, ...]]:
    """``{kind: the fields it needs, in table order}`` for every kind."""
    return {kind: tuple(f.name for f in SLIDE_FIELDS if kind in f.needed_by) for kind in KINDS}


def kind_only() -> dict[str, tuple[str, ...]]:
    """``{field: the kinds that take it}`` for the fields not every kind takes, grouped by the
    first kind that takes them (in the order of :data:`KINDS`), then in table order."""
    only = sorted((f for f in SLIDE_FIELDS if f.kinds), key=lambda f: list(KINDS).index(f.kinds[0]))
    return {f.name: f.kinds for f in only}


# --- The field list of docs/writing-slides.md ----------------------------------------------

DOC = Path(__file__).resolve().parents[2] / "docs" / "writing-slides.md"
BEGIN = "<!-- fields: generated by `python -m dpdeck.build.fields` from dpdeck/build/fields.py -->"
END = "<!-- fields: end -->"
_TYPE_WORDS = {
    str: "text",
    bool: "true/false",
    list: "list",
    dict: "mapping",
    NUMBER: "number",
    None: "as in the code",
}


def _default_words(f: Field) -> str:
    if f.required:
        return "**required**"
    if f.shown_default:
        return f"`{f.shown_default}`"
    if f.default in (None, "", []):
        return "—"
    if isinstance(f.default, list):
        return "`[" + ", ".join(f'"{v}"' for v in f.default) + "]`"
    return f"`{str(f.default).lower() if isinstance(f.default, bool) else f.default}`"


def _row(f: Field, with_kinds: bool) -> str:
    doc = f.doc.replace("|", "\\|")
    if f.choices and f.name != "kind":
        doc += " (" + ", ".join(f"`{c}`" for c in f.choices) + ")"
    limits = [bounds_words(f)] + ([items_words(f)] if f.items else [])
    if any(limits):
        doc += "; " + ", ".join(w for w in limits if w)
    cells = [f"`{f.name}`", _TYPE_WORDS[f.type], _default_words(f)]
    if with_kinds:
        needed = f" (needed by {', '.join(f.needed_by)})" if f.needed_by else ""
        cells.append((", ".join(f.kinds) if f.kinds else "all") + needed)
    return "| " + " | ".join([*cells, doc]) + " |"


def markdown() -> str:
    """The field list for authors, from the tables (between :data:`BEGIN` and :data:`END`)."""
    out = ["**Slide fields** (a chapter's `slides:` list):", ""]
    out += ["| field | type | default | kinds | what it is |", "|---|---|---|---|---|"]
    out += [_row(f, True) for f in SLIDE_FIELDS]
    out += ["", "**Kinds:** " + "; ".join(f"`{k}`: {doc}" for k, doc in KINDS.items()) + "."]
    for title, fields in (
        ("A live control (`params:` entry)", PARAM_FIELDS),
        ("A suggested edit (`try:` entry)", TRY_FIELDS),
        ("A table (`table:` of a `table` slide)", TABLE_FIELDS),
        ("The deck file (`deck/deck.yaml`)", DECK_FIELDS),
    ):
        out += ["", f"**{title}:**", "", "| field | type | default | what it is |", "|---|---|---|---|"]
        out += [_row(f, False) for f in fields]
    return "\n".join([BEGIN, *out, END])


def documented(text: str) -> str | None:
    """The generated part of the docs as it stands in ``text``, or None if it has none."""
    match = re.search(re.escape(BEGIN) + r".*?" + re.escape(END), text, re.S)
    return match.group(0) if match else None


def write_doc(path: Path = DOC) -> bool:
    """Rewrite the field list in ``path``; True if it changed."""
    text = path.read_text(encoding="utf-8")
    old = documented(text)
    if old is None:
        raise SystemExit(f"{path}: no field list to rewrite (a {BEGIN!r} … {END!r} block)")
    new = text.replace(old, markdown())
    path.write_text(new, encoding="utf-8")
    return new != text


if __name__ == "__main__":
    changed = write_doc()
    print(f"{DOC.name}: field list {'rewritten' if changed else 'already up to date'}", file=sys.stderr)
