"""Validation of every parameter of the package, in one place.

Rules (the same for every public function):

* A wrong *type* raises ``TypeError``: strings, booleans (``True`` is not 1
  here), ``None``, complex numbers, lists where a number is expected.
* A number outside its *range* raises ``ValueError``: NaN and ±inf are always
  out of range.
* Python numbers and numpy scalars (``np.float64``, ``np.int32``, 0-d arrays)
  are accepted alike and returned as plain ``float`` / ``int``.
* Every message names the parameter, the constraint and the value, e.g.
  ``epsilon must be > 0 and finite, got -1.0``. A range error is a
  :class:`ParameterError` (a ``ValueError``) that also carries them as data
  (``parameter``, ``constraint``, ``value``, ``detail``): the deck's cell runner
  says it in Spanish from them; ``str()`` stays the English message.
* Parameters valid one by one can still leave the float range together:
  sensitivity / epsilon overflows to inf at epsilon = 5e-324, and underflows
  to 0 -- no noise at all -- at sensitivity = 5e-324, epsilon = 10. Every
  computed noise scale, sigma, bound or epsilon goes through
  :func:`finite_result`, which raises ``ValueError`` naming the parameters
  that produced it: no public function returns inf or NaN for finite input.
"""

from __future__ import annotations

import math
import numbers
import sys
import warnings

import numpy as np

__all__ = [
    "ParameterError",
    "to_float",
    "check_real",
    "check_positive",
    "check_epsilon",
    "check_nonnegative",
    "check_delta",
    "check_integer",
    "check_count",
    "check_sample_rate",
    "check_order",
    "check_array",
    "check_integer_values",
    "check_bounds",
    "warn_if_delta_too_large",
    "finite_result",
    "NORMAL_MIN",
]

#: The smallest normal float, 2.2e-308. Below it a float is subnormal: it keeps fewer
#: than 53 bits, so a noise scale there is not the scale asked for (5.5e-324 rounds to
#: 4.9e-324, 10 % less noise), and at 0 it is no noise at all.
NORMAL_MIN = sys.float_info.min


class ParameterError(ValueError):
    """A parameter (or a value computed from parameters) out of its range.

    ``str(err)`` is the English message, as for any ``ValueError``; the same facts as data:

    ``parameter``
        The parameter's name as the caller wrote it (``"epsilon"``, ``"epsilons[1]"``).
    ``constraint``
        What was required, one of :data:`CONSTRAINTS`.
    ``value``
        What was passed (or computed), as a plain ``float`` / ``int`` where it is a number.
    ``detail``
        Whatever else the constraint names (``minimum``, ``lower``, ``allowed``, ...).
    """

    def __init__(self, message: str, *, parameter: str, constraint: str, value, **detail):
        super().__init__(message)
        self.parameter = parameter
        self.constraint = constraint
        self.value = value
        self.detail = detail


#: The constraints a :class:`ParameterError` may name, and the ``detail`` each carries.
CONSTRAINTS = {
    "finite": (),
    "positive": (),  # > 0 and finite
    "nonnegative": (),  # >= 0 and finite
    "interval": ("interval",),  # "(0, 1)", "[0, 1)", "(0, 1]"
    "integer": ("minimum",),  # an integer >= minimum
    "max_float": ("maximum",),  # an integer a float can hold
    "order": (),  # > 1 and finite
    "ndim": ("allowed", "shape"),
    "finite_entries": (),
    "entries_minimum": ("minimum", "strict"),
    "integer_valued": (),
    "int64": (),
    "above": ("lower", "lower_name"),  # upper > lower
    "float_range": ("what", "problem", "params"),  # a computed value left the float range
}


def _range_error(message: str, name: str, constraint: str, value, **detail) -> ParameterError:
    assert constraint in CONSTRAINTS, constraint
    return ParameterError(message, parameter=name, constraint=constraint, value=value, **detail)


def _is_bool(value) -> bool:
    return isinstance(value, (bool, np.bool_))


