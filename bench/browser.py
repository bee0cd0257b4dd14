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
from dpdeck.serve.browser import LAUNCH_ARGS, VIEWPORT


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


class MemoryWatch:
    """The page's memory while a visit runs (the ``phone`` profile), sampled every ``every`` s
    from navigation until the page's report is in:

    - ``heap_wasm_peak`` (issue 49's "JS heap plus wasm"): the largest sum, over the samples, of
      the main thread's JavaScript heap (``usedSize`` of CDP ``Runtime.getHeapUsage`` on the
      page's session, each sample), the workers' JavaScript heaps (their share of
      ``performance.measureUserAgentSpecificMemory``, every ``uasm_every``-th sample: it walks
      the heaps, so not at every one) and the workers' WebAssembly memory (the Python worker's
      ``deckHeapBytes()``, static/js/worker/worker.js: Pyodide's heap, which never shrinks; read in the
      worker's scope, after the task it runs, each sample). Each part is its latest reading;
      measureUserAgentSpecificMemory does not count wasm memory (it counts JavaScript heaps);
    - ``js_heap_peak``, ``worker_js_peak``, ``wasm_peak``: each part's own largest reading;
    - ``renderer_peak``: the largest ``VmHWM`` (the kernel's high-water mark of the resident
      set, so no peak between samples is missed) of this process's Chromium renderers, read at
      the end: the JavaScript heaps and the wasm memory, and also the compiled code, Blink's own
      (layout, images, the GPU's tiles) and the allocators' slack. An upper bound of the first;
    - ``uasm``, ``uasm_workers``: measureUserAgentSpecificMemory at the end (all, the workers').
    """

    UASM = """async () => {
      if (!self.crossOriginIsolated || !performance.measureUserAgentSpecificMemory) return null;
      const m = await performance.measureUserAgentSpecificMemory();
      const workers = m.breakdown.filter((e) => e.attribution.some((a) => a.scope === "DedicatedWorkerGlobalScope"));
      return {uasm: m.bytes, uasm_workers: workers.reduce((n, e) => n + e.bytes, 0)};
    }"""
    WASM = "() => (typeof self.deckHeapBytes === 'function' ? self.deckHeapBytes() : 0)"
    START = "() => { window.__bench.done.then((r) => { window.__benchReport = r; }); return true; }"

    def __init__(self, page, every: float = 0.5, uasm_every: int = 10):
        self.page, self.every, self.uasm_every = page, every, uasm_every
        self.cdp = getattr(page, "_bench_cdp", None) or page.context.new_cdp_session(page)
        self.now = {"js_heap": 0, "worker_js": 0, "wasm": 0}
        self.peaks = {"js_heap_peak": 0, "worker_js_peak": 0, "wasm_peak": 0, "heap_wasm_peak": 0}
        self.samples = 0

    def read(self) -> None:
        """One sample of each part (the workers' JavaScript heaps every ``uasm_every``-th)."""
        self.now["js_heap"] = int(self.cdp.send("Runtime.getHeapUsage")["usedSize"])
        self.now["wasm"] = sum(int(w.evaluate(self.WASM) or 0) for w in self.page.workers)
        if self.samples % self.uasm_every == 0:
            m = self.page.evaluate(self.UASM)
            if m:
                self.now["worker_js"] = int(m["uasm_workers"])
        self.samples += 1

    def sample(self) -> None:
        try:
            self.read()
        except PlaywrightError:  # the page is navigating, or a worker ended meanwhile
            return
        for part in self.now:
            key = f"{part}_peak"
            self.peaks[key] = max(self.peaks[key], self.now[part])
        self.peaks["heap_wasm_peak"] = max(self.peaks["heap_wasm_peak"], sum(self.now.values()))

    @property
    def js_heap_peak(self) -> int:
        return self.peaks["js_heap_peak"]

    def wait(self, timeout: float) -> dict:
        """Sample until the page's report is in (at most ``timeout`` s); the report, with
        ``memory`` added."""
        self.page.wait_for_function("() => !!window.__bench", timeout=timeout * 1000)
        self.page.evaluate(self.START)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.sample()
            if self.page.evaluate("() => window.__benchReport !== undefined"):
                break
            time.sleep(self.every)
        data = self.page.evaluate("() => window.__benchReport") or failed_report("no report")
        self.sample()  # the end: the wasm memory as the last cell left it
        peaks = [procstat.status_bytes(pid, "VmHWM") or 0 for pid in procstat.renderers()]
        data["memory"] = dict(self.peaks, renderer_peak=max(peaks, default=None), memory_samples=self.samples)
        try:
            data["memory"] |= self.page.evaluate(self.UASM) or {}
        except PlaywrightError:
            pass
        return data


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
            str(folder),
            executable_path=self.executable,
            args=[*LAUNCH_ARGS, *self.profile.launch_args],
            headless=True,
            **self.profile.options(VIEWPORT),
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
        if self.profile.init_script:
            ctx.add_init_script(script=self.profile.init_script)
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
            memory = MemoryWatch(page) if self.profile.sample_memory else None
            data = memory.wait(self.timeout_ms / 1000) if memory else page.evaluate(WAIT_FOR_REPORT)
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
