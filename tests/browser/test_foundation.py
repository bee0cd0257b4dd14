"""The deck's foundation in real Chromium: load, navigate, run, edit, reset, figures, errors,
stop, and nothing leaving the origin."""

from __future__ import annotations

import json
import time

import pytest

from tests.support.browser import (
    CELL,
    authored_code,
    can_interrupt,
    cell_code,
    cell_ids,
    cell_output,
    foreign_requests,
    go_to_slide,
    open_deck,
    restart_deadline,
    restore_deck,
    run_cell,
    run_count,
    set_code,
    slide_index,
    start_run,
    stop_deadline,
    wait_idle,
    wait_running,
    wait_runtime_ready,
    wait_until,
)
from tests.support.paths import ROOT

RESULTS = ROOT / "test-results"
FIRST_CELL = "el-dato-de-partida"


def _first_cells(page, n=2) -> list[str]:
    return cell_ids(page)[:n]


def test_cold_start_first_cell_result(page, deck_url):
    """Navigation → the first cell's result, measured in a fresh context (cold)."""
    t0 = time.monotonic()
    open_deck(page, deck_url)
    page_ready = time.monotonic() - t0
    go_to_slide(page, FIRST_CELL)
    out = run_cell(page, FIRST_CELL)
    first_result = time.monotonic() - t0
    assert out["state"] == "done", out
    assert "5000" in out["stdout"].replace(".", "").replace(",", ""), out
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "cold-start.json").write_text(
        json.dumps({"page_ready_s": round(page_ready, 2), "first_cell_result_s": round(first_result, 2)})
    )
    print(f"\ncold start: page {page_ready:.2f} s, first cell result {first_result:.2f} s")


def test_status_indicator_and_keyboard_navigation(page, deck_url):
    open_deck(page, deck_url)
    status = page.locator("#runtime-status")
    assert status.get_attribute("data-state") in ("loading", "ready")
    page.locator(".reveal").click(position={"x": 640, "y": 360})
    page.keyboard.press("ArrowRight")
    wait_until(page, lambda: slide_index(page) == 1, 5)
    assert page.evaluate("location.hash") != ""
    page.keyboard.press("ArrowLeft")
    wait_until(page, lambda: slide_index(page) == 0, 5)
    wait_runtime_ready(page)
    assert status.get_attribute("data-state") in ("ready", "running")  # the pre-run may be busy
    text = status.inner_text()
    assert "listo" in text or "ejecutando" in text, text


def test_edit_rerun_reset_and_shift_enter(shared_deck_page):
    page = shared_deck_page
    go_to_slide(page, FIRST_CELL)
    authored = authored_code(page, 0)
    out = run_cell(page, FIRST_CELL, code="x = 6 * 7\nprint('resultado', x)\nx + 1")
    assert out["stdout"].strip() == "resultado 42" and out["value"] == "43", out
    assert page.locator(CELL.format(FIRST_CELL)).evaluate("e => e.classList.contains('edited')")
    # Shift+Enter in the editor runs it, typed like a person would
    editor = page.locator(CELL.format(FIRST_CELL) + " .cm-content")
    editor.click()
    page.keyboard.press("Control+End")
    page.keyboard.type("\nx * 2")
    runs = run_count(page, 0)
    page.keyboard.press("Shift+Enter")
    wait_until(page, lambda: run_count(page, 0) > runs, 30)
    assert cell_output(page, FIRST_CELL)["value"] == "84"
    # arrow keys edit code while the editor has focus: the slide does not change
    slide_before = slide_index(page)
    page.keyboard.press("ArrowLeft")
    assert slide_index(page) == slide_before
    # Escape leaves the editor; then the deck's keys work again
    page.keyboard.press("Escape")
    assert not page.evaluate("document.activeElement.closest('.cm-editor')")
    page.locator(CELL.format(FIRST_CELL) + " button.reset").click()
    assert cell_code(page, 0) == authored
    assert not page.locator(CELL.format(FIRST_CELL)).evaluate("e => e.classList.contains('edited')")