def _as_scalar(value):
    """Unwrap a 0-d numpy array into a numpy scalar; leave anything else alone."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        return value[()]
    return value


def _type_error(name: str, expected: str, value) -> TypeError:
    return TypeError(f"{name} must be {expected}, got {value!r} of type {type(value).__name__}")


def to_float(value, name: str, constraint: str) -> float:
    """Return ``value`` as a float, or raise TypeError naming ``constraint``."""
    value = _as_scalar(value)
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise _type_error(name, f"a real number ({constraint})", value)
    return float(value)


def check_real(value, name: str) -> float:
    """A finite real number."""
    x = to_float(value, name, "finite")
    if not math.isfinite(x):
        raise _range_error(f"{name} must be finite, got {x!r}", name, "finite", x)
    return x


def check_positive(value, name: str) -> float:
    """A real number > 0 and finite (sensitivities, bounds, sigma, learning rates)."""
    x = to_float(value, name, "> 0 and finite")
    if not (x > 0 and math.isfinite(x)):
        raise _range_error(f"{name} must be > 0 and finite, got {x!r}", name, "positive", x)
    return x


def check_epsilon(value, name: str = "epsilon", maximum: float | None = None, why: str = "") -> float:
    """A privacy budget epsilon: > 0 and finite, and at most ``maximum`` when one is given (a
    mechanism that keeps its guarantee only up to there; ``why`` says why, in the message)."""
    x = check_positive(value, name)
    if maximum is not None and not x <= maximum:
        interval = f"(0, {maximum:g}]"
        raise _range_error(
            f"{name} must be in {interval}{why}, got {x!r}", name, "interval", x, interval=interval
        )
    return x


def check_nonnegative(value, name: str) -> float:
    """A real number >= 0 and finite (a cost that may be zero)."""
    x = to_float(value, name, ">= 0 and finite")
    if not (x >= 0 and math.isfinite(x)):
        raise _range_error(f"{name} must be >= 0 and finite, got {x!r}", name, "nonnegative", x)
    return x


def warn_if_delta_too_large(delta: float, n, name: str = "delta") -> None:
    """Warn when delta >= 1/n: "publish one random person" would then be allowed.

    The rule of thumb is delta << 1/n (Dwork & Roth 2014, Section 2.3).
    """
    if n is not None and n > 0 and delta >= 1.0 / n:
        warnings.warn(
            f"{name} = {delta!r} is >= 1/n = {1.0 / n!r} (n = {n}): such a delta "
            "allows publishing a random person's record; choose delta << 1/n",
            UserWarning,
            stacklevel=3,
        )


def check_delta(value, name: str = "delta", n=None, allow_zero: bool = False) -> float:
    """A failure probability delta in the open interval (0, 1).

    With ``allow_zero=True`` the interval is [0, 1) (a total budget, a cost).
    When the number of people ``n`` is known, warn if delta >= 1/n.
    """
    constraint = "in [0, 1)" if allow_zero else "in (0, 1)"
    x = to_float(value, name, constraint)
    low_ok = x >= 0 if allow_zero else x > 0
    if not (low_ok and x < 1):  # NaN fails both comparisons
        raise _range_error(
            f"{name} must be {constraint}, got {x!r}", name, "interval", x, interval=constraint[3:]
        )
    warn_if_delta_too_large(x, n, name)
    return x


def check_integer(value, name: str, minimum: int = 1) -> int:
    """An integer >= ``minimum`` (k, steps, iterations, n).

    A float with an integral value (``1e4``) is accepted, since ``10**4`` and
    ``1e4`` mean the same count to a reader; ``2.5`` is not.
    """
    constraint = f"an integer >= {minimum}"
    value = _as_scalar(value)
    if _is_bool(value) or not isinstance(value, numbers.Real):
        raise _type_error(name, constraint, value)
    if isinstance(value, numbers.Integral):
        k = int(value)
    else:
        x = float(value)
        if not (math.isfinite(x) and x.is_integer()):
            raise _range_error(f"{name} must be {constraint}, got {x!r}", name, "integer", x, minimum=minimum)
        k = int(x)
    if k < minimum:
        raise _range_error(f"{name} must be {constraint}, got {k!r}", name, "integer", k, minimum=minimum)
    return k


def check_count(value, name: str) -> int:
    """A count (k, steps, iterations) that enters float arithmetic: an integer in [1, max float].

    ``k * epsilon`` or ``delta / k`` converts k to a float, which fails for an
    integer above 1.8e308 (``10**400``); such a k is refused here, naming it.
    """
    k = check_integer(value, name)
    if k > sys.float_info.max:  # exact int/float comparison
        raise _range_error(
            f"{name} must be an integer <= {sys.float_info.max!r} (the largest float), got {_shown(k)}",
            name,
            "max_float",
            k,
            maximum=sys.float_info.max,
        )
    return k


def check_sample_rate(value, name: str = "sample_rate") -> float:
    """A sampling probability q in (0, 1]."""
    x = to_float(value, name, "in (0, 1]")
    if not (0 < x <= 1):
        raise _range_error(f"{name} must be in (0, 1], got {x!r}", name, "interval", x, interval="(0, 1]")
    return x


def check_order(value, name: str = "alpha") -> float:
    """A Renyi order alpha > 1 and finite."""
    x = to_float(value, name, "> 1 and finite")
    if not (x > 1 and math.isfinite(x)):
        raise _range_error(f"{name} must be > 1 and finite, got {x!r}", name, "order", x)
    return x


def _numeric_array(values, name, what):
    """``values`` as a numpy array of ints or floats, else TypeError saying it must be ``what``."""
    if isinstance(values, (str, bytes)) or _is_bool(values):
        raise _type_error(name, what, values)
    try:
        arr = np.asarray(values)
    except (TypeError, ValueError) as exc:  # ragged nested lists
        raise TypeError(f"{name} must be {what}: {exc}") from None
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be {what}, got dtype {arr.dtype} (value {values!r:.80})")
    return arr


def check_array(values, name: str, ndim=None, minimum=None, strict_minimum=False) -> np.ndarray:
    """A numeric array (or scalar) of finite reals, returned as a float ndarray.

    Parameters
    ----------
    values : array_like
        Numbers. Booleans, strings and objects are refused (TypeError).
    name : str
        Parameter name for messages.
    ndim : int or tuple of int, optional
        Allowed number of dimensions.
    minimum : float, optional
        Every entry must be >= ``minimum`` (> if ``strict_minimum``).
    """
    arr = _numeric_array(values, name, "an array of real numbers").astype(float)
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
        if arr.ndim not in allowed:
            raise _range_error(
                f"{name} must have {' or '.join(map(str, allowed))} dimension(s), got shape {arr.shape}",
                name,
                "ndim",
                arr.shape,
                allowed=allowed,
                shape=arr.shape,
            )
    if arr.size and not np.all(np.isfinite(arr)):
        bad = float(arr[~np.isfinite(arr)].flat[0])
        raise _range_error(
            f"{name} must contain only finite numbers, got {bad!r}", name, "finite_entries", bad
        )
    if minimum is not None and arr.size:
        low = float(arr.min())
        if (low <= minimum) if strict_minimum else (low < minimum):
            op = ">" if strict_minimum else ">="
            raise _range_error(
                f"every entry of {name} must be {op} {minimum}, got {low!r}",
                name,
                "entries_minimum",
                low,
                minimum=minimum,
                strict=bool(strict_minimum),
            )
    return arr


_INT64_MAX = int(np.iinfo(np.int64).max)


def check_integer_values(values, name: str):
    """Integer data: the true answer of an integer-valued query (counts, histograms).

    Accepts Python and numpy integers, integer arrays, and floats whose value
    is an integer (``3.0``, as sums of 0/1 columns often are). Returns a
    Python ``int`` for a scalar (of any size, 0-d arrays included) and an
    int64 ``ndarray`` otherwise.

    Raises
    ------
    TypeError
        For booleans, strings, objects, ragged lists.
    ValueError
        For a value that is not an integer (2.5, NaN, inf), or an array entry
        outside the int64 range.
    """
    if isinstance(values, numbers.Integral) and not _is_bool(values):
        return int(values)  # Python ints of any size stay exact
    arr = _numeric_array(values, name, "an integer or an array of integers")
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr) | (arr != np.round(arr))
        if np.any(bad):
            x = float(arr[bad].flat[0])
            raise _range_error(
                f"{name} must be integer-valued (an integer query such as a count), got {x!r}",
                name,
                "integer_valued",
                x,
            )
    if arr.ndim == 0:
        return int(arr[()])
    if arr.size:
        if arr.dtype.kind == "f":
            too_big = np.abs(arr) >= 2.0**63
        else:
            too_big = (arr > _INT64_MAX) | (arr < -_INT64_MAX - 1)
        if np.any(too_big):
            x = arr[too_big].flat[0].item()
            raise _range_error(
                f"every entry of {name} must fit in a 64-bit integer, got {x!r}", name, "int64", x
            )
    return arr.astype(np.int64)


def check_bounds(lower, upper, lower_name: str = "lower", upper_name: str = "upper"):
    """Finite reals with lower < upper."""
    lo = check_real(lower, lower_name)
    hi = check_real(upper, upper_name)
    if not lo < hi:
        raise _range_error(
            f"{upper_name} must be > {lower_name} = {lo!r}, got {hi!r}",
            upper_name,
            "above",
            hi,
            lower=lo,
            lower_name=lower_name,
        )
    return lo, hi


def _shown(value) -> str:
    """A parameter's value for a message: its repr, shortened (an integer of 400 digits as 1.000e+399)."""
    if isinstance(value, numbers.Integral) and not _is_bool(value) and abs(int(value)) >= 10**21:
        digits = str(abs(int(value)))
        sign = "-" if value < 0 else ""
        return f"{sign}{digits[0]}.{digits[1:4]}e+{len(digits) - 1}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def finite_result(value, what: str, /, *, positive: bool = False, **params):
    """Check a computed quantity (noise scale, sigma, bound, epsilon) against the float range.

    Parameters
    ----------
    value : float or numpy.ndarray
        The computed quantity.
    what : str
        What it is, with its formula, for the message (``"the noise scale sensitivity/epsilon"``).
    positive : bool, default False
        Require every entry to be >= :data:`NORMAL_MIN`: for a quantity that is > 0 in exact
        arithmetic and loses its meaning when it underflows (a noise scale of 0 adds no noise).
    **params
        The parameters it was computed from, ``name=value``: the message shows them all.

    Returns
    -------
    float or numpy.ndarray
        ``value`` (a float if it was a scalar).

    Raises
    ------
    ValueError
        If an entry is inf or NaN (an overflow on the way), or underflows when ``positive``;
        e.g. ``the noise scale sensitivity/epsilon overflows to inf with sensitivity=1.0,
        epsilon=5e-324: beyond the range of floating point``.
    """
    if isinstance(value, float) and math.isfinite(value) and (value >= NORMAL_MIN or not positive):
        return float(value)  # the common case, without numpy's calls (each costs in the browser)
    arr = np.asarray(value, dtype=float)
    bad = ~np.isfinite(arr)
    if np.any(bad):
        x = float(arr[bad].flat[0])
        problem = "is NaN (an intermediate value overflowed)" if math.isnan(x) else f"overflows to {x!r}"
    elif positive and np.any(arr < NORMAL_MIN):
        x = float(arr[arr < NORMAL_MIN].flat[0])
        problem = f"underflows to {x!r}" + (f" (below the smallest normal float {NORMAL_MIN!r})" if x else "")
    else:
        return float(arr) if arr.ndim == 0 else value
    shown = ", ".join(f"{name}={_shown(v)}" for name, v in params.items())
    raise _range_error(
        f"{what} {problem} with {shown}: beyond the range of floating point",
        next(iter(params), what),
        "float_range",
        x,
        what=what,
        problem="nan" if math.isnan(x) else "overflow" if math.isinf(x) else "underflow",
        params={name: _shown(v) for name, v in params.items()},
    )
