"""The presenter's and the audience's experience: saved edits, sliders, pre-run, noise lock,
speaker view with one interpreter, run all / restart with replay, Escape, and the PDF."""

from __future__ import annotations

import shutil
import subprocess
import time

import pytest

from tests.support.browser import (
    CELL,
    authored_code,
    cell_code,
    cell_ids,
    cell_index,
    cell_output,
    cells,
    current_slide,
    go_to_slide,
    hold_requests,
    last_code,
    open_deck,
    restart_python,
    restarts,
    run_cell,
    run_count,
    runtime_downloading,
    set_code,
    wait_all_ran,
    wait_idle,
    wait_ran,
    wait_running,
    wait_runtime_ready,
    wait_until,
)
from tests.support.paths import ROOT

FIRST_CELL = "el-dato-de-partida"


def test_edit_survives_reload_and_reset_all_restores(page, deck_url):
    page.on("dialog", lambda d: d.accept())
    open_deck(page, deck_url + "?noprerun")  # what is kept is the code: no run is needed
    ids = cell_ids(page)[:2]
    set_code(page, 0, "# mi versión\nprint(1)")
    set_code(page, 1, "# otra\nprint(2)")
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
    assert cell_code(page, 0) == "# mi versión\nprint(1)"
    assert page.locator(CELL.format(ids[0])).evaluate("e => e.classList.contains('edited')")
    go_to_slide(page, ids[0])
    page.locator(CELL.format(ids[0]) + " button.reset").click()
    assert cell_code(page, 0) == authored_code(page, 0)
    page.locator("button[data-action='reset-all']").click()
    assert all(c["code"] == c["authored"] for c in cells(page))
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
    assert all(c["code"] == c["authored"] for c in cells(page))


def test_slider_reruns_and_the_last_value_wins(shared_deck_page):
    page = shared_deck_page
    cell_id = page.evaluate(
        "[...document.querySelectorAll('.cell-params input[type=range]')]"
        ".find(e => !e.closest('details')).closest('.cell').dataset.cellId"  # a code slide's, not a poll's lab
    )
    i = cell_index(page, cell_id)
    go_to_slide(page, cell_id)
    wait_ran(page, i, 0, 120)
    runs_before = run_count(page, i)
    slider = page.locator(CELL.format(cell_id) + " .cell-params input[type=range]").first
    name = slider.get_attribute("data-param")
    # five quick moves, 30 ms apart on the page's own timers (params.js runs 120 ms after the
    # last): a busy machine delays them and the debounce alike, in order. Moved from here, one
    # round trip each, they came far apart on a busy CI run, and each ran, as it should
    slider.evaluate(
        """async (el) => {
            for (const v of ['100', '300', '500', '700', '900']) {
                el.value = v;
                el.dispatchEvent(new Event('input'));
                await new Promise((r) => setTimeout(r, 30));
            }
        }"""
    )
    shown = page.locator(CELL.format(cell_id) + " .param-value").first.inner_text()
    wait_until(
        page,
        "(i) => { const c = window.deck.cells[i]; return c.running === null && !c.rerun "
        "&& c.lastCode === c.code; }",
        60,
        arg=i,
    )
    code = last_code(page, i)
    assert f"{name} = {shown}" in code, (shown, code)
    runs = run_count(page, i) - runs_before
    assert 1 <= runs < 5, f"{runs} runs for five quick moves: not debounced"
    out = cell_output(page, cell_id)
    assert out["state"] == "done" and out["figures"] >= 1, out


def _first_slider(page, deck_url):
    """The deck open on a code slide's first slider (not a poll's lab): its cell's id and index,
    the slider and its label. No pre-run: a slider's cell runs when the slider says so."""
    open_deck(page, deck_url + "?noprerun")
    cell_id = page.evaluate(
        "[...document.querySelectorAll('.cell-params input[type=range]')]"
        ".find(e => !e.closest('details')).closest('.cell').dataset.cellId"
    )
    go_to_slide(page, cell_id)
    slider = page.locator(CELL.format(cell_id) + " .cell-params input[type=range]").first
    return (
        cell_id,
        cell_index(page, cell_id),
        slider,
        page.locator(CELL.format(cell_id) + " .cell-params .param").first,
    )


