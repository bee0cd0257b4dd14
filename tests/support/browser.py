"""Small helpers for driving the built deck in Chromium.

The page's Content-Security-Policy forbids ``eval``, which Playwright's string predicates use,
so we poll with ``page.evaluate`` (not subject to the page's CSP) instead of
``page.wait_for_function``.
"""

from __future__ import annotations

import time
from urllib.parse import urlparse

CELL = ".cell[data-cell-id='{}']"


def wait_until(page, expression: str, timeout: float = 60.0, arg=None, interval: float = 0.05):
    """Poll a JS expression (or arrow function taking ``arg``) until it is truthy."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = page.evaluate(expression, arg) if arg is not None else page.evaluate(expression)
        except Exception as exc:  # a navigation (the Service Worker's one reload) is not failure
            if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                raise
            last = None
        if last:
            return last
        time.sleep(interval)
    raise TimeoutError(f"not true after {timeout} s: {expression} (last value {last!r})")


def open_deck(page, url: str, timeout: float = 20.0) -> None:
    page.goto(url)
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", timeout)


def wait_runtime_ready(page, timeout: float = 90.0) -> None:
    wait_until(page, "['ready','running'].includes(window.deck.runtime.state)", timeout)


def cell_index(page, cell_id: str) -> int:
    return page.evaluate("(id) => window.deck.cells.findIndex(c => c.id === id)", cell_id)


def run_cell(page, cell_id: str, code: str | None = None, timeout: float = 90.0) -> dict:
    """Run a cell (optionally with new code) the way the Run button does; return its result."""
    i = cell_index(page, cell_id)
    assert i >= 0, f"no cell {cell_id}"
    if code is not None:
        page.evaluate("([i, c]) => { window.deck.cells[i].code = c; }", [i, code])
    go_to_slide(page, page.evaluate("(i) => window.deck.cells[i].slide.id", i))
    # a cell folded away (a poll's lab, in a <details>) is opened first, as a person would
    page.evaluate("(i) => window.deck.cells[i].root.closest('details')?.setAttribute('open', '')", i)
    wait_until(page, "(i) => window.deck.cells[i].running === null", timeout, arg=i)
    runs = page.evaluate("(i) => window.deck.cells[i].runs", i)
    # Playwright waits for the button to be enabled: if a background pre-run of this cell was
    # under way, the click starts a new run after it ended; wait for whichever run is last
    page.locator(CELL.format(cell_id) + " button.run").click()
    wait_until(
        page,
        "([i, n]) => window.deck.cells[i].runs > n && window.deck.cells[i].running === null",
        timeout,
        arg=[i, runs],
    )
    return cell_output(page, cell_id)


def cell_output(page, cell_id: str) -> dict:
    return page.evaluate(
        """(id) => {
        const el = document.querySelector(`.cell[data-cell-id='${id}']`);
        const out = el.querySelector('.cell-output');
        const text = (cls) => [...out.querySelectorAll(cls)].map(e => e.textContent).join('');
        return {state: el.dataset.state, stdout: text('.out-stdout'), stderr: text('.out-stderr'),
                value: text('.out-value'), error: text('.out-error'),
                figures: out.querySelectorAll('img.out-figure, svg').length,
                meta: el.querySelector('.cell-meta').textContent};
    }""",
        cell_id,
    )


def go_to_slide(page, slide_id: str) -> None:
    page.evaluate(
        "(id) => { const s = document.getElementById(id); "
        "window.deck.reveal.slide(...Object.values(window.deck.reveal.getIndices(s))); }",
        slide_id,
    )
    wait_until(page, "(id) => window.deck.reveal.getCurrentSlide().id === id", 5, arg=slide_id)


def instrument(context, page):
    """Record every request of the page and its workers on ``page.requests`` (the service
    worker's own on ``page.sw_requests``) and its uncaught errors on ``page.errors``."""
    page.requests, page.sw_requests = [], []
    page.errors = []
    context.on(
        "request",
        lambda r: (page.requests if r.service_worker is None else page.sw_requests).append(r.url),
    )
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def foreign_requests(page, base_url: str) -> list[str]:
    """The requests ``instrument`` recorded that went to another origin than ``base_url``'s."""
    origin = urlparse(base_url).netloc
    return [
        u
        for u in page.requests + page.sw_requests
        if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).netloc != origin
    ]
