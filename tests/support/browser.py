"""The page test API: how the browser tests open, drive and read the built deck.

Tests reach the page through these functions rather than through its internals: this module
reads ``window.deck`` (static/js/page/deck.js), only the fields docs/contributing.md lists ("The
page test API"), so a change to them changes this module, not the tests. A cell is named by
``ref``: its id (the slide's id, a str) or its index in the page's cells (an int).

- cells: ``cell_index``, ``cell_ids``, ``cells`` (a snapshot of every cell), ``cell_code``,
  ``authored_code``, ``last_code``, ``set_code``, ``run_count``, ``is_running``,
  ``cell_output``
- running: ``run_cell`` (the Run button, waited for), ``start_run`` (``cell.run()``, not
  waited for), ``reset_cell``, ``wait_idle``, ``wait_all_idle``, ``wait_settled``,
  ``wait_ran``, ``wait_all_ran``, ``wait_running``
- the runtime: ``wait_runtime_ready``, ``wait_runtime``, ``runtime_state``,
  ``runtime_detail``, ``runtime_downloading``, ``can_interrupt``, ``restarts``
- a page shared by a module's tests: ``restore_deck`` (browser/conftest.py's ``shared_deck_page``)
- slides: ``open_deck``, ``go_to_slide``, ``current_slide``, ``current_slide_element``,
  ``slide_index``, ``no_transitions``
- the deck and its hall: ``deck_config``, ``hall_view``, ``wait_hall``
- exercises: ``exercise_ids``, ``exercise_solved``
- polling and instrumenting: ``wait_until``, ``instrument``, ``foreign_requests``,
  ``hold_requests``

The page's Content-Security-Policy forbids ``eval``, which Playwright's string predicates use,
so we poll with ``page.evaluate`` (not subject to the page's CSP) instead of
``page.wait_for_function``.
"""

from __future__ import annotations

import time
from urllib.parse import urlparse

CELL = ".cell[data-cell-id='{}']"


# an init script: this page's browser refuses storage (private modes, blocked cookies)
REFUSE_STORAGE = """Object.defineProperty(window, 'localStorage', {
    configurable: true, get() { throw new DOMException('refused', 'SecurityError'); } });"""


def _mid_navigation(exc: Exception, expression) -> bool:
    """Whether ``exc`` is a navigation under way (a goto, a reload, the Service Worker's one
    reload), not a failure: the old document's context is gone, or the new document has no root
    element yet, which an expression reading ``document.documentElement`` meets as null."""
    text = str(exc)
    if "context was destroyed" in text or "navigat" in text:
        return True
    return (
        isinstance(expression, str)
        and "document.documentElement." in expression
        and "Cannot read properties of null" in text
    )


# How long one in-page wait may last before it answers the test (seconds): the test's own
# deadline is kept by the test, so a page that stops answering costs at most this much past it.
IN_PAGE_SLICE = 1.0

# A JS expression (or a function of ``arg``, as ``page.evaluate`` takes one) checked in the page
# every ``interval`` until it is truthy or ``slice`` seconds have passed; answers ``[its last value,
# whether the page waited]``. The predicate is pasted in as source: the call is the debugger
# protocol's, which the page's CSP (no eval) does not govern, and no eval happens inside the page.
# Where the page's timers are not the browser's own (Playwright's ``page.clock`` runs them only
# when the test says), the page checks once and the test waits between checks.
_IN_PAGE_WAIT = """async ([arg, slice, interval]) => {{
  const check = async () => {{
    const value = (
{predicate}
    );
    return typeof value === "function" ? await value(arg) : await value;
  }};
  const own = [setTimeout, performance.now].every((f) => /\\[native code\\]/.test(String(f)));
  const until = performance.now() + slice * 1000;
  for (;;) {{
    const value = await check();
    if (value || !own || performance.now() >= until) return [value === undefined ? null : value, own];
    await new Promise((resolve) => setTimeout(resolve, interval * 1000));
  }}
}}"""


