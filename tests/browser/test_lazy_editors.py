"""Editors only where the viewer is (issue 23): the page builds a cell's CodeMirror editor when
its slide comes near, and shows its code statically (highlighted when the page is idle, the
editor's look) until then, without a jump when the editor takes its place and without losing an
edit."""

from __future__ import annotations

from tests.support.browser import CELL, go_to_slide, open_deck, wait_until

EDITORS = "document.querySelectorAll('.cell .cm-editor:not(.cell-static)').length"
# geometry of a cell's code as drawn: the box, and the top and left of the 5th line's text
GEOMETRY = """(sel) => {
    const root = document.querySelector(sel);
    const view = root.querySelector('.cell-static') || root.querySelector('.cm-editor');
    const lines = view.querySelectorAll('.cs-line:not(.cs-pad), .cm-line');
    const r = view.getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(lines[4]);
    const t = range.getClientRects()[0];
    return {static: view.classList.contains('cell-static'), x: r.x, y: r.y, w: r.width, h: r.height,
            lineTop: t.top, lineLeft: t.left};
}"""


def test_far_slides_show_static_code_and_near_ones_get_editors(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")  # the title and its neighbours have no cell
    n = page.evaluate("window.deck.cells.length")
    assert page.evaluate(EDITORS) == 0
    assert page.evaluate("document.querySelectorAll('.cell .cell-static').length") == n
    # every line of code is there at once; highlighted like the editor (keywords, strings,
    # numbers) when the page is idle, every cell, with nobody on their slides
    first = page.evaluate("window.deck.cells[0].id")
    lines = page.evaluate(
        "(s) => [...document.querySelectorAll(s + ' .cs-line:not(.cs-pad)')].map(e => e.textContent)",
        CELL.format(first),
    )
    assert "\n".join(lines) == page.evaluate("window.deck.cells[0].code")
    wait_until(
        page, "[...document.querySelectorAll('.cell .cell-static')].every(v => v.querySelector('span'))", 15
    )
    classes = page.evaluate(
        "(s) => [...document.querySelectorAll(s + ' .cell-static span')].map(e => e.className)",
        CELL.format(first),
    )
    assert {"tok-string", "tok-number"} & set(classes), classes
    assert lines == page.evaluate(
        "(s) => [...document.querySelectorAll(s + ' .cs-line:not(.cs-pad)')].map(e => e.textContent)",
        CELL.format(first),
    )  # highlighting changed no character
    go_to_slide(page, page.evaluate("window.deck.cells[0].slide.id"))
    wait_until(page, "(s) => document.querySelector(s + ' .cm-content')", 10, arg=CELL.format(first))
    assert 0 < page.evaluate(EDITORS) < n  # this slide's and its neighbours', not all


def test_code_changes_without_an_editor_are_kept_and_shown(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")
    i = page.evaluate("window.deck.cells.length") - 1  # the last cell: far from the title
    cid = page.evaluate("(i) => window.deck.cells[i].id", i)
    page.evaluate("(i) => { window.deck.cells[i].code = 'x = 41\\nprint(x + 1)'; }", i)
    assert page.evaluate("(i) => window.deck.cells[i].code", i) == "x = 41\nprint(x + 1)"
    assert page.evaluate("(i) => window.deck.cells[i].edited", i)
    # the edit is stored as the editor would store it: after a reload it is still there
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 30)
    shown = page.evaluate(
        "(s) => [...document.querySelectorAll(s + ' .cs-line:not(.cs-pad)')].map(e => e.textContent)",
        CELL.format(cid),
    )
    assert shown == ["x = 41", "print(x + 1)"]
    assert page.evaluate("(i) => window.deck.cells[i].edited", i)
    go_to_slide(page, page.evaluate("(i) => window.deck.cells[i].slide.id", i))
    wait_until(page, "(s) => document.querySelector(s + ' .cm-content')", 10, arg=CELL.format(cid))
    assert page.locator(CELL.format(cid) + " .cm-content").inner_text().strip() == "x = 41\nprint(x + 1)"


# no finite transition or animation runs on the slides, and two frames have passed (CodeMirror measures
# and redraws in a frame it asks for): a layout read after this is the settled one
SETTLED = """async () => {
    const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
    await frame(); await frame();
    return document.querySelector('.reveal .slides').getAnimations({subtree: true})
        .every((a) => a.playState === 'finished' || a.effect?.getComputedTiming().iterations === Infinity);
}"""


def _settled(page) -> None:
    wait_until(page, SETTLED, 10)


def test_the_editor_replaces_the_static_code_without_a_jump(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")
    i = page.evaluate("window.deck.cells.findIndex(c => c.authored.split('\\n').length > 5)")
    cid = page.evaluate("(i) => window.deck.cells[i].id", i)
    page.evaluate("(i) => { window.deck.cells[i].wantEditor = async () => null; }", i)  # held back
    go_to_slide(page, page.evaluate("(i) => window.deck.cells[i].slide.id", i))
    _settled(page)  # the slide's transition
    before = page.evaluate(GEOMETRY, CELL.format(cid))
    assert before["static"]
    page.evaluate("(i) => { const c = window.deck.cells[i]; delete c.wantEditor; return c.wantEditor(); }", i)
    wait_until(page, "(s) => document.querySelector(s + ' .cm-content')", 10, arg=CELL.format(cid))
    _settled(page)  # CodeMirror measures in the next frames
    after = page.evaluate(GEOMETRY, CELL.format(cid))
    assert not after["static"]
    moved = {k: round(after[k] - before[k], 1) for k in ("x", "y", "w", "h", "lineTop", "lineLeft")}
    assert all(abs(v) <= 1.5 for v in moved.values()), moved


def test_a_click_on_static_code_gives_a_focused_editor(page, deck_url):
    open_deck(page, deck_url + "?noprerun#/titulo")
    i = page.evaluate("window.deck.cells.length - 1")
    cid = page.evaluate("(i) => window.deck.cells[i].id", i)
    page.evaluate("(i) => { window.deck.cells[i].wantEditor = async () => null; }", i)
    go_to_slide(page, page.evaluate("(i) => window.deck.cells[i].slide.id", i))
    page.evaluate("(i) => { delete window.deck.cells[i].wantEditor; }", i)
    page.locator(CELL.format(cid) + " .cell-static").click()
    wait_until(page, "document.activeElement?.classList.contains('cm-content')", 10)
    page.keyboard.type("# hola\n")
    assert page.evaluate("(i) => window.deck.cells[i].code.startsWith('# hola')", i)
