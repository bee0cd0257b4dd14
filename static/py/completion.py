"""The editor's completion engine: jedi over the namespace the cells share.

Imported by the worker on the first completion request (after it unpacks jedi's and parso's
wheels, checked against their pinned sha256), never at boot. One call, :func:`answer`, per
request; it never raises (a failure is an empty answer). Runs under CPython too (the tests).

Positions are jedi's: ``line`` 1-based, ``column`` 0-based, in characters.
"""

from __future__ import annotations

import jedi

MAX_COMPLETIONS = 150
MAX_DOC_CHARS = 600

jedi.settings.case_insensitive_completion = False
jedi.settings.add_bracket_after_function = False


def _namespace() -> dict:
    import cellrunner

    return cellrunner.NAMESPACE


def _first_paragraph(text: str) -> str:
    para = text.strip().split("\n\n")[0].strip()
    return para if len(para) <= MAX_DOC_CHARS else para[: MAX_DOC_CHARS - 1] + "…"


def _module(name) -> str:
    return (name.module_name or "").split(".")[0]


def complete(script, line: int, column: int) -> dict:
    items = []
    for c in script.complete(line, column)[:MAX_COMPLETIONS]:
        label = c.name_with_symbols  # a keyword argument ends in "="
        typed = c.name[: len(c.name) - len(c.complete)]
        if c.name.startswith("_") and not typed.startswith("_"):
            continue  # private names and dunders only when asked for (after "_")
        items.append({"label": label, "type": c.type, "module": _module(c)})
    return {"items": items}


def signature(script, line: int, column: int) -> dict | None:
    sigs = script.get_signatures(line, column)
    if not sigs:
        return None
    sig = sigs[0]
    return {
        "name": sig.name,
        "module": _module(sig),
        "params": [p.to_string() for p in sig.params],
        "index": sig.index,
        "doc": _first_paragraph(sig.docstring(raw=True)),
    }


def hover(script, line: int, column: int) -> dict | None:
    names = script.help(line, column) or script.infer(line, column)
    if not names:
        return None
    name = names[0]
    sigs = name.get_signatures()
    return {
        "name": name.name,
        "module": _module(name),
        "fullName": name.full_name or name.name,
        "type": name.type,
        "signature": sigs[0].to_string() if sigs else "",
        "doc": _first_paragraph(name.docstring(raw=True)),
    }


KINDS = {"complete": complete, "signature": signature, "hover": hover}


def answer(kind: str, code: str, line: int, column: int):
    """The answer to one request (``kind``: complete, signature or hover), or None."""
    try:
        script = jedi.Interpreter(code, [_namespace()])
        return KINDS[kind](script, int(line), int(column))
    except Exception:  # noqa: BLE001 - a completion must never break the editor
        return None