def wait_until(page, expression, timeout: float = 60.0, arg=None, interval: float = 0.05):
    """Poll a JS expression (or arrow function taking ``arg``) in the page, or a Python
    callable of no argument (built on this API's readers), until it is truthy; return it.

    A JS predicate is checked inside the page (``_IN_PAGE_WAIT``), every ``interval`` seconds,
    in slices of at most ``IN_PAGE_SLICE``: one round trip to the page a slice, not one a check
    (one a check where the page's timers are Playwright's clock).
    Asked from here every 50 ms, the round trips alone kept 12 % of a core busy while a test
    waited on an idle page (docs/contributing.md, "The tests' layout")."""
    deadline = time.monotonic() + timeout
    last = None
    source = None if callable(expression) else _IN_PAGE_WAIT.format(predicate=expression)
    while (left := deadline - time.monotonic()) > 0:
        try:
            if source is None:
                last = expression()
            else:
                last, waited = page.evaluate(source, [arg, min(IN_PAGE_SLICE, left), interval])
        except Exception as exc:  # a navigation (the Service Worker's one reload) is not failure
            if not _mid_navigation(exc, expression):
                raise
            last, waited = None, False
        if last:
            return last
        if source is None or not waited:
            time.sleep(interval)
    raise TimeoutError(f"not true after {timeout} s: {expression} (last value {last!r})")


def open_deck(page, url: str, timeout: float = 20.0) -> None:
    page.goto(url)
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", timeout)


def wait_runtime_ready(page, timeout: float = 90.0) -> None:
    wait_until(page, "['ready','running'].includes(window.deck.runtime.state)", timeout)


# A cell of the page by ``ref`` (its id or its index), inside a page function of ``[ref, ...]``.
_CELL = "(typeof r === 'number' ? window.deck.cells[r] : window.deck.cells.find(c => c.id === r))"


def _on_cell(body: str) -> str:
    """A page function of ``[ref, arg]`` with ``c`` the cell ``ref`` names."""
    return f"([r, arg]) => {{ const c = {_CELL}; {body} }}"


def cell_index(page, cell_id: str) -> int:
    """The index of cell ``cell_id`` in the page's cells (-1: none)."""
    return page.evaluate("(id) => window.deck.cells.findIndex(c => c.id === id)", cell_id)


def cell_ids(page) -> list[str]:
    """The ids of the page's cells, in deck order."""
    return page.evaluate("window.deck.cells.map(c => c.id)")


def cells(page) -> list[dict]:
    """A snapshot of every cell: ``id``, ``code`` (the editor's), ``authored``, ``last_code``
    (of the last run started), ``runs`` (runs finished), ``running`` (a run under way),
    ``ok`` (the last run's result: True, False, or None before any), ``state`` (the cell's
    ``data-state``)."""
    return page.evaluate(
        """() => window.deck.cells.map(c => ({
            id: c.id, code: c.code, authored: c.authored, last_code: c.lastCode ?? null,
            runs: c.runs, running: c.running !== null,
            ok: c.lastResult ? Boolean(c.lastResult.ok) : null, state: c.root.dataset.state}))"""
    )


def cell_code(page, ref: str | int) -> str:
    """The code in cell ``ref``'s editor."""
    return page.evaluate(_on_cell("return c.code;"), [ref, None])


def authored_code(page, ref: str | int) -> str:
    """Cell ``ref``'s code as the deck's author wrote it."""
    return page.evaluate(_on_cell("return c.authored;"), [ref, None])


def last_code(page, ref: str | int) -> str | None:
    """The code cell ``ref``'s last run started with (None before any)."""
    return page.evaluate(_on_cell("return c.lastCode ?? null;"), [ref, None])


def set_code(page, ref: str | int, code: str) -> None:
    """Put ``code`` in cell ``ref``'s editor, as typing it would (without running it)."""
    page.evaluate(_on_cell("c.code = arg;"), [ref, code])


