"""Exercises that check themselves: the Python that judges a student's answer.

An exercise slide (kind ``exercise``) has ``starter`` code with blanks (``b = ...``), a
``check`` and a ``solution``. The ``check`` is the *body of a function* run after the student's
code, in the same namespace (it reads the student's names as globals). It passes or fails by:

- ``return True`` / ``return True, "mensaje"``: passes (the message is the praise shown);
- ``return False, "mensaje"`` (or ``return False``): fails with that feedback;
- ``assert condición, "mensaje"``: fails with that message when the condition is false;
- returning nothing (``None``) passes, once every assert held.

Inside the check, ``close(x, objetivo, rel=1e-6)`` says whether ``x`` is a number close to
``objetivo`` (False, never an error, for ``...``, text or ``None``), and ``givens(delta=1e-5,
...)`` fails, naming the value, when the student changed a number the prompt gives. A check
judges against the prompt's values written in the check itself, never against the student's
copies of them (which the student can edit), and calls ``givens`` first so that feedback about
an edited given is about that. Before the check runs, each
blank of the starter (a name assigned ``...``) that still holds ``...`` fails with "complete
`b`"; a name the check needs that the student's code does not define fails with "falta definir";
any other error of the check fails with its Spanish description, never a crash.

:func:`program` turns a check into the Python appended to the student's code. The run's last
value is a ``cellrunner.Verdict(ok, message)``, which the cell runner sends as a ``verdict``
message, never as a value (PROTOCOL.md): the page (``static/js/page/exercise.js``) shows it under the
exercise. The same text runs under CPython in the tests (``tests/unit/test_exercises.py``) and in
``build.py check --run``, which read the verdict from the runner's messages too.
"""

from __future__ import annotations

import ast
import textwrap

_PROGRAM = """
def __dpdeck_exercise__():
    import math as _math
    from cellrunner import Verdict as _Verdict
    _blanks = {blanks}

    def close(x, objetivo, rel=1e-6, abs=1e-9):
        try:
            x = float(x)
        except (TypeError, ValueError):
            return False
        return _math.isfinite(x) and _math.isclose(x, float(objetivo), rel_tol=rel, abs_tol=abs)

    def givens(**dados):
        _g = globals()
        for _name, _want in dados.items():
            if _name not in _g:
                raise NameError(f"name {{_name!r}} is not defined", name=_name)
            if not close(_g[_name], _want, rel=1e-9):
                _shown = repr(_want).replace("e-0", "e-")
                raise AssertionError(
                    f"El enunciado da `{{_name}} = {{_shown}}` y su código tiene "
                    f"`{{_name}} = {{_g[_name]!r}}`: vuelva al valor dado (la comprobación "
                    "juzga con los datos del enunciado)."
                )

    def _check():
{body}

    def _verdict():
        _g = globals()
        for _name in _blanks:
            if _name in _g and _g[_name] is Ellipsis:
                return False, f"Falta completar `{{_name}}`: todavía tiene el hueco del enunciado (`...`)."
        try:
            got = _check()
        except AssertionError as exc:
            return False, str(exc) or "Todavía no: la comprobación no pasó."
        except NameError as exc:
            name = getattr(exc, "name", None) or str(exc)
            return False, f"Falta definir `{{name}}`: la comprobación lo necesita."
        except Exception as exc:
            return False, ("La comprobación no pudo evaluar su respuesta: "
                           f"{{type(exc).__name__}}: {{exc}}")
        if got is None or got is True:
            return True, ""
        if got is False:
            return False, ""
        if isinstance(got, tuple) and len(got) == 2:
            return bool(got[0]), str(got[1])
        return bool(got), ""

    _ok, _message = _verdict()
    if not _message:
        _message = "¡Correcto!" if _ok else "Todavía no."
    return _Verdict(_ok, _message)
globals().pop("__dpdeck_exercise__")()
"""


def check_body_error(check: str) -> SyntaxError | None:
    """A syntax error of the check read as a function body, with the line inside the check."""
    try:
        ast.parse("def check():\n" + textwrap.indent(check, "    ") + "\n    pass\n")
    except SyntaxError as exc:
        exc.lineno = max(1, (exc.lineno or 2) - 1)
        return exc
    return None


def program(check: str, blank_names: list[str]) -> str:
    """The Python run after the student's code: it ends with the verdict as its value."""
    body = textwrap.indent(check.rstrip() + "\n", " " * 8) + "        return None"
    return _PROGRAM.format(blanks=repr(tuple(blank_names)), body=body)
