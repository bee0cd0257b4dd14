"""Load deck/*.yaml and validate every slide against the tables of ``fields.py``.

Each field of the YAML is stated once, in ``dpdeck/build/fields.py`` (name, type, default, the
slide kinds that allow it, what it means); the YAML is merged over its defaults. Unknown keys,
wrong types, missing required fields, fields on the wrong kind of slide and code that is not
valid Python are refused with a :class:`~dpdeck.build.errors.DeckError` naming file, line, slide
and field. A :class:`Slide` has one attribute per stored field of the table (``try`` is
``tries``), plus what the build derives (``blanks``, ``code_line``, ``poll``). What the build
reads in a cell's Python (syntax, slider bindings, blanks) is ``dpdeck/build/cellcode.py``.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field, make_dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from dpdeck.origin import parse_origin

from . import exercise
from .cellcode import binding, blanks, check_python, edit_syntax_error
from .errors import DeckError
from .fields import (
    DECK_FIELDS,
    KINDS,
    PARAM_FIELDS,
    REQUIRED,
    SLIDE_FIELDS,
    TABLE_FIELDS,
    TRY_FIELDS,
    YES_NO,
    Field,
    defaults,
    field_named,
    holds,
    kind_only,
    needed_by_kind,
    range_words,
    type_name,
)
from .yamlerrors import explain

# Views of the tables of fields.py, for the checks below (and for tests and tools).
DECK_DEFAULTS = defaults(DECK_FIELDS)
SLIDE_DEFAULTS = defaults(SLIDE_FIELDS)
TRY_DEFAULTS = defaults(TRY_FIELDS)
PARAM_DEFAULTS = defaults(PARAM_FIELDS)
SLIDE_KINDS = needed_by_kind()  # kind: the fields it needs beyond 'title'
KIND_ONLY_FIELDS = kind_only()  # field: the kinds that take it


@dataclass
class Param:
    name: str
    label: str
    min: float | None
    max: float | None
    step: float | None
    value: Any
    options: list | None
    log: bool
    # Where the control writes (decided here, by the build, and nowhere else): the 1-based
    # line of the cell's one top-level ``name = <literal>``, and the text around the literal
    # on that line. The page replaces exactly what lies between ``prefix`` and ``suffix``.
    line: int = 0
    prefix: str = ""
    suffix: str = ""


@dataclass
class TryEdit:
    label: str
    old: str
    new: str
    line: int | None = None  # its line in the chapter file

    def apply(self, code: str) -> str:
        return code.replace(self.old, self.new, 1)


@dataclass
class Poll:
    """A poll slide's question, answered under randomized response (dpdeck/build/live.py)."""

    options: list[str]  # option i is answer i; the yes/no default is ["no", "sí"]
    epsilon: float
    prior: float
    yes_no: bool  # the default pair: counts[0] is «no», counts[1] «sí»


def _slide_class():
    """:class:`Slide`: where a slide is (index, file, line), one attribute per stored field of
    ``SLIDE_FIELDS`` (keyword-only, with the table's default), and what the build derives."""
    stored = []
    for f in SLIDE_FIELDS:
        if f.attribute is None:
            continue
        optional = f.default is None
        annotation = f"{getattr(f.type, '__name__', 'Any')}{' | None' if optional else ''}"
        if f.required:
            spec = field(kw_only=True)
        elif isinstance(f.default, list):
            spec = field(default_factory=list, kw_only=True)
        else:
            spec = field(default=f.default, kw_only=True)
        stored.append((f.attribute, annotation, spec))
    cls = make_dataclass(
        "Slide",
        [
            ("index", "int"),  # 1-based position in the whole deck
            ("file", "str"),  # the chapter file it came from (as given to the build)
            ("line", "int | None"),  # its line in that file
            *stored,
            ("blanks", "list[str]", field(default_factory=list, kw_only=True)),  # starter's ``...`` names
            # the line of the file where the code's first line is (``code: |`` blocks), else None
            ("code_line", "int | None", field(default=None, kw_only=True)),
            ("poll", "Poll | None", field(default=None, kw_only=True)),  # kind 'poll'
        ],
    )
    cls.__module__ = __name__  # (make_dataclass's module= is Python 3.12's)
    cls.__doc__ = _slide_class.__doc__
    return cls