def run_count(page, ref: str | int) -> int:
    """How many runs of cell ``ref`` have finished."""
    return page.evaluate(_on_cell("return c.runs;"), [ref, None])


def is_running(page, ref: str | int) -> bool:
    """Whether a run of cell ``ref`` is queued or under way."""
    return page.evaluate(_on_cell("return c.running !== null;"), [ref, None])


def start_run(page, ref: str | int, code: str | None = None, stop: bool = False) -> None:
    """Start a run of cell ``ref`` (with ``code`` put in its editor first, if given) as the
    page's own ``cell.run()`` does, without waiting for it; ``stop``: and ask for it to stop
    at once, in the same task of the page."""
    body = "if (arg.code !== null) c.code = arg.code; c.run(); if (arg.stop) c.stop();"
    page.evaluate(_on_cell(body), [ref, {"code": code, "stop": stop}])


def reset_cell(page, ref: str | int) -> None:
    """Cell ``ref``'s ↺: its authored code back, and run."""
    page.evaluate(_on_cell("c.reset();"), [ref, None])


def wait_idle(page, ref: str | int, timeout: float = 60.0) -> None:
    """Wait until no run of cell ``ref`` is queued or under way."""
    wait_until(page, _on_cell("return c.running === null;"), timeout, arg=[ref, None])


def wait_all_idle(page, timeout: float = 60.0) -> None:
    """Wait until no cell has a run queued or under way."""
    wait_until(page, "window.deck.cells.every(c => c.running === null)", timeout)


def wait_ran(page, ref: str | int, runs_before: int, timeout: float = 90.0) -> None:
    """Wait until cell ``ref`` has finished more than ``runs_before`` runs and is idle."""
    wait_until(page, _on_cell("return c.runs > arg && c.running === null;"), timeout, arg=[ref, runs_before])


def wait_settled(page, timeout: float = 180.0, interval: float = 0.05) -> None:
    """Wait until every run has ended and the status says "Python: listo" (not "cargando…")."""
    wait_until(
        page,
        "window.deck.cells.every(c => c.running === null) && window.deck.runtime.detail === 'Python: listo'",
        timeout,
        interval=interval,
    )


def wait_all_ran(page, runs_before: list[int], timeout: float = 240.0) -> None:
    """Wait until every cell ``i`` has finished more than ``runs_before[i]`` runs and all are
    idle (``runs_before``: ``[c["runs"] for c in cells(page)]``)."""
    wait_until(
        page,
        "(b) => window.deck.cells.every((c, i) => c.runs > b[i] && c.running === null)",
        timeout,
        arg=runs_before,
    )


def wait_running(page, ref: str | int, timeout: float = 30.0) -> None:
    """Wait until cell ``ref``'s run is the one Python is running (not only queued)."""
    body = "return c.running !== null && window.deck.runtime.current === c.running;"
    wait_until(page, _on_cell(body), timeout, arg=[ref, None])


def stop_deadline(page, cell_id: str) -> float:
    """Seconds a Stop may take on this page now: 2 s, plus 5 round trips of a trivial run of
    ``cell_id`` measured here, in the same run (a busy machine slows both the same way; the
    speed itself is the benchmark's: the engines scenario's «stop ok … s»)."""
    t0 = time.monotonic()
    run_cell(page, cell_id, code="pass")
    return 2.0 + 5 * (time.monotonic() - t0)


def restart_python(page) -> None:
    """Restart Python the way a student does: ⟲, then «Reiniciar Python» in the dialog that asks
    first (static/js/page/actions.js, issue 50 item 2). Returns once the page has acted on the choice:
    a dialog's ``close`` event comes in a task after the click, and the page's own listener (added
    when the dialog was made) runs before the one added here, so the restart has begun, as it
    had when ⟲ restarted at once."""
    page.locator("button[data-action='restart']").click()
    dialog = "dialog[data-confirm='restart']"
    page.evaluate(
        """(sel) => { window.__restartChosen = false;
        document.querySelector(sel).addEventListener("close", () => { window.__restartChosen = true; },
                                                     { once: true }); }""",
        dialog,
    )
    page.locator(f"{dialog} button[data-choice='restart']").click()
    wait_until(page, "window.__restartChosen === true", 10)  # polled: the deck's CSP forbids eval