def test_figure_cell_shows_an_image(shared_deck_page):
    page = shared_deck_page
    cell = _first_cells(page, 2)[1]
    go_to_slide(page, cell)
    code = (
        "import matplotlib.pyplot as plt\n"
        "fig, ax = plt.subplots(figsize=(7, 4))\n"
        "ax.plot([0, 1, 2], [1, 3, 2], label='serie')\n"
        "ax.set_xlabel('ε'); ax.set_ylabel('error'); ax.legend()\n"
        "plt.show()"
    )
    out = run_cell(page, cell, code=code)
    assert out["state"] == "done" and out["figures"] == 1, out
    img = page.locator(CELL.format(cell) + " img.out-figure")
    wait_until(
        page,
        "(s) => { const i = document.querySelector(s); return i && i.complete && i.naturalWidth > 0; }",
        10,
        arg=CELL.format(cell) + " img.out-figure",
    )
    assert "eje x: ε" in img.get_attribute("alt")
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "foundation-figure-slide.png"))


def test_error_shows_traceback_and_next_cell_runs(shared_deck_page):
    page = shared_deck_page
    first, second = _first_cells(page, 2)
    out = run_cell(page, first, code="def f(x):\n    return x / 0\n\nf(1)")
    assert out["state"] == "error"
    assert "ZeroDivisionError: division by zero" in out["error"]
    assert f'File "<celda {first}>", line 4' in out["error"]  # points at the user's line
    assert "cellrunner" not in out["error"]  # no runner frames
    out = run_cell(page, first, code="print(')'")
    assert "SyntaxError" in out["error"]
    out = run_cell(page, second, code="print('sigo vivo')")
    assert out["state"] == "done" and "sigo vivo" in out["stdout"]


def test_output_is_text_never_markup(shared_deck_page):
    page = shared_deck_page
    out = run_cell(
        page,
        FIRST_CELL,
        code="print('<img src=x onerror=\"window.pwned=1\"><b>negrita</b>')\n'<script>window.pwned=2</script>'",
    )
    assert "<b>negrita</b>" in out["stdout"]
    assert page.evaluate("window.pwned === undefined")
    assert page.locator(CELL.format(FIRST_CELL) + " .cell-output b").count() == 0


@pytest.mark.parametrize("isolated", [True, False], ids=["interrupt", "restart"])
def test_stop_a_runaway_cell(request, deck_url_plain, isolated):
    if isolated:  # the module's booted deck
        page = request.getfixturevalue("shared_deck_page")
    else:  # ?nosw: no Service Worker, so the plain server really leaves the page un-isolated
        page = request.getfixturevalue("page")
        open_deck(page, deck_url_plain + "?nosw")
    assert page.evaluate("crossOriginIsolated") is isolated
    wait_runtime_ready(page)
    first, second = _first_cells(page, 2)
    deadline = stop_deadline(page, second) if isolated else restart_deadline(page)
    go_to_slide(page, first)
    wait_idle(page, 0, 60)
    start_run(page, 0, "i = 0\nwhile True:\n    i += 1\n    print(i)")
    wait_running(page, 0, 60)
    # the loop is under way: its prints reach the page
    wait_until(
        page,
        "(s) => document.querySelector(s)?.textContent.length > 0",
        30,
        arg=CELL.format(first) + " .out-stdout",
    )
    t0 = time.monotonic()
    page.locator(CELL.format(first) + " button.stop").click()
    wait_idle(page, 0, deadline + 3)
    stopped = time.monotonic() - t0
    assert stopped < deadline, f"stop took {stopped:.2f} s (deadline {deadline:.2f} s)"
    err = cell_output(page, first)["error"]
    assert ("KeyboardInterrupt" in err) if isolated else ("se reinició Python" in err), err
    # the deck keeps working: the next cell runs (after a restart, the prelude ran again)
    out = run_cell(page, second, code="print(len(census))")
    assert out["state"] == "done" and out["stdout"].strip() == "5000", out


