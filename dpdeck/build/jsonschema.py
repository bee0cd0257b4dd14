"""A JSON Schema of the deck's YAML, made from ``schema.py``'s own tables, for authors' editors.

The build writes ``deck.schema.json`` (the deck file) and ``chapter.schema.json`` (a chapter
file) into ``dist/``. An editor that speaks the YAML language server's protocol (VS Code's YAML
extension, among others) completes and checks slide fields as one types, after one line at the
top of the file::

    # yaml-language-server: $schema=../dist/chapter.schema.json

Nothing here is written twice: the fields, their types, defaults, descriptions, the kinds that
allow them, the kinds that need them and the values they take are the tables of ``fields.py``.
The build itself stays the judge: it also checks what a schema cannot (Python syntax, math,
slider bindings, exercises).
"""

from __future__ import annotations

import json
from pathlib import Path

from .fields import (
    DECK_FIELDS,
    NUMBER,
    PARAM_FIELDS,
    REQUIRED,
    SLIDE_FIELDS,
    TABLE_FIELDS,
    TRY_FIELDS,
    Field,
    kind_only,
    needed_by_kind,
)

DRAFT = "http://json-schema.org/draft-07/schema#"
# text fields take a number too: the build reads a title like 2026 as text
JSON_TYPES = {
    str: ["string", "number"],
    bool: "boolean",
    list: "array",
    dict: "object",
    NUMBER: "number",
}


def _property(f: Field) -> dict:
    prop: dict = {"description": f.doc} if f.doc else {}
    if f.type is not None:
        prop["type"] = JSON_TYPES[f.type]
    if f.choices:
        prop["enum"] = list(f.choices)
    if f.above is not None:
        prop["exclusiveMinimum"] = f.above
    if f.maximum is not None:
        prop["maximum"] = f.maximum
    if f.below is not None:
        prop["exclusiveMaximum"] = f.below
    if f.items is not None:
        prop["minItems"] = f.items[0]
        if f.items[1] is not None:
            prop["maxItems"] = f.items[1]
    if f.default is not REQUIRED and f.default not in (None, [], ""):
        prop["default"] = f.default
    return prop


def _object(fields: tuple[Field, ...]) -> dict:
    props = {f.name: _property(f) for f in fields}
    required = [f.name for f in fields if f.required]
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _slide() -> dict:
    slide = _object(SLIDE_FIELDS)
    props = slide["properties"]
    props["params"]["items"] = _object(PARAM_FIELDS)
    edit = _object(TRY_FIELDS)
    edit["properties"]["replace"].update({"items": {"type": "string"}, "minItems": 2, "maxItems": 2})
    props["try"]["items"] = edit
    props["hints"]["items"] = {"type": "string"}
    table = _object(TABLE_FIELDS)
    table["properties"]["rows"]["items"] = {"type": "array"}
    props["table"].update({k: v for k, v in table.items() if k != "type"})
    rules = []
    for kind, needs in needed_by_kind().items():
        if needs:
            rules.append({"if": _kind_is([kind]), "then": {"required": list(needs)}})
    for key, kinds in kind_only().items():
        rules.append({"if": {"required": [key]}, "then": _kind_is(sorted(kinds))})
    slide["allOf"] = rules
    return slide


def _kind_is(kinds: list[str]) -> dict:
    """A slide of one of ``kinds`` (an omitted kind is the default, 'content')."""
    if next(f.default for f in SLIDE_FIELDS if f.name == "kind") in kinds:
        return {"properties": {"kind": {"enum": kinds}}}
    return {"properties": {"kind": {"enum": kinds}}, "required": ["kind"]}


def schemas() -> dict[str, dict]:
    """``{file name: JSON Schema}`` for the deck file and a chapter file."""
    deck = _object(DECK_FIELDS)
    deck["properties"]["chapters"]["items"] = {"type": "string"}
    chapter = {
        "type": "object",
        "properties": {
            "chapter": {"type": "string", "description": "the chapter's name (for the author)"},
            "slides": {"type": "array", "minItems": 1, "items": _slide()},
        },
        "required": ["slides"],
        "additionalProperties": False,
    }
    return {
        "deck.schema.json": {"$schema": DRAFT, "title": "A live deck's deck file", **deck},
        "chapter.schema.json": {"$schema": DRAFT, "title": "A live deck's chapter file", **chapter},
    }


def write_schemas(folder: Path) -> list[Path]:
    """Write both schemas into ``folder``; return their paths."""
    paths = []
    for name, value in schemas().items():
        path = folder / name
        path.write_text(json.dumps(value, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        paths.append(path)
    return paths