def test_slider_writes_only_its_bound_line_and_says_when_it_is_gone(page, deck_url):
    """The build binds a slider to the cell's one top-level ``name = <literal>``; the page writes
    exactly there: a line with the same name elsewhere is left alone, a moved line is followed,
    a deleted one leaves the code unchanged and the control marked, and a reload shows the value
    the code holds."""
    cell_id, i, slider, label = _first_slider(page, deck_url)
    name = slider.get_attribute("data-param")
    move = "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }"
    # an edit above the line, and a same-named line inside a def: the slider follows its line
    page.evaluate(
        "([i, n]) => { const c = window.deck.cells[i]; c.code = `def f():\n    ${n} = 123\n` + c.code; }",
        [i, name],
    )
    slider.evaluate(move, "900")
    shown = page.locator(CELL.format(cell_id) + " .param-value").first.inner_text()
    code = cell_code(page, i)
    assert f"    {name} = 123\n" in code and f"\n{name} = {shown}" in code, code
    assert not label.evaluate("e => e.classList.contains('param-unbound')")
    # the reload shows what the code holds, not the authored value
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
    go_to_slide(page, cell_id)
    assert page.locator(CELL.format(cell_id) + " .param-value").first.inner_text() == shown
    # the bound line deleted: moving the slider changes nothing, and the control says so
    page.evaluate(
        "([i, n]) => { const c = window.deck.cells[i]; c.code = c.code.split('\\n')"
        ".filter(l => !l.startsWith(n + ' =')).join('\\n'); }",
        [i, name],
    )
    before = cell_code(page, i)
    slider.evaluate(move, "100")
    assert cell_code(page, i) == before
    assert label.evaluate("e => e.classList.contains('param-unbound')")
    assert "↺ Restaurar" in label.get_attribute("title")
    page.locator(CELL.format(cell_id) + " button.reset").click()
    slider.evaluate(move, "500")
    assert not label.evaluate("e => e.classList.contains('param-unbound')")


def test_a_hand_edit_moves_the_slider_to_what_the_code_says(page, deck_url):
    """Issue 33: after typing ``epsilon = 0.3`` the slider still showed 2.0, and moving it
    overwrote the edit from its stale place (main: fails at the first assert). The code governs:
    the slider follows a hand edit, and says so when the code's value is beyond its range."""
    cell_id, i, slider, label = _first_slider(page, deck_url)
    shown = page.locator(CELL.format(cell_id) + " .param-value").first
    name = slider.get_attribute("data-param")
    move = "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }"
    slider.evaluate(move, "750")
    far = shown.inner_text()
    slider.evaluate(move, "250")
    near = shown.inner_text()
    assert f"\n{name} = {near}" in "\n" + cell_code(page, i)
    edit = "([i, old, now]) => { const c = window.deck.cells[i]; c.code = c.code.replace(old, now); }"
    page.evaluate(edit, [i, f"{name} = {near}", f"{name} = {far}"])  # typed by hand
    assert shown.inner_text() == far
    assert abs(int(slider.input_value()) - 750) <= 2, slider.input_value()
    assert slider.get_attribute("aria-label").endswith(far)
    # beyond the range: the slider at its end, the label as the code has it, and a word why
    page.evaluate(edit, [i, f"{name} = {far}", f"{name} = 1000.0"])
    assert shown.inner_text() == "1000.0" and slider.input_value() == "1000"
    assert "fuera del rango del control" in label.get_attribute("title")
    # the slider moved afterwards writes from where it stands
    slider.evaluate(move, "250")
    assert f"\n{name} = {near}" in "\n" + cell_code(page, i) and shown.inner_text() == near
    assert not label.get_attribute("title")


