"""Suggested live edits (a code slide's ``try:``): the speaker view's buttons apply them in the
main window and run them; every edit of the deck runs in Chromium, and what it shows is checked
with the same claims as under CPython (tests/support/edit_claims.py's EDIT_CLAIMS)."""

from __future__ import annotations

import json
import time

from tests.support.browser import (
    CELL,
    authored_code,
    cell_code,
    cell_index,
    cell_output,
    cells,
    go_to_slide,
    instrument,
    last_code,
    open_deck,
    run_count,
    wait_ran,
    wait_until,
)
from tests.support.deck_text import not_spanish_numbers
from tests.support.edit_claims import EDIT_CLAIMS, Shown

SHARED_DECK_QUERY = "?noprerun"  # shared_deck_page: the cells here run when a test says so


def _first_cell_with_edits(page) -> str:
    return page.evaluate("window.deck.cells.find(c => c.tries.length > 0).id")


def _receiver_url(deck_url: str) -> str:
    return deck_url.rstrip("/") + "/?receiver"


def test_speaker_view_buttons_apply_an_edit_in_the_main_window_and_restore(shared_deck_page, deck_url):
    page = shared_deck_page
    context = page.context
    cell_id = _first_cell_with_edits(page)
    i = cell_index(page, cell_id)
    go_to_slide(page, cell_id)
    # the projected window stays clean: no edit buttons there
    assert page.locator(CELL.format(cell_id) + " .cell-tries").count() == 0

    copy = instrument(context, context.new_page())
    open_deck(copy, _receiver_url(deck_url))
    assert copy.evaluate("window.deck.receiver && window.deck.runtime === null")
    tries = json.loads(copy.locator(CELL.format(cell_id)).get_attribute("data-try"))
    buttons = copy.locator(CELL.format(cell_id) + " .cell-tries button.try")
    assert buttons.count() == len(tries) >= 1
    assert [buttons.nth(k).inner_text() for k in range(len(tries))] == [t["label"] for t in tries]

    old, new = tries[0]["replace"]
    authored = authored_code(page, i)
    runs = run_count(page, i)
    # the copy's slide is not shown: click it through the DOM, as the speaker does in its iframe
    buttons.nth(0).dispatch_event("click")
    wait_ran(page, i, runs, 120)
    assert cell_code(page, i) == authored.replace(old, new, 1)
    assert last_code(page, i) == authored.replace(old, new, 1)
    edited = cell_output(page, cell_id)
    assert edited["state"] == "done", edited
    assert edited["stdout"] or edited["figures"] or edited["value"], edited
    assert page.locator(CELL.format(cell_id)).evaluate("e => e.classList.contains('edited')")
    # the copy mirrors the edited code and marks the edit shown
    wait_until(copy, lambda: cell_code(copy, cell_id) == authored.replace(old, new, 1), 10)
    wait_until(
        copy,
        "(id) => document.querySelector(`.cell[data-cell-id='${id}'] button.try`)"
        ".getAttribute('aria-pressed') === 'true'",
        10,
        arg=cell_id,
    )

    runs = run_count(page, i)
    copy.locator(CELL.format(cell_id) + " .cell-tries button.try-restore").dispatch_event("click")
    wait_ran(page, i, runs, 120)
    assert cell_code(page, i) == authored
    assert last_code(page, i) == authored
    assert cell_output(page, cell_id)["state"] == "done"
    assert not page.locator(CELL.format(cell_id)).evaluate("e => e.classList.contains('edited')")
    wait_until(
        copy,
        "(id) => document.querySelector(`.cell[data-cell-id='${id}'] button.try`)"
        ".getAttribute('aria-pressed') === 'false'",
        10,
        arg=cell_id,
    )
    # nothing ran in the copy, and no second interpreter started
    assert all(c["runs"] == 0 for c in cells(copy))
    assert len([w for p in context.pages for w in p.workers if "worker.js" in w.url]) == 1
    assert not page.errors and not copy.errors, (page.errors, copy.errors)
    copy.close()


def test_every_try_edit_runs_in_chromium(shared_deck_page):
    """Each cell's authored code, then each of its edits applied to it, runs to the end in
    Chromium; every output prints its numbers the Spanish way, and each edit's claim (the same
    check as under CPython) holds against what the authored cell showed on this page."""
    page = shared_deck_page
    started = time.monotonic()
    results = page.evaluate("""async () => {
        const shown = (cell) => ({
            state: cell.root.dataset.state,
            stdout: [...cell.root.querySelectorAll('.out-stdout')].map(e => e.textContent).join(''),
            stderr: [...cell.root.querySelectorAll('.out-stderr')].map(e => e.textContent).join(''),
            alts: [...cell.root.querySelectorAll('img.out-figure')].map(i => i.alt)});
        const out = [];
        for (const cell of window.deck.cells) {
            if (!cell.tries.length) continue;
            const first = await cell.applyTry(null);   // the authored code
            out.push({id: cell.id, label: null, ok: first.ok, edited: cell.edited,
                      ran: cell.lastCode === cell.authored,
                      error: first.ok ? null : first.error.traceback || first.error.message,
                      ...shown(cell)});
            for (let k = 0; k < cell.tries.length; k++) {
                const result = await cell.applyTry(k);
                out.push({id: cell.id, label: cell.tries[k].label, ok: result.ok,
                          edited: cell.edited, ran: cell.lastCode === cell.triedCode(k),
                          error: result.ok ? null : result.error.traceback || result.error.message,
                          ...shown(cell)});
            }
            cell.reset();
        }
        return out;
    }""")
    seconds = time.monotonic() - started
    assert results, "the deck has no try: edits"
    authored = {r["id"]: r for r in results if r["label"] is None}
    edits = {(r["id"], r["label"]): r for r in results if r["label"] is not None}
    bad = [
        r
        for r in results
        if not (r["ok"] and r["state"] == "done" and r["ran"] and r["edited"] == (r["label"] is not None))
        or r["stderr"].strip()
        or not_spanish_numbers(r["stdout"])
    ]
    assert not bad, bad
    # every edit of the deck ran here (the unit test checks they all have a claim)
    assert set(edits) == set(EDIT_CLAIMS)
    failed = {}
    for key, check in EDIT_CLAIMS.items():
        after, before = edits[key], authored[key[0]]
        try:
            check(
                Shown(after["stdout"], tuple(after["alts"])), Shown(before["stdout"], tuple(before["alts"]))
            )
        except (AssertionError, LookupError, AttributeError, ValueError) as exc:
            failed[key] = f"{type(exc).__name__}: {exc}\n{after['stdout']}"
    assert not failed, "\n\n".join(f"{key}: {why}" for key, why in failed.items())
    assert all(c["code"] == c["authored"] for c in cells(page))
    assert not page.errors, page.errors
    print(f"{len(authored)} cells and {len(edits)} edits in {seconds:.0f} s")
