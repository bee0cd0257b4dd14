"""What students type and how presenters open the deck: every bad input gets a clear message
under its cell, the deck keeps working, and odd ways of serving still work."""

from __future__ import annotations

import os
import shutil
import time

import pytest

from bench.diagnose.cpu_throttle import WORK as MAIN_THREAD_WORK
from dpdeck.build.pyodide_dist import ON_DEMAND
from dpdeck.build.site import Project, build
from dpdeck.serve.server import serve_in_thread
from tests.support.browser import (
    CELL,
    can_interrupt,
    cell_index,
    cell_output,
    deck_config,
    go_to_slide,
    open_deck,
    restarts,
    run_cell,
    start_run,
    stop_deadline,
    wait_idle,
    wait_running,
    wait_runtime,
    wait_runtime_ready,
    wait_until,
)
from tests.support.page_cpu import MainThreadSampler
from tests.support.paths import ROOT

FIRST = "el-dato-de-partida"
SECOND = "los-agregados-no-son-anonimos"


@pytest.fixture
def ready_page(shared_deck_page):
    """The module's one booted deck (none of these tests is about the start-up)."""
    return shared_deck_page


def _frame_waited_on_the_page(page, before: str | None = None) -> str | None:
    """Ask the page for one frame (a frozen page would not give one), after running ``before``
    in it if given. A frame that came late because the machine was busy (a shared CI box) is
    fine; one the page held up with its own work is not: a wait of FRAME_BUDGET_MS or more in
    which the page's main thread computed FRAME_BUDGET_MS or more, and ran or waited for a core
    for at least half of the wait (tests/support/page_cpu.py). What it waited on, or None."""
    with MainThreadSampler() as sampler:
        start = time.time()
        if before:
            page.evaluate(before)
        page.evaluate("new Promise(r => requestAnimationFrame(() => r(1)))")
        end = time.time()
    wait, cpu = (end - start) * 1000, sampler.cpu_between(start, end) * 1000
    demand = sampler.demand_between(start, end)
    wanted = cpu if demand is None else demand * 1000
    if wait >= FRAME_BUDGET_MS and cpu >= FRAME_BUDGET_MS and wanted >= wait / 2:
        return f"a frame waited {wait:.0f} ms: the page's main thread computed {cpu:.0f} ms, wanted a core {wanted:.0f} ms"
    return None


def test_the_frame_check_sees_a_page_that_computes(ready_page):
    """The check above checked: the page computes WORK_STEPS in one task, queued just before
    the frame is asked for; the check must see it (and an idle page passes it)."""
    wait_until(ready_page, "document.documentElement.dataset.prerunDone === 'true'", 240)
    assert _frame_waited_on_the_page(ready_page) is None
    busy = f"setTimeout(() => ({MAIN_THREAD_WORK})({WORK_STEPS}), 0)"
    assert _frame_waited_on_the_page(ready_page, before=busy), "the frame check is blind"


def test_error_deep_in_dplab_points_at_the_users_line(ready_page):
    out = run_cell(ready_page, FIRST, code="x = 3\nlaplace_mech(x, sensitivity=1, epsilon=-1)")
    assert out["state"] == "error"
    assert 'File "<celda el-dato-de-partida>", line 2' in out["error"]
    assert "ValueError" in out["error"] and "epsilon" in out["error"]
    assert run_cell(ready_page, SECOND, code="print('ok')")["stdout"] == "ok\n"


def test_a_million_lines_are_cut_and_the_page_stays_responsive(ready_page):
    out = run_cell(ready_page, FIRST, code="for i in range(10**6):\n    print(i)")
    assert out["state"] == "done"
    assert "salida recortada" in out["stderr"]
    assert len(out["stdout"]) <= 200_000
    assert not _frame_waited_on_the_page(ready_page)


