"""A JSON Schema of the deck's YAML, made from ``schema.py``'s own tables, for authors' editors.

The build writes ``deck.schema.json`` (the deck file) and ``chapter.schema.json`` (a chapter
file) into ``dist/``. An editor that speaks the YAML language server's protocol (VS Code's YAML
extension, among others) completes and checks slide fields as one types, after one line at the
top of the file::

    # yaml-language-server: $schema=../dist/chapter.schema.json

Nothing here is written twice: the fields, their types, defaults, the kinds that allow them
and the required ones come from ``schema.py``'s tables, and each field's description is the
comment beside it there. The build itself stays the judge: it also checks what a schema
cannot (Python syntax, math, slider bindings, exercises).
"""

from __future__ import annotations

import ast
import io
import json
import tokenize
from pathlib import Path

from . import schema

DRAFT = "http://json-schema.org/draft-07/schema#"
# text fields take a number too: the build reads a title like 2026 as text
JSON_TYPES = {
    str: ["string", "number"],
    bool: "boolean",
    list: "array",
    dict: "object",
    int: "integer",
    float: "number",
}
NUMBER = {"type": "number"}
TABLES = ("DECK_DEFAULTS", "SLIDE_DEFAULTS", "TRY_DEFAULTS", "PARAM_DEFAULTS")


def field_comments(source: str) -> dict[str, dict[str, str]]:
    """For each table of ``TABLES`` in ``source``: key → the comment on the key's line."""
    comments = {
        tok.start[0]: tok.string.lstrip("# ").strip()
        for tok in tokenize.generate_tokens(io.StringIO(source).readline)
        if tok.type == tokenize.COMMENT
    }
    out: dict[str, dict[str, str]] = {}
    for node in ast.parse(source).body:
        target = getattr(node, "target", None) or (getattr(node, "targets", None) or [None])[0]
        if isinstance(target, ast.Name) and target.id in TABLES and isinstance(node.value, ast.Dict):
            out[target.id] = {
                key.value: comments.get(key.lineno, "")
                for key in node.value.keys
                if isinstance(key, ast.Constant)
            }
    return out


def _property(name: str, default, doc: str, expected: type | None) -> dict:
    prop: dict = {"description": doc} if doc else {}
    if expected is not None:
        prop["type"] = JSON_TYPES[expected]
    if default is not schema.REQUIRED and default not in (None, [], ""):
        prop["default"] = default
    return prop


def _object(table: dict, docs: dict[str, str], types: dict[str, type]) -> dict:
    props = {k: _property(k, v, docs.get(k, ""), types.get(k)) for k, v in table.items()}
    required = [k for k, v in table.items() if v is schema.REQUIRED]
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


def _slide(docs: dict[str, dict[str, str]]) -> dict:
    slide = _object(schema.SLIDE_DEFAULTS, docs["SLIDE_DEFAULTS"], schema.TYPES)
    props = slide["properties"]
    props["kind"]["enum"] = list(schema.SLIDE_KINDS)
    props["layout"]["enum"] = list(schema.LAYOUTS)
    param_types = {"name": str, "label": str, "log": bool, "options": list}
    param = _object(schema.PARAM_DEFAULTS, docs["PARAM_DEFAULTS"], param_types)
    for key in ("min", "max", "step"):
        param["properties"][key].update(NUMBER)
    props["params"]["items"] = param
    edit = _object(schema.TRY_DEFAULTS, docs["TRY_DEFAULTS"], {"label": str})
    edit["properties"]["replace"].update(
        {"type": "array", "items": {"type": "string"}, "minItems": 2, "maxItems": 2}
    )
    props["try"]["items"] = edit
    props["hints"]["items"] = {"type": "string"}
    props["table"].update(
        {
            "properties": {
                "columns": {"type": "array", "minItems": 1},
                "rows": {"type": "array", "minItems": 1, "items": {"type": "array"}},
            },
            "required": ["columns", "rows"],
            "additionalProperties": False,
        }
    )
    rules = []
    for kind, needs in schema.SLIDE_KINDS.items():
        if needs:
            rules.append({"if": _kind_is([kind]), "then": {"required": list(needs)}})
    for key, kinds in schema.KIND_ONLY_FIELDS.items():
        rules.append({"if": {"required": [key]}, "then": _kind_is(sorted(kinds))})
    slide["allOf"] = rules
    return slide


def _kind_is(kinds: list[str]) -> dict:
    """A slide of one of ``kinds`` (an omitted kind is the default, 'content')."""
    if schema.SLIDE_DEFAULTS["kind"] in kinds:
        return {"properties": {"kind": {"enum": kinds}}}
    return {"properties": {"kind": {"enum": kinds}}, "required": ["kind"]}


def schemas() -> dict[str, dict]:
    """``{file name: JSON Schema}`` for the deck file and a chapter file."""
    docs = field_comments(Path(schema.__file__).read_text(encoding="utf-8"))
    deck_types = {k: str for k in schema.DECK_DEFAULTS} | {"chapters": list}
    deck = _object(schema.DECK_DEFAULTS, docs["DECK_DEFAULTS"], deck_types)
    deck["properties"]["chapters"]["items"] = {"type": "string"}
    chapter = {
        "type": "object",
        "properties": {
            "chapter": {"type": "string", "description": "the chapter's name (for the author)"},
            "slides": {"type": "array", "minItems": 1, "items": _slide(docs)},
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
