"""Markdown with math for the slides: markdown-it-py, ``$…$``/``$$…$$`` and ``:::`` boxes.

Math is not rendered here: each formula becomes a placeholder that :mod:`dpdeck.build.math`
fills with KaTeX's HTML in one batch for the whole deck.
"""

from __future__ import annotations

import html
from dataclasses import dataclass, field
from pathlib import Path

from markdown_it import MarkdownIt
from markdown_it.renderer import RendererHTML
from mdit_py_plugins.container import container_plugin
from mdit_py_plugins.dollarmath import dollarmath_plugin

# ``::: box Título`` … ``:::`` draws a definition box, as in the seed ("La definición").
BOX_NAME = "box"


@dataclass
class MathCollector:
    """Collects formulas while rendering; each gets a placeholder token to replace later."""

    formulas: list[tuple[str, bool]] = field(default_factory=list)
    where: list[dict] = field(default_factory=list)  # DeckError keywords per formula
    context: dict = field(default_factory=dict)

    def placeholder(self, tex: str, display: bool) -> str:
        self.formulas.append((tex, display))
        self.where.append(self.context)
        return f"\x00MATH{len(self.formulas) - 1}\x00"


def _render_box_open(self, tokens, idx, options, env):
    token = tokens[idx]
    if token.nesting == 1:
        title = token.info.strip()[len(BOX_NAME) :].strip()
        head = f'<div class="box-title">{html.escape(title)}</div>' if title else ""
        return f'<div class="box">{head}\n'
    return "</div>\n"


def make_markdown(collector: MathCollector) -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "typographer": True, "quotes": "«»‹›"}).enable(
        ["table", "replacements", "smartquotes"]
    )
    md.use(dollarmath_plugin, allow_space=True, double_inline=True)
    md.use(container_plugin, name=BOX_NAME, render=_render_box_open)
    md.add_render_rule("math_inline", lambda self, t, i, o, e: collector.placeholder(t[i].content, False))
    md.add_render_rule(
        "math_inline_double", lambda self, t, i, o, e: collector.placeholder(t[i].content, True)
    )
    md.add_render_rule("math_block", lambda self, t, i, o, e: collector.placeholder(t[i].content, True))
    md.add_render_rule("math_block_label", lambda self, t, i, o, e: collector.placeholder(t[i].content, True))
    return md


ASSET_DIR = "assets"  # where images of the deck land in dist/


class SlideMarkdown:
    """Renders Markdown fields of slides, remembering where each formula came from and which
    local images (``![texto](figura.png)``, relative to the deck folder) they use."""

    def __init__(self, root: Path | None = None) -> None:
        self.math = MathCollector()
        self.root = Path(root) if root else None
        self.assets: set[Path] = set()
        self._md = make_markdown(self.math)
        renderer = self._md.renderer
        if not isinstance(renderer, RendererHTML):  # make_markdown's is markdown-it's HTML renderer
            raise TypeError(f"expected markdown-it's HTML renderer, got {type(renderer).__name__}")
        default_image = renderer.rules["image"]

        def image(renderer, tokens, idx, options, env):
            token = tokens[idx]
            token.attrSet("src", self._asset(token.attrGet("src") or ""))
            return default_image(tokens, idx, options, env)

        self._md.add_render_rule("image", image)

    def _asset(self, src: str) -> str:
        from .errors import DeckError

        if "://" in src or src.startswith("//") or src.startswith("data:"):
            raise DeckError(
                f"image {src!r} is not a file of the deck: the deck loads nothing "
                "from other hosts (put the file next to the deck)",
                **self.math.context,
            )
        if self.root is None:
            return src
        path = (self.root / src).resolve()
        if not path.is_relative_to(self.root.resolve()):
            raise DeckError(f"image {src!r} is outside the deck folder", **self.math.context)
        if not path.is_file():
            raise DeckError(f"image {src!r} not found (looked for {path})", **self.math.context)
        self.assets.add(path)
        return f"{ASSET_DIR}/{path.relative_to(self.root.resolve()).as_posix()}"

    def block(self, text: str, context: dict) -> str:
        self.math.context = context
        return self._md.render(text or "")

    def inline(self, text: str, context: dict) -> str:
        self.math.context = context
        return self._md.renderInline(str(text))