# Each of a text block's pieces (output.js): its text, whether the text before it ends a line and
# the text after it (if any) begins one, and whether it begins at the block's left edge, below
# the piece before it
PIECES = """pre => {
    const left = pre.getBoundingClientRect().left + parseFloat(getComputedStyle(pre).paddingLeft);
    let above = -Infinity;
    return [...pre.querySelectorAll('.out-lines')].map((piece) => {
        const before = document.createRange();
        before.setStart(pre, 0);
        before.setEndBefore(piece);
        const after = document.createRange();
        after.setStartAfter(piece);
        after.setEnd(pre, pre.childNodes.length);
        const box = piece.getBoundingClientRect();
        const placed = Math.abs(box.left - left) < 1 && box.top >= above - 1;
        above = box.bottom;
        return {text: piece.textContent, opens: before.toString().endsWith('\\n'),
                closes: after.toString() === '' || after.toString().startsWith('\\n'), placed};
    });
}"""


@pytest.mark.parametrize("white_space", ["pre-wrap", "pre"], ids=["wrapping", "phone"])
def test_a_long_print_reads_back_as_printed_and_no_line_is_split(ready_page, white_space):
    """output.js draws a long print's lines after its first 400 in pieces, each laid out on its
    own. Text arrives in flushes that end anywhere (the pauses below end some mid-line): still
    no line is split across two pieces, no piece holds more than 400 lines, the text, as read
    and as a reader copies it (innerText), is exactly what was printed, and each piece begins a
    line below the one before it, whether the block wraps (a slide) or not (phone.css)."""
    code = (
        "import time\n"
        "for i in range(7000):\n"
        "    print(i, end=' ' if i % 7 else '\\n')\n"
        "    if i in (1200, 2790, 2793, 2794, 5590, 5593):\n"
        "        time.sleep(0.06)  # the next print flushes what came before: mid-line\n"
        "print('fin', end='')"
    )
    printed = "".join(f"{i}" + (" " if i % 7 else "\n") for i in range(7000)) + "fin"
    out = run_cell(ready_page, FIRST, code=code)
    assert out["state"] == "done" and out["stdout"] == printed
    block = ready_page.locator(CELL.format(FIRST) + " pre[data-kind=stdout]")
    block.evaluate("(pre, ws) => { pre.style.whiteSpace = ws; }", white_space)
    assert block.evaluate("pre => pre.innerText") == printed
    pieces = block.evaluate(PIECES)
    assert len(pieces) == 2, [p["text"][:40] for p in pieces]
    for piece in pieces:
        assert piece["opens"] and piece["closes"] and piece["placed"], piece | {"text": piece["text"][:40]}
        assert len(piece["text"].split("\n")) <= 400


def test_a_50_mb_string_is_cut(ready_page):
    out = run_cell(ready_page, FIRST, code="s = 'x' * 50_000_000\nprint(s)\ns")
    assert out["state"] == "done"
    assert len(out["stdout"]) <= 200_001 and "recortada" in out["stderr"]
    assert len(out["value"]) < 21_000 and "recortado" in out["value"]
    heap = ready_page.evaluate("performance.memory ? performance.memory.usedJSHeapSize : 0")
    assert heap < 300 * 2**20, f"page heap {heap / 2**20:.0f} MB"
    assert not _frame_waited_on_the_page(ready_page)


def test_stop_a_loop_that_prints_in_a_tight_loop(ready_page):
    page = ready_page
    deadline = stop_deadline(page, SECOND)
    go_to_slide(page, FIRST)
    wait_idle(page, 0, 120)
    start_run(page, 0, 'while True:\n    print("sin fin")')
    wait_running(page, 0, 60)
    # the prints flood in (thousands of lines) while the frame is asked for
    wait_until(
        page,
        "(s) => document.querySelector(s)?.textContent.length > 20000",
        30,
        arg=CELL.format(FIRST) + " .out-stdout",
    )
    assert not _frame_waited_on_the_page(page)
    t0 = time.monotonic()
    page.locator(CELL.format(FIRST) + " button.stop").click()
    wait_idle(page, 0, deadline + 3)
    assert time.monotonic() - t0 < deadline
    assert "KeyboardInterrupt" in cell_output(page, FIRST)["error"]
    assert run_cell(page, SECOND, code="print(len(census))")["stdout"] == "5000\n"