# in-page, inside an async function: ``underWay(cell)``, whether the worker runs that cell's run
# now, and ``until(ok)``, which resolves once ``ok()`` holds, read every 2 ms (a run can start
# and end between two of wait_until's reads, 50 ms apart)
IN_PAGE_WAITS = """const underWay = (c) => c.running !== null && c.running === window.deck.runtime.current;
    const until = (ok) => new Promise((resolve) => {
        const t = setInterval(() => { if (ok()) { clearInterval(t); resolve(); } }, 2);
    });
"""

# once two cells have pre-run: restart Python while the worker runs a third in the background, as
# ⟲ or the watchdog (a busy host) may; the id of the cell whose run the restart ended
CUT_A_BACKGROUND_RUN = (
    """async () => {
    const deck = window.deck;
    """
    + IN_PAGE_WAITS
    + """    const under = () => deck.cells.find(underWay);
    await until(() => deck.cells.filter((c) => c.runs > 0).length >= 2 && under());
    const cut = under().id;
    deck.runtime.restart("Python reiniciado a mitad del cálculo previo");
    return cut;
}"""
)


def test_later_slides_are_computed_before_they_are_visited(page, deck_url):
    """The pre-run computes the slides ahead, and every one of them even when Python restarts in
    the middle (prerun.js): the replay leaves out the cell whose background run the restart
    ended, and the pre-run asks for it again. Before, that cell said «stopped» until visited."""
    open_deck(page, deck_url)
    wait_runtime_ready(page)
    cut = page.evaluate(CUT_A_BACKGROUND_RUN)
    last_figure_cell = page.evaluate("""() => {
        const cells = [...document.querySelectorAll('.cell')];
        return cells.reverse().find(c => /plt|plots|fig/.test(
            window.deck.cells.find(x => x.id === c.dataset.cellId).code)).dataset.cellId; }""")
    visited = current_slide(page)
    wait_until(
        page,
        "(id) => document.querySelector(`.cell[data-cell-id='${id}'] img.out-figure`)",
        180,
        arg=last_figure_cell,
    )
    assert visited != last_figure_cell
    meta = cell_output(page, last_figure_cell)["meta"]
    assert meta.startswith("calculado ") and " s" in meta  # when, and how long it took
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 180)
    wait_until(page, "window.deck.cells.every((c) => c.running === null)", 60)
    left = page.evaluate(
        "window.deck.cells.filter((c) => c.state.phase !== 'done').map((c) => [c.id, c.state.phase])"
    )
    assert left == [], f"left uncomputed after a restart cut {cut}'s run: {left}"
    assert cell_output(page, cut)["meta"].startswith("calculado "), cell_output(page, cut)


def test_while_matplotlib_downloads_the_prerun_runs_the_cells_that_do_not_draw(page, deck_url):
    """matplotlib's wheel held back: the worker says it still downloads, and meanwhile the
    pre-run runs every cell that does not draw (the worker's own test, scheduler.js), though
    cells that draw come between them in deck order, and none that draws. Released: every cell
    runs, and the worker says it is done downloading."""
    wheel = hold_requests(page, "**/matplotlib-*.whl")
    page.goto(f"{deck_url}?nosw#/")
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 30)
    wait_runtime_ready(page)
    draws = page.evaluate("""async () => {
        const deck = document.querySelector('script[type=module][src$="/js/page/deck.js"]').src;
        const { needsMatplotlib } = await import(deck.replace(/page\\/deck\\.js$/, 'shared/scheduler.js'));
        return Object.fromEntries(window.deck.cells.map((c) => [c.id, needsMatplotlib(c.code)])); }""")
    order = list(draws)
    first_drawing = next(i for i, cell in enumerate(order) if draws[cell])
    later = [cell for cell in order[first_drawing + 2 :] if not draws[cell]]
    assert len(later) >= 5, "cells that do not draw, behind two that do: deck order would not reach them"
    wait_until(
        page,
        "(ids) => ids.every((id) => window.deck.cells.find((c) => c.id === id).runs > 0)",
        120,
        arg=[cell for cell in order if not draws[cell]],
    )
    assert wheel.held, "matplotlib's wheel was held"
    assert runtime_downloading(page) is True
    assert [c["id"] for c in cells(page) if c["runs"] and draws[c["id"]]] == []
    wheel.release()
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 180)
    assert all(c["runs"] > 0 and c["ok"] for c in cells(page))
    assert runtime_downloading(page) is False
    assert not page.errors, page.errors


