"""dplab's range errors as a student reads them in the deck: in Spanish, at the student's line.

dplab raises :class:`dplab._validate.ParameterError` (a ``ValueError`` whose ``str()`` stays
English for CPython users) carrying the parameter, the constraint and the value; the cell runner
(``cellrunner.format_error``, ``cellrunner.errors_es``) says it in Spanish and drops dplab's own frames.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from cellrunner import errors_es
from dplab import _validate as v


def error_of(runner, code: str) -> dict:
    result = runner.run(code, "prueba", lambda kind, payload: None)
    assert not result["ok"], result
    return result["error"]


def test_the_decimal_comma_slip_gets_its_hint_at_the_students_line(runner):
    code = "import numpy as np\nfrom dplab import laplace_mech\nx = np.zeros(3)\nlaplace_mech(x, 1, 0,1)"
    error = error_of(runner, code)
    assert error["type"] == "ValueError"
    assert error["message"].startswith("epsilon debe ser mayor que 0")
    assert "en Python los decimales llevan punto: 0.1" in error["message"]
    tb = error["traceback"]
    frames = re.findall(r'^  File "([^"]+)"', tb, re.M)
    assert frames == ["<celda prueba>"], tb  # the student's line, then the message
    assert "laplace_mech(x, 1, 0,1)" in tb
    last = tb.rstrip().splitlines()[-2:]
    assert last[0].startswith("ValueError: epsilon debe ser mayor que 0"), tb
    assert (
        last[1] == "Pista: en Python los decimales llevan punto: 0.1 (la coma de «0,1» separa dos argumentos)"
    )
    assert "must be" not in tb and "_validate" not in tb and "mechanisms.py" not in tb


def test_a_call_through_the_students_own_function_keeps_both_lines(runner):
    code = "import dplab\ndef ruido(e):\n    return dplab.gaussian_mech(1.0, 1, e, 2)\n\nruido(1.0)"
    error = error_of(runner, code)
    frames = re.findall(r'^  File "[^"]+", line (\d+)', error["traceback"], re.M)
    assert frames == ["5", "3"], error["traceback"]
    assert error["message"] == "delta debe estar en el intervalo (0, 1); se recibió 2"


def test_no_hint_where_the_comma_did_not_cause_the_refusal(runner):
    error = error_of(runner, "import dplab\ndplab.laplace_mech(1,1,-2.5)")
    assert error["message"] == "epsilon debe ser mayor que 0 (y finito); se recibió -2,5"
    assert "Pista" not in error["traceback"]


def test_errors_that_are_not_dplabs_stay_as_python_says_them(runner):
    error = error_of(runner, "import math\nmath.sqrt(-1)")
    assert error == {
        "type": "ValueError",
        "message": "math domain error",
        "traceback": error["traceback"],
    }
    # Python's line stays as Python writes it; the Spanish one goes under it
    assert error["traceback"].rstrip().splitlines()[-2:] == [
        "ValueError: math domain error",
        "En español: un valor que esta operación no acepta",
    ]
    error = error_of(runner, "import dplab\ndplab.laplace_mech(1, 1, True)")
    assert error["type"] == "TypeError"  # types are Python's word: unchanged


# one call per constraint of _validate: every one is said in Spanish
CALLS = {
    "finite": lambda: v.check_real(math.inf, "lower"),
    "positive": lambda: v.check_positive(-1.0, "sensitivity"),
    "nonnegative": lambda: v.check_nonnegative(-0.5, "cost"),
    "interval": lambda: v.check_delta(1.5),
    "integer": lambda: v.check_integer(0, "k"),
    "max_float": lambda: v.check_count(10**400, "k"),
    "order": lambda: v.check_order(0.5),
    "ndim": lambda: v.check_array(np.zeros((2, 2)), "x", ndim=1),
    "finite_entries": lambda: v.check_array([1.0, math.nan], "x"),
    "entries_minimum": lambda: v.check_array([1.0, -2.0], "x", minimum=0),
    "integer_valued": lambda: v.check_integer_values([1.5], "counts"),
    "int64": lambda: v.check_integer_values(np.array([2.0**70]), "counts"),
    "above": lambda: v.check_bounds(5, 1),
    "float_range": lambda: v.finite_result(math.inf, "the noise scale", sensitivity=1.0, epsilon=5e-324),
}


def test_every_constraint_carries_its_facts_and_keeps_its_english_str():
    assert set(CALLS) == set(v.CONSTRAINTS)
    for constraint, call in CALLS.items():
        with pytest.raises(v.ParameterError) as info:
            call()
        err = info.value
        assert isinstance(err, ValueError) and err.constraint == constraint
        assert "must" in str(err) or "beyond the range" in str(err)  # English for CPython users
        assert set(v.CONSTRAINTS[constraint]) <= set(err.detail), constraint
    with pytest.raises(v.ParameterError) as info:
        v.check_epsilon(-1)
    assert (info.value.parameter, info.value.value) == ("epsilon", -1.0)
    assert str(info.value) == "epsilon must be > 0 and finite, got -1.0"


@pytest.mark.parametrize("constraint", sorted(CALLS))
def test_every_constraint_is_said_in_spanish(constraint):
    with pytest.raises(v.ParameterError) as info:
        CALLS[constraint]()
    text = errors_es.parameter_message(info.value)
    assert text and "{" not in text and "must" not in text, text
    assert info.value.parameter in text, text


@pytest.mark.parametrize(
    ("code", "spanish"),
    [
        ("laplace_mehc(1)", "«laplace_mehc» no está definido"),
        ("print(1))", "error de sintaxis en la línea 1: sobra un «)»: no cierra nada que se haya abierto"),
        ("x = (1,\n", "error de sintaxis en la línea 1: un «(» se abre y nunca se cierra"),
        ("1 / 0", "división por cero"),
        ("[1][3]", "índice fuera de rango: la lista o el arreglo tiene menos elementos"),
        ("(1).foo", "un objeto int no tiene el atributo «foo»"),
        ("1 + 'a'", "no se puede operar int + str"),
    ],
)
def test_pythons_own_errors_get_a_spanish_line_under_them(runner, code, spanish):
    """Python's English stays (it is what a search finds); the line under it says it in Spanish."""
    tb = error_of(runner, code)["traceback"]
    python_line, spanish_line = tb.rstrip().splitlines()[-2:]
    assert re.match(r"\w+Error: ", python_line), tb
    assert spanish_line.startswith("En español: " + spanish), tb


def test_a_stop_gets_a_spanish_line_under_keyboardinterrupt(runner):
    """■ Detener (or Escape) raises KeyboardInterrupt in the cell (issue 50, item 8): under
    Python's «KeyboardInterrupt» the student reads what happened, in Spanish; a Stop that came
    before the cell's first line gets the same two lines from the worker (INTERRUPTED_TRACEBACK)."""
    from cellrunner import INTERRUPTED_TRACEBACK

    error = error_of(runner, "x = 1\nraise KeyboardInterrupt")
    assert error["type"] == "KeyboardInterrupt" and error["message"] == "ejecución interrumpida", error
    python_line, spanish_line = error["traceback"].rstrip().splitlines()[-2:]
    assert python_line == "KeyboardInterrupt", error["traceback"]
    assert spanish_line == "En español: ejecución detenida con ■ Detener (o Escape): la celda no terminó"
    assert INTERRUPTED_TRACEBACK == f"{python_line}\n{spanish_line}\n"
