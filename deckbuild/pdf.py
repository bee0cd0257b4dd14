"""`build.py pdf`: print the deck with every figure and number computed in the browser.

Opens the built deck headless in Chromium in reveal.js's print mode, waits until every cell has
run (the page runs them all in the background), and prints one PDF page per slide.
"""

from __future__ import annotations

import time
from pathlib import Path

from .browser import VIEWPORT, launch
from .errors import BuildEnvironmentError
from .serve import serve_in_thread


def export_pdf(dist: Path, out: Path, timeout: float = 300.0, browser=None) -> dict:
    """Write the PDF; return {pages, cells, errors, seconds}. Raises BuildEnvironmentError when
    Python does not start or the cells do not finish in the browser.

    ``browser``: a Playwright browser to use (the tests pass theirs); default: launch one.
    """
    if browser is None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise BuildEnvironmentError("`build.py pdf` needs playwright: pip install -e '.[test]'") from None
        with sync_playwright() as p:
            own = launch(p)
            try:
                return export_pdf(dist, out, timeout, own)
            finally:
                own.close()

    server, url = serve_in_thread(dist, isolate=True)
    started = time.monotonic()
    page = browser.new_page(viewport=VIEWPORT)
    try:
        page.goto(url + "?print-pdf")
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            state = page.evaluate("""() => ({
                ready: document.documentElement.dataset.deckReady === 'true',
                done: document.documentElement.dataset.prerunDone === 'true',
                runtime: window.deck?.runtime?.state})""")
            if state["done"] or state["runtime"] == "error":
                break
            time.sleep(0.25)
        else:
            raise BuildEnvironmentError(
                f"the cells did not finish within {timeout:.0f} s ({state}): try --timeout"
            )
        if state["runtime"] == "error":
            raise BuildEnvironmentError(
                "Python failed to start in the browser: " + page.inner_text("#runtime-status")
            )
        report = page.evaluate("""() => ({
            cells: window.deck.cells.length,
            errors: window.deck.cells.filter(c => c.lastResult && !c.lastResult.ok)
                                     .map(c => c.id),
            slides: window.deck.reveal.getTotalSlides(),
            figure_slides: [...document.querySelectorAll('.reveal .slides section')]
                .map((s, i) => s.querySelector('img.out-figure') ? i : -1)
                .filter(i => i >= 0)})""")
        page.evaluate("document.fonts.ready")
        out.parent.mkdir(parents=True, exist_ok=True)
        page.pdf(path=str(out), prefer_css_page_size=True, print_background=True)
        pages = page.evaluate("document.querySelectorAll('.pdf-page').length")
    finally:
        page.close()
        server.shutdown()
    return {"pages": pages, **report, "seconds": round(time.monotonic() - started, 1)}
