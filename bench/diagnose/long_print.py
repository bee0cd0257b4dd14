#!/usr/bin/env python3
"""What a long print costs the page's main thread: the deck as it is on disk against the deck
at ``--before`` (a git commit), built from the same build code and visited in turns in one run.

    python bench/diagnose/long_print.py [--before HEAD~1] [--reps 5] [--lines 1000000]

Each visit opens the deck in Chromium (1280×720, no pre-run), waits for Python, runs the first
cell as ``for i in range(N): print(i)`` (cut to 200 000 characters by cellrunner) and reads
Chromium's own counters (``Performance.getMetrics``) before and after: the main thread's task
time, and of it the layout time, during the run; then how long one frame takes once the run has
ended. Prints the median and range of each, before and now.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.prepare import build_site, snapshot_ref  # noqa: E402
from dpdeck.serve.browser import chromium_path  # noqa: E402
from dpdeck.serve.server import serve_in_thread  # noqa: E402
from tests.support.browser import open_deck, run_cell, wait_runtime_ready  # noqa: E402

CELL = "el-dato-de-partida"


def visit(browser, url: str, lines: int) -> dict[str, float]:
    """One visit: the run's wall time, its main-thread task and layout seconds, the frame after."""
    page = browser.new_page(viewport={"width": 1280, "height": 720})
    cdp = page.context.new_cdp_session(page)
    cdp.send("Performance.enable")

    def counters() -> dict[str, float]:
        return {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}

    try:
        open_deck(page, url + "?noprerun")
        wait_runtime_ready(page)
        before, start = counters(), time.monotonic()
        out = run_cell(page, CELL, code=f"for i in range({lines}):\n    print(i)")
        after, ended = counters(), time.monotonic()
        page.evaluate("new Promise(r => requestAnimationFrame(() => r(1)))")
        frame = time.monotonic() - ended
        assert out["state"] == "done", out
        return {
            "run": ended - start,
            "task": after["TaskDuration"] - before["TaskDuration"],
            "layout": after["LayoutDuration"] - before["LayoutDuration"],
            "frame after": frame,
        }
    finally:
        page.context.close()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", default="HEAD~1", help="the git commit to compare with")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--lines", type=int, default=1_000_000)
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="dpdeck-long-print-") as folder:
        work = Path(folder)
        sites = {}
        for label, ref in (("before", args.before), ("now", None)):
            snap = snapshot_ref(work, ref, name=f"project-{label}")
            sites[label] = build_site(snap, work / f"site-{label}", None)
        servers = {label: serve_in_thread(site, isolate=True) for label, site in sites.items()}
        seen: dict[str, list[dict[str, float]]] = {label: [] for label in sites}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=chromium_path())
                for rep in range(args.reps):
                    for label in sites if rep % 2 == 0 else reversed(list(sites)):  # in turns
                        seen[label].append(visit(browser, servers[label][1], args.lines))
                        print(
                            f"{label} {rep + 1}: "
                            + ", ".join(f"{k} {v:.3f} s" for k, v in seen[label][-1].items())
                        )
                browser.close()
        finally:
            for server, _ in servers.values():
                server.shutdown()
    print(f"\n{args.lines} lines printed, {args.reps} visits each (median [min–max], seconds)")
    for key in seen["now"][0]:
        cells = []
        for label in sites:
            values = [v[key] for v in seen[label]]
            cells.append(f"{label} {statistics.median(values):.3f} [{min(values):.3f}–{max(values):.3f}]")
        print(f"{key:12s} " + "   ".join(cells))
    return 0


if __name__ == "__main__":
    sys.exit(main())
