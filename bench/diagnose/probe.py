#!/usr/bin/env python3
"""Does loading matplotlib make a numpy-only cell wait? (the timing of bench/README's target 3)

    python bench/diagnose/probe.py [--reps N] [--window-ms 8000]

The deck, cold; from 'ready' on, Run is pressed on one numpy-only cell (the first that CPython
shows runs alone after the prelude, again and again, drawing nothing) every 150 ms while
matplotlib loads. A probe's wait: from pressing Run to the worker starting it, minus the time the
worker spent on other cells meanwhile, minus the idle wait (the quickest probe's). The worst
probe's wait is explained: time with no cell running vs behind which cells (pre-runs marked).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.cpython import run_cpython  # noqa: E402
from bench.diagnose.common import parser, timed_visit  # noqa: E402
from bench.milestones import mpl_ready_time  # noqa: E402
from bench.session import session  # noqa: E402
from bench.table import Table, fmt_s  # noqa: E402

TOLERANCE_MS = 100  # target 3: a numpy-only cell may wait this long for nothing else
STEP_MS = 150


def start_of(r: dict) -> float | None:
    """When the worker started a run: its 'running' status, or its result minus its seconds."""
    if r.get("running") is not None:
        return r["running"]
    if r.get("result") is not None and r.get("seconds") is not None:
        return r["result"] - r["seconds"] * 1000
    return None


def overlaps(runs: dict, skip: dict, t_a: float, t_b: float) -> list[tuple[dict, float]]:
    """The other runs that ran between t_a and t_b, each with how long (ms) of that window."""
    found = []
    for o in sorted(runs.values(), key=lambda o: start_of(o) or 0):
        s = start_of(o)
        if o is skip or o.get("result") is None or s is None:
            continue
        found.append((o, max(0.0, min(o["result"], t_b) - max(s, t_a))))
    return found


def waits(records: list[dict], runs: dict) -> list[dict]:
    """Each probe: its wait (ms) and how much of it the worker spent on other cells."""
    out = []
    for p in records:
        r = runs.get(p.get("runId"))
        if r is None or start_of(r) is None:
            continue
        start = start_of(r)
        busy = sum(ms for _, ms in overlaps(runs, r, p["requested"], start))
        out.append(
            {
                "requested": p["requested"],
                "wait": max(0.0, start - p["requested"]),
                "busy": busy,
                "runId": r["id"],
            }
        )
    return out


def explain(worst: dict, runs: dict, ready: float) -> str:
    others = [
        f"{o.get('cellId')}{' (pre-run)' if o.get('background') else ''} {ms / 1000:.2f} s"
        for o, ms in overlaps(
            runs, runs.get(worst["runId"]), worst["requested"], worst["requested"] + worst["wait"]
        )
        if ms > 5
    ]
    return (
        f"asked for at +{(worst['requested'] - ready) / 1000:.2f} s, it waited "
        f"{worst['wait'] / 1000:.2f} s: {worst['unexplained'] / 1000:.2f} s while the worker "
        f"ran no cell"
        + (f", {worst['busy'] / 1000:.2f} s behind other cells: " + ", ".join(others) if others else "")
    )


def analyze(v: dict) -> dict:
    runs = {r["id"]: r for r in v["runs"]}
    probes, idle = waits(v["probes"], runs), waits(v["idle"], runs)
    idle_wait = (
        statistics.median(x["wait"] for x in idle) if idle else min((x["wait"] for x in probes), default=0.0)
    )
    for p in probes:
        p["unexplained"] = max(0.0, p["wait"] - p["busy"] - idle_wait)
    ready = v["marks"].get("ready")
    worst = max(probes, key=lambda p: p["unexplained"], default=None)
    return {
        "n": len(probes),
        "idle_wait": idle_wait,
        "ready": ready,
        "mpl_ready": mpl_ready_time(v["runs"], v["figures"], ready),
        "worst": worst and worst["unexplained"],
        "worst_at": worst and ready is not None and worst["requested"] - ready,
        "blocked": sum(p["unexplained"] > TOLERANCE_MS for p in probes),
        "cause": explain(worst, runs, ready or 0.0)
        if worst and worst["unexplained"] > TOLERANCE_MS
        else None,
    }


def render(cell: str, reps: list[dict]) -> str:
    t = Table()
    t.title(f"Probe cell {cell!r}, run every {STEP_MS} ms from 'ready' while matplotlib loads")
    t.row("  rep", "probes", "mpl ready after ready", "worst wait (at +s)", widths=(10, 12, 24, 28))
    for i, p in enumerate(reps):
        mpl = None if None in (p["mpl_ready"], p["ready"]) else (p["mpl_ready"] - p["ready"]) / 1e3
        worst = "—" if p["worst"] is None else f"{p['worst']:.0f} ms (+{(p['worst_at'] or 0) / 1e3:.2f})"
        t.row(f"  {i}", p["n"], fmt_s(mpl), worst, widths=(10, 12, 24, 28))
    t.text("\n".join(f"    rep {i}: worst probe: {p['cause']}" for i, p in enumerate(reps) if p["cause"]))
    worst = max((p["worst"] or 0 for p in reps), default=0)
    blocked, n = sum(p["blocked"] for p in reps), sum(p["n"] for p in reps)
    t.text(
        f"  target 3 {'HOLDS' if worst <= TOLERANCE_MS else 'MISSES'}: worst unexplained wait "
        f"{worst:.0f} ms (tolerance {TOLERANCE_MS}); {blocked}/{n} probes waited longer"
    )
    return str(t)


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument(
        "--window-ms", type=float, default=8000, help="how long after 'ready' to keep probing (default 8000)"
    )
    args = ap.parse_args(argv)
    with session(args) as s:
        candidates = run_cpython(s.snap, 1, classify=True)[0].get("probe_candidates")
        if not candidates:
            print("no probe: no numpy-only cell runs on its own after the prelude")
            return 1
        cfg = {
            "mode": "probe",
            "timeoutMs": s.timeout_ms,
            "probeCellId": candidates[0],
            "probeStepMs": STEP_MS,
            "probeWindowMs": args.window_ms,
        }
        reps = [
            analyze(timed_visit(s, f"probe {rep + 1}/{args.reps}", s.folder(f"probe-{rep}"), s.deck_url, cfg))
            for rep in range(args.reps)
        ]
    print(render(candidates[0], reps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