def restart_deadline(page) -> float:
    """Seconds a Stop may take on a page that cannot interrupt Python, so that Stop restarts
    it: 2 s, plus twice what a ⟲ restart takes on this page now (a new worker, the prelude and
    the replay, until every cell is idle), measured here in the same run. A trivial run's
    round trip is no reference for that: it does not grow with what a restart does."""
    t0 = time.monotonic()
    before = restarts(page)
    restart_python(page)
    wait_until(page, lambda: restarts(page) > before, 30)
    wait_runtime_ready(page)
    wait_all_idle(page, 120)
    return 2.0 + 2 * (time.monotonic() - t0)


def run_cell(page, cell_id: str, code: str | None = None, timeout: float = 90.0) -> dict:
    """Run a cell (optionally with new code) the way the Run button does; return its result."""
    i = cell_index(page, cell_id)
    assert i >= 0, f"no cell {cell_id}"
    if code is not None:
        set_code(page, i, code)
    go_to_slide(page, page.evaluate("(i) => window.deck.cells[i].slide.id", i))
    # a cell folded away (a poll's lab, in a <details>) is opened first, as a person would
    page.evaluate("(i) => window.deck.cells[i].root.closest('details')?.setAttribute('open', '')", i)
    wait_idle(page, i, timeout)
    before = run_count(page, i)
    # Playwright waits for the button to be enabled: if a background pre-run of this cell was
    # under way, the click starts a new run after it ended; wait for whichever run is last
    page.locator(CELL.format(cell_id) + " button.run").click()
    wait_ran(page, i, before, timeout)
    return cell_output(page, cell_id)


def runtime_state(page) -> str:
    """The Python runtime's state: 'loading', 'ready', 'running', 'error', …"""
    return page.evaluate("window.deck.runtime.state")


def wait_runtime(page, state: str, timeout: float = 60.0) -> None:
    """Wait until the Python runtime's state is ``state``."""
    wait_until(page, "(s) => window.deck.runtime.state === s", timeout, arg=state)


def runtime_detail(page) -> str:
    """The runtime's status line as the page shows it (e.g. 'Python: listo')."""
    return page.evaluate("window.deck.runtime.detail")


def runtime_downloading(page) -> bool:
    """Whether a Python worker says it still downloads wheels (its prefetch: prerun.js)."""
    return page.evaluate("window.deck.runtime.downloading")


def can_interrupt(page) -> bool:
    """Whether Python can be interrupted in place (a SharedArrayBuffer: the page is served
    isolated), rather than restarted, by Stop."""
    return page.evaluate("window.deck.runtime.canInterrupt")


def restarts(page) -> int:
    """How many times the page has restarted Python (a wedged or crashed worker)."""
    return page.evaluate("window.deck.runtime.restarts")


def hall_view(page) -> dict | None:
    """The live hall as this page sees it (None before the page made one): ``state``
    ('live', 'offline', …), ``present`` (a hall is there), ``presenter`` (this page presents),
    ``following`` (the page follows the presenter's slide), ``last_delay_ms`` (of the last
    slide change heard)."""
    return page.evaluate(
        """() => { const h = window.deck.hall; return h === undefined ? null : {state: h.state,
            present: h.present, presenter: h.presenter, following: h.following,
            last_delay_ms: h.lastDelayMs ?? null}; }"""
    )


def wait_hall(page, state: str, timeout: float = 30.0) -> None:
    """Wait until the page's live hall is in ``state``."""
    wait_until(page, "(s) => window.deck.hall?.state === s", timeout, arg=state)