@pytest.mark.parametrize(
    "code, expected",
    [
        ("import numpy\nnumpy.zeros(10**10)", "Maximum allowed dimension exceeded"),
        ("import numpy\nx = [numpy.ones(250_000_000) for _ in range(8)]", "MemoryError"),
        ("def f(n):\n    return f(n + 1)\nf(0)", "RecursionError"),
    ],
    ids=["zeros-1e10", "16-GB", "recursion"],
)
def test_too_much_memory_or_recursion_is_a_clear_error(ready_page, code, expected):
    out = run_cell(ready_page, FIRST, code=code)
    assert out["state"] == "error" and expected in out["error"], out["error"][-500:]
    assert len(out["error"]) < 13_000  # a runaway traceback is cut, not shipped whole
    assert run_cell(ready_page, SECOND, code="print(len(census))")["stdout"] == "5000\n"


def test_killing_the_runtime_restarts_it_and_says_so(ready_page):
    page = ready_page
    before = restarts(page)
    out = run_cell(page, FIRST, code="import os\nos._exit(1)")
    assert "El intérprete de Python terminó" in out["error"]
    assert "Python se reinició" in out["meta"]
    wait_runtime_ready(page)
    assert restarts(page) == before + 1
    assert "reinició" in page.locator("#announcer").inner_text()
    # the prelude ran again: census is there
    assert run_cell(page, SECOND, code="print(len(census))")["stdout"] == "5000\n"


def test_served_from_a_sub_path(page, built_deck, tmp_path):
    root = tmp_path / "site"
    (root / "talks").mkdir(parents=True)
    # a copy (hard links: instant), not a symlink: the server refuses links out of its folder
    shutil.copytree(built_deck, root / "talks" / "dp", copy_function=os.link)
    server, url = serve_in_thread(root)
    try:
        open_deck(page, url + "talks/dp/")
        wait_runtime_ready(page)
        out = run_cell(
            page,
            FIRST,
            code="import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()\nprint(len(census))",
        )
        assert out["state"] == "done" and out["figures"] == 1 and out["stdout"] == "5000\n"
        assert not [
            u
            for u in page.requests + page.sw_requests
            if "/talks/dp/" not in u and u.startswith(url) and not u.rstrip("/").endswith("/talks/dp")
        ]
    finally:
        server.shutdown()


def test_a_new_version_replaces_a_cached_old_one(page, tmp_path):
    """Deploy v1, visit it (the browser and the Service Worker cache it), deploy v2 over it
    with a changed page script: the next visit runs v2 only."""
    project = tmp_path / "proj"
    for name in ("deck", "templates", "static", "pyodide_pkg"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    (project / "node_modules").symlink_to(ROOT / "node_modules", target_is_directory=True)
    site = tmp_path / "dist"
    build(Project(project), dist=site)
    server, url = serve_in_thread(site)
    try:
        open_deck(page, url)
        v1 = deck_config(page)["version"]
        css = project / "static" / "css" / "deck.css"
        css.write_text(css.read_text() + "\n:root { --v2-marker: 1; }\n")
        build(Project(project), dist=site)
        page.reload()
        wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 30)
        v2 = deck_config(page)["version"]
        assert v2 != v1
        marker = page.evaluate("getComputedStyle(document.documentElement).getPropertyValue('--v2-marker')")
        assert marker.strip() == "1"
        scripts = page.evaluate(
            "performance.getEntriesByType('resource').map(e => e.name).filter(n => n.includes('/static-'))"
        )
        assert scripts and all(f"static-{v2}/" in s for s in scripts), scripts
    finally:
        server.shutdown()


