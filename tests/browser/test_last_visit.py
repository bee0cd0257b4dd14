"""The last visit's results at once, then live (issue 32, item 2; static/js/page/lastrun.js): after a
reload a cell shows what this browser computed for the same code last time, labelled
«calculado en su visita anterior, hh:mm», until its live run replaces it; an edited cell or a
new deck version never shows the old output as current."""

from __future__ import annotations

import re

from tests.support.browser import (
    CELL,
    cell_index,
    open_deck,
    run_cell,
    set_code,
    wait_runtime_ready,
    wait_until,
)

LABEL = re.compile(r"^calculado en su visita anterior, \d\d:\d\d$")
SHOWN = """(s) => {
    const root = document.querySelector(s);
    const label = root.querySelector('.out-last-visit');
    return {label: label ? label.textContent : null, old: root.classList.contains('from-last-visit'),
            figures: root.querySelectorAll('.cell-output img.out-figure').length,
            text: [...root.querySelectorAll(".cell-output .out-stdout")].map(e => e.textContent).join('')};
}"""


def reopen(page, url: str) -> None:
    """Open the deck and wait until every cell has had its turn to show the last visit's output
    (static/js/page/lastvisits.js: the opening slide's at once, the others when the page is idle)."""
    open_deck(page, url)
    wait_until(page, "document.documentElement.dataset.lastVisits === 'shown'", 30)


def _figure_cell(page) -> str:
    """The first cell whose authored code draws (it imports plots or pyplot)."""
    return page.evaluate("window.deck.cells.find(c => /plots|pyplot/.test(c.authored)).id")


def test_a_reload_shows_the_labelled_old_output_then_the_live_one(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")
    wait_runtime_ready(page)
    cid = _figure_cell(page)
    live = run_cell(page, cid)
    page.reload()
    reopen(page, deck_url + "?noprerun#/titulo")
    shown = page.evaluate(SHOWN, CELL.format(cid))  # no Python needed, none asked
    assert shown["label"] and LABEL.match(shown["label"]) and shown["old"], shown
    assert shown["figures"] == live["figures"] >= 1 and shown["text"] == live["stdout"]
    wait_runtime_ready(page)
    run_cell(page, cid)
    shown = page.evaluate(SHOWN, CELL.format(cid))
    assert shown["label"] is None and not shown["old"] and shown["figures"] >= 1, shown


def test_the_opening_slides_cell_shows_it_with_the_page_and_a_late_one_never_covers_a_live_run(
    page, deck_url
):
    """The slide the page opens at shows its cells' last outputs by page ready; the other cells'
    come when the page is idle, and one that lands after a cell has run leaves that run's output."""
    open_deck(page, deck_url + "?noprerun#/titulo")
    wait_runtime_ready(page)
    cid = _figure_cell(page)
    run_cell(page, cid)
    slide = page.evaluate("(cid) => window.deck.cells.find(c => c.id === cid).slide.id", cid)
    page.reload()
    open_deck(page, deck_url + f"?noprerun#/{slide}")
    assert page.evaluate(SHOWN, CELL.format(cid))["old"]  # with the page, not after it
    wait_runtime_ready(page)
    live = run_cell(page, cid, code="print('en vivo')")
    assert live["stdout"] == "en vivo\n"
    run_cell(
        page, cid, code=page.evaluate("(cid) => window.deck.cells.find(c => c.id === cid).authored", cid)
    )
    # its last visit's output, asked for after the live run (as a turn that came late would)
    page.evaluate("(cid) => window.deck.cells.find(c => c.id === cid).showLastVisit()", cid)
    shown = page.evaluate(SHOWN, CELL.format(cid))
    assert shown["label"] is None and not shown["old"] and shown["figures"] >= 1, shown


def test_an_edited_cell_drops_the_old_output_and_never_finds_it(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")
    wait_runtime_ready(page)
    cid = _figure_cell(page)
    run_cell(page, cid)
    page.reload()
    reopen(page, deck_url + "?noprerun#/titulo")
    assert page.evaluate(SHOWN, CELL.format(cid))["old"]
    set_code(page, cell_index(page, cid), "print('editada')")
    shown = page.evaluate(SHOWN, CELL.format(cid))
    assert shown == {"label": None, "old": False, "figures": 0, "text": ""}, shown
    page.reload()  # the edit is kept; the old output was of other code
    reopen(page, deck_url + "?noprerun#/titulo")
    assert not page.evaluate(SHOWN, CELL.format(cid))["old"]


def test_a_new_deck_version_ignores_the_old_entries(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")
    cid = _figure_cell(page)
    # what an older deck (another version) kept for this very cell and code
    page.evaluate(
        """async (cid) => {
            const src = document.querySelector('script[type=module][src*="deck.js"]').src;
            const m = await import(src.replace(/deck\\.js.*$/, 'lastrun.js'));
            const config = JSON.parse(document.getElementById('deck-config').textContent);
            const cell = window.deck.cells.find(c => c.id === cid);
            const inputs = {version: 'vieja', wheel: config.wheel, cellId: cid, code: cell.authored,
                            params: {}, seed: null};
            new m.LastRunStore(localStorage, 'vieja').save(m.runKey(inputs),
                [{kind: 'stdout', text: 'VIEJO\\n'}], Date.now());
        }""",
        cid,
    )
    page.reload()
    reopen(page, deck_url + "?noprerun#/titulo")
    shown = page.evaluate(SHOWN, CELL.format(cid))
    assert not shown["old"] and "VIEJO" not in shown["text"], shown
    keys = page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('dpdeck:lastrun:'))")
    assert keys == ["dpdeck:lastrun:index"], keys  # dropped, not only ignored
