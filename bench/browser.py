"""One visit: headless Chromium on a persistent profile opens a page and waits for its report.

The page reports through ``window.__bench`` (bench/instrument.js for the deck, bench/baseline.js
for the baseline). A fresh profile folder is a cold visit; the same folder again is a warm one.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from playwright.sync_api import Error as PlaywrightError

from bench import procstat
from bench.profiles import PROFILES, Profile
from bench.server import RequestLog
from deckbuild.browser import LAUNCH_ARGS, VIEWPORT


def failed_report(error: str) -> dict:
    """What a visit reports when its page never loaded (shaped like the pages' own reports)."""
    return {"marks": {}, "statuses": [], "runs": [], "figures": [], "cellIds": [], "error": error}


INSTRUMENT = Path(__file__).resolve().parent / "instrument.js"
WAIT_FOR_REPORT = """async () => {
    while (!window.__bench) await new Promise((r) => setTimeout(r, 10));
    return await window.__bench.done;
}"""


def wait_for_quiet(max_wait: float, threshold: float = 0.3) -> float | None:
    """Wait (at most max_wait s) until other processes use < threshold cores; return their use."""
    if max_wait <= 0 or not procstat.processes():
        return None
    deadline = time.time() + max_wait
    while True:
        before, t0 = procstat.processes(), time.time()
        time.sleep(0.5)
        load = procstat.foreign_cores(before, procstat.processes(), time.time() - t0)
        if load is None or load < threshold or time.time() >= deadline:
            return load


class Browser:
    """Visits under one profile; ``watch`` (optional) is started at navigation and its
    ``finish(report)`` adds what it saw to the report (bench/diagnose/threads.py)."""

    def __init__(
        self,
        playwright,
        executable: str | None,
        timeout_ms: int,
        quiet_wait: float,
        profile: Profile = PROFILES["local"],
    ):
        self.pw, self.executable = playwright, executable
        self.timeout_ms, self.quiet_wait, self.profile = timeout_ms, quiet_wait, profile

    def visit(
        self,
        folder: Path,
        url: str,
        log: RequestLog,
        deck_cfg: dict | None = None,
        watch=None,
        offline: bool = False,
    ) -> dict:
        """One visit; ``offline``: the network is off from before navigation (the browser's own
        emulation: nothing reaches the server, the profile's throttling is moot)."""
        load_before = wait_for_quiet(self.quiet_wait)
        ctx = self.pw.chromium.launch_persistent_context(
            str(folder), executable_path=self.executable, args=LAUNCH_ARGS, headless=True, viewport=VIEWPORT
        )
        try:
            page = self._page(ctx, deck_cfg, throttle=not offline)
            if offline:
                ctx.set_offline(True)
            errors = self._collect_errors(page)
            log.take()
            data = self._navigate(page, url, watch)
            time.sleep(0.05)
            data.update(server=log.take(), pageErrors=errors, foreign_cores_before=load_before)
            return data
        finally:
            ctx.close()

    def _page(self, ctx, deck_cfg: dict | None, throttle: bool = True):
        if deck_cfg is not None:
            ctx.add_init_script(script="window.__BENCH_CFG = " + json.dumps(deck_cfg) + ";")
            ctx.add_init_script(path=str(INSTRUMENT))
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        if throttle:
            self.profile.apply(ctx, page)
        return page

    @staticmethod
    def _collect_errors(page) -> list[str]:
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)[:500]))
        page.on(
            "console",
            lambda m: errors.append(f"console.{m.type}: {m.text[:300]}") if m.type == "error" else None,
        )
        return errors

    def _navigate(self, page, url: str, watch) -> dict:
        procs0, wall0 = procstat.processes(), time.time()
        if watch is not None:
            watch.start()
        try:
            page.goto(url, wait_until="commit", timeout=self.timeout_ms)
            data = page.evaluate(WAIT_FOR_REPORT)
        except PlaywrightError as exc:  # e.g. offline with nothing cached: the page never came
            data = failed_report(str(exc).splitlines()[0])
        finally:
            if watch is not None:
                watch.stop()
        data["wall"] = time.time() - wall0
        data["foreign_cores"] = procstat.foreign_cores(procs0, procstat.processes(), data["wall"])
        if watch is not None:
            watch.finish(data)
        return data