def test_a_broken_prelude_is_shown_under_the_cells(page, tmp_path):
    """The deck author's prelude raises: the status says error and each cell shows why."""
    site = tmp_path / "dist"
    build(Project(ROOT), deck_file=ROOT / "tests" / "fixtures" / "bad_prelude" / "deck.yaml", dist=site)
    server, url = serve_in_thread(site)
    try:
        open_deck(page, url)
        wait_runtime(page, "error", 60)
        out = run_cell(page, "una-celda")
        assert out["state"] == "error"
        assert "El preludio del mazo" in out["error"] and "ZeroDivisionError" in out["error"]
        assert "escala = 1 / 0" in out["error"]
        assert page.locator("#runtime-status").get_attribute("data-state") == "error"
    finally:
        server.shutdown()


def test_rarely_used_packages_load_on_demand(ready_page, deck_url):
    """A cold load fetches no wheel the deck does not import; a cell that needs one (contour
    plots need contourpy) gets it loaded and runs again, saying so."""
    page = ready_page
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 240)
    fetched = " ".join(page.requests)
    for wheel in (name.replace("-", "_") + "-" for name in ON_DEMAND):  # wheel file names
        assert wheel not in fetched, wheel
    code = (
        "import matplotlib.pyplot as plt\nprint('antes')\n"
        "x = np.linspace(-2, 2, 30)\nz = np.exp(-x[:, None]**2 - x[None, :]**2)\n"
        "plt.contour(x, x, z)\nplt.show()"
    )
    out = run_cell(page, FIRST, code=code)
    assert out["state"] == "done" and out["figures"] == 1, out
    assert "se cargó contourpy" in out["stderr"] and out["stdout"] == "antes\n"
    assert "contourpy-" in " ".join(page.requests)


# Figures too costly to draw. No frame may wait on FRAME_BUDGET of the page's own work after any
# output: an <img> of a 21 MB SVG blocks Chromium's main thread for 3-10 s (cellrunner.MAX_SVG_CHARS).
# A frame can also come late because the machine is busy (a shared CI box): what counts is the
# CPU the page's main thread spent while the frame waited (tests/support/page_cpu.py).
FRAME_BUDGET_MS = 200
WATCH_FRAMES = """(cellId) => {
    const cell = window.deck.cells.find(c => c.id === cellId);
    const w = window.__watch = {frames: [], on: true, figureAt: null, afterResult: null};
    const loop = () => { w.frames.push(performance.now()); if (w.on) requestAnimationFrame(loop); };
    requestAnimationFrame(loop);
    const add = cell.output.add.bind(cell.output);
    cell.output.add = (item) => {
        if (item.kind === 'figure' && w.figureAt === null) w.figureAt = performance.now();
        return add(item);
    };
    const ran = () => {   // a background pre-run of the authored code does not count
        if (!cell.lastCode.includes('plt.')) return;
        cell.removeEventListener('ran', ran);
        const t = performance.now();
        requestAnimationFrame(() => { w.afterResult = performance.now() - t; w.afterResultAt = performance.timeOrigin + t; });
    };
    cell.addEventListener('ran', ran);
}"""
# From the first figure's arrival until 0.5 s after every figure of the cell has loaded: the
# longest gap between frames, and the frame right after the result; ``slow``: the gaps over
# 100 ms that ended after the first figure, as [ms after it, ms, when the gap began (epoch ms)].
FRAME_REPORT = """async (cellId) => {
    const out = document.querySelector(`.cell[data-cell-id='${cellId}'] .cell-output`);
    const loaded = (i) => i.complete && i.naturalWidth > 0;
    while (![...out.querySelectorAll('img.out-figure')].every(loaded)) await new Promise(r => setTimeout(r, 20));
    await new Promise(r => setTimeout(r, 500));
    const w = window.__watch;
    w.on = false;
    let gap = 0;
    for (let i = 1; i < w.frames.length; i++)
        if (w.frames[i] > w.figureAt) gap = Math.max(gap, w.frames[i] - w.frames[i - 1]);
    const slow = w.frames.slice(1).map((t, i) => [Math.round(w.frames[i] - w.figureAt), t - w.frames[i],
                                                   performance.timeOrigin + w.frames[i]])
                  .filter(([, g], i) => g > 100 && w.frames[i + 1] > w.figureAt);
    return {maxGap: gap, afterResult: w.afterResult, afterResultAt: w.afterResultAt, frames: w.frames.length, slow};
}"""
# The page's main thread computing in one task, MAIN_THREAD_WORK (cpu_throttle.WORK: a fixed amount
# of work, not a time: a busy machine would give a timed loop less CPU): what the frame check must
# see. 2·10⁸ steps are about 0,9 s of CPU on this project's machine, so a machine 4× faster still
# works for over FRAME_BUDGET.
WORK_STEPS = 200_000_000