if TYPE_CHECKING:  # made at import from fields.SLIDE_FIELDS: its attributes are Any to mypy
    Slide = Any
else:
    Slide = _slide_class()


@dataclass
class Deck:
    root: Path
    title: str
    subtitle: str
    author: str
    affiliation: str
    date: str
    lang: str
    prelude: str
    slides: list[Slide]
    files: list[Path]
    package: Path | None = None  # the deck's own package folder; None: the project's dplab
    hall: str = ""  # the live hall's origin (dpdeck/origin.py); "": the deck's own origin


class _LineLoader(yaml.SafeLoader):
    """A safe loader that remembers the line of every mapping (as ``__line__``) and of each of
    its keys (:class:`_Mapping`), and refuses a key given twice (PyYAML keeps the last)."""


class _Mapping(dict):
    """A YAML mapping with its lines (1-based): ``key_lines[key]``, the line of the key;
    ``text_lines[key]``, the line of the first line of its text when that text maps line for
    line onto the file (a ``|`` block, or one line)."""

    key_lines: dict
    text_lines: dict


def _construct_mapping(loader: _LineLoader, node: yaml.MappingNode) -> dict:
    mapping = _Mapping(loader.construct_mapping(node, deep=True))
    mapping.key_lines, mapping.text_lines = {}, {}
    for key_node, value_node in node.value:
        key, line = key_node.value, key_node.start_mark.line + 1
        if not isinstance(key, str):
            continue
        if key in mapping.key_lines:
            raise yaml.constructor.ConstructorError(
                None,
                None,
                f"duplicate key '{key}' (first on line {mapping.key_lines[key]})",
                key_node.start_mark,
            )
        mapping.key_lines[key] = line
        if isinstance(value_node, yaml.ScalarNode):
            start, end = value_node.start_mark.line, value_node.end_mark.line
            if value_node.style == "|":
                mapping.text_lines[key] = start + 2  # the block's text starts under ``key: |``
            elif start == end and "\n" not in value_node.value:  # one line of text on one line
                mapping.text_lines[key] = start + 1
    mapping["__line__"] = node.start_mark.line + 1
    return mapping


def key_line(mapping: Any, key: str) -> int | None:
    """The line of ``key`` in a mapping read from YAML, or its own line, or None."""
    lines = getattr(mapping, "key_lines", {})
    if key in lines:
        return lines[key]
    return mapping.get("__line__") if isinstance(mapping, dict) else None


_LineLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _key_line(mapping: object, key: str | None) -> int | None:
    """The line of ``key`` in a mapping read from YAML (``_Mapping``), or None."""
    return getattr(mapping, "key_lines", {}).get(key)


def _read_yaml(path: Path, shown: str) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DeckError("file not found", file=shown) from None
    except UnicodeDecodeError as exc:
        raise DeckError(f"not UTF-8 text ({exc.reason})", file=shown) from None
    try:
        return yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as exc:
        words, line = explain(exc, text)  # the author's words, at the line to fix
        raise DeckError(f"malformed YAML: {words}", file=shown, line=line) from None


def unknown_key(key: str, known) -> str:
    """What to say of an unknown key: the likely one first (``nots`` → ``notes``), then all."""
    known = list(known)
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    hint = f": did you mean '{close[0]}'?" if close else ""
    return f"unknown key '{key}'{hint} (known keys: {', '.join(known)})"


def _merge(defaults: dict, given: dict, err) -> dict:
    """Merge ``given`` over ``defaults``; refuse unknown keys and missing required ones.

    ``err(message, field=)`` makes the error (and places it on the line of that key)."""
    unknown = sorted(k for k in given if k not in defaults and k != "__line__")
    if unknown:
        raise err(unknown_key(unknown[0], defaults), field=unknown[0])
    merged = {k: given.get(k, v) for k, v in defaults.items()}
    for key, value in merged.items():
        if value is REQUIRED:
            raise err("required field is missing", field=key)
    return merged


def slugify(text: str) -> str:
    """A URL- and storage-safe id from a title: ``¿Qué tan grande?`` → ``que-tan-grande``."""
    table = str.maketrans("áéíóúüñÁÉÍÓÚÜÑ", "aeiouunAEIOUUN")
    text = text.translate(table).lower()
    return re.sub(r"[^a-z0-9]+", "-", text).strip("-") or "slide"


