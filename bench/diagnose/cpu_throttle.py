#!/usr/bin/env python3
"""What the aula profile's CPU throttling does, on this machine: which threads it slows, and
what it costs while the page does nothing.

    python bench/diagnose/cpu_throttle.py [--rate 4] [--steps 30000000]

``Emulation.setCPUThrottlingRate`` is Chromium's blink ``ThreadCPUThrottler``: a thread sends
the page's main thread a signal every 200 µs, and the signal's handler busy-waits (rate − 1)
times the time the main thread ran since the last one (at most 1 ms). So, read from its source
and checked here:

- the page's main thread runs ``rate`` times slower, and spins while it waits: an idle page
  burns CPU;
- a dedicated worker (the deck's Python) is not slowed at all, and shares the cores with that
  spinning.

Prints, unthrottled and throttled, one blank page's main-thread CPU over ``--idle`` seconds of
doing nothing, and the wall time of the same fixed computation on the main thread and in a
dedicated worker.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.diagnose.threads import main_thread_cpu, renderer_pids  # noqa: E402
from dpdeck.serve.browser import chromium_path  # noqa: E402

# A fixed amount of work (not a time: a throttled thread gets less done per second).
WORK = "(n) => { let x = 0; for (let i = 0; i < n; i++) x = (x * 31 + i) % 1000003; return x; }"
ON_MAIN = f"(n) => {{ const t = performance.now(); ({WORK})(n); return performance.now() - t; }}"
WORKER_SOURCE = f"onmessage = (e) => {{ const t = performance.now(); ({WORK})(e.data); postMessage(performance.now() - t); }};"
IN_WORKER = """([source, n]) => new Promise((resolve) => {
    const w = new Worker(URL.createObjectURL(new Blob([source], {type: 'text/javascript'})));
    w.onmessage = (e) => { w.terminate(); resolve(e.data); };
    w.postMessage(n);
})"""


def measure(context, rate: float, steps: int, idle: float) -> dict:
    page = context.new_page()
    page.goto("about:blank")
    cdp = context.new_cdp_session(page)
    cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    renderers = renderer_pids()
    before = main_thread_cpu(renderers)
    time.sleep(idle)
    idle_cores = (main_thread_cpu(renderers) - before) / idle
    main_ms = page.evaluate(ON_MAIN, steps)
    worker_ms = page.evaluate(IN_WORKER, [WORKER_SOURCE, steps])
    page.close()
    return {"rate": rate, "idle_cores": idle_cores, "main_ms": main_ms, "worker_ms": worker_ms}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rate", type=float, default=4.0, help="the throttling rate (aula: 4)")
    ap.add_argument("--steps", type=int, default=30_000_000, help="steps of the fixed computation")
    ap.add_argument("--idle", type=float, default=3.0, help="seconds the page does nothing")
    args = ap.parse_args(argv)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path())
        context = browser.new_context()
        rows = [measure(context, rate, args.steps, args.idle) for rate in (1.0, args.rate)]
        browser.close()
    print(f"{'rate':>5} {'idle main thread':>17} {'main thread':>12} {'worker':>9}")
    for r in rows:
        print(f"{r['rate']:5g} {r['idle_cores']:11.2f} cores {r['main_ms']:9.0f} ms {r['worker_ms']:6.0f} ms")
    plain, slow = rows
    print(
        f"throttled/plain: main thread ×{slow['main_ms'] / plain['main_ms']:.2f}, "
        f"worker ×{slow['worker_ms'] / plain['worker_ms']:.2f}; "
        f"an idle page's main thread takes {slow['idle_cores']:.2f} of this machine's {os.cpu_count()} cores"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
