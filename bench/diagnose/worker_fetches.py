#!/usr/bin/env python3
"""A cold visit of the deck: when each of its Python worker's fetches began and ended, and the
worker's statuses on its own clock (what P2, the first cell after core ready, waits on).

    python bench/diagnose/worker_fetches.py --profile aula [--reps 2]

Per repetition, one cold visit in a new browser profile, run as bench/startup.py runs it (every
cell's Run pressed once the page is ready). When every cell is done, the worker's Resource Timing
(`performance.getEntriesByType("resource")`, read inside the worker) gives each fetch's start,
its end and the bytes that crossed the network (0: the HTTP cache answered), in seconds from
navigation; then the worker's statuses as it stamped them (`at`) and the page's marks.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.browser import LAUNCH_ARGS, VIEWPORT, WAIT_FOR_REPORT  # noqa: E402
from bench.diagnose.common import parser  # noqa: E402
from bench.session import session  # noqa: E402

# Inside the worker: its fetches, on the page's time line (both clocks are the epoch's).
WORKER_FETCHES = """() => performance.getEntriesByType("resource").map((e) => ({
    name: e.name.split("/").pop(),
    start: e.startTime + performance.timeOrigin,
    end: e.responseEnd + performance.timeOrigin,
    bytes: e.transferSize,
}))"""


def cold_visit(s, rep: int) -> tuple[dict, list[dict]]:
    """One cold visit: the page's report and the worker's fetches."""
    ctx = s.browser.pw.chromium.launch_persistent_context(
        str(s.folder(f"fetches-{rep}")),
        executable_path=s.browser.executable,
        args=LAUNCH_ARGS,
        headless=True,
        viewport=VIEWPORT,
    )
    try:
        page = s.browser._page(ctx, {"mode": "presenter", "timeoutMs": s.timeout_ms, "diag": ""})
        page.goto(s.deck_url, wait_until="commit", timeout=s.timeout_ms)
        report = page.evaluate(WAIT_FOR_REPORT)
        fetches = [f for worker in page.workers for f in worker.evaluate(WORKER_FETCHES)]
        return report, fetches
    finally:
        ctx.close()


def main(argv=None) -> int:
    args = parser(__doc__).parse_args(argv)
    with session(args) as s:
        for rep in range(args.reps):
            report, fetches = cold_visit(s, rep)
            origin = report["timeOrigin"]
            print(f"\nrep {rep + 1}, {args.profile}, cold: the worker's fetches (s from navigation)")
            for f in fetches:
                start, end = (f["start"] - origin) / 1000, (f["end"] - origin) / 1000
                net = f"{f['bytes'] / 2**20:6.2f} MiB" if f["bytes"] else "  (cache)"
                print(f"  {f['name'][:58]:58} {start:6.2f} → {end:6.2f}  {net}")
            print("the worker's statuses (its own clock, s)")
            for st in report["statuses"]:
                if st.get("at") is not None and st["state"] != "running":
                    print(f"  {st['at'] / 1000:6.2f}  {st['state']}: {st.get('detail') or ''}")
            marks = {k: round(v / 1000, 2) for k, v in report["marks"].items() if isinstance(v, (int, float))}
            print("the page's marks (s):", marks)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