def _check_types(values: dict, err) -> None:
    for f in SLIDE_FIELDS:
        value = values.get(f.name)
        if f.type is None or f.own_check:
            continue
        if value is None:
            continue
        if f.type is str and isinstance(value, (int, float)) and not isinstance(value, bool):
            values[f.name] = str(value)  # a title like 2026 is fine as text
            continue
        if not holds(value, f.type):
            kind = "dict" if isinstance(value, dict) else type(value).__name__  # a _Mapping reads as dict
            raise err(f"must be {type_name(f.type)}, got {kind} {value!r}", field=f.name)


def _check_table(table: dict, err) -> None:
    """A table's ``columns`` and ``rows`` (fields.py's TABLE_FIELDS): non-empty lists, each row a
    list as long as ``columns``."""
    names = [f.name for f in TABLE_FIELDS]
    extra = sorted(set(table) - {*names, "__line__"})
    if extra:
        raise err(unknown_key(extra[0], names), field="table", line=key_line(table, extra[0]))
    for f in TABLE_FIELDS:
        value = table.get(f.name)
        if not isinstance(value, list) or len(value) < (f.items or (0,))[0]:
            raise err(f"needs '{f.name}', {f.doc}: a non-empty list", field="table")
    columns = table["columns"]
    for i, row in enumerate(table["rows"], 1):
        if not isinstance(row, list) or len(row) != len(columns):
            raise err(f"row {i} must be a list of {len(columns)} cells", field="table")


def _entry_err(err, item: Any, where: str, label_key: str):
    """The error maker for one list entry (``where`` = ``try[2]``): its fields are paths under
    ``where``, placed on the entry's own line (or its key's), labelled by ``item[label_key]``."""
    label = item.get(label_key) if isinstance(item, dict) else None
    label = str(label) if isinstance(label, (str, int, float)) and not isinstance(label, bool) else None

    def entry_err(message: str, field: str | None = None, line: int | None = None) -> DeckError:
        path = f"{where}.{field}" if field else where
        own = item.get("__line__") if isinstance(item, dict) else None
        at = line or (key_line(item, field) if field else own)
        return err(message, field=path, line=at, entry_label=label)

    return entry_err


def _check_params(raw: list, code: str, err) -> list[Param]:
    params = []
    for i, item in enumerate(raw, 1):
        where = f"params[{i}]"
        perr = _entry_err(err, item, where, "name")
        if not isinstance(item, dict):
            raise perr(f"must be a mapping, got {item!r}")
        p = _merge(PARAM_DEFAULTS, item, perr)
        try:
            line, prefix, suffix, assigned = binding(code, p["name"])
        except ValueError as e:
            raise perr(f"{e}, so the control would change nothing", field="name") from None
        if p["value"] is None:
            p["value"] = assigned
        elif p["value"] != assigned:
            raise perr(
                f"the control would show {p['value']!r} while the code runs {p['name']} = {assigned!r}",
                field="value",
            )
        if p["options"] is None:
            for key in ("min", "max"):
                if not isinstance(p[key], (int, float)) or isinstance(p[key], bool):
                    raise perr(f"a slider needs a number, got {p[key]!r}", field=key)
            if not p["min"] < p["max"]:
                raise perr(f"min must be < max, got {p['min']} and {p['max']}")
            if p["log"] and p["min"] <= 0:
                raise perr(f"a log slider needs min > 0, got {p['min']}", field="min")
        elif not isinstance(p["options"], list) or not p["options"]:
            raise perr("options must be a non-empty list", field="options")
        params.append(
            Param(
                name=p["name"],
                label=p["label"] or p["name"],
                min=p["min"],
                max=p["max"],
                step=p["step"],
                value=p["value"],
                options=p["options"],
                log=bool(p["log"]),
                line=line,
                prefix=prefix,
                suffix=suffix,
            )
        )
    return params


