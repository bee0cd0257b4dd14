"""A pool of two Python workers (issue 32, item 4; PROTOCOL.md, "A pool of workers"), forced with
``?workers=2`` on this 2-core machine: the pre-run fills the cells with both workers, an edited
cell runs and shows its output, Stop reaches the worker that runs a loop while the other worker
goes on, and ⟲ restarts both. Without the override the page reads the device: one worker on 2
cores (a plain Runtime, today's path), two on 8 cores and 8 GB, one on 8 cores and 2 GB."""

from __future__ import annotations

import pytest

from tests.support.browser import (
    cell_output,
    cells,
    open_deck,
    restart_python,
    run_cell,
    wait_all_idle,
    wait_runtime_ready,
    wait_until,
)

NUMPY = "el-mecanismo-de-laplace"  # "El mecanismo de Laplace": numpy only

PINS = "() => Object.fromEntries(window.deck.runtime.router.pins)"
# a plain cell (not an exercise, not folded in a poll's lab) pinned to worker ``w``
PLAIN_ON = """(w) => window.deck.cells.find(c => window.deck.runtime.router.pins.get(c.id) === w
                                             && !c.exercise && !c.root.closest('details')).id"""


def _workers(page) -> str:
    return page.evaluate("document.documentElement.dataset.workers")


def test_two_workers_prerun_edit_stop_restart(page, deck_url):
    open_deck(page, deck_url + "?workers=2")
    assert _workers(page) == "2"
    wait_runtime_ready(page)
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 300)
    wait_all_idle(page, 120)
    ran = page.evaluate("window.deck.runtime.ran")
    assert ran[0] > 0 and ran[1] > 0, f"the pre-run used one worker only: {ran}"
    print(f"pool: the pre-run's runs on each worker: {ran}")
    assert all(c["ok"] for c in cells(page)), [c["id"] for c in cells(page) if not c["ok"]]
    names = page.evaluate("window.deck.runtime.runtimes.map(r => r.name)")
    assert names == ["python", "python-2"]

    # an edited cell runs on its own worker and shows its output
    pins = page.evaluate(PINS)
    out = run_cell(page, NUMPY, code="x_editada = 6 * 7\nprint('edición', x_editada)")
    assert out["state"] == "done" and "edición 42" in out["stdout"], out
    assert page.evaluate(PINS)[NUMPY] == pins[NUMPY], "the edited cell left its worker"

    # Stop reaches the worker that runs the loop; meanwhile the other worker answers
    on_second, on_first = page.evaluate(PLAIN_ON, 1), page.evaluate(PLAIN_ON, 0)
    page.evaluate(
        """(id) => { const c = window.deck.cells.find(c => c.id === id);
        c.code = 'while True:\\n    pass'; c.run(); }""",
        on_second,
    )
    wait_until(page, "window.deck.runtime.runtimes[1].current !== null", 60)
    quick = run_cell(page, on_first, code="print('mientras tanto', 1 + 1)")
    assert "mientras tanto 2" in quick["stdout"], "the first worker waited for the loop on the second"
    assert page.evaluate("window.deck.runtime.runtimes[1].current !== null"), "the loop ended by itself"
    page.evaluate("(id) => window.deck.cells.find(c => c.id === id).stop()", on_second)  # ■
    wait_until(page, "(id) => window.deck.cells.find(c => c.id === id).running === null", 30, arg=on_second)
    stopped = cell_output(page, on_second)
    assert stopped["state"] == "error" and "KeyboardInterrupt" in stopped["error"], stopped
    assert page.evaluate("window.deck.runtime.restarts") == 0, "Stop interrupted: no restart"

    # ⟲ restarts both workers, once each, and the deck answers again
    before = page.evaluate("window.deck.runtime.runtimes.map(r => r.restarts)")
    restart_python(page)
    after_restart = page.evaluate("window.deck.runtime.runtimes.map(r => r.restarts)")
    assert after_restart == [n + 1 for n in before], f"⟲ did not restart both: {before} → {after_restart}"
    wait_runtime_ready(page, 120)
    wait_all_idle(page, 240)
    after = run_cell(page, NUMPY)
    assert after["state"] == "done", after


@pytest.mark.parametrize(
    ("device", "expected"),
    [
        (None, None),  # this machine, as it is
        ({"hardwareConcurrency": 2}, "1"),
        ({"hardwareConcurrency": 8, "deviceMemory": 8}, "2"),
        ({"hardwareConcurrency": 8, "deviceMemory": 2}, "1"),
        ({"hardwareConcurrency": 8, "deviceMemory": None}, "2"),  # the browser does not say
    ],
)
def test_pool_size_from_the_device(page, deck_url, device, expected):
    if device is not None:
        props = "".join(
            f"Object.defineProperty(Navigator.prototype, {name!r}, {{get: () => {value}, configurable: true}});"
            if value is not None
            else f"delete Navigator.prototype[{name!r}];"
            for name, value in device.items()
        )
        page.add_init_script(props)
    open_deck(page, deck_url + "?noprerun")
    cores = page.evaluate("navigator.hardwareConcurrency")
    if expected is None:
        assert cores < 4, f"this test expects the 2-core machine, it has {cores}"
        expected = "1"
    assert _workers(page) == expected
    plain = page.evaluate("!('runtimes' in window.deck.runtime)")
    assert plain == (expected == "1"), "one worker is today's plain Runtime"
    wait_runtime_ready(page)


def test_a_phone_keeps_one_worker_whatever_it_says_of_cores_and_memory(
    browser, playwright_instance, deck_url
):
    """A Pixel 7 as Playwright emulates it (touch, no fine pointer), told to have 8 cores and
    8 GB: one worker, the plain Runtime (pool.js, ``touchOnly``)."""
    options = dict(playwright_instance.devices["Pixel 7"])
    options.pop("default_browser_type", None)
    ctx = browser.new_context(**options)
    try:
        phone = ctx.new_page()
        phone.add_init_script(
            "for (const [name, value] of [['hardwareConcurrency', 8], ['deviceMemory', 8]])"
            "  Object.defineProperty(Navigator.prototype, name, {get: () => value, configurable: true});"
        )
        open_deck(phone, deck_url + "?noprerun")
        assert phone.evaluate("navigator.hardwareConcurrency") == 8
        assert not phone.evaluate("matchMedia('(any-pointer: fine)').matches")
        assert _workers(phone) == "1"
    finally:
        ctx.close()