def test_noise_resample_and_seed_lock(shared_deck_page):
    page = shared_deck_page
    out = run_cell(page, FIRST_CELL, code="laplace_mech(100.0, 1, 0.5)")
    assert out["state"] == "done"
    noise_btn = page.locator(CELL.format(FIRST_CELL) + " button.noise")
    lock_btn = page.locator(CELL.format(FIRST_CELL) + " button.lock")
    assert noise_btn.is_visible() and lock_btn.is_visible()
    first = out["value"]
    lock_btn.click()
    assert lock_btn.get_attribute("aria-pressed") == "true"
    assert run_cell(page, FIRST_CELL)["value"] == first  # locked: the same draw
    runs = run_count(page, 0)
    noise_btn.click()  # new noise, locked onto it
    wait_ran(page, 0, runs, 30)
    second = cell_output(page, FIRST_CELL)["value"]
    assert second != first
    assert run_cell(page, FIRST_CELL)["value"] == second
    lock_btn.click()
    assert lock_btn.get_attribute("aria-pressed") == "false"
    assert run_cell(page, FIRST_CELL)["value"] != second


def test_escape_in_the_editor_stops_a_running_cell(shared_deck_page):
    page = shared_deck_page
    go_to_slide(page, FIRST_CELL)
    wait_idle(page, 0, 60)
    set_code(page, 0, "while True:\n    pass")
    page.locator(CELL.format(FIRST_CELL) + " .cm-content").click()
    page.keyboard.press("Shift+Enter")
    wait_running(page, 0, 60)
    page.keyboard.press("Escape")
    wait_idle(page, 0, 6)  # the page restarts after 3 s
    assert "KeyboardInterrupt" in cell_output(page, FIRST_CELL)["error"]


def test_a_stop_while_the_run_loads_its_package_stops_that_run(page, deck_url):
    """A Stop that comes while a run waits for the package it imports (contourpy, loaded on
    demand) is kept for that run. Installing the wheel runs Python too, and the interrupt used
    to land there: the install swallowed it, the cell looped on, and Python was restarted 3 s
    later («no respondía a la interrupción»; a busy CI run of the test above met it between
    «started» and the cell). Now the cell stops with KeyboardInterrupt, nothing restarts, and
    the package works."""
    wheel = hold_requests(page, "**/contourpy-*.whl")
    open_deck(page, deck_url + "?nosw&noprerun")
    wait_runtime_ready(page)
    go_to_slide(page, FIRST_CELL)
    wait_idle(page, 0, 60)
    before = restarts(page)
    set_code(page, 0, "import contourpy\nwhile True:\n    pass")
    page.locator(CELL.format(FIRST_CELL) + " button.run").click()
    wait_running(page, 0, 60)
    wheel.wait_held(page)  # the run waits for its wheel
    page.locator(CELL.format(FIRST_CELL) + " button.stop").click()
    wheel.release()
    wait_idle(page, 0, 30)
    assert "KeyboardInterrupt" in cell_output(page, FIRST_CELL)["error"]
    assert restarts(page) == before
    out = run_cell(page, FIRST_CELL, code="import contourpy\nprint(contourpy.__name__)")
    assert out["stdout"] == "contourpy\n", out


def test_restart_replays_the_authored_cells_and_keeps_the_edited_ones(page, deck_url):
    """⟲'s rule (PROTOCOL.md, "Recovery"): the authored cells that had run are run again; an
    edited cell keeps its edit but is not replayed (an edit may be what broke the deck). A page
    of its own, without the pre-run: on the module's, every cell has run, and ⟲ would replay the
    whole deck."""
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    authored = "los-agregados-no-son-anonimos"
    run_cell(page, FIRST_CELL, code="secreto = 41")
    run_cell(page, authored)
    runs = run_count(page, authored)
    restart_python(page)
    wait_until(page, lambda: run_count(page, authored) > runs, 120)
    assert restarts(page) == 1
    assert cell_code(page, 0) == "secreto = 41"  # the edit is kept
    probe = cell_ids(page)[2]
    out = run_cell(page, probe, code="print('secreto' in globals())")
    assert out["state"] == "done" and out["stdout"].strip() == "False", out


