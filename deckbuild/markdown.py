"""Markdown with math for the slides: markdown-it-py, ``$…$``/``$$…$$`` and ``:::`` boxes.

Math is not rendered here: each formula becomes a placeholder that :mod:`deckbuild.math`
fills with KaTeX's HTML in one batch for the whole deck.
"""
from __future__ import annotations

import html
from dataclasses import dataclass, field

from markdown_it import MarkdownIt
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

# ``::: box Título`` … ``:::`` draws a definition box, as in the seed ("La definición").
BOX_NAME = "box"


@dataclass
class MathCollector:
    """Collects formulas while rendering; each gets a placeholder token to replace later."""
    formulas: list[tuple[str, bool]] = field(default_factory=list)
    where: list[dict] = field(default_factory=list)   # DeckError keywords per formula
    context: dict = field(default_factory=dict)

    def placeholder(self, tex: str, display: bool) -> str:
        self.formulas.append((tex, display))
        self.where.append(self.context)
        return f"\x00MATH{len(self.formulas) - 1}\x00"


def _render_box_open(self, tokens, idx, options, env):
    token = tokens[idx]
    if token.nesting == 1:
        title = token.info.strip()[len(BOX_NAME):].strip()
        head = f'<div class="box-title">{html.escape(title)}</div>' if title else ""
        return f'<div class="box">{head}\n'
    return "</div>\n"


def make_markdown(collector: MathCollector) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": True}).enable("table")
    md.use(dollarmath_plugin, allow_space=True, double_inline=True)
    md.use(container_plugin, name=BOX_NAME, render=_render_box_open)
    md.add_render_rule("math_inline",
                       lambda self, t, i, o, e: collector.placeholder(t[i].content, False))
    md.add_render_rule("math_inline_double",
                       lambda self, t, i, o, e: collector.placeholder(t[i].content, True))
    md.add_render_rule("math_block",
                       lambda self, t, i, o, e: collector.placeholder(t[i].content, True))
    md.add_render_rule("math_block_label",
                       lambda self, t, i, o, e: collector.placeholder(t[i].content, True))
    return md


class SlideMarkdown:
    """Renders Markdown fields of slides, remembering where each formula came from."""

    def __init__(self) -> None:
        self.math = MathCollector()
        self._md = make_markdown(self.math)

    def block(self, text: str, context: dict) -> str:
        self.math.context = context
        return self._md.render(text or "")

    def inline(self, text: str, context: dict) -> str:
        self.math.context = context
        return self._md.renderInline(str(text))
