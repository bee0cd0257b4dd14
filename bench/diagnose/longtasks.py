#!/usr/bin/env python3
"""The page main thread's long tasks of one cold visit, traced, and what each was made of (F2).

    python bench/diagnose/longtasks.py [--profile phone] [--reps 1] [--deck-query Q] [--out DIR]

One cold visit of the deck (bench/instrument.js presses Run on every cell, as bench/startup.py's
visits do) under ``--profile``, traced through the page's DevTools session (``Tracing.start``,
the Performance panel's categories) from navigation until the page's report is in. From the
trace: every task of the renderer's main thread longer than 50 ms (``RunTask``), when it began
(ms since navigation), how long it took, and its largest parts by kind, a script's part named
by its function and file (``FunctionCall``, ``EvaluateScript``, ``v8.evaluateModule``: the
outermost one), the rendering's by its step (style, layout, paint, …). Then the sum of each
part's excess over 50 ms across the tasks (a task's blocking time shared out in proportion to
its parts): what to cut first. ``--out`` keeps each trace (DevTools, or ui.perfetto.dev).
"""

from __future__ import annotations

import json
import sys
from collections import defaultdict
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.browser import LAUNCH_ARGS, VIEWPORT, WAIT_FOR_REPORT  # noqa: E402
from bench.diagnose.common import parser  # noqa: E402
from bench.diagnose.trace import navigation_start, outermost, threads, trace_page  # noqa: E402
from bench.session import session  # noqa: E402

LONG_MS = 50.0
SCRIPT = (
    "FunctionCall",
    "EvaluateScript",
    "v8.evaluateModule",
    "TimerFire",
    "FireAnimationFrame",
    "EventDispatch",
)
RENDER = (
    "UpdateLayoutTree",
    "Layout",
    "Paint",
    "PrePaint",
    "Layerize",
    "Commit",
    "ParseAuthorStyleSheet",
    "HitTest",
    "ParseHTML",
    "Decode Image",
    "GPUTask",
    "MajorGC",
    "MinorGC",
    "V8.GC_SCAVENGER",
    "BlinkGC.AtomicPhase",
    "v8.compile",
    "v8.compileModule",
)


def label(e: dict) -> str:
    """A part of a task, as a person would name it."""
    data = (e.get("args") or {}).get("data") or {}
    if e["name"] in ("FunctionCall", "EvaluateScript", "v8.evaluateModule"):
        url = data.get("url") or data.get("scriptName") or (e.get("args") or {}).get("fileName") or ""
        fn = data.get("functionName") or ""
        return f"script {fn or '(top)'} {url.rsplit('/', 1)[-1]}:{data.get('lineNumber', '')}"
    if e["name"] == "EventDispatch":
        return f"event {data.get('type', '')}"
    return e["name"]


def long_tasks(events: list[dict]) -> list[dict]:
    """The page main thread's tasks over 50 ms: start (ms since navigation), duration, parts."""
    names, nav = threads(events), navigation_start(events)
    if nav is None:
        return []
    pid, t0 = nav["pid"], nav["ts"]
    main = [
        e
        for e in events
        if e["pid"] == pid
        and names.get((pid, e["tid"])) == "CrRendererMain"
        and e.get("ph") == "X"
        and e.get("ts", 0) >= t0
    ]
    tasks = [
        e for e in outermost(e for e in main if e["name"] == "RunTask") if e.get("dur", 0) > LONG_MS * 1000
    ]
    out = []
    for task in tasks:
        end = task["ts"] + task["dur"]
        inside = [e for e in main if task["ts"] <= e["ts"] < end and e is not task]
        parts: dict[str, float] = defaultdict(float)
        # scripts: the outermost script slice; rendering: every such slice outside a script
        scripts = outermost(e for e in inside if e["name"] in SCRIPT)
        for e in scripts:
            inner = [x for x in inside if e["ts"] <= x["ts"] < e["ts"] + e.get("dur", 0)]
            fns = outermost(
                x
                for x in inner
                if x["name"] in ("FunctionCall", "v8.evaluateModule", "EvaluateScript") and x is not e
            )
            parts[
                label(e)
                if e["name"] != "TimerFire" and e["name"] != "FireAnimationFrame" or not fns
                else label(max(fns, key=lambda x: x.get("dur", 0)))
            ] += e.get("dur", 0) / 1000
        spans = [(e["ts"], e["ts"] + e.get("dur", 0)) for e in scripts]
        for e in outermost(x for x in inside if x["name"] in RENDER):
            if not any(a <= e["ts"] < b for a, b in spans):
                parts[e["name"]] += e.get("dur", 0) / 1000
        ms = task["dur"] / 1000
        parts["other"] = max(0.0, ms - sum(parts.values()))
        out.append({"at_ms": (task["ts"] - t0) / 1000, "ms": ms, "parts": dict(parts)})
    return out


def traced_cold_visit(s, folder: Path, url: str, cfg: dict, timeout: float) -> list[dict]:
    """A cold visit under the session's profile, traced until the page's report is in."""
    profile = s.browser.profile
    ctx = s.browser.pw.chromium.launch_persistent_context(
        str(folder),
        executable_path=s.browser.executable,
        args=[*LAUNCH_ARGS, *profile.launch_args],
        headless=True,
        **profile.options(VIEWPORT),
    )
    try:
        page = s.browser._page(ctx, cfg)
        return trace_page(page, url, lambda p: p.evaluate(WAIT_FOR_REPORT), timeout)
    finally:
        ctx.close()


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.set_defaults(profile="phone", next_pyodide="")
    ap.add_argument("--out", type=Path, help="keep each trace here (JSON, for DevTools or Perfetto)")
    args = ap.parse_args(argv)
    blame: dict[str, float] = defaultdict(float)
    with session(args) as s:
        cfg = {"mode": "presenter", "timeoutMs": s.timeout_ms, "diag": ""}
        for rep in range(args.reps):
            print(f"rep {rep + 1}: deck cold, traced…", flush=True)
            events = traced_cold_visit(s, s.folder(f"longtasks-{rep}"), s.deck_url, cfg, args.timeout)
            if args.out:
                args.out.mkdir(parents=True, exist_ok=True)
                (args.out / f"longtasks-{args.profile}-{rep + 1}.json").write_text(
                    json.dumps({"traceEvents": events})
                )
            tasks = long_tasks(events)
            tbt = sum(t["ms"] - LONG_MS for t in tasks)
            print(
                f"  {len(tasks)} tasks over {LONG_MS:.0f} ms, blocking {tbt:.0f} ms (from navigation, traced)"
            )
            for t in tasks:
                top = sorted(t["parts"].items(), key=lambda kv: -kv[1])[:4]
                print(
                    f"  {t['at_ms']:8.0f} ms  {t['ms']:6.0f} ms  " + "; ".join(f"{k} {v:.0f}" for k, v in top)
                )
                for k, v in t["parts"].items():
                    blame[k] += (t["ms"] - LONG_MS) * v / t["ms"]
    print("\nblocking time by part (ms, all reps):")
    for k, v in sorted(blame.items(), key=lambda kv: -kv[1])[:25]:
        print(f"  {v:8.0f}  {k}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
