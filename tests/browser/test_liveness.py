"""The deck never freezes: the two sequences that once froze it for good (issue 10), and a
worker that dies or wedges in silence, which the watchdog must notice, restart and replay."""

from __future__ import annotations

import time

import pytest

from tests.support.browser import (
    cell_code,
    cell_ids,
    cell_index,
    cell_output,
    cells,
    go_to_slide,
    open_deck,
    restart_python,
    restarts,
    run_cell,
    run_count,
    start_run,
    wait_all_idle,
    wait_idle,
    wait_ran,
    wait_runtime_ready,
    wait_settled,
    wait_until,
)

FIGURE = "que-tan-grande-es-e-varepsilon"  # "¿Qué tan grande es e^ε?": draws
NUMPY = "el-mecanismo-de-laplace"  # "El mecanismo de Laplace": numpy only
FIRST = "el-dato-de-partida"
SHARED_DECK_QUERY = "?noprerun"  # the module's one booted deck (browser/conftest.py)

RECORD_STATUS = """() => {
    window.__statuses = [window.deck.runtime.detail];
    window.deck.runtime.addEventListener('status', (e) => window.__statuses.push(e.detail.detail));
}"""


def _idx(page, cell_id):
    return cell_index(page, cell_id)


def _wait_listo(page, timeout):
    """The status settles on "Python: listo" (not "cargando…") and every cell is idle."""
    wait_settled(page, timeout)


def test_sequence_1_figure_then_numpy_cell_before_matplotlib(page, deck_url):
    """Run a figure cell, then a numpy-only one, right after Python is ready: both end, the
    numpy-only one first, and the status stops saying "cargando matplotlib"."""
    open_deck(page, deck_url + "?noprerun")
    page.evaluate(RECORD_STATUS)
    wait_runtime_ready(page)
    fig, num = _idx(page, FIGURE), _idx(page, NUMPY)
    t0 = time.monotonic()
    page.evaluate(
        """([f, n]) => {
        window.__ended = [];
        for (const i of [f, n]) window.deck.cells[i].run().then(() => window.__ended.push(i));
    }""",
        [fig, num],
    )
    wait_until(page, "window.__ended.length === 2", 60)
    elapsed = time.monotonic() - t0
    assert page.evaluate("window.__ended") == [num, fig], "the numpy-only cell waited for matplotlib"
    assert cell_output(page, FIGURE)["figures"] == 1 and cell_output(page, FIGURE)["state"] == "done"
    assert cell_output(page, NUMPY)["state"] == "done"
    statuses = page.evaluate("window.__statuses")
    assert "Python: listo · cargando matplotlib…" in statuses, "matplotlib was in before the clicks"
    _wait_listo(page, 10)
    print(f"sequence 1: both cells done {elapsed:.2f} s after the clicks")


def test_sequence_2_restart_after_every_cell_ran(page, deck_url):
    """Once every cell has run, ⟲ restarts Python: the replay finishes and the deck answers."""
    open_deck(page, deck_url)
    wait_runtime_ready(page)
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 180)
    wait_all_idle(page, 60)
    ran = sum(1 for c in cells(page) if c["ok"])
    assert ran == len(cell_ids(page))
    runs_before = [c["runs"] for c in cells(page)]
    t0 = time.monotonic()
    restart_python(page)
    wait_until(
        page, "([before]) => window.deck.cells.every((c, i) => c.runs > before[i])", 120, arg=[runs_before]
    )
    _wait_listo(page, 30)
    elapsed = time.monotonic() - t0
    states = [c["state"] for c in cells(page)]
    assert states.count("done") == len(states), states
    print(f"sequence 2: {len(states)} cells replayed in {elapsed:.1f} s")


def _notice(page) -> str:
    return page.evaluate("(document.getElementById('runtime-notice') || {}).textContent || ''")