def _frames_that_waited_on_the_page(timing: dict, sampler: MainThreadSampler) -> list[str]:
    """The frames (and the first one after the result) that came FRAME_BUDGET_MS late or more
    while the page's main thread computed FRAME_BUDGET_MS or more of that wait. A frame late on
    a busy machine, with the page idle meanwhile, is not one of them."""
    waits = [(gap, start) for _, gap, start in timing["slow"]]
    if timing["afterResult"] is not None:
        waits.append((timing["afterResult"], timing["afterResultAt"]))
    found = []
    for gap, start in waits:
        cpu = sampler.cpu_between(start / 1000, (start + gap) / 1000) * 1000
        if gap >= FRAME_BUDGET_MS and cpu >= FRAME_BUDGET_MS:
            found.append(f"a frame waited {gap:.0f} ms, {cpu:.0f} ms of it on the page's main thread")
    return found


def _frames_late_on_main_thread_work(page, sampler: MainThreadSampler) -> list[str]:
    """The frame check checked: the page computes WORK_STEPS in one task while its frames are
    watched; what ``_frames_that_waited_on_the_page`` finds (it must find that frame)."""
    page.evaluate(WATCH_FRAMES, FIRST)
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => r()))")
    page.evaluate(MAIN_THREAD_WORK, WORK_STEPS)
    return _frames_that_waited_on_the_page(page.evaluate(FRAME_REPORT, FIRST), sampler)


BIG_SCATTER = (
    "import matplotlib.pyplot as plt\n"
    "plt.scatter(np.random.rand(200_000), np.random.rand(200_000), s=2)\n"
    "plt.xlabel('x'); plt.ylabel('y')\nplt.show()"
)


def _figure_items(page, cell_id):
    return page.evaluate(
        """(id) => window.deck.cells.find(c => c.id === id).output.items
        .filter(i => i.kind === 'figure')
        .map(i => ({svg: i.svg != null, png: i.png != null, note: i.note || null, alt: i.alt}))""",
        cell_id,
    )


def test_a_multi_mb_svg_figure_is_a_png_and_the_page_stays_responsive(ready_page):
    """200 000 points are 21 MB of SVG: drawn as such they froze the page for seconds. The cell
    shows a PNG with a note, and no frame waits on 200 ms of the page's own work all along."""
    page = ready_page
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 240)
    go_to_slide(page, FIRST)
    with MainThreadSampler() as sampler:
        assert _frames_late_on_main_thread_work(page, sampler), "the frame check is blind"
        page.evaluate(WATCH_FRAMES, FIRST)
        out = run_cell(page, FIRST, code=BIG_SCATTER)
        assert out["state"] == "done" and out["figures"] == 1, out
        timing = page.evaluate(FRAME_REPORT, FIRST)
    assert timing["afterResult"] is not None, timing
    assert not _frames_that_waited_on_the_page(timing, sampler), timing
    [item] = _figure_items(page, FIRST)
    assert item["png"] and not item["svg"]
    assert item["note"] == "(figura de más de 0,2 MB en SVG: se muestra como PNG)"
    cell = page.locator(CELL.format(FIRST))
    img = cell.locator("img.out-figure")
    assert img.get_attribute("alt").startswith("Figura: eje x: x (de ")
    assert img.get_attribute("src").startswith("blob:")
    assert img.evaluate("i => i.naturalWidth") > 500
    assert cell.locator(".out-note").inner_text() == item["note"]
    (ROOT / "test-results").mkdir(exist_ok=True)
    cell.screenshot(path=str(ROOT / "test-results" / "big-figure.png"))
    # the output is plain data: the speaker view's copy re-draws it from a structured clone
    page.evaluate(
        """(id) => { const c = window.deck.cells.find(c => c.id === id);
                               c.output.replace(structuredClone(c.output.items)); }""",
        FIRST,
    )
    wait_until(
        page,
        "(s) => { const i = document.querySelector(s); return i && i.complete && i.naturalWidth > 500; }",
        10,
        arg=CELL.format(FIRST) + " img.out-figure",
    )
    assert cell.locator(".out-note").inner_text() == item["note"]
    assert not page.errors, page.errors