def test_run_all_runs_every_cell(shared_deck_page):
    page = shared_deck_page
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 240)
    before = [c["runs"] for c in cells(page)]
    page.locator("button[data-action='run-all']").click()
    wait_all_ran(page, before, 240)
    errors = [c["id"] for c in cells(page) if not c["ok"]]
    assert errors == []


def test_speaker_view_boots_no_second_runtime(page, context, deck_url):
    open_deck(page, deck_url + "?noprerun")  # the one cell mirrored runs when asked
    wait_runtime_ready(page)
    go_to_slide(page, "los-agregados-no-son-anonimos")
    run_cell(page, "los-agregados-no-son-anonimos")
    wait_until(
        page,
        "document.querySelector(\".cell[data-cell-id='los-agregados-no-son-anonimos'] .out-stdout\")",
        120,
    )
    page.locator(".reveal").click(position={"x": 640, "y": 40})
    with context.expect_page() as popup_info:
        page.keyboard.press("s")
    popup = popup_info.value
    wait_until(popup, "document.querySelectorAll('iframe').length >= 2", 20)
    current = popup.frame_locator("#current-slide iframe")
    main_text = cell_output(page, "los-agregados-no-son-anonimos")["stdout"]
    mirrored = current.locator(".cell[data-cell-id='los-agregados-no-son-anonimos'] .out-stdout")
    mirrored.wait_for(timeout=20000)
    assert mirrored.inner_text().strip() == main_text.strip()
    python_workers = [w for p in context.pages for w in p.workers if "worker.js" in w.url]
    assert len(python_workers) == 1, [w.url for w in python_workers]
    assert "Privacidad" in popup.title() or popup.locator(".speaker-controls-notes").count() >= 0
    popup.close()


