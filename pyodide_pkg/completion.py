"""The editor's completion engine: jedi over the namespace the cells share.

Imported by the worker on the first completion request (after it unpacks jedi's and parso's
wheels, checked against their pinned sha256), never at boot. One call, :func:`answer`, per
request; it never raises (a failure is an empty answer). Runs under CPython too (the tests).

Positions are jedi's: ``line`` 1-based, ``column`` 0-based, in characters.
"""

from __future__ import annotations

import builtins
import inspect
import keyword
import re

import jedi

MAX_COMPLETIONS = 150
MAX_DOC_CHARS = 600

jedi.settings.case_insensitive_completion = False
jedi.settings.add_bracket_after_function = False


# Python's builtins as the editor's hover and signature say them: in Spanish (the page shows
# the deck package's own Spanish from its index; numpy's and matplotlib's docs stay English).
BUILTINS_ES = {
    "abs": "El valor absoluto de un número.",
    "all": "True si todos los elementos son verdaderos (o no hay ninguno).",
    "any": "True si algún elemento es verdadero.",
    "bool": "Convierte un valor en True o False.",
    "dict": "Un diccionario: pares clave → valor.",
    "dir": "Los nombres de un objeto (sus atributos) o, sin argumento, los del ámbito actual.",
    "divmod": "El cociente entero y el resto de una división, como par.",
    "enumerate": "Recorre una secuencia dando pares (índice, elemento).",
    "filter": "Los elementos para los que una función da verdadero.",
    "float": "Convierte un número o un texto en un número de coma flotante (decimal, con punto: 0.5).",
    "format": 'El texto de un valor según un formato (como en f"{x:.2f}").',
    "help": "La ayuda de Python sobre un objeto (en inglés).",
    "input": "Lee una línea escrita por el usuario (no disponible en las celdas de la presentación).",
    "int": "Convierte un número o un texto en un número entero (trunca los decimales).",
    "isinstance": "True si un objeto es de un tipo dado (o de uno de varios).",
    "iter": "Un iterador sobre un objeto.",
    "len": "El número de elementos de una secuencia, colección o tabla.",
    "list": "Una lista: una secuencia modificable de elementos.",
    "map": "Aplica una función a cada elemento de una o varias secuencias.",
    "max": "El mayor de los elementos (o de los argumentos).",
    "min": "El menor de los elementos (o de los argumentos).",
    "next": "El siguiente elemento de un iterador.",
    "open": "Abre un archivo (en el navegador solo existen los que las celdas crean).",
    "pow": "Potencia: pow(x, y) es x elevado a y (como x ** y).",
    "print": "Escribe valores como texto bajo la celda, separados por espacios.",
    "range": "Los enteros de start a stop (sin incluirlo), de step en step.",
    "repr": "El texto de un valor como Python lo escribe.",
    "reversed": "Los elementos de una secuencia en orden inverso.",
    "round": "Redondea un número a ndigits decimales (a entero sin ndigits).",
    "set": "Un conjunto: elementos sin repetir y sin orden.",
    "sorted": "Una lista nueva con los elementos ordenados.",
    "str": "Convierte un valor en texto.",
    "sum": "La suma de los elementos (más start).",
    "tuple": "Una tupla: una secuencia que no se modifica.",
    "type": "El tipo de un objeto.",
    "zip": "Recorre varias secuencias a la vez, dando tuplas de sus elementos.",
    "True": "El valor verdadero.",
    "False": "El valor falso.",
    "None": "La ausencia de valor.",
}


def _builtin_doc(name: str, english: str) -> str:
    """The doc of a builtin in Spanish; Python's English, said to be so, for one not translated."""
    if name in BUILTINS_ES:
        return BUILTINS_ES[name]
    if name.endswith(("Error", "Exception", "Warning")):
        return "Una excepción de Python: el tipo de un error (o de un aviso)."
    return "De Python (builtins); su documentación, en inglés: " + english if english else ""


def _first_paragraph(text: str) -> str:
    para = text.strip().split("\n\n")[0].strip()
    return para if len(para) <= MAX_DOC_CHARS else para[: MAX_DOC_CHARS - 1] + "…"


def _module(name) -> str:
    return (name.module_name or "").split(".")[0]


# the word being typed, and whether it follows a "." (an attribute: jedi's job)
_TYPED = re.compile(r"(\.)?\s*([A-Za-z_]\w*)?$")


def _kind(value) -> str:
    if inspect.isclass(value):
        return "class"
    if inspect.ismodule(value):
        return "module"
    return "function" if callable(value) else "instance"


def _global_names(prefix: str, namespace: dict) -> list[dict]:
    """Names of the namespace, builtins and keywords starting with ``prefix``: read off the live
    dicts, no inference (jedi's global completion checks every builtin's stub: seconds in wasm)."""
    seen, items = set(), []
    sources = ((namespace, None), (vars(builtins), "builtins"))
    for names, module in sources:
        for name, value in names.items():
            if (
                name.startswith(prefix)
                and name not in seen
                and (prefix.startswith("_") or not name.startswith("_"))
            ):
                seen.add(name)
                origin = module or (getattr(value, "__module__", None) or "").split(".")[0]
                items.append({"label": name, "type": _kind(value), "module": origin})
    items += [{"label": k, "type": "keyword", "module": ""} for k in keyword.kwlist if k.startswith(prefix)]
    return items