def test_many_figures_are_capped_and_the_page_stays_responsive(ready_page):
    page = ready_page
    wait_until(page, "document.documentElement.dataset.prerunDone === 'true'", 240)
    go_to_slide(page, FIRST)
    # uncapped, 20 SVGs cost ~340 ms of main thread in one go; capped, ~70 ms
    with MainThreadSampler() as sampler:
        page.evaluate(WATCH_FRAMES, FIRST)
        out = run_cell(
            page,
            FIRST,
            code="import matplotlib.pyplot as plt\nfor i in range(30):\n"
            "    plt.figure(); plt.plot([0, i]); plt.title(f'n.º {i}')\n"
            "    plt.show()",
            timeout=240,
        )
        assert out["state"] == "done" and out["figures"] == 20, out
        assert "se muestran las primeras 20 de 30" in out["stderr"]
        timing = page.evaluate(FRAME_REPORT, FIRST)
    assert timing["afterResult"] is not None, timing
    assert not _frames_that_waited_on_the_page(timing, sampler), timing
    items = _figure_items(page, FIRST)
    assert [i["svg"] for i in items] == [True] * 10 + [False] * 10  # 10 SVG, then PNG
    assert all("figuras en SVG" in i["note"] for i in items[10:])
    assert [i["alt"] for i in items] == [f"Figura: n.º {i}" for i in range(20)]


def test_the_decks_figures_stay_svg(ready_page):
    page = ready_page
    for cell_id in ("el-histograma-privado", "encontrar-el-codo"):  # the deck's biggest figure
        out = run_cell(page, cell_id)
        assert out["state"] == "done" and out["figures"] == 1, out
        [item] = _figure_items(page, cell_id)
        assert item["svg"] and not item["png"] and item["note"] is None
        assert page.locator(CELL.format(cell_id) + " .out-note").count() == 0
        wait_until(
            page,
            "(s) => { const i = document.querySelector(s); return i && i.complete && i.naturalWidth > 0; }",
            10,
            arg=CELL.format(cell_id) + " img.out-figure",
        )


# A cell that allocates until memory runs out (issue 19): Pyodide's heap grows to its 4 GiB limit
EXHAUST = "import numpy\nxs = []\nwhile True:\n    xs.append(numpy.ones(100_000))"
FIGURE = "que-tan-grande-es-e-varepsilon"


def test_memory_exhaustion_restarts_python_and_the_deck_works(ready_page):
    """Filled to its limit, the heap is handed back: Python restarts without the cell that
    exhausted it, says so under it, and every kind of cell works after (before: a figure cell
    failed for good, and a cell's code could reach Python corrupted)."""
    page = ready_page
    out = run_cell(page, FIRST, code=EXHAUST, timeout=180)
    assert out["state"] == "error" and "MemoryError" in out["error"], out["error"][-500:]
    assert run_cell(page, SECOND, code="print(len(census))")["stdout"] == "5000\n"
    long_code = "x = 20\n" + "\n".join(f"# {'relleno ' * 10}{i}" for i in range(300)) + "\nprint(x + 22)"
    assert run_cell(page, SECOND, code=long_code)["stdout"] == "42\n"
    figure = run_cell(page, FIGURE)
    assert figure["state"] == "done" and figure["figures"] == 1, figure
    assert run_cell(page, SECOND, code="print('xs' in globals())")["stdout"] == "False\n"  # not replayed
    # and the deck said what it did, under the cell and beside the status
    assert "Memoria agotada" in out["error"] and "se reinicia Python para liberarla" in out["error"]
    assert "Python se reinició" in out["meta"]
    assert "sin memoria" in page.evaluate("(document.getElementById('runtime-notice') || {}).textContent")