def test_nothing_leaves_the_origin(shared_deck_page, deck_url):
    """Every request the module's page made since it opened (its workers' included) went to
    the deck's own origin, a figure cell's (matplotlib) among them."""
    page = shared_deck_page
    run_cell(page, FIRST_CELL)
    cell = _first_cells(page, 2)[1]
    run_cell(page, cell, code="import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()")
    requested = " ".join(page.requests)
    # the worker's requests are recorded too (else this test would prove nothing)
    assert "pyodide.asm.wasm" in requested and "matplotlib-3.8.4" in requested
    assert foreign_requests(page, deck_url) == []
    assert page.errors == []


def test_file_url_explains_how_to_serve(page, built_deck):
    page.goto((built_deck / "index.html").as_uri())
    warning = page.locator("#file-warning")
    wait_until(page, "!document.getElementById('file-warning').hidden", 5)
    assert "python build.py serve" in warning.inner_text()


def test_service_worker_isolates_a_static_host(page, deck_url_plain):
    """Served without COOP/COEP (as GitHub Pages would), the Service Worker adds them: after
    one reload the page is cross-origin isolated and Stop interrupts instead of restarting."""
    open_deck(page, deck_url_plain)
    wait_until(page, "self.crossOriginIsolated === true", 20)
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
    wait_runtime_ready(page)
    assert can_interrupt(page) is True


WORKER_WHEEL_FETCHES = """() => performance.getEntriesByType("resource")
    .map((e) => e.name.split("/").pop()).filter((name) => name.endsWith(".whl"))"""


def test_python_takes_the_prefetched_wheels_without_fetching_them_again(page, deck_url):
    """The worker downloads the wheels while the interpreter starts (prefetch.js) and hands the
    bytes to Pyodide's loadPackage: each wheel is fetched once in the worker, numpy's and
    matplotlib's included, and the figure still comes."""
    open_deck(page, deck_url)
    figure_cell = "que-tan-grande-es-e-varepsilon"
    go_to_slide(page, figure_cell)
    out = run_cell(page, figure_cell)
    assert out["state"] == "done" and out["figures"], out
    fetched = [name for worker in page.workers for name in worker.evaluate(WORKER_WHEEL_FETCHES)]
    assert any(name.startswith("numpy-") for name in fetched), fetched
    assert any(name.startswith("matplotlib-") for name in fetched), fetched
    assert sorted(fetched) == sorted(set(fetched)), fetched


def test_a_used_page_is_restored_for_the_next_test(shared_deck_page, deck_url):
    """restore_deck, which the module's shared page gets before each test, undoes what a test
    leaves behind: a runaway run, edited code, an open dialog, focus in an editor, a later
    slide, a recorded error."""
    page = shared_deck_page
    first, second = _first_cells(page, 2)
    go_to_slide(page, second)
    start_run(page, 0, "while True:\n    pass")
    wait_running(page, 0, 60)
    set_code(page, 1, "print('editado')")
    page.locator(CELL.format(second) + " .cm-content").click()
    page.locator("button[data-action='restart']").click()
    page.errors.append("an error of the last test")
    restore_deck(page, deck_url)
    state = page.evaluate(
        """() => ({running: window.deck.cells.some(c => c.running !== null),
            edited: window.deck.cells.filter(c => c.code !== c.authored).map(c => c.id),
            dialogs: document.querySelectorAll('dialog[open]').length,
            focused: document.activeElement === document.body,
            slide: window.deck.reveal.getIndices().h, runtime: window.deck.runtime.state})"""
    )
    assert state == {
        "running": False,
        "edited": [],
        "dialogs": 0,
        "focused": True,
        "slide": 0,
        "runtime": "ready",
    }, state
    assert page.errors == []
    assert run_cell(page, first)["state"] == "done"