def _keyword_arguments(script, line: int, column: int, prefix: str) -> list[dict]:
    items = []
    for sig in script.get_signatures(line, column)[:1]:
        for p in sig.params:
            if p.kind.name in ("POSITIONAL_OR_KEYWORD", "KEYWORD_ONLY") and p.name.startswith(prefix):
                items.append({"label": p.name + "=", "type": "param", "module": _module(sig)})
    return items


def complete(script, line: int, column: int, before: str, namespace: dict) -> dict:
    typed = _TYPED.search(before)
    if not typed.group(1):  # a name, not an attribute: the live names, and a call's keywords
        prefix = typed.group(2) or ""
        items = _keyword_arguments(script, line, column, prefix) + _global_names(prefix, namespace)
        return {"items": items[:MAX_COMPLETIONS]}
    items = []
    for c in script.complete(line, column)[:MAX_COMPLETIONS]:
        label = c.name_with_symbols  # a keyword argument ends in "="
        typed = c.name[: len(c.name) - len(c.complete)]
        if c.name.startswith("_") and not typed.startswith("_"):
            continue  # private names and dunders only when asked for (after "_")
        items.append({"label": label, "type": c.type, "module": _module(c)})
    return {"items": items}


def signature(script, line: int, column: int, before: str) -> dict | None:
    sigs = script.get_signatures(line, column)
    if not sigs:
        return None
    sig = sigs[0]
    doc = _first_paragraph(sig.docstring(raw=True))
    return {
        "name": sig.name,
        "module": _module(sig),
        "params": [p.to_string() for p in sig.params],
        "index": sig.index,
        "doc": _builtin_doc(sig.name, doc) if _module(sig) == "builtins" else doc,
    }


def hover(script, line: int, column: int, before: str) -> dict | None:
    names = script.help(line, column) or script.infer(line, column)
    if not names:
        return None
    name = names[0]
    sigs = name.get_signatures()
    doc = _first_paragraph(name.docstring(raw=True))
    return {
        "name": name.name,
        "module": _module(name),
        "fullName": name.full_name or name.name,
        "type": name.type,
        "signature": sigs[0].to_string() if sigs else "",
        "doc": _builtin_doc(name.name, doc) if _module(name) == "builtins" else doc,
    }


_OWNER = re.compile(r"(?<![\w.])([A-Za-z_]\w*)\.$")


def _property(before: str, after: str, namespace: dict) -> dict | None:
    """The hover of ``name.attr`` when ``attr`` is a property of the live object ``name`` (jedi
    describes the value it would return, ``builtins.list`` for ``census.columns``): read off the
    class without running the property (``inspect.getattr_static``)."""
    owner, attr = _OWNER.search(before), re.match(r"\w+", after)
    if not owner or not attr or owner.group(1) not in namespace:
        return None
    cls = type(namespace[owner.group(1)])
    try:
        found = inspect.getattr_static(cls, attr.group(0))
    except AttributeError:
        return None
    if not isinstance(found, property):
        return None
    module = cls.__module__ or ""
    return {
        "name": attr.group(0),
        "module": module.split(".")[0],
        "fullName": f"{module}.{cls.__qualname__}.{attr.group(0)}",
        "type": "property",
        "signature": "",
        "doc": _first_paragraph(inspect.getdoc(found) or ""),
    }


KINDS = {"signature": signature, "hover": hover}  # and "complete", which reads the namespace
MAX_WARM_UPS = 4


def warm_ups(namespace: dict) -> list[str]:
    """Attribute completions to run once, each in a gap of its own, after jedi is imported: one
    per module and per data object the session has (``np.``, ``census.``), so that the first one
    a person asks for does not pay for parsing its stubs (a second or more in wasm)."""
    codes = []
    for name, value in list(namespace.items()):
        if (
            name.startswith("_")
            or inspect.isclass(value)
            or (callable(value) and not inspect.ismodule(value))
        ):
            continue
        if inspect.ismodule(value) or type(value).__module__.split(".")[0] not in ("builtins",):
            codes.append(f"{name}.")
    return codes[:MAX_WARM_UPS]


def answer(kind: str, code: str, line: int, column: int, namespace: dict):
    """The answer to one request (``kind``: complete, signature or hover) over ``namespace`` (the
    cells' shared one: ``cellrunner.Session.namespace``), or None."""
    try:
        line, column = int(line), int(column)
        script = jedi.Interpreter(code, [namespace])
        before = code.split("\n")[line - 1][:column]  # the line's text up to the cursor
        if kind == "complete":
            return complete(script, line, column, before, namespace)
        if kind == "hover" and (prop := _property(before, code.split("\n")[line - 1][column:], namespace)):
            return prop
        return KINDS[kind](script, line, column, before)
    except Exception:  # noqa: BLE001 - a completion must never break the editor
        return None