def _check_tries(raw: list, code: str, err) -> list[TryEdit]:
    """Each suggested edit: ``old`` occurs exactly once in the code; the result is Python."""
    tries = []
    for i, item in enumerate(raw, 1):
        terr = _entry_err(err, item, f"try[{i}]", "label")
        if not isinstance(item, dict):
            raise terr(f"must be a mapping {{label, replace: [old, new]}}, got {item!r}")
        t = _merge(TRY_DEFAULTS, item, terr)
        label, pair = t["label"], t["replace"]
        if not isinstance(label, (str, int, float)) or isinstance(label, bool) or not str(label).strip():
            raise terr(f"must be non-empty text, got {label!r}", field="label")
        if not (isinstance(pair, list) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise terr(f"must be a list of two strings [old, new], got {pair!r}", field="replace")
        old, new = pair
        if not old:
            raise terr("the text to replace is empty", field="replace")
        if old == new:
            raise terr(f"replaces {old!r} by itself: the edit changes nothing", field="replace")
        count = code.count(old)
        if count != 1:
            found = "does not occur" if count == 0 else f"occurs {count} times"
            raise terr(f"{old!r} {found} in the cell's code (it must occur exactly once)", field="replace")
        edit = TryEdit(label=str(label).strip(), old=old, new=new, line=item.get("__line__"))
        exc = edit_syntax_error(edit.apply(code))
        if exc is not None:
            raise terr(
                f"the edited code is not valid Python, at line {exc.lineno} of the cell: {exc.msg}",
                field="replace",
            )
        tries.append(edit)
    labels = [t.label for t in tries]
    for label in labels:
        if labels.count(label) > 1:
            raise err(f"two edits are labelled {label!r}", field="try")
    return tries


def _check_exercise(values: dict, err) -> list[str]:
    """An exercise's fields: starter, check and solution are Python; the starter has a blank
    (a name assigned ``...``) and the solution fills them all; hints are Markdown text."""
    check_python(values["starter"], err, "starter")
    check_python(values["solution"], err, "solution")
    exc = exercise.check_body_error(values["check"])
    if exc is not None:
        raise err(
            f"invalid Python syntax at line {exc.lineno} of the check (read as the body "
            f"of a function): {exc.msg}",
            field="check",
        )
    names = blanks(values["starter"])
    if not names:
        raise err(
            "the starter has no blank to fill: assign `...` to the name the student "
            "completes (e.g. `b = ...  # complete`)",
            field="starter",
        )
    left = blanks(values["solution"])
    if left:
        raise err(f"the solution leaves {left[0]!r} blank (= ...)", field="solution")
    if values["starter"].strip() == values["solution"].strip():
        raise err("the solution is the starter itself", field="solution")
    for i, hint in enumerate(values["hints"], 1):
        if not isinstance(hint, (str, int, float)) or isinstance(hint, bool) or not str(hint).strip():
            raise err(f"must be non-empty Markdown text, got {hint!r}", field=f"hints[{i}]")
    return names


def _check_poll(values: dict, err) -> Poll:
    """A poll's options, epsilon and prior, within the ranges of their fields (``fields.py``):
    2 to 10 distinct non-empty answers (default «no», «sí»), an epsilon > 0 and at most dplab's
    MAX_LOCAL_EPSILON = 20 (default ln 3), the prior its posterior bound is stated at in (0, 1)
    (default 0,5)."""
    options = values["options"]
    low, high = field_named(SLIDE_FIELDS, "options").items or (0, None)
    if not isinstance(options, list) or not low <= len(options) <= (high or len(options)):
        raise err(f"must be a list of {low} to {high} answers, got {options!r}", field="options")
    texts = [str(o).strip() for o in options]
    if any(isinstance(o, (bool, dict, list)) or o is None for o in options) or not all(texts):
        raise err(f"every answer must be non-empty text, got {options!r}", field="options")
    if len(set(texts)) != len(texts):
        raise err(f"two answers are the same: {options!r}", field="options")
    numbers = {
        key: _check_bounded(field_named(SLIDE_FIELDS, key), values[key], err) for key in ("epsilon", "prior")
    }
    return Poll(
        options=texts, epsilon=numbers["epsilon"], prior=numbers["prior"], yes_no=tuple(texts) == YES_NO
    )


def _check_bounded(f: Field, value: Any, err) -> float:
    """A NUMBER field's value in its table's range, finite, as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise err(f"must be a number, got {value!r}", field=f.name)
    inside = (f.above is None or value > f.above) and (f.below is None or value < f.below)
    if not (inside and math.isfinite(value)):
        shown = f"{range_words(f)} and finite" if f.below is None else range_words(f)
        raise err(f"must be {shown}, got {value!r}", field=f.name)
    if f.maximum is not None and value > f.maximum:
        why = f": {f.maximum_why}" if f.maximum_why else ""
        raise err(f"must be at most {f.maximum:g}, got {value!r}{why}", field=f.name)
    return float(value)


def _load_slide(raw: Any, index: int, shown: str) -> Slide:
    slide_line = raw.get("__line__") if isinstance(raw, dict) else None
    title = raw.get("title") if isinstance(raw, dict) else None

    def err(
        message: str, field: str | None = None, line: int | None = None, entry_label: str | None = None
    ) -> DeckError:
        """The slide's error, on the line of ``line``, else of the field's key, else the slide's."""
        if line is None and field and isinstance(raw, dict):
            line = getattr(raw, "key_lines", {}).get(re.split(r"[\[.]", field)[0])
        return DeckError(
            message,
            file=shown,
            line=line or slide_line,
            slide=index,
            title=title if isinstance(title, str) else None,
            field=field,
            entry_label=entry_label,
        )

    if not isinstance(raw, dict) or set(raw) <= {"__line__"}:
        raise err("a slide must be a non-empty mapping with at least a title")
    values = _merge(SLIDE_DEFAULTS, raw, err)
    _check_types(values, err)
    kind = values["kind"]
    if kind not in KINDS:
        raise err(f"unknown slide kind {kind!r} (known: {', '.join(KINDS)})", field="kind")
    _refuse_null(values, ("title",), err)
    if not values["title"].strip():
        raise err("the title is empty", field="title")
    for needed in SLIDE_KINDS[kind]:
        if not values.get(needed):
            raise err(f"a '{kind}' slide needs this field", field=needed)
    for key, kinds in KIND_ONLY_FIELDS.items():
        if key in raw and kind not in kinds:
            raise err(f"only slides of kind {', '.join(sorted(kinds))} take this field", field=key)
    for f in SLIDE_FIELDS:
        if f.choices and f.name != "kind" and values[f.name] not in f.choices:
            raise err(f"unknown {f.name} {values[f.name]!r} (known: {', '.join(f.choices)})", field=f.name)
    _refuse_null(values, [f.name for f in SLIDE_FIELDS if isinstance(f.default, list)], err)
    stored = {}
    for f in SLIDE_FIELDS:  # in the table's order: 'code' is checked before 'params' binds to it
        check = _FIELD_CHECKS.get(f.name)
        stored[f.name] = values[f.name] if check is None else check(values[f.name], values, err)
    return Slide(
        index,
        shown,
        slide_line,
        **{f.attribute: stored[f.name] for f in SLIDE_FIELDS if f.attribute},
        blanks=_check_exercise(values, err) if kind == "exercise" else [],
        code_line=getattr(raw, "text_lines", {}).get("code"),
        poll=_check_poll(values, err) if kind == "poll" else None,
    )


def _refuse_null(values: dict, names, err) -> None:
    """``key:`` with nothing after it (YAML null) where nothing cannot stand in: the title, a list."""
    for name in names:
        if values[name] is None:
            kind = next(type_name(f.type) for f in SLIDE_FIELDS if f.name == name)
            raise err(f"must be {kind}, got nothing (null)", field=name)


def _checked_code(code: str | None, values: dict, err) -> str | None:
    if code is not None:
        check_python(code, err, "code")
    return code


def _checked_table(table: dict | None, values: dict, err) -> dict | None:
    if table is not None:
        _check_table(table, err)
    return table


# A slide field whose value needs more than its type checked, and what the Slide stores of it:
# ``check(value, all the slide's values, err) -> the stored value``, run in the table's order.
_FIELD_CHECKS: dict[str, Callable[[Any, dict, Any], Any]] = {
    "id": lambda value, values, err: value or slugify(values["title"]),
    "body": lambda value, values, err: value or "",
    "code": _checked_code,
    "notes": lambda value, values, err: value or "",
    "table": _checked_table,
    "params": lambda value, values, err: _check_params(value, values["code"] or "", err),
    "try": lambda value, values, err: _check_tries(value, values["code"] or "", err),
    "hints": lambda value, values, err: [str(h) for h in value],
}


def load_deck(deck_file: Path) -> Deck:
    """Load and validate the deck file and its chapters; raise DeckError on any problem."""
    deck_file = Path(deck_file)
    root = deck_file.parent
    shown_deck = _shown(deck_file)
    raw = _read_yaml(deck_file, shown_deck)
    if not isinstance(raw, dict):
        raise DeckError("the deck file must be a mapping (title, chapters, ...)", file=shown_deck)

    def deck_err(message: str, field: str | None = None, line: int | None = None) -> DeckError:
        return DeckError(message, file=shown_deck, field=field, line=line or _key_line(raw, field))

    meta = _merge(DECK_DEFAULTS, raw, deck_err)
    for key in (f.name for f in DECK_FIELDS if f.type is str):
        if not isinstance(meta[key], (str, int, float)) or isinstance(meta[key], bool):
            raise deck_err(f"must be text, got {meta[key]!r}", field=key)
        meta[key] = str(meta[key])
    if meta["prelude"]:
        check_python(meta["prelude"], deck_err, "prelude")
    chapters = meta["chapters"]
    if not isinstance(chapters, list) or not chapters:
        raise deck_err("must be a non-empty list of chapter files", field="chapters")

    slides: list[Slide] = []
    files = [deck_file]
    for name in chapters:
        if not isinstance(name, str):
            raise deck_err(f"each chapter is a file name, got {name!r}", field="chapters")
        path = root / name
        shown = _shown(path)
        files.append(path)
        data = _read_yaml(path, shown)
        extra = sorted(set(data) - {"slides", "chapter", "__line__"}) if isinstance(data, dict) else []
        if extra:  # first: 'slide:' for 'slides:' is a misspelling, not a missing list
            raise DeckError(
                unknown_key(extra[0], ("chapter", "slides")),
                file=shown,
                field=extra[0],
                line=key_line(data, extra[0]),
            )
        if not isinstance(data, dict) or not isinstance(data.get("slides"), list):
            raise DeckError(
                "a chapter file must be a mapping with a 'slides' list", file=shown, field="slides"
            )
        if not data["slides"]:
            raise DeckError("the 'slides' list is empty", file=shown, field="slides")
        for raw_slide in data["slides"]:
            slides.append(_load_slide(raw_slide, len(slides) + 1, shown))

    seen: dict[str, Slide] = {}
    for slide in slides:
        if slide.id in seen:
            first = seen[slide.id]
            raise DeckError(
                f"duplicate slide id {slide.id!r} (also slide {first.index} in {first.file})",
                file=slide.file,
                line=slide.line,
                slide=slide.index,
                title=slide.title,
                field="id",
            )
        seen[slide.id] = slide
    return Deck(
        root=root,
        title=meta["title"],
        subtitle=meta["subtitle"],
        author=meta["author"],
        affiliation=meta["affiliation"],
        date=meta["date"],
        lang=meta["lang"],
        prelude=meta["prelude"],
        slides=slides,
        files=files,
        package=_package_folder(root, meta["package"], deck_err),
        hall=_hall_origin(meta["hall"], deck_err),
    )


def _hall_origin(value: str, err) -> str:
    """``hall:``: an absolute http(s) origin (dpdeck/origin.py), or "" for the deck's own."""
    if not value:
        return ""
    try:
        return parse_origin(value, "the hall's address")
    except ValueError as exc:
        raise err(str(exc), "hall") from None


def _package_folder(root: Path, name: str, err) -> Path | None:
    """The deck's own package: a folder beside the deck file holding ``__init__.py``."""
    if not name:
        return None
    folder = (root / name).resolve()
    if not (folder / "__init__.py").is_file():
        raise err(f"{name!r} is not a Python package beside the deck file (no {name}/__init__.py)", "package")
    if not folder.name.isidentifier():
        raise err(f"the package's folder name {folder.name!r} is not a Python name", "package")
    return folder


def _shown(path: Path) -> str:
    """The path as an author recognises it: relative to the working directory if possible."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
