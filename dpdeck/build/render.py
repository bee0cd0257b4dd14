"""Render a validated deck into the page's HTML through the Jinja templates."""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import re
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from . import exercise
from . import math as deckmath
from .live import poll_view
from .markdown import SlideMarkdown
from .schema import Deck, Slide


def _fragment_lists(html: str) -> str:
    return re.sub(r"<li>", '<li class="fragment">', html)


def _where(slide: Slide, field: str) -> dict:
    return {
        "file": slide.file,
        "line": slide.line,
        "slide": slide.index,
        "title": slide.title,
        "field": field,
    }


def render_slides(deck: Deck, node_modules: Path, assets: set | None = None) -> list[dict]:
    """Each slide as a dict of ready HTML pieces for its template (math typeset). The deck's
    local images are added to ``assets`` (absolute paths) for the build to copy."""
    md = SlideMarkdown(deck.root)
    views = []
    for slide in deck.slides:
        body = md.block(slide.body, _where(slide, "body"))
        if slide.fragments:
            body = _fragment_lists(body)
        table = None
        if slide.table:
            ctx = _where(slide, "table")
            table = {
                "columns": [md.inline(c, ctx) for c in slide.table["columns"]],
                "rows": [[md.inline(c, ctx) for c in row] for row in slide.table["rows"]],
            }
        views.append(
            {
                "slide": slide,
                "title_html": md.inline(slide.title, _where(slide, "title")),
                "body_html": body,
                "notes_html": md.block(slide.notes, _where(slide, "notes")),
                "answer_html": md.block(slide.answer, _where(slide, "answer")) if slide.answer else "",
                "table": table,
                "params_json": json.dumps([p.__dict__ for p in slide.params], ensure_ascii=False),
                "try_json": json.dumps(
                    [{"label": t.label, "replace": [t.old, t.new]} for t in slide.tries], ensure_ascii=False
                ),
                "hints_html": [
                    md.block(h, _where(slide, f"hints[{i}]")) for i, h in enumerate(slide.hints, 1)
                ],
                # what runs after the student's code to judge it (dpdeck/build/exercise.py)
                "exercise_program": (
                    exercise.program(slide.check, slide.blanks) if slide.kind == "exercise" else ""
                ),
                "poll": poll_view(slide) if slide.poll is not None else None,  # dpdeck/build/live.py
            }
        )
    deck_where = {"file": str(deck.files[0]), "field": "subtitle"}
    subtitle_html = md.inline(deck.subtitle, deck_where) if deck.subtitle else ""
    typeset = deckmath.typeset(md.math.formulas, md.math.where, node_modules)
    for view in views:
        view["subtitle_html"] = deckmath.fill(subtitle_html, typeset)
    for view in views:
        for key in ("title_html", "body_html", "notes_html", "answer_html"):
            view[key] = deckmath.fill(view[key], typeset)
        view["hints_html"] = [deckmath.fill(h, typeset) for h in view["hints_html"]]
        if view["table"]:
            view["table"]["columns"] = [deckmath.fill(c, typeset) for c in view["table"]["columns"]]
            view["table"]["rows"] = [
                [deckmath.fill(c, typeset) for c in row] for row in view["table"]["rows"]
            ]
    if assets is not None:
        assets.update(md.assets)
    return views


def csp_hash(script_text: str) -> str:
    digest = hashlib.sha256(script_text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode() + "'"


def content_security_policy(import_map: str, inline_scripts: tuple[str, ...] = (), hall: str = "") -> str:
    """Everything from this origin only; the inline import map (and the speaker view's script,
    which inherits this policy) allowed by their hashes. A ``hall`` on another origin (an
    origin checked by dpdeck/origin.py) is the one other place the page may connect to
    (its probe, live channel and POSTs) and load an image from (its QR code)."""
    hashes = " ".join(csp_hash(s) for s in (import_map, *inline_scripts))
    other = f" {hall}" if hall else ""
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src 'self' {hashes}",
            "style-src 'self' 'unsafe-inline'",  # KaTeX and CodeMirror set inline styles
            f"img-src 'self' blob: data:{other}",
            "font-src 'self'",
            f"connect-src 'self'{other}",
            "worker-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'none'",
        ]
    )


@functools.cache
def _templates(folder: Path) -> Environment:
    """The Jinja environment of ``folder``, one per process: it compiles each template once and
    compiles it again when its file changes (Jinja's ``auto_reload``), so ``serve --watch``
    rebuilds without compiling the page's templates on every save."""
    return Environment(
        loader=FileSystemLoader(str(folder)),
        undefined=StrictUndefined,
        autoescape=select_autoescape(["html", "j2"]),
        trim_blocks=True,
        lstrip_blocks=True,
        auto_reload=True,
    )


def render_page(
    deck: Deck,
    views: list[dict],
    templates: Path,
    config: dict,
    import_map: dict,
    inline_scripts: tuple[str, ...] = (),
    hall: str = "",
    module_preload: tuple[str, ...] = (),
) -> str:
    """The page. ``module_preload``: the modules deck.js imports statically, under the static
    folder's ``js/`` (``frontend.static_imports``), named in the head so that they are fetched
    together while the HTML is parsed, not one level of imports after another."""
    env = _templates(templates)
    import_map_text = json.dumps({"imports": import_map}, indent=1)
    # ``</`` cannot close the script element: JSON escapes it harmlessly
    config_text = json.dumps(config, ensure_ascii=False).replace("</", "<\\/")
    return env.get_template("index.html.j2").render(
        deck=deck,
        views=views,
        import_map=import_map_text,
        config_json=config_text,
        csp=content_security_policy(import_map_text, inline_scripts, hall),
        assets=config["assets"],
        module_preload=module_preload,
    )
