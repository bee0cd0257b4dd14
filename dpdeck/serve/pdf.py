"""`build.py pdf`: print the deck with every figure and number computed in the browser.

Opens the built deck headless in Chromium in reveal.js's print mode, waits until every cell has
run (the page runs them all in the background) and no run is left (a restarted Python's replay
included: ``wait_settled``; a cell whose run a second restart ended is run again:
``recover_lost``), and prints one PDF page per slide: results, not
controls (a poll prints its question and a simulated hall's result, static/js/page/print.js; no run
carries its time). ``solutions``: each exercise's solution loaded into its editor and run, judged,
so its page shows the solution and its verdict. ``notes``: the speaker notes, each on a page of
its own after its slide.

What it needs is part of the plain set-up (``scripts/serve.sh``): the Python package playwright
is a base dependency, and the browser is Debian's ``chromium``, ``$DPDECK_CHROMIUM``, or else
the Chromium that playwright downloads, which :func:`ensure_chromium` fetches the first time
(``python -m playwright install chromium``, online, once), saying so.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from dpdeck.build.errors import BuildEnvironmentError

from .browser import VIEWPORT, chromium_path, launch
from .server import serve_in_thread

INSTALL_CHROMIUM = [sys.executable, "-m", "playwright", "install", "chromium"]
INSTALL_SHOWN = ".venv/bin/python -m playwright install chromium"
NO_CHROMIUM = (
    "`build.py pdf` found no Chromium: install Debian's (`sudo apt-get install chromium`), or set "
    f"DPDECK_CHROMIUM to a Chromium or Chrome binary, or run `{INSTALL_SHOWN}` while online"
)


def ensure_chromium(playwright, run=subprocess.run) -> None:
    """Make sure a Chromium is there to launch; the first time without one, download
    playwright's (``INSTALL_CHROMIUM``, its own progress bar on the terminal). Raises a
    BuildEnvironmentError saying exactly what to do when that fails."""
    if chromium_path() is not None or Path(playwright.chromium.executable_path).exists():
        return
    print(
        "pdf: no Chromium found (no /usr/bin/chromium, no $DPDECK_CHROMIUM): downloading "
        f"playwright's, once (~150 MB): {INSTALL_SHOWN}",
        file=sys.stderr,
        flush=True,
    )
    done = run(INSTALL_CHROMIUM)
    if done.returncode != 0 or not Path(playwright.chromium.executable_path).exists():
        raise BuildEnvironmentError(NO_CHROMIUM)


# each exercise, in deck order: its solution into its editor, run judged (exercise.js)
SOLVE_ALL = """async () => {
    const verdicts = {};
    for (const e of window.deck.exercises) {
        e.loadSolution();
        await e.cell.run();
        verdicts[e.id] = e.feedback?.state ?? null;
    }
    return verdicts;
}"""


# every run ended (none running or queued: a restart's replay queues them) and Python idle
SETTLED = """() => window.deck.cells.every((c) => c.running === null)
    && ['ready', 'error'].includes(window.deck.runtime.state)"""


def wait_settled(page, deadline: float, what: str) -> None:
    """Return once the page is settled on two reads half a second apart: a run that ended may
    have left more to come (a restarted Python replays every cell that ran, one after another,
    and a printed page must not catch a replay's cleared outputs). Raises BuildEnvironmentError
    at ``deadline`` (time.monotonic())."""
    calm = 0
    while calm < 2:
        if time.monotonic() > deadline:
            raise BuildEnvironmentError(f"the cells did not settle {what}: try --timeout")
        calm = calm + 1 if page.evaluate(SETTLED) else 0
        time.sleep(0.5 if calm else 0.25)


# The cells whose result a restart took: the run it ended ("stopped"), or the cell Python went
# silent after ("suspect", crashed). A restart clears each output as its replay reaches it, and the
# replay leaves these out, so a restart during a replay (the watchdog, on a busy host) left a cell
# printed empty, with no error. The cells in error are run again with them: one may have needed a
# lost cell's names.
LOST = """() => {
    const cells = window.deck.cells;
    if (!cells.some((c) => ['stopped', 'crashed', 'suspect'].includes(c.state.phase))) return [];
    return cells.filter((c) => ['stopped', 'crashed', 'suspect', 'error'].includes(c.state.phase))
                .sort((a, b) => (a.lastRunAt ?? 0) - (b.lastRunAt ?? 0)).map((c) => c.id);
}"""

# run those again, one after another, as the replay would have (not judged: replay)
RUN_AGAIN = """async (ids) => {
    for (const id of ids) await window.deck.cells.find((c) => c.id === id).run({ replay: true });
}"""

# every cell whose last run failed, as printed
FAILED = "() => window.deck.cells.filter((c) => c.lastResult && !c.lastResult.ok).map((c) => c.id)"

RECOVERY_ROUNDS = 3  # each round may be cut by one more restart; a cell still lost is an error


def recover_lost(page, deadline: float, what: str) -> list[str]:
    """Settle (``wait_settled``), then run again the cells a restart left without their result
    (``LOST``) and settle again, at most ``RECOVERY_ROUNDS`` times. Returns the ids of the cells
    whose last run failed (an error, or a result still lost), for the report's ``errors``."""
    wait_settled(page, deadline, what)
    for _ in range(RECOVERY_ROUNDS):
        lost = page.evaluate(LOST)
        if not lost:
            break
        page.evaluate(RUN_AGAIN, lost)
        wait_settled(page, deadline, what + " and its lost cells ran again")
    return page.evaluate(FAILED)


# figures are <img loading="lazy">: in print view, one far down the stacked pages is never
# loaded (a poll's simulated hall printed as its text alone); load and decode every one first
LOAD_IMAGES = """async () => {
    const images = [...document.querySelectorAll('img')];
    for (const img of images) img.loading = 'eager';
    await Promise.all(images.map((img) => img.decode().catch(() => null)));
}"""


def export_pdf(
    dist: Path, out: Path, timeout: float = 300.0, browser=None, solutions: bool = False, notes: bool = False
) -> dict:
    """Write the PDF; return {pages, cells, errors, seconds} (and ``solutions``: each exercise's
    verdict, when asked). Raises BuildEnvironmentError when Python does not start or the cells
    do not finish in the browser. A solution not judged correct is one of the ``errors``.

    ``browser``: a Playwright browser to use (the tests pass theirs); default: launch one.
    """
    if browser is None:
        try:
            from playwright.sync_api import sync_playwright
        except ImportError:
            raise BuildEnvironmentError(
                "`build.py pdf` needs the Python package playwright, which the set-up installs: "
                "run `bash scripts/setup.sh` (or `.venv/bin/pip install playwright`)"
            ) from None
        with sync_playwright() as p:
            ensure_chromium(p)
            own = launch(p)
            try:
                return export_pdf(dist, out, timeout, own, solutions, notes)
            finally:
                own.close()

    server, url = serve_in_thread(dist, isolate=True)
    started = time.monotonic()
    page = browser.new_page(viewport=VIEWPORT)
    try:
        page.goto(url + "?print-pdf" + ("&showNotes=separate-page" if notes else ""))
        deadline = time.monotonic() + timeout
        state = None
        while time.monotonic() < deadline:
            state = page.evaluate("""() => ({
                ready: document.documentElement.dataset.deckReady === 'true',
                done: document.documentElement.dataset.prerunDone === 'true',
                runtime: window.deck?.runtime?.state})""")
            if state["done"] or state["runtime"] == "error":
                break
            time.sleep(0.25)
        else:
            raise BuildEnvironmentError(
                f"the cells did not finish within {timeout:.0f} s ({state}): try --timeout"
            )
        if state["runtime"] == "error":
            raise BuildEnvironmentError(
                "Python failed to start in the browser: " + page.inner_text("#runtime-status")
            )
        errors = recover_lost(page, deadline, "after the pre-run")
        report = page.evaluate("""() => ({
            cells: window.deck.cells.length,
            slides: window.deck.reveal.getTotalSlides(),
            figure_slides: [...document.querySelectorAll('.reveal .slides section')]
                .map((s, i) => s.querySelector('img.out-figure') ? i : -1)
                .filter(i => i >= 0)})""")
        report["errors"] = errors
        if solutions:
            report["solutions"] = page.evaluate(SOLVE_ALL)
            # what is printed: the cells as they are after the solutions and any replay
            report["errors"] = recover_lost(page, deadline, "after the solutions ran") + [
                f"{ex} (its solution: {v})" for ex, v in report["solutions"].items() if v != "ok"
            ]
        page.evaluate(LOAD_IMAGES)
        page.evaluate("document.fonts.ready")
        out.parent.mkdir(parents=True, exist_ok=True)
        page.pdf(path=str(out), prefer_css_page_size=True, print_background=True)
        pages = page.evaluate(
            "document.querySelectorAll('.pdf-page, .speaker-notes-pdf[data-layout=\"separate-page\"]').length"
        )
    finally:
        page.close()
        server.shutdown()
    return {"pages": pages, **report, "seconds": round(time.monotonic() - started, 1)}
