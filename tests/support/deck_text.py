"""Reading what the deck's cells print, and running every cell of a deck under CPython.

The deck prints numbers the Spanish way (dplab.fmt: '5.164.200', '0,5'); these read them back
and find the ones an audience reading Spanish would misread.
"""

from __future__ import annotations

import math
import re

from dpdeck.build.cellrun import Session

DRAWS = re.compile(r"\b(plt|figure)\b")  # a cell that makes a matplotlib figure


def run_cells(deck) -> dict[str, dict]:
    """Run the prelude, then every cell on its own (dpdeck.build.cellrun, as `build.py check --run`
    does); {cell id: what it showed}."""
    session = Session(deck.prelude)
    assert session.prelude_run.ok, session.prelude_run.error
    outputs = {}
    for slide in deck.slides:
        if not slide.code:
            continue
        run = session.run(slide.code, slide.id)  # nothing left over from the previous cell
        outputs[slide.id] = {
            "result": run.result,
            "seconds": run.seconds,
            "stdout": run.stdout,
            "stderr": run.stderr,
            "figures": run.figures,
            "slide": slide,
        }
    return outputs


def spanish_number(text: str) -> float:
    """A number as the deck prints it: '5.164.200' or '0,5' (dplab.fmt)."""
    return float(text.replace(".", "").replace(",", "."))


def number_after(text: str, label: str) -> float:
    """The first number after ``label``, printed the Spanish way (1.234,5)."""
    match = re.search(re.escape(label) + r"\s*(-?[\d.]*,?\d+)", text)
    assert match, f"no number after {label!r} in:\n{text}"
    return spanish_number(match.group(1))


# A number token, and the two ways the audience may read one: '5.000' / '1.234,5' (grouped)
# or '37' / '0,833' (no thousands). '5,164,200', '0.5', '2.50' or '22026' are not Spanish.
NUMBER_TOKEN = re.compile(r"(?<![\w.,])\d[\d.,]*(?<=\d)")
SPANISH_NUMBER = re.compile(r"[1-9]\d{0,2}(?:\.\d{3})+(?:,\d+)?|\d{1,4}(?:,\d+)?")
ENGLISH_THOUSANDS = re.compile(r"(?<![\d,])[1-9]\d{0,2}(?:,\d{3})+(?!\d)")


def not_spanish_numbers(text: str) -> list[str]:
    """The number tokens in ``text`` an audience reading Spanish would misread."""
    bad = [t for t in NUMBER_TOKEN.findall(text) if not SPANISH_NUMBER.fullmatch(t)]
    return bad + ENGLISH_THOUSANDS.findall(text)


TRADEOFF_ROW = re.compile(r"n = ([\d.]+): umbral ε ≈ ([\d.,]+|∞); en ε = ([\d.,]+): ([\d,]+)")


def tradeoff_curves(text: str) -> dict[int, tuple[float, float, float]]:
    """What "El compromiso privacidad–utilidad" prints, per sample size n: (the ε from which
    the mean accuracy stays over the majority line, the largest ε of the grid, the mean
    accuracy there)."""
    rows = {
        int(spanish_number(n)): (
            math.inf if e0 == "∞" else spanish_number(e0),
            spanish_number(top),
            spanish_number(acc),
        )
        for n, e0, top, acc in TRADEOFF_ROW.findall(text)
    }
    assert rows, f"no curve printed in:\n{text}"
    return rows