@pytest.mark.parametrize(
    "killer",
    [
        # the worker closes itself (no error event): the cell ends, then nothing answers
        "import js\njs.close()\nprint('adiós')",
        # a callback spins forever after the cell ended: the worker's event loop is wedged
        # (it says so to the page first, so the test asks for the next run only once it spins)
        "import js\nfrom pyodide.ffi import create_proxy\n"
        'def atascar():\n    js.postMessage(js.JSON.parse(\'{"type": "wedged"}\'))\n'
        "    while True: pass\n"
        "js.setTimeout(create_proxy(atascar), 50)\nprint('hasta luego')",
    ],
    ids=["closes-itself", "wedged"],
)
def test_watchdog_restarts_a_silent_worker_and_replays(page, deck_url, killer):
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    t0 = time.monotonic()
    run_cell(page, FIRST, code="pass")
    # watchdog.js: silence is noticed within SILENT_MS (5 s) and two pings (1 s each); 3 s more,
    # and five round trips of a trivial run measured here (a busy machine slows both)
    deadline = 10 + 5 * (time.monotonic() - t0)
    assert run_cell(page, FIRST, code="dato = 41\nprint(dato + 1)")["stdout"] == "42\n"
    page.evaluate(
        "() => { window.__wedged = false; window.deck.runtime.worker.addEventListener('message',"
        " (e) => { if (e.data && e.data.type === 'wedged') window.__wedged = true; }); }"
    )
    out = run_cell(page, NUMPY, code=killer)
    assert out["state"] == "done", out
    if "atascar" in killer:
        wait_until(page, "window.__wedged", 10)
    time.sleep(0.3)
    # the next run finds nobody: the watchdog notices, restarts, replays, says so, and then
    # runs it on the new Python (it waited; it is not ended with an error)
    t0 = time.monotonic()
    second = _idx(page, "los-agregados-no-son-anonimos")
    page.evaluate(
        "(i) => { window.__r = null; window.deck.cells[i].code = 'print(dato)'; "
        "window.deck.cells[i].run().then(r => { window.__r = r; }); }",
        second,
    )
    wait_until(page, lambda: restarts(page) == 1, deadline + 10)
    noticed = time.monotonic() - t0
    assert noticed < deadline, f"the watchdog took {noticed:.1f} s (deadline {deadline:.1f} s)"
    assert "dejó de responder" in _notice(page)
    # a run asked for while Python restarts waits for it too
    third = _idx(page, NUMPY)
    page.evaluate(
        "(i) => { window.__r3 = null; window.deck.cells[i].code = 'print(dato + 2)'; "
        "window.deck.cells[i].run().then(r => { window.__r3 = r; }); }",
        third,
    )
    wait_until(page, "window.__r !== null && window.__r3 !== null", 90)
    result, result3 = page.evaluate("[window.__r, window.__r3]")
    assert result["ok"] and result3["ok"], (result, result3)
    assert cell_output(page, "los-agregados-no-son-anonimos")["stdout"].endswith("41\n")
    assert cell_output(page, NUMPY)["stdout"].endswith("43\n")
    assert "esperó a que volviera" in cell_output(page, "los-agregados-no-son-anonimos")["stderr"]
    # the cell that ran before was replayed first (its state is back); the suspect is not
    assert run_count(page, _idx(page, FIRST)) >= 2
    assert restarts(page) == 1
    assert run_count(page, third) == 2  # the suspect: asked, not replayed
    _wait_listo(page, 30)
    print(f"watchdog ({killer.splitlines()[-1]}): noticed and restarted in {noticed:.1f} s")


def test_restart_gives_a_working_deck_after_an_edit_broke_it(shared_deck_page):
    """An edit that breaks the builtins and the namespace breaks the cells after it; ⟲ replays
    the authored cells only, so the deck works again, and the edit stays in its editor."""
    page = shared_deck_page
    breaker = "import builtins\nbuiltins.print = None\ndel census"
    assert run_cell(page, FIRST, code=breaker)["state"] == "done"
    broken = run_cell(page, "los-agregados-no-son-anonimos")
    assert broken["state"] == "error" and "NameError" in broken["error"], broken
    runs = [c["runs"] for c in cells(page)]
    restart_python(page)
    second = _idx(page, "los-agregados-no-son-anonimos")
    wait_ran(page, second, runs[second], 90)
    fixed = cell_output(page, "los-agregados-no-son-anonimos")
    assert fixed["state"] == "done" and "Conteo con todos" in fixed["stdout"], fixed
    i = _idx(page, FIRST)
    assert cell_code(page, i) == breaker
    assert run_count(page, i) == runs[i]  # not replayed
    assert "no se volvió a correr" in cell_output(page, FIRST)["meta"]
    assert run_cell(page, NUMPY, code="print(len(census))")["stdout"] == "5000\n"
    # a later restart (here a Stop without interrupt would do the same) does not bring it back
    restart_python(page)
    wait_ran(page, second, runs[second] + 1, 90)
    assert run_count(page, i) == runs[i]
    assert "Conteo con todos" in cell_output(page, "los-agregados-no-son-anonimos")["stdout"]


def test_stop_pressed_as_the_run_starts_still_stops(shared_deck_page):
    """A Stop that crosses the worker's "started" message is not lost."""
    page = shared_deck_page
    go_to_slide(page, FIRST)
    i = _idx(page, FIRST)
    start_run(page, i, "while True:\n    pass", stop=True)
    wait_idle(page, i, 10)
    assert cell_output(page, FIRST)["state"] == "error"
    assert run_cell(page, FIRST, code="print('sigue')")["stdout"] == "sigue\n"
