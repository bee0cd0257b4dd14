"""dplab's range errors as a student should read them: in Spanish, at the student's line.

``dplab._validate.ParameterError`` carries facts (the parameter, the constraint, the value);
:func:`dplab_error` says them in Spanish (numbers with a decimal comma), keeps the frames up to
the caller of dplab, and adds a hint where a decimal comma split one number into two arguments.
"""

from __future__ import annotations

import os
import re
import sys
import traceback

# dplab's range errors (dplab._validate.ParameterError) said in Spanish, from the facts they carry
_ES_CONSTRAINTS = {
    "finite": "{p} debe ser un número finito; se recibió {v}",
    "positive": "{p} debe ser mayor que 0 (y finito); se recibió {v}",
    "nonnegative": "{p} debe ser mayor o igual que 0 (y finito); se recibió {v}",
    "interval": "{p} debe estar en el intervalo {interval}; se recibió {v}",
    "integer": "{p} debe ser un número entero mayor o igual que {minimum}; se recibió {v}",
    "max_float": "{p} debe ser un entero que quepa en un número de coma flotante; se recibió {v}",
    "order": "{p} debe ser mayor que 1 (y finito); se recibió {v}",
    "ndim": "{p} debe tener {allowed} dimensión(es); tiene la forma {shape}",
    "finite_entries": "{p} solo puede contener números finitos; contiene {v}",
    "entries_minimum": "todos los valores de {p} deben ser {op} {minimum}; el menor es {v}",
    "integer_valued": "{p} debe tener valores enteros (una consulta entera, como un conteo); se recibió {v}",
    "int64": "todos los valores de {p} deben caber en un entero de 64 bits; se recibió {v}",
    "above": "{p} debe ser mayor que {lower_name} = {lower}; se recibió {v}",
    "float_range": "el cálculo {problem} con {params}: se sale del rango de los números de coma "
    "flotante (el valor calculado: {what})",
}
_ES_PROBLEMS = {"nan": "da NaN", "overflow": "desborda a infinito", "underflow": "se anula (sin ruido)"}
_COMMA_DECIMAL = re.compile(r"(?<![\w.])(\d+),(\d+)(?![\w.])")


def _es_number(value) -> str:
    """A value for a Spanish message: numbers with a decimal comma (``0,5``, ``-1``, ``∞``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "∞" if value > 0 else "-∞"
        if value.is_integer() and abs(value) < 1e16:
            value = int(value)
    text = repr(value).replace(".", ",")
    return text if len(text) <= 60 else text[:57] + "…"


def parameter_message(exc) -> str | None:
    """The Spanish message of a ``dplab`` ParameterError, or None for any other exception."""
    template = _ES_CONSTRAINTS.get(getattr(exc, "constraint", None))
    if template is None or not type(exc).__module__.startswith("dplab"):
        return None
    d = dict(getattr(exc, "detail", {}))
    if "params" in d:
        d["params"] = ", ".join(f"{k}={v}" for k, v in d["params"].items())
        d["problem"] = _ES_PROBLEMS.get(d.get("problem"), d.get("problem"))
    if "allowed" in d:
        d["allowed"] = " o ".join(map(str, d["allowed"]))
    if "strict" in d:
        d["op"] = ">" if d["strict"] else "≥"
    for key in ("minimum", "lower"):
        if key in d:
            d[key] = _es_number(d[key])
    try:
        return template.format(p=exc.parameter, v=_es_number(exc.value), **d)
    except (KeyError, IndexError, ValueError):
        return None


def _comma_hint(line: str, value) -> str | None:
    """«0,1» where a number was meant: a decimal comma splits one number into two arguments, and
    the first (``value``, the one refused) is what the parameter got."""
    for found in _COMMA_DECIMAL.finditer(line or ""):
        a, b = found.groups()
        try:
            refused = float(value) == float(a)
        except (TypeError, ValueError):
            refused = False
        if refused:
            return (
                f"en Python los decimales llevan punto: {a}.{b} (la coma de «{a},{b}» separa dos argumentos)"
            )
    return None


def _dplab_frame_count(tb) -> int | None:
    """How many frames to keep so the last is the caller of dplab (None: no dplab frame)."""
    mod = sys.modules.get("dplab")
    folder = os.path.dirname(getattr(mod, "__file__", None) or "") if mod else ""
    if not folder:
        return None
    n = 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(folder + os.sep):
            return n or None
        n += 1
        tb = tb.tb_next
    return None


def dplab_error(exc: BaseException, tb) -> dict | None:
    """A dplab range error as the student should read it: their line, then the Spanish message
    (and a hint for a decimal comma); dplab's own frames dropped. None for any other error."""
    message = parameter_message(exc)
    keep = _dplab_frame_count(tb)
    if message is None or keep is None:
        return None
    stack = traceback.StackSummary.extract(traceback.walk_tb(tb), limit=keep)
    text = "Traceback (most recent call last):\n" + "".join(stack.format())
    kind = "ValueError"  # what Python calls it: ParameterError is dplab's subclass of it
    text += f"{kind}: {message}\n"
    last = stack[-1] if len(stack) else None
    hint = _comma_hint(last.line if last else "", exc.value)
    if hint:
        text += f"Pista: {hint}\n"
        message += f". Pista: {hint}"
    return {"type": kind, "message": message, "traceback": text}


