#!/usr/bin/env python3
"""A warm visit traced, the deck's beside bare Pyodide's: what the page's main thread does from
navigation until it makes its Python worker (W0).

    python bench/diagnose/trace.py [--profile aula] [--reps 1] [--out DIR]

Per target and repetition: one cold visit in a new browser profile (it fills the caches and
installs the deck's service worker), then a warm one traced through the page's DevTools session
(``Tracing.start``, the Performance panel's categories) for ``--seconds`` after navigation. From
the trace: when the navigation committed, when the first dedicated worker's thread began, the
page's main-thread tasks before it (their sum: the rest of that time the thread waited), by
kind (parsing the HTML, running and compiling scripts, style sheets, style, layout and paint),
and the service worker's thread time meanwhile. ``--out`` keeps each trace
(open it in the DevTools Performance panel or ui.perfetto.dev).
"""

from __future__ import annotations

import json
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.browser import LAUNCH_ARGS, VIEWPORT  # noqa: E402
from bench.diagnose.common import parser, timed_visit  # noqa: E402
from bench.session import session  # noqa: E402

CATEGORIES = [
    "devtools.timeline",
    "disabled-by-default-devtools.timeline",
    "v8",
    "v8.execute",
    "blink",
    "blink.user_timing",
    "loading",
    "ServiceWorker",
    "__metadata",
]
# What a main-thread slice is, by its trace name (the outermost of them is counted): parsing the
# HTML (the parser pumps its tokenizer in budgeted chunks as the bytes arrive), running scripts,
# compiling them, and the rendering lifecycle (style, layout, paint).
KINDS = {
    "DocumentLoader::CommitNavigation": "commit",
    "LocalWindowProxy::Initialize": "run scripts",
    "HTMLDocumentParser::PumpTokenizerIfPossible": "parse HTML",
    "HTMLDocumentParser::DeferredPumpTokenizerIfPossible": "parse HTML",
    "ParseHTML": "parse HTML",
    "HTMLParserScriptRunner ExecuteScript": "run scripts",
    "EvaluateScript": "run scripts",
    "v8.evaluateModule": "run scripts",
    "FunctionCall": "run scripts",
    "RunMicrotasks": "run scripts",
    "TimerFire": "run scripts",
    "EventDispatch": "run scripts",
    "v8.compile": "compile scripts",
    "v8.compileModule": "compile scripts",
    "ParseAuthorStyleSheet": "style sheets",
    "WebFrameWidgetImpl::UpdateLifecycle": "style, layout, paint",
    "UpdateLayoutTree": "style, layout, paint",
    "Layout": "style, layout, paint",
}


def threads(events: list[dict]) -> dict[tuple[int, int], str]:
    """(pid, tid) → the thread's name, from the trace's metadata."""
    return {
        (e["pid"], e["tid"]): e["args"]["name"]
        for e in events
        if e.get("ph") == "M" and e.get("name") == "thread_name"
    }


def navigation_start(events: list[dict]) -> dict | None:
    """The page's navigationStart mark (its pid, its timestamp in µs)."""
    marks = [e for e in events if e.get("name") == "navigationStart" and e.get("ph") in ("R", "I", "n")]
    pages = [
        e
        for e in marks
        if (e.get("args", {}).get("data") or {}).get("documentLoaderURL", "").startswith("http")
    ]
    return min(pages or marks, key=lambda e: e["ts"], default=None)


def summarize(events: list[dict]) -> dict:
    """From navigation to the first dedicated worker thread's first event: that moment, the page
    main thread's work by kind (ms, outermost slices only), and the service worker's thread."""
    names = threads(events)
    nav = navigation_start(events)
    if nav is None:
        return {"error": "no navigationStart in the trace"}
    pid, t0 = nav["pid"], nav["ts"]
    worker_tids = {tid for (p, tid), n in names.items() if p == pid and n.startswith("DedicatedWorker")}
    worker_events = [
        e["ts"] for e in events if e["pid"] == pid and e["tid"] in worker_tids and e.get("ts", 0) >= t0
    ]
    worker_at = min(worker_events, default=None)
    end = worker_at if worker_at is not None else max(e.get("ts", 0) for e in events)
    main = [
        e
        for e in events
        if e["pid"] == pid
        and names.get((pid, e["tid"])) == "CrRendererMain"
        and e.get("ph") == "X"
        and t0 <= e["ts"] < end
    ]
    tasks = sum(e.get("dur", 0) for e in outermost(e for e in main if e["name"] == "RunTask")) / 1000
    commits = [e["ts"] for e in main if e["name"] == "DocumentLoader::CommitNavigation"]
    by_kind: dict[str, float] = defaultdict(float)
    for e in outermost(e for e in main if e["name"] in KINDS):
        by_kind[KINDS[e["name"]]] += e.get("dur", 0) / 1000
    by_kind["other"] = tasks - sum(by_kind.values())
    sw = [
        e
        for e in events
        if names.get((e["pid"], e["tid"]), "").startswith("ServiceWorker")
        and e.get("ph") == "X"
        and t0 <= e["ts"] < end
    ]
    sw_ms = sum(e.get("dur", 0) for e in outermost(sw)) / 1000
    return {
        "worker_ms": None if worker_at is None else (worker_at - t0) / 1000,
        "commit_ms": (min(commits) - t0) / 1000 if commits else None,
        "main_tasks_ms": tasks,
        "main_by_kind_ms": dict(by_kind),
        "service_worker_ms": sw_ms,
    }


