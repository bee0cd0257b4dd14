"""Typeset every formula of the deck with KaTeX (node), once per build."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from .errors import DeckError

_SCRIPT = Path(__file__).with_name("katex_render.mjs")
_PLACEHOLDER = re.compile("\x00MATH(\\d+)\x00")


def typeset(formulas: list[tuple[str, bool]], where: list[dict], node_modules: Path) -> list[str]:
    """KaTeX HTML for each (tex, display) formula; a bad formula raises DeckError at its slide."""
    if not formulas:
        return []
    node = shutil.which("node")
    if node is None:
        raise DeckError("node is needed to typeset math with KaTeX: install Node.js")
    if not (node_modules / "katex").is_dir():
        raise DeckError(f"KaTeX is missing from {node_modules}: run `npm ci`")
    payload = json.dumps([{"tex": t, "display": d} for t, d in formulas])
    proc = subprocess.run([node, str(_SCRIPT), str(node_modules)], input=payload,
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise DeckError(f"KaTeX failed: {proc.stderr.strip()[:500]}")
    results = json.loads(proc.stdout)
    out = []
    for (tex, _), context, result in zip(formulas, where, results):
        if "error" in result:
            raise DeckError(f"math does not typeset: {result['error']} (in ${tex}$)",
                            **context)
        out.append(result["html"])
    return out


def fill(html: str, rendered: list[str]) -> str:
    """Replace the placeholders in ``html`` by the typeset formulas."""
    return _PLACEHOLDER.sub(lambda m: rendered[int(m.group(1))], html)