@pytest.mark.skipif(shutil.which("pdftoppm") is None, reason="pdftoppm (poppler-utils) needed")
def test_pdf_has_one_page_per_slide_with_computed_figures(built_deck, browser, tmp_path):
    from PIL import Image

    from dpdeck.serve.pdf import export_pdf

    out = tmp_path / "deck.pdf"
    report = export_pdf(built_deck, out, timeout=300, browser=browser)
    assert report["errors"] == []
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True).stdout
    pages = int(next(line for line in info.splitlines() if line.startswith("Pages:")).split()[1])
    assert pages == report["slides"], (pages, report)
    assert report["figure_slides"], "no slide printed a figure"
    page_no = report["figure_slides"][0] + 1
    subprocess.run(
        [
            "pdftoppm",
            "-png",
            "-r",
            "40",
            "-f",
            str(page_no),
            "-l",
            str(page_no),
            str(out),
            str(tmp_path / "p"),
        ],
        check=True,
    )
    image = Image.open(next(tmp_path.glob("p*.png"))).convert("L")
    w, h = image.size
    lower = image.crop((0, h // 2, w, h))  # where the figure is on a code slide
    dark = sum(lower.histogram()[:200]) / (lower.size[0] * lower.size[1])
    assert dark > 0.01, f"page {page_no} looks blank where its figure should be ({dark:.3%} ink)"
    shutil.copy(out, ROOT / "test-results" / "deck.pdf")


def test_speaker_view_notes_show_each_formula_once(page, context, deck_url):
    """The notes pane is the speaker view's own document: KaTeX's stylesheet is linked there, so
    a formula's hidden MathML copy stays hidden ("1/0,1 = 10", not "1/0,1 = 101/0,1 = 10")."""
    open_deck(page, deck_url + "?noprerun")  # the notes need no Python
    go_to_slide(page, "el-mecanismo-de-laplace")
    page.locator(".reveal").click(position={"x": 640, "y": 40})
    with context.expect_page() as popup_info:
        page.keyboard.press("s")
    popup = popup_info.value
    wait_until(popup, "document.querySelector('.speaker-controls-notes .value .katex')", 30)
    wait_until(
        popup,
        "(() => { const l = document.getElementById('dpdeck-katex');"
        " return l && l.sheet && l.sheet.cssRules.length > 0; })()",
        30,
    )
    notes = popup.evaluate("""() => {
        const pane = document.querySelector('.speaker-controls-notes .value');
        return {
          text: pane.innerText,
          mathml: [...pane.querySelectorAll('.katex-mathml')].map((e) => {
            const r = e.getBoundingClientRect();
            return { w: r.width, h: r.height, position: getComputedStyle(e).position };
          }),
          html: [...pane.querySelectorAll('.katex-html')].map((e) => e.getBoundingClientRect().width),
        };
    }""")
    assert "personas" in notes["text"]  # the notes of "El mecanismo de Laplace"
    assert notes["mathml"], "no formula in the notes pane"
    # the MathML copy is clipped out of sight, as on the slides; the typeset copy is what shows
    assert all(m["position"] == "absolute" and m["w"] <= 1 and m["h"] <= 1 for m in notes["mathml"]), notes[
        "mathml"
    ]
    assert all(w > 5 for w in notes["html"]), notes["html"]
    popup.close()


def test_a_run_that_prints_then_fails_shows_the_whole_traceback_and_says_what_is_hidden(page, deck_url):
    """Issue 33: the print's first lines and the traceback's first line were cut off, with no
    scrollbar in sight (main: the traceback is scrolled, no block says it hides lines). The error
    keeps its height; the print above gives way, scrolled to its end, and says «↑ más arriba»."""
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    code = "for i in range(40):\n    print('línea', i)\nlaplace_mehc(1)\n"
    out = run_cell(page, FIRST_CELL, code=code)
    assert out["state"] == "error"
    blocks = CELL.format(FIRST_CELL) + " .cell-output pre"
    more = "(sel) => document.querySelector(sel).dataset.more"
    assert wait_until(page, more, 10, arg=blocks + "[data-kind=stdout]") == "above"
    error = page.locator(blocks + "[data-kind=error]").evaluate(
        "e => ({top: e.scrollTop, client: e.clientHeight, height: e.scrollHeight, more: e.dataset.more ?? null})"
    )
    assert error["top"] == 0 and error["client"] >= error["height"] and error["more"] is None, error
    stdout = page.locator(blocks + "[data-kind=stdout]")
    assert stdout.evaluate("e => e.scrollTop + e.clientHeight >= e.scrollHeight - 1")  # its last lines
    label = stdout.evaluate("e => getComputedStyle(e, '::before').content")
    assert "más arriba" in label, label
    stdout.evaluate("e => { e.scrollTop = 0; }")  # scrolled to its start: now more below
    wait_until(page, lambda: page.evaluate(more, blocks + "[data-kind=stdout]") == "below", 10)


def _is_help_open(page) -> bool:
    return page.evaluate(
        "() => window.deck.reveal.isOverlayOpen() && !!document.querySelector('.r-overlay-help')"
    )


def test_reveal_screens_speak_spanish_and_keys_do_what_the_help_says(page, context, deck_url):
    """Issue 33, item 17: the pause screen and the speaker view in Spanish; «?» from a Spanish
    keyboard (Shift and the «'» key) opens the help as it does on a US one, and so does F1 (the
    help says so); without a hall, J moves no slide."""
    open_deck(page, deck_url + "?noprerun")
    go_to_slide(page, "el-mecanismo-de-laplace")
    page.locator(".reveal").click(position={"x": 640, "y": 40})
    page.keyboard.press("b")
    resume = page.locator(".pause-overlay .resume-button")
    wait_until(page, lambda: resume.is_visible(), 5)
    assert resume.inner_text() == "Reanudar la presentación"
    page.keyboard.press("b")
    wait_until(page, "!window.deck.reveal.isPaused()", 5)

    cdp = context.new_cdp_session(page)
    for kind in ("rawKeyDown", "char", "keyUp"):  # what a Spanish keyboard sends for «?»
        event = {"type": kind, "modifiers": 8, "windowsVirtualKeyCode": 219, "code": "Minus", "key": "?"}
        cdp.send("Input.dispatchKeyEvent", {**event, **({"text": "?"} if kind == "char" else {})})
    wait_until(page, lambda: _is_help_open(page), 5)
    assert "? · F1" in page.locator(".r-overlay-help-content").inner_text()
    page.keyboard.press("Escape")
    wait_until(page, lambda: not _is_help_open(page), 5)
    page.keyboard.press("Shift+Slash")  # a US keyboard's «?»: open, once (not opened and closed)
    wait_until(page, lambda: _is_help_open(page), 5)
    time.sleep(0.3)
    assert _is_help_open(page) and not page.evaluate("window.deck.reveal.isPaused()")
    page.keyboard.press("Escape")
    page.keyboard.press("F1")
    wait_until(page, lambda: _is_help_open(page), 5)
    page.keyboard.press("Escape")
    wait_until(page, lambda: not _is_help_open(page), 5)

    here = current_slide(page)
    page.keyboard.press("j")
    time.sleep(0.5)
    assert current_slide(page) == here  # no hall: J has nothing to show, and moves nothing

    with context.expect_page() as popup_info:
        page.keyboard.press("s")
    popup = popup_info.value
    wait_until(popup, "document.querySelectorAll('iframe').length >= 2", 20)
    wait_until(popup, "document.querySelector('.speaker-layout-label').textContent !== ''", 10)
    # the clock has ticked (reveal.js's page says «0:00 AM» until then): checked below, no AM/PM
    wait_until(popup, "document.querySelector('.clock-value').textContent !== '0:00 AM'", 10)
    view = popup.evaluate("""() => ({
        lang: document.documentElement.lang, title: document.title,
        upcoming: document.querySelector('#upcoming-slide .label').textContent,
        layout: document.querySelector('.speaker-layout-label').textContent,
        options: [...document.querySelectorAll('.speaker-layout-dropdown option')].map((o) => o.textContent),
        time: document.querySelector('.speaker-controls-time h4.label').textContent,
        notes: document.querySelector('.speaker-controls-notes h4.label').textContent,
        clock: document.querySelector('.clock-value').textContent,
        text: document.body.innerText })""")
    assert view["lang"] == "es" and view["title"] == "Vista del presentador"
    assert view["upcoming"] == "A continuación" and view["layout"] == "Disposición: Normal"
    assert view["options"] == ["Normal", "Ancha", "Alta", "Solo notas"]
    assert view["time"].startswith("Tiempo") and "Pulse para reiniciar" in view["time"]
    assert view["notes"] == "Notas" and not view["clock"].endswith(("AM", "PM")), view["clock"]
    for english in ("Upcoming", "Layout", "Default", "Time", "Notes", "Click to Reset"):
        assert english not in view["text"], (english, view["text"])
    popup.set_viewport_size({"width": 1280, "height": 800})
    popup.screenshot(path=str(ROOT / "test-results" / "speaker-view-es.png"))
    popup.close()


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) needed")
def test_the_handout_prints_results_solutions_and_notes_not_controls(built_deck, browser, tmp_path):
    """Issue 33, item 19: `pdf --solutions --notes`. No run carries «calculado hh:mm · 0,29 s»;
    each exercise's page shows its solution, run and judged ✓; a poll prints a simulated hall's
    result (its figure), not a «Simular una sala» button; each slide's notes follow it."""
    from dpdeck.serve.pdf import export_pdf

    out = tmp_path / "handout.pdf"
    report = export_pdf(built_deck, out, timeout=400, browser=browser, solutions=True, notes=True)
    assert report["errors"] == [] and report["solutions"], report
    assert set(report["solutions"].values()) == {"ok"}, report["solutions"]
    info = subprocess.run(["pdfinfo", str(out)], capture_output=True, text=True).stdout
    pages = int(next(line for line in info.splitlines() if line.startswith("Pages:")).split()[1])
    assert pages == report["pages"] > report["slides"], (pages, report)  # the notes' pages too
    texts = _page_texts(out)
    assert len(texts) == pages, (len(texts), pages)
    notes = [t for t in texts if t.startswith("Notas del presentador")]
    assert len(notes) == pages - report["slides"] and not any("Speaker notes" in t for t in texts)
    slides = "\n".join(t for t in texts if t not in notes)  # the notes may name «Simular una sala»
    assert "calculado" not in slides and "Simular una sala" not in slides
    scale = next(i for i, t in enumerate(texts) if t.startswith("Ejercicio · La escala de Laplace"))
    assert "escala = sensibilidad / epsilon" in texts[scale] and "✓" in texts[scale], texts[scale]
    poll = next(i for i, t in enumerate(texts) if "Una sala simulada en el navegador" in t)
    _assert_poll_figure(out, poll + 1, tmp_path)
    shutil.copy(out, ROOT / "test-results" / "handout-solutions-notes.pdf")


def _page_texts(out) -> list[str]:
    """The text of each page of the PDF ``out``, in order (one pdftotext: a form feed ends each)."""
    texts = subprocess.run(["pdftotext", str(out), "-"], capture_output=True, text=True, check=True).stdout
    return texts.split("\f")[:-1]


def _assert_poll_figure(out, page: int, tmp_path) -> None:
    """Page ``page`` of the PDF ``out`` shows the poll's simulated hall: ink on its right half."""
    from PIL import Image

    subprocess.run(["pdftoppm", "-png", "-r", "40", "-f", str(page), "-l", str(page), str(out),
                    str(tmp_path / "poll")], check=True)  # fmt: skip
    image = Image.open(next(tmp_path.glob("poll*.png"))).convert("L")
    w, h = image.size
    board = image.crop((w // 2, h // 5, w, h * 4 // 5))  # the simulated hall's figure
    dark = sum(board.histogram()[:200]) / (board.size[0] * board.size[1])
    assert dark > 0.02, f"the poll's page has no figure ({dark:.3%} ink)"


# at the end of pdf.SOLVE_ALL: restart Python; once the replay's run of the poll's cell has started
# in the worker, restart it again (that run ends "stopped", and the second replay leaves it out)
RESTART_TWICE = (
    IN_PAGE_WAITS
    + """    window.deck.runtime.restart();
    const lab = document.querySelector('details.poll-lab .cell');
    const poll = window.deck.cells.find((c) => c.id === lab.dataset.cellId);
    await until(() => underWay(poll));
    window.deck.runtime.restart();
    return verdicts;"""
)


@pytest.mark.skipif(shutil.which("pdftotext") is None, reason="pdftotext (poppler-utils) needed")
def test_a_python_restarted_before_printing_is_waited_for(built_deck, browser, tmp_path, monkeypatch):
    """Python restarts right after the solutions ran (as the watchdog restarts a worker that a
    busy host kept silent), and again once the replay has reached the poll's simulated hall: the
    replays clear each output until it runs again, and the second one leaves out the cell whose
    run it ended. The handout is printed only once the replays are done and that cell ran again.
    CI printed a poll's page with no output at all (2 runs in 55), and so did this test on every
    run until ``pdf.recover_lost``."""
    from dpdeck.serve import pdf

    restart_twice = pdf.SOLVE_ALL.replace("return verdicts;", RESTART_TWICE)
    assert restart_twice != pdf.SOLVE_ALL
    monkeypatch.setattr(pdf, "SOLVE_ALL", restart_twice)
    out = tmp_path / "handout.pdf"
    report = pdf.export_pdf(built_deck, out, timeout=400, browser=browser, solutions=True)
    assert report["errors"] == [], report
    poll = next(i for i, t in enumerate(_page_texts(out)) if "Una sala simulada en el navegador" in t)
    _assert_poll_figure(out, poll + 1, tmp_path)
