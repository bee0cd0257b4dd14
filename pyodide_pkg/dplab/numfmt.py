"""Numbers as a Spanish-speaking audience reads them: decimal comma, "5.000" for thousands.

The code keeps Python literals (``0.5``, ``5_000``); only what is *shown* goes through
:func:`fmt` (and :func:`pct`). ``dplab.plots`` uses the same rule for tick labels.

>>> fmt(5164200)
'5.164.200'
>>> fmt(0.5)
'0,5'
>>> fmt(3.14159, 2)
'3,14'
>>> pct(0.237, 1)
'23,7 %'
>>> fmt(float("inf"))
'∞'
"""

from __future__ import annotations

import math
import numbers

__all__ = ["fmt", "pct"]


def _one(x, decimals):
    if isinstance(x, (bool,)) or not isinstance(x, numbers.Real):
        return str(x)
    x = float(x) if not isinstance(x, numbers.Integral) else int(x)
    if isinstance(x, float) and math.isinf(x):
        return "∞" if x > 0 else "-∞"
    if isinstance(x, float) and math.isnan(x):
        return str(x)
    if decimals is None:  # lo justo: enteros sin decimales, el resto hasta 6
        if isinstance(x, int) or float(x).is_integer():
            decimals = 0
        else:
            text = f"{x:.6f}".rstrip("0")
            decimals = len(text.split(".")[1])
    text = f"{x:,.{decimals}f}"  # 5,164,200.25 (inglés)
    return text.replace(",", "\0").replace(".", ",").replace("\0", ".")


def fmt(x, decimals: int | None = None) -> str:
    """``x`` with a decimal comma and '.' between thousands.

    Parameters
    ----------
    x : number, or a sequence / numpy array of numbers
        What to show. A sequence comes back as ``[a  b  c]`` (two spaces between
        items: a comma would be read as a decimal comma).
    decimals : int, optional
        Digits after the comma. By default an integer gets none and a float as
        many as it needs, up to 6.
    """
    if hasattr(x, "tolist") and not isinstance(x, numbers.Number):
        x = x.tolist()
    if isinstance(x, (list, tuple)):
        return "[" + "  ".join(fmt(v, decimals) for v in x) + "]"
    return _one(x, decimals)


def pct(x, decimals: int = 0) -> str:
    """A proportion as a Spanish percentage: ``pct(0.237, 1) == '23,7 %'``."""
    return f"{fmt(100 * float(x), decimals)} %"