def test_a_memory_error_under_the_limit_undoes_the_cells_names_without_a_restart(ready_page):
    """A MemoryError while the heap is small (a phone's browser may refuse to grow it long
    before Pyodide's limit; simulated here by raising it): the cell's names are undone, the
    memory collected, and Python goes on (no restart). (A name no deck cell assigns: the deck's
    own ``antes``, once pre-run, would be put back, as it should.)"""
    page = ready_page
    before = restarts(page)
    code = (
        "bloque_de_prueba = [0] * 10_000_000\nraise MemoryError('el navegador no dio más memoria (simulado)')"
    )
    out = run_cell(page, FIRST, code=code)
    assert out["state"] == "error" and "MemoryError" in out["error"], out["error"][-500:]
    assert "se deshizo lo que esta celda había asignado (bloque_de_prueba)" in out["error"]
    assert "Python sigue en marcha" in out["error"]
    assert restarts(page) == before
    assert (
        run_cell(page, SECOND, code="print('bloque_de_prueba' in globals(), len(census))")["stdout"]
        == "False 5000\n"
    )


STOP_SLEEPING = """async (i) => {
    const cell = window.deck.cells[i];
    const t = performance.now();
    cell.stop();
    const result = await cell.pendingRun;
    return {ms: performance.now() - t, restarted: Boolean(result.restarted), error: result.error};
}"""


def test_stop_wakes_a_sleeping_cell_at_once_without_a_restart(ready_page):
    """time.sleep in a cell uses no CPU, and Stop ends it by an interrupt within 0,5 s (plus
    five round trips of a trivial run, measured in the same test: a busy machine slows both)."""
    from tests.browser.engines.drivers import WORKER_THREADS, cpu_use, procstat

    page = ready_page
    before = restarts(page)
    assert can_interrupt(page)
    t0 = time.monotonic()
    assert run_cell(page, SECOND, code="import time\ntime.sleep(0.4)\nprint('ok')")["stdout"] == "ok\n"
    assert time.monotonic() - t0 >= 0.4
    t0 = time.monotonic()
    run_cell(page, SECOND, code="pass")
    trip_ms = (time.monotonic() - t0) * 1000  # a trivial run's round trip, here and now
    bad = run_cell(page, SECOND, code="import time\ntime.sleep(-1)")
    assert "ValueError" in bad["error"] and "non-negative" in bad["error"]
    i = cell_index(page, FIRST)
    go_to_slide(page, FIRST)
    start_run(page, i, "import time\ntime.sleep(30)")
    wait_running(page, i, 30)
    time.sleep(0.5)
    use = cpu_use(procstat.descendants(os.getpid()) - {os.getpid()}, seconds=2.0)
    busy = [t for t in use["threads"] if t[0].startswith(WORKER_THREADS) and t[1] >= 0.3]
    assert not busy, f"the sleeping cell burns CPU: {use}"
    stopped = page.evaluate(STOP_SLEEPING, i)
    assert not stopped["restarted"] and stopped["error"]["type"] == "KeyboardInterrupt", stopped
    assert stopped["ms"] < 500 + 5 * trip_ms, (
        f"Stop took {stopped['ms']:.0f} ms (a run's trip {trip_ms:.0f} ms)"
    )
    assert restarts(page) == before
    assert run_cell(page, SECOND, code="print(len(census))")["stdout"] == "5000\n"
