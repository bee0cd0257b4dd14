"""The page's memory with one Python worker and with two (issue 32, item 4: the pool).

    .venv/bin/python -m bench.memory [--dist DIR] [--workers 1 2] [--repeat 1]

One fresh Chromium context a visit, the deck served cross-origin isolated from 127.0.0.1 and
opened with ``?workers=N``; once the pre-run is done and every cell is idle, measured:

- ``uasm``: ``performance.measureUserAgentSpecificMemory()`` (an isolated page may call it;
  Chromium runs with ``ForceEagerMeasureMemory`` so it answers at once), the page's and each
  worker's share (its ``breakdown`` by ``scope``: ``Window``, ``DedicatedWorkerGlobalScope``);
- ``rss``: the resident memory of the renderer process the page and its workers share
  (``/proc/<pid>/status`` ``VmRSS`` of Chromium's renderers, from CDP ``SystemInfo``), which
  counts what the first does not: WebAssembly's linear memory, the compiled code.

Prints a table (MB = 10⁶ bytes); writes nothing.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright

from dpdeck.build.site import Project, build
from dpdeck.serve.browser import LAUNCH_ARGS, VIEWPORT, chromium_path
from dpdeck.serve.server import serve_in_thread

ROOT = Path(__file__).resolve().parents[1]

MEASURE_JS = """async () => {
  const m = await performance.measureUserAgentSpecificMemory();
  const by = {};
  for (const entry of m.breakdown) {
    for (const a of entry.attribution) {
      const key = a.scope + (a.url ? ' ' + a.url.split('/').pop() : '');
      by[key] = (by[key] || 0) + entry.bytes / (entry.attribution.length || 1);
    }
    if (!entry.attribution.length) by.shared = (by.shared || 0) + entry.bytes;
  }
  return {bytes: m.bytes, by};
}"""


def _wait(page, expression: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.evaluate(expression):
            return
        time.sleep(0.1)
    raise TimeoutError(expression)


def _renderer_rss(browser) -> int:
    """Bytes resident in Chromium's renderer processes (one here: one page)."""
    cdp = browser.new_browser_cdp_session()
    info = cdp.send("SystemInfo.getProcessInfo")["processInfo"]
    total = 0
    for proc in info:
        if proc["type"] != "renderer":
            continue
        for line in Path(f"/proc/{proc['id']}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1]) * 1024
    return total


def visit(browser, url: str, workers: int) -> dict:
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    try:
        page.goto(f"{url}?workers={workers}")
        _wait(page, "document.documentElement.dataset.prerunDone === 'true'", 600)
        _wait(page, "window.deck.cells.every(c => c.running === null)", 120)
        assert page.evaluate("document.documentElement.dataset.workers") == str(workers)
        time.sleep(2)  # the last figures drawn, matplotlib's caches settled
        uasm = page.evaluate(MEASURE_JS)
        return {"workers": workers, "uasm": uasm["bytes"], "by": uasm["by"], "rss": _renderer_rss(browser)}
    finally:
        context.close()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dist", type=Path, help="a built deck (default: build one into a temporary folder)")
    parser.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        dist = args.dist
        if dist is None:
            dist = Path(scratch) / "dist"
            build(Project(ROOT), dist=dist)
        server, url = serve_in_thread(dist, isolate=True)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(
                    executable_path=chromium_path(),
                    args=[*LAUNCH_ARGS, "--enable-blink-features=ForceEagerMeasureMemory"],
                )
                rows = {n: [visit(browser, url, n) for _ in range(args.repeat)] for n in args.workers}
                browser.close()
        finally:
            server.shutdown()
    print("| workers | measureUserAgentSpecificMemory | renderer RSS | per scope |")
    print("|---|---|---|---|")
    for n, visits in rows.items():
        uasm = statistics.median(v["uasm"] for v in visits) / 1e6
        rss = statistics.median(v["rss"] for v in visits) / 1e6
        scopes = ", ".join(f"{k}: {b / 1e6:.1f}" for k, b in sorted(visits[-1]["by"].items()))
        print(f"| {n} | {uasm:.1f} MB | {rss:.1f} MB | {scopes} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
