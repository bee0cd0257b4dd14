"""The phone's pre-run (issue 49; static/js/page/prerun.js, docs/benchmark.md "The phone's pre-run"):
on a phone the deck pre-runs only the cells up to the second slide with cells after the current
one; the far ones wait, nothing new runs while the page is hidden, and a slide the phone reaches
gets its cells' results, computed on the phone. A laptop pre-runs every cell, as before.
Behaviour, not timings."""

from __future__ import annotations

import time

from tests.support.browser import cell_output, instrument, open_deck, wait_runtime_ready, wait_until

PHONE = {
    "viewport": {"width": 390, "height": 844},
    "is_mobile": True,
    "has_touch": True,
    "device_scale_factor": 3,
}
AHEAD = 2  # prerun.js AHEAD_SLIDES
CELLS = """() => { const slides = window.deck.reveal.getSlides();
  return {here: slides.indexOf(window.deck.reveal.getCurrentSlide()),
          cells: window.deck.cells.map(c => ({id: c.id, slide: slides.indexOf(c.slide), runs: c.runs,
                                              running: c.running !== null}))}; }"""
HIDE = """(hidden) => { Object.defineProperty(document, 'hidden', {value: hidden, configurable: true});
  document.dispatchEvent(new Event('visibilitychange')); }"""
GO = "(k) => { const s = window.deck.reveal.getSlides()[k]; window.deck.reveal.slide(...Object.values(window.deck.reveal.getIndices(s))); }"
IDLE = "document.documentElement.dataset.prerunIdle === 'true'"


def horizon(slides: list[int], here: int) -> int:
    """The rule, said again here: the AHEAD-th slide with cells after ``here`` (or the last)."""
    after = sorted({s for s in slides if s > here})
    return after[min(AHEAD, len(after)) - 1] if after else max([here, *slides])


def split(page) -> tuple[int, list[dict], list[dict]]:
    """(the horizon now, the cells up to it, the cells past it)."""
    snap = page.evaluate(CELLS)
    hz = horizon([c["slide"] for c in snap["cells"]], snap["here"])
    return hz, [c for c in snap["cells"] if c["slide"] <= hz], [c for c in snap["cells"] if c["slide"] > hz]


def shown(page, cell_id: str) -> bool:
    out = cell_output(page, cell_id)
    return not out["error"] and bool(out["stdout"] or out["value"] or out["figures"])


def test_a_phone_pre_runs_near_the_slide_pauses_hidden_and_a_reached_slide_gets_its_results(
    browser, deck_url
):
    context = browser.new_context(**PHONE)
    page = instrument(context, context.new_page())
    try:
        open_deck(page, deck_url + "?nosw")
        wait_until(page, "document.documentElement.dataset.prerun === 'near'", 10)
        wait_runtime_ready(page)
        wait_until(page, IDLE, 180)
        _, near, far = split(page)
        assert near and far
        assert all(c["runs"] > 0 for c in near), near  # ran ahead
        assert all(c["runs"] == 0 and not c["running"] for c in far), far  # waits
        # hidden: the slide moves on, nothing new is pre-run
        page.evaluate(HIDE, True)
        target = sorted({c["slide"] for c in far})[AHEAD]  # past the next window too
        page.evaluate(GO, target)
        wait_until(
            page,
            "(k) => window.deck.reveal.getSlides().indexOf(window.deck.reveal.getCurrentSlide()) === k",
            10,
            arg=target,
        )
        time.sleep(3)
        waiting = {c["id"] for c in far}
        now = [c for c in page.evaluate(CELLS)["cells"] if c["id"] in waiting]
        assert all(c["runs"] == 0 and not c["running"] for c in now), ("ran while hidden", now)
        # shown again: the reached slide's cells (and those before it) get their results
        page.evaluate(HIDE, False)
        reached = [c["id"] for c in page.evaluate(CELLS)["cells"] if c["slide"] == target]
        assert reached
        wait_until(
            page,
            "(ids) => ids.every(id => window.deck.cells.find(c => c.id === id).runs > 0)",
            240,
            arg=reached,
        )
        wait_until(page, IDLE, 240)
        for cell_id in reached:
            assert shown(page, cell_id), cell_output(page, cell_id)
        _, near, far = split(page)
        assert all(c["runs"] > 0 for c in near), near
        assert all(c["runs"] == 0 and not c["running"] for c in far), far
        assert not page.errors
    finally:
        context.close()


def test_a_laptop_pre_runs_past_the_phone_window_without_moving(browser, deck_url):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = instrument(context, context.new_page())
    try:
        open_deck(page, deck_url + "?nosw")
        wait_until(page, "document.documentElement.dataset.prerun === 'all'", 10)
        wait_runtime_ready(page)
        _, _, far = split(page)
        first_far = far[0]["id"]
        wait_until(page, "(id) => window.deck.cells.find(c => c.id === id).runs > 0", 240, arg=first_far)
        assert page.evaluate(CELLS)["here"] == 0  # it never moved
    finally:
        context.close()


STATUS_OFFLINE = "document.querySelector('#runtime-status').dataset.offline ?? null"
REGISTERED = "async () => !!(await navigator.serviceWorker.getRegistration())"


def test_a_phone_keeps_the_deck_offline_only_once_its_wheels_are_in(browser, deck_url):
    """The Service Worker's fill (the rest of the deck, kept for offline) waits for the worker's
    prefetch as well as for the pre-run: a phone's pre-run idles after the opening slide while
    matplotlib's wheel still downloads, and a fill begun then took the link from it (the first
    figure 2 s later on the phone profile). matplotlib's wheel is held here until the pre-run
    idles; the fill starts only once it is let through."""
    context = browser.new_context(**PHONE)
    held = []
    context.route("**/matplotlib-*.whl", lambda route: held.append(route))
    page = instrument(context, context.new_page())
    try:
        open_deck(page, deck_url)  # served isolated: the Service Worker is asked for only to fill
        wait_runtime_ready(page)
        wait_until(page, IDLE, 180)
        wait_until(page, "() => window.deck.runtime.downloading", 10)
        assert held, "matplotlib's wheel was never asked for"
        time.sleep(2)  # what would have started at the idle has had its time
        assert page.evaluate(STATUS_OFFLINE) is None and not page.evaluate(REGISTERED)
        for route in list(held):
            route.continue_()
        context.unroute("**/matplotlib-*.whl")  # the fill asks for it too, later: let it through
        wait_until(page, "() => !window.deck.runtime.downloading", 60)
        wait_until(page, f"() => ({STATUS_OFFLINE}) === 'ready'", 240)
        assert not page.errors
    finally:
        context.close()