def deck_config(page) -> dict:
    """The deck's configuration as the page read it (dpdeck/build/config.py, static/js/shared/types.js)."""
    return page.evaluate("window.deck.config")


def exercise_ids(page) -> list[str]:
    """The ids of the page's exercises (their slides' ids), in deck order."""
    return page.evaluate("window.deck.exercises.map(e => e.id)")


def own_solution(solution: str) -> str:
    """An exercise's solution with a line of the student's own: it counts as solved, where the
    solution as loaded («Cargar en el editor») only passes (issue 33, item 12)."""
    return solution.rstrip("\n") + '\nrespuesta = "mía"\n'


def exercise_solved(page, exercise_id: str) -> bool:
    """Whether the exercise on slide ``exercise_id`` is marked solved."""
    return page.evaluate("(id) => window.deck.exercises.find(e => e.id === id).solved", exercise_id)


def current_slide(page) -> str:
    """The id of the slide reveal.js shows."""
    return page.evaluate("window.deck.reveal.getCurrentSlide().id")


def current_slide_element(page):
    """A handle on the <section> of the slide reveal.js shows (for in-page probes)."""
    return page.evaluate_handle("() => window.deck.reveal.getCurrentSlide()")


def slide_index(page) -> int:
    """The horizontal index of the slide reveal.js shows."""
    return page.evaluate("window.deck.reveal.getIndices().h")


def no_transitions(page) -> None:
    """Slides change at once (no reveal.js transition), so a screenshot or a probe sees the
    new one."""
    page.evaluate("() => window.deck.reveal.configure({transition: 'none'})")


def restore_deck(page, url: str, timeout: float = 120.0) -> None:
    """Bring a page a test already used back to a known state, as a fresh one would be but for
    Python's names and the requests recorded: every run stopped, every cell's code the authored
    one, no dialog open, nothing focused or hovered, the first slide shown, Python ready, no error
    recorded. A page whose
    Python does not come back ready is opened afresh instead."""
    try:
        page.evaluate(
            """() => { for (const d of document.querySelectorAll('dialog[open]')) d.close();
            document.activeElement?.blur();
            for (const c of window.deck.cells) { c.stop(); if (c.code !== c.authored) c.code = c.authored; } }"""
        )
        page.mouse.move(1, 1)  # no hover left over a word (an editor's tooltip)
        wait_all_idle(page, timeout)
        wait_runtime_ready(page, timeout)
        page.evaluate("() => window.deck.reveal.slide(0, 0, -1)")
        wait_until(page, "window.deck.reveal.getIndices().h === 0", 5)
    except Exception:  # the last test left it wedged or gone: a fresh page
        open_deck(page, url)
        wait_runtime_ready(page)
    page.errors.clear()


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


class HeldRequests:
    """The requests ``hold_requests`` holds back: ``held`` (the routes so far), ``release()``."""

    def __init__(self) -> None:
        self.held: list = []
        self.released = False

    def route(self, route) -> None:
        if self.released:
            route.continue_()
        else:
            self.held.append(route)

    def wait_held(self, page, timeout: float = 30.0) -> None:
        """Wait until a request is held (Playwright hands a request to its route only while it
        is called: the wait calls it)."""
        wait_until(page, lambda: page.wait_for_timeout(50) or self.held, timeout)

    def release(self) -> None:
        """Let the held requests go, and every later one at once."""
        self.released = True
        for route in self.held:
            route.continue_()


def hold_requests(page, pattern: str) -> HeldRequests:
    """Hold back every request of the page's context that matches the glob ``pattern`` (its
    workers' fetches included, without the service worker: ``?nosw``) until ``release()``."""
    held = HeldRequests()
    page.context.route(pattern, held.route)
    return held


def foreign_requests(page, base_url: str) -> list[str]:
    """The requests ``instrument`` recorded that went to another origin than ``base_url``'s."""
    origin = urlparse(base_url).netloc
    return [
        u
        for u in page.requests + page.sw_requests
        if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).netloc != origin
    ]
