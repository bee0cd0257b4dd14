"""Typeset every formula of the deck with KaTeX (node), once per build."""

from __future__ import annotations

import json
import re
from pathlib import Path

from . import tools
from .errors import BuildEnvironmentError, DeckError

_SCRIPT = Path(__file__).with_name("katex_render.mjs")
_PLACEHOLDER = re.compile("\x00MATH(\\d+)\x00")


def typeset(formulas: list[tuple[str, bool]], where: list[dict], node_modules: Path) -> list[str]:
    """KaTeX HTML for each (tex, display) formula; a bad formula raises DeckError at its slide.

    No node, no KaTeX or a crashing KaTeX is the build's environment: a ToolError."""
    if not formulas:
        return []
    purpose = "typesetting the deck's math with KaTeX"
    node = tools.which("node", purpose, "Install Node.js (>= 20).")
    if not (node_modules / "katex").is_dir():
        raise BuildEnvironmentError(f"KaTeX is missing from {node_modules}: run `npm ci`")
    payload = json.dumps([{"tex": t, "display": d} for t, d in formulas])
    proc = tools.run([node, _SCRIPT, node_modules], purpose, input=payload)
    results = json.loads(proc.stdout)
    out = []
    for (tex, _), context, result in zip(formulas, where, results, strict=True):
        if "error" in result:
            raise DeckError(f"math does not typeset: {result['error']} (in ${tex}$)", **context)
        out.append(result["html"])
    return out


def fill(html: str, rendered: list[str]) -> str:
    """Replace the placeholders in ``html`` by the typeset formulas."""
    return _PLACEHOLDER.sub(lambda m: rendered[int(m.group(1))], html)