def outermost(slices) -> list[dict]:
    """The slices not inside another of the same thread (sorted by start)."""
    kept, ends = [], {}
    for e in sorted(slices, key=lambda e: (e["ts"], -e.get("dur", 0))):
        key = (e["pid"], e["tid"])
        if e["ts"] >= ends.get(key, -1):
            kept.append(e)
            ends[key] = e["ts"] + e.get("dur", 0)
    return kept


def trace_page(page, url: str, until, timeout: float) -> list[dict]:
    """The trace events (``CATEGORIES``) of ``page`` opening ``url``, traced until ``until(page)``
    returns; then up to ``timeout`` seconds for the browser to hand the trace over."""
    cdp = page.context.new_cdp_session(page)
    events: list[dict] = []
    done: list[bool] = []
    cdp.on("Tracing.dataCollected", lambda p: events.extend(p["value"]))
    cdp.on("Tracing.tracingComplete", lambda p: done.append(True))
    cdp.send(
        "Tracing.start",
        {"traceConfig": {"includedCategories": CATEGORIES}, "transferMode": "ReportEvents"},
    )
    page.goto(url, wait_until="commit")
    until(page)
    cdp.send("Tracing.end")
    deadline = time.time() + timeout
    while not done and time.time() < deadline:
        page.wait_for_timeout(100)
    return events


def traced_visit(s, folder: Path, url: str, seconds: float) -> list[dict]:
    """A visit in ``folder``'s profile (warm: a visit before it filled it), traced for ``seconds``."""
    ctx = s.browser.pw.chromium.launch_persistent_context(
        str(folder), executable_path=s.browser.executable, args=LAUNCH_ARGS, headless=True, viewport=VIEWPORT
    )
    try:
        page = ctx.pages[0] if ctx.pages else ctx.new_page()
        s.browser.profile.apply(ctx, page)
        return trace_page(page, url, lambda _: time.sleep(seconds), 30)
    finally:
        ctx.close()


def main(argv=None) -> int:
    ap = parser(__doc__)
    ap.add_argument("--seconds", type=float, default=6.0, help="how long each warm visit is traced")
    ap.add_argument("--out", type=Path, help="keep each trace here (JSON, for DevTools or Perfetto)")
    args = ap.parse_args(argv)
    rows = []
    with session(args) as s:
        for rep in range(args.reps):
            for target, url, cfg in (
                ("bare Pyodide", s.base_url, None),
                ("deck", s.deck_url, {"mode": "presenter", "timeoutMs": s.timeout_ms, "diag": ""}),
            ):
                short = target.split()[0]
                folder = s.folder(f"trace-{rep}-{short}")
                timed_visit(s, f"rep {rep + 1}: {target} cold", folder, url, cfg)
                print(f"rep {rep + 1}: {target} warm, traced…", flush=True)
                events = traced_visit(s, folder, url, args.seconds)
                if args.out:
                    args.out.mkdir(parents=True, exist_ok=True)
                    name = f"trace-{s.browser.profile.name}-{short}-{rep + 1}.json"
                    (args.out / name).write_text(json.dumps({"traceEvents": events}))
                rows.append((target, summarize(events)))
    kinds = sorted({k for _, r in rows for k in r.get("main_by_kind_ms", {})})
    print(f"\nwarm visits under {args.profile}: from navigation to the Python worker's thread (ms)")
    print(
        f"{'':14} {'committed':>9} {'worker':>7} {'main thread':>12} "
        + " ".join(f"{k:>20}" for k in kinds)
        + f" {'service worker':>15}"
    )
    for target, r in rows:
        if "error" in r:
            print(f"{target:14} {r['error']}")
            continue
        cells = " ".join(f"{r['main_by_kind_ms'].get(k, 0):20.0f}" for k in kinds)
        worker = "—" if r["worker_ms"] is None else f"{r['worker_ms']:.0f}"
        commit = "—" if r["commit_ms"] is None else f"{r['commit_ms']:.0f}"
        print(
            f"{target:14} {commit:>9} {worker:>7} {r['main_tasks_ms']:12.0f} {cells} {r['service_worker_ms']:15.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