# Python's own errors: one Spanish line under the traceback («En español: …»), from the type and
# the message Python gives (its «Did you mean» hint included). The first pattern that matches.
_SYNTAX_ES = (
    (r"unmatched '(.)'", "sobra un «{0}»: no cierra nada que se haya abierto"),
    (r"'(.)' was never closed", "un «{0}» se abre y nunca se cierra"),
    (
        r"closing parenthesis '(.)' does not match opening parenthesis '(.)'",
        "«{0}» no cierra el «{1}» abierto",
    ),
    (r"unterminated (triple-quoted )?string literal", "un texto entre comillas no se cierra"),
    (r"expected ':'", "falta «:» al final de la línea (después de if, for, def…)"),
    (r"Perhaps you forgot a comma", "¿falta una coma entre dos valores?"),
    (r"invalid decimal literal", "un número mal escrito (¿una letra pegada a un número?)"),
    (r"Maybe you meant '==' or ':=' instead of '='", "¿quiso comparar con «==» en lugar de asignar con «=»?"),
    (r"cannot assign to", "no se puede asignar a eso: a la izquierda de «=» va un nombre"),
    (r"invalid character '(.)'", "el carácter «{0}» no es válido en Python"),
    (r"unexpected EOF|incomplete input", "el código termina antes de tiempo: falta cerrar algo"),
    (r"unexpected indent", "sangría inesperada: esta línea tiene espacios de más al comienzo"),
    (
        r"expected an indented block",
        "falta la sangría: el bloque después de «:» debe ir con espacios al comienzo",
    ),
    (r"unindent does not match", "la sangría de esta línea no coincide con la de ninguna línea anterior"),
)
_MESSAGES_ES = {  # by the exception's class (the most specific of its classes that has an entry)
    "UnboundLocalError": (
        (r"'(\w+)'", "la variable «{0}» se usa en la función antes de asignarle un valor"),
    ),
    "AttributeError": (
        (r"'(\w+)' object has no attribute '(\w+)'", "un objeto {0} no tiene el atributo «{1}»"),
        (r"module '([\w.]+)' has no attribute '(\w+)'", "el módulo {0} no tiene «{1}»"),
    ),
    "TypeError": (
        (r"unsupported operand type\(s\) for (\S+): '(\w+)' and '(\w+)'", "no se puede operar {1} {0} {2}"),
        (r"(\w+)\(\) missing (\d+) required positional argument", "a {0}() le falta(n) {1} argumento(s)"),
        (r"(\w+)\(\) got an unexpected keyword argument '(\w+)'", "{0}() no tiene un parámetro «{1}»"),
        (r"(\w+)\(\) takes (.+) but (\d+) (?:were|was) given", "{0}() recibió {2} argumentos: acepta {1}"),
        (r"'(\w+)' object is not callable", "un {0} no es una función: no se puede llamar con (…)"),
        (r"'(\w+)' object is not subscriptable", "un {0} no admite índices […]"),
        (r"", "una operación o una función recibió un valor de un tipo que no acepta"),
    ),
    "ZeroDivisionError": ((r"", "división por cero"),),
    "IndexError": ((r"", "índice fuera de rango: la lista o el arreglo tiene menos elementos"),),
    "KeyError": ((r"", "esa clave no existe (en un diccionario, o una columna que el censo no tiene)"),),
    "ModuleNotFoundError": ((r"'([\w.]+)'", "el módulo «{0}» no está disponible aquí"),),
    "ImportError": ((r"", "no se pudo importar ese nombre"),),
    "ValueError": ((r"", "un valor que esta operación no acepta"),),
    "AssertionError": ((r"", "una comprobación (assert) no se cumplió"),),
    "RecursionError": ((r"", "demasiadas llamadas anidadas: una función que se llama a sí misma sin parar"),),
    "OverflowError": ((r"", "un número demasiado grande para representarlo"),),
    "FileNotFoundError": (
        (r"", "ese archivo no existe (en el navegador solo están los que creen las celdas)"),
    ),
}
_DID_YOU_MEAN = re.compile(r"Did you mean: '?([\w.]+)'?\?")


# a Stop (■ Detener, or Escape in the editor) raises KeyboardInterrupt in the cell
INTERRUPTED_ES = "ejecución detenida con ■ Detener (o Escape): la celda no terminó"


def python_error_es(exc: BaseException, formatted: str) -> str | None:
    """The Spanish line for Python's own error ``exc`` (``formatted``: its traceback as Python
    writes it, which carries the «Did you mean» hint), or None (an error Python's own message
    says well enough, or one this table does not know). A KeyboardInterrupt is a Stop."""
    if isinstance(exc, KeyboardInterrupt):
        return INTERRUPTED_ES
    message = str(exc.msg if isinstance(exc, SyntaxError) else exc)
    hint = _DID_YOU_MEAN.search(formatted)
    guess = f": ¿quiso decir «{hint.group(1)}»?" if hint else ""
    if isinstance(exc, SyntaxError):
        for pattern, spanish in _SYNTAX_ES:
            found = re.search(pattern, message)
            if found:
                return f"error de sintaxis en la línea {exc.lineno}: " + spanish.format(*found.groups())
        return f"error de sintaxis en la línea {exc.lineno}: Python no puede leer el código (revise paréntesis, comillas, «:» y comas)"
    if type(exc) is NameError:
        name = getattr(exc, "name", None) or (re.findall(r"'(\w+)'", message) or ["?"])[0]
        return f"«{name}» no está definido" + (
            guess or ": ¿falta ejecutar la celda que lo define, o está mal escrito?"
        )
    for cls in type(exc).__mro__:
        for pattern, spanish in _MESSAGES_ES.get(cls.__name__, ()):
            found = re.search(pattern, message)
            if found:
                return spanish.format(*found.groups()) + guess
    return None
