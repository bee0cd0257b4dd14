"""A lecture's cost on a phone (issue 49, item 2): a phone follows a live hall through 20 moves.

    .venv/bin/python bench/lecture.py [--reps 3] [--gap 5] [--moves 20] [--idle 15] [--dist DIR]

The real hall (``python -m dpdeck.hall``, loopback only) serves the deck built from this tree;
the presenter's moves are its own ``POST /_hall/state`` (Bearer token), one every ``--gap`` s,
through the deck's first ``--moves`` slides from the title (with the poll ``encuesta-copiar`` and
the exercise ``ejercicio-escala-laplace`` on the way). The phone is Chromium under the phone
profile's mobile emulation (390×844, DPR 3, touch, ``deviceMemory`` 4) and network (9 Mbit/s
down, 1.5 up, 150 ms), **without its CPU throttling**: Chromium's throttler busy-waits on the
main thread (bench/profiles.py), which /proc would count as the page's CPU. It opens the deck
before the lecture, waits until its pre-run settled (every cell done, or nothing near to run),
then follows. Each policy (``?prerun=all``, every cell: the page before issue 49; ``?prerun=near``,
the phone's) and each phone (``active``: answers the poll and solves the exercise by running its
cell; ``reader``: never edits or runs a cell, answers nothing) is one fresh browser, in turn.

Measured per visit, from the browser's launch to the end:

- ``cpu``: CPU seconds (user + system, /proc) of the browser's renderer processes: the page's main
  thread, its Python worker, its service worker; ``cpu_other``: the rest of Chromium (browser, GPU,
  network processes);
- ``main_busy``: CDP ``Performance.getMetrics`` ``TaskDuration`` of the page (its main thread's
  tasks) and ``ScriptDuration`` (its scripts), seconds;
- ``bytes``: every response the page, its workers and its service worker took from the network
  (Playwright's ``request.sizes()``: headers + body as sent; none served by the service worker);
- per move: whether every cell of the slide reached had its result when the page got there.

Time is compressed: 20 moves every ``--gap`` s instead of every 30 s. The work the page does for a
slide does not depend on how long it stays; what does (timers, the hall's stream, an idle page) is
measured as ``idle_rate`` (CPU s per s over ``--idle`` s after the last move) and added for the
missing minutes: ``cpu_10min = cpu + idle_rate × (600 − moves × gap)``. The phone policy's target
(F4, bench/phone.py) compares the medians of ``cpu_10min`` of the active phone, same run.
Writes bench/results/lecture-<date>.json (``--out``); the machine is shared: other processes'
load during each visit is kept beside it (``foreign_cores``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from playwright.sync_api import Error as PlaywrightError  # noqa: E402

from bench import phone, prepare, procstat  # noqa: E402
from bench.profiles import MBIT, PHONE_CONTEXT, PHONE_MEMORY  # noqa: E402
from dpdeck.serve.browser import LAUNCH_ARGS, chromium_path  # noqa: E402
from dpdeck.wire.hall import route as hall_route  # noqa: E402
from tests.support.browser import own_solution  # noqa: E402
from tests.support.hall_process import HallProcess  # noqa: E402
from tests.support.redis_server import free_port  # noqa: E402

POLICIES = ("all", "near")
PHONES = ("active", "reader")
LECTURE_S = 600.0
POLL, EXERCISE = "encuesta-copiar", "ejercicio-escala-laplace"
SLIDES = """() => { const r = window.deck.reveal, slides = r.getSlides();
  return slides.map((s) => ({id: s.id, ...r.getIndices(s),
    cells: window.deck.cells.filter((c) => c.slide === s).map((c) => c.id)})); }"""
POLL_STATE = f"() => document.querySelector('#{POLL} .poll')?.outerHTML.slice(0, 600) ?? 'no poll'"
HERE_INDEX = "() => window.deck.reveal.getSlides().indexOf(window.deck.reveal.getCurrentSlide())"
DONE = "(ids) => ids.every((id) => { const c = window.deck.cells.find((x) => x.id === id); return c.runs > 0 && c.running === null; })"
# the seconds the cells' last runs took in Python, as cellrunner timed them (most ran once)
CELL_SECONDS = "() => window.deck.cells.reduce((n, c) => n + (c.lastResult?.seconds ?? 0), 0)"
SETTLED = "() => ['prerunDone', 'prerunIdle'].some((k) => document.documentElement.dataset[k] === 'true')"


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument(
        "--gap", type=float, default=5.0, help="seconds between the presenter's moves (default 5)"
    )
    ap.add_argument("--moves", type=int, default=20)
    ap.add_argument("--idle", type=float, default=15.0, help="seconds measured idle after the last move")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds for the page to settle")
    ap.add_argument("--dist", type=Path, help="use this built dist/ instead of building one")
    ap.add_argument("--out", type=Path)
    return ap.parse_args(argv)


def post_state(hall: HallProcess, seq: int, slide: dict) -> None:
    """The presenter's move, as its page posts it."""
    presenter_post(
        hall, "state", {"seq": seq, "indexh": slide["h"], "indexv": slide.get("v") or 0, "indexf": -1}
    )


def presenter_post(hall: HallProcess, route: str, payload: dict) -> None:
    """``POST /_hall/<route>`` as the presenter's page sends it (its token, the hall's origin)."""
    req = urllib.request.Request(
        urllib.parse.urljoin(hall.audience, hall_route(route).path.lstrip("/")),
        data=json.dumps(payload).encode(),
        headers={
            "Content-Type": "application/json",
            "Authorization": f"Bearer {hall.token}",
            "Origin": "{0.scheme}://{0.netloc}".format(urllib.parse.urlsplit(hall.audience)),
        },
        method="POST",
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        resp.read()


def wait(page, expression: str, timeout: float, arg=None) -> bool:
    """Poll ``expression`` until true (at most ``timeout`` s); whether it came true."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if page.evaluate(expression, arg):
            return True
        time.sleep(0.05)
    return False


THREADS = (  # a renderer thread's name (Linux's first 15 characters) → the part it is counted in
    ("DedicatedWorker", "python"),
    ("ServiceWorker", "service worker"),
    ("Compositor", "compositor"),
    ("ThreadPoolForeg", "thread pool"),  # V8's and Blink's helpers: wasm compiling, GC, decoding
    ("CPUThrottlingTh", "throttler"),  # none here: lecture.py does not throttle the CPU
)


def renderer_threads() -> dict[str, float]:
    """CPU seconds so far of this process's renderers, by part: the page's main thread (each
    renderer's first thread, named as the process), its dedicated worker(s) (the Python
    worker), the service worker, the compositor, the thread pool, the rest."""
    parts: dict[str, float] = {}
    for pid in procstat.renderers():
        for tid, st in procstat.threads(pid).items():
            part = (
                "main" if tid == pid else next((p for pre, p in THREADS if st.name.startswith(pre)), "other")
            )
            parts[part] = parts.get(part, 0.0) + st.cpu
    return parts


def renderer_cpu() -> float:
    """CPU seconds so far of this process's Chromium renderers."""
    table = procstat.processes()
    return sum(table[p].cpu for p in procstat.renderers() if p in table)


def until_quiet(limit: float = 60.0, window: float = 2.0, cores: float = 0.05) -> float | None:
    """Wait until the renderers use less than ``cores`` over ``window`` s (the work the last moves
    started, e.g. the service worker's offline fill, is done); the seconds it took, None if never
    within ``limit`` s. What they used meanwhile is in the visit's ``cpu``, not its idle rate."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        before, t = renderer_cpu(), time.monotonic()
        time.sleep(window)
        if (renderer_cpu() - before) / (time.monotonic() - t) < cores:
            return round(time.monotonic() - start, 1)
    return None


def chromium_cpu(exclude: set[int]) -> float:
    """CPU seconds so far of every process below this one but ``exclude`` (the hall, the driver)."""
    table = procstat.processes()
    mine = procstat.descendants(os.getpid(), table) - exclude - {os.getpid()}
    return sum(table[p].cpu for p in mine if p in table and table[p].name != "node")


def act(page, slide: dict) -> str | None:
    """The active phone on ``slide``: answers the poll (its first option), or solves the exercise
    (its own solution in the cell, run as ▶ does, until the page counts it solved)."""
    if slide["id"] == POLL:
        offered = f"() => [...document.querySelectorAll('#{POLL} .poll .poll-option input')].some((i) => !i.disabled)"
        if not wait(page, offered, 15):
            return "poll not offered: " + page.evaluate(POLL_STATE)
        page.locator(f"#{POLL} .poll .poll-option").first.click()
        with page.expect_response(lambda r: hall_route("answer").path in r.url, timeout=60000) as answer:
            page.locator(f"#{POLL} .poll .poll-send").click()  # randomized on the phone (Python), then sent
        return f"answered: {answer.value.status}"
    if slide["id"] == EXERCISE:
        solution = page.evaluate(
            f"() => document.querySelector('#{EXERCISE} .exercise-solution-code').textContent"
        )
        page.evaluate(
            "([id, code]) => { const c = window.deck.cells.find((x) => x.id === id); c.code = code; c.run(); }",
            [EXERCISE, own_solution(solution)],
        )
        ok = wait(page, f"() => window.deck.exercises.find((e) => e.id === '{EXERCISE}').solved", 120)
        return "solved" if ok else "not solved"
    return None


def follow(page, hall: HallProcess, args, kind: str, seq0: int) -> list[dict]:
    """The lecture: ``args.moves`` moves, one every ``args.gap`` s; a row per move."""
    slides, rows, t0 = page.evaluate(SLIDES), [], time.monotonic()
    presenter_post(hall, "reset", {"poll": POLL})  # a new round: this phone, connected now, is admitted
    for k in range(1, args.moves + 1):
        slide = slides[k]
        post_state(hall, seq0 + k, slide)
        arrived = wait(page, f"() => ({HERE_INDEX})() === {k}", 15)
        had = page.evaluate(DONE, slide["cells"]) if slide["cells"] else True
        row = {"slide": slide["id"], "cells": slide["cells"], "arrived": arrived, "results_there": had}
        if not had:
            t = time.monotonic()
            came = wait(page, DONE, 60, slide["cells"])
            row["results_after_s"] = round(time.monotonic() - t, 2) if came else None
        if kind == "active":
            try:
                row["action"] = act(page, slide)
            except PlaywrightError as exc:  # said in the results, the lecture goes on
                row["action"] = "failed: " + str(exc).splitlines()[0][:200]
        rows.append(row)
        time.sleep(max(0.0, t0 + k * args.gap - time.monotonic()))
    return rows


def open_phone(pw, url: str):
    """A phone's browser and page: the phone profile's emulation and network, CPU unthrottled."""
    browser = pw.chromium.launch(executable_path=chromium_path(), args=LAUNCH_ARGS, headless=True)
    ctx = browser.new_context(**PHONE_CONTEXT)
    ctx.add_init_script(script=PHONE_MEMORY)
    page = ctx.new_page()
    cdp = ctx.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 150, "downloadThroughput": 9 * MBIT, "uploadThroughput": 1.5 * MBIT},
    )
    cdp.send("Performance.enable")
    finished: list = []
    ctx.on("requestfinished", lambda request: finished.append(request))
    page.goto(url, wait_until="commit")
    return browser, page, cdp, finished


def fetched_bytes(requests: list) -> int:
    total = 0
    for r in requests:
        try:
            if r.response() is not None and r.response().from_service_worker:
                continue
            sizes = r.sizes()
        except Exception:  # noqa: BLE001 - a request whose data the browser dropped: not counted
            continue
        total += max(0, sizes.get("responseBodySize", 0)) + max(0, sizes.get("responseHeadersSize", 0))
    return total


def visit(pw, hall: HallProcess, args, policy: str, kind: str, seq0: int) -> dict:
    """One phone through the lecture under ``policy``; what it cost."""
    procs0, wall0 = procstat.processes(), time.time()
    browser, page, cdp, finished = open_phone(pw, f"{hall.audience}?prerun={policy}")
    try:
        settled = wait(page, "() => document.documentElement.dataset.deckReady === 'true'", 60) and wait(
            page, SETTLED, args.timeout
        )
        settle_s = time.time() - wall0
        at_settled = renderer_threads()  # boot, package loads and the pre-run before the lecture
        cells_s = page.evaluate(CELL_SECONDS)
        moves = follow(page, hall, args, kind, seq0)
        quiet_after = until_quiet()
        cpu_a, t_a = renderer_cpu(), time.monotonic()
        time.sleep(args.idle)
        idle_rate = (renderer_cpu() - cpu_a) / (time.monotonic() - t_a)
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        cpu, other = renderer_cpu(), chromium_cpu(procstat.descendants(hall.proc.pid))
        at_end, cells_end = renderer_threads(), page.evaluate(CELL_SECONDS)
        ran = page.evaluate("() => window.deck.cells.filter((c) => c.runs > 0).length")
        policy_seen = page.evaluate("() => document.documentElement.dataset.prerun")
        requests = fetched_bytes(finished)
    finally:
        browser.close()
    wall = time.time() - wall0
    return {
        "policy": policy,
        "phone": kind,
        "policy_seen": policy_seen,
        "settled": settled,
        "settle_s": round(settle_s, 1),
        "cpu": cpu,
        "cpu_other": other - cpu,
        "idle_rate": idle_rate,
        "quiet_after_s": quiet_after,
        "cpu_10min": cpu + idle_rate * max(0.0, LECTURE_S - args.moves * args.gap),
        "main_busy": metrics.get("TaskDuration"),
        "script": metrics.get("ScriptDuration"),
        "bytes": requests,
        "cells_run": ran,
        # where the CPU went: per thread, until the pre-run settled and in all; the cells' own
        # run time (their last runs' cellrunner wall seconds, the worker's clock) then and in all
        "threads_settled": at_settled,
        "threads": at_end,
        "cells_s_settled": cells_s,
        "cells_s": cells_end,
        "moves": moves,
        "missing": [m["slide"] for m in moves if not m["results_there"]],
        "wall": wall,
        "foreign_cores": procstat.foreign_cores(procs0, procstat.processes(), wall),
    }


def med(visits: list[dict], key: str) -> float | None:
    vals = [v[key] for v in visits if v.get(key) is not None]
    return statistics.median(vals) if vals else None


def summarize(visits: list[dict]) -> tuple[dict, dict, str]:
    """(policy/phone → medians, F4's verdict, the printed table)."""
    keys = (
        "cpu",
        "cpu_10min",
        "cpu_other",
        "idle_rate",
        "main_busy",
        "script",
        "bytes",
        "cells_run",
        "settle_s",
    )
    table = {
        f"{p}/{k}": {
            key: med([v for v in visits if v["policy"] == p and v["phone"] == k], key) for key in keys
        }
        for p in POLICIES
        for k in PHONES
    }
    missing = sorted(
        {f"{v['policy']}/{v['phone']}:{s}" for v in visits for s in v["missing"] if v["policy"] == "near"}
    )
    near = [v for v in visits if v["policy"] == "near" and v["phone"] == "active"]
    cells = med(near, "cells_s")
    cpu = table["near/active"]["cpu_10min"]
    floor = None if cpu is None or cells is None else cpu - cells
    f4 = phone.lecture_verdict(cpu, table["all/active"]["cpu_10min"], missing, floor)
    lines = [
        "| policy / phone | CPU s (renderers, 10 min) | CPU s measured | idle CPU s/s | other Chromium CPU s "
        "| main thread busy s | script s | MiB fetched | cells run | settled at s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, m in table.items():
        f = lambda x, d=1: "–" if x is None else f"{x:.{d}f}"  # noqa: E731
        lines.append(
            f"| {name} | {f(m['cpu_10min'])} | {f(m['cpu'])} | {f(m['idle_rate'], 3)} | {f(m['cpu_other'])} "
            f"| {f(m['main_busy'])} | {f(m['script'])} | {f(None if m['bytes'] is None else m['bytes'] / 2**20)} "
            f"| {f(m['cells_run'], 0)} | {f(m['settle_s'])} |"
        )
    for kind in PHONES:
        a, b = table[f"near/{kind}"]["cpu_10min"], table[f"all/{kind}"]["cpu_10min"]
        if a is not None and b:
            lines.append(f"\n{kind}: near / all CPU (10 min) = {a / b:.2f}×")
    lines += where_it_went(visits)
    lines.append(phone.render({"F4": f4}))
    return table, f4, "\n".join(lines)


PARTS = ("python", "main", "thread pool", "compositor", "service worker", "other")


def settled_and_all(vs: list[dict], get) -> str:
    """``"a / b"``: the medians of ``get(v, "threads_settled")`` and ``get(v, "threads")``."""
    a = statistics.median(get(v, "threads_settled") for v in vs)
    b = statistics.median(get(v, "threads") for v in vs)
    return f"{a:.1f} / {b:.1f}"


def where_it_went(visits: list[dict]) -> list[str]:
    """Where the renderers' CPU went (medians, seconds): each thread until the pre-run settled
    (before the first move: boot, package loads, the pre-run) and in all, and the cells' run
    time in Python (their last runs, cellrunner's wall seconds: on a loaded machine more than
    the CPU they took)."""
    if not any("threads" in v for v in visits):
        return []
    lines = [
        "",
        "where the renderers' CPU went (medians, CPU s; settled / whole visit):",
        "| policy / phone | " + " | ".join(PARTS) + " | cells' run time (wall) |",
        "|---|" + "---|" * (len(PARTS) + 1),
    ]
    for p in POLICIES:
        for k in PHONES:
            vs = [v for v in visits if v["policy"] == p and v["phone"] == k and "threads" in v]
            if vs:
                row = [settled_and_all(vs, lambda v, key, part=part: v[key].get(part, 0.0)) for part in PARTS]
                row.append(settled_and_all(vs, lambda v, key: v["cells_s" + key[len("threads") :]]))
                lines.append(f"| {p}/{k} | " + " | ".join(row) + " |")
    return lines


def run(args) -> list[dict]:
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="dpdeck-lecture-"))
    try:
        site = prepare.build_site(prepare.snapshot_project(work), work / "site", args.dist)
        hall = HallProcess(site, work / "hall.sqlite3", work / "token", port=free_port()).start()
        visits, seq = [], int(time.time() * 1000)
        try:
            with sync_playwright() as pw:
                for rep in range(args.reps):
                    order = [(p, k) for p in POLICIES for k in PHONES]
                    for policy, kind in order if rep % 2 == 0 else order[::-1]:
                        print(f"rep {rep + 1}: {policy}/{kind}…", flush=True)
                        visits.append(visit(pw, hall, args, policy, kind, seq) | {"rep": rep})
                        seq += 10 * args.moves
                        v = visits[-1]
                        print(
                            f"  cpu {v['cpu']:.1f} s, 10 min {v['cpu_10min']:.1f} s, missing {v['missing']}",
                            flush=True,
                        )
        finally:
            hall.stop()
        return visits
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv=None) -> int:
    args = parse_args(argv)
    started = time.time()
    visits = run(args)
    table, f4, text = summarize(visits)
    print(text)
    out = args.out or HERE / "results" / f"lecture-{dt.date.today().isoformat()}.json"
    meta = {
        "date": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "reps": args.reps,
        "gap_s": args.gap,
        "moves": args.moves,
        "idle_s": args.idle,
        "elapsed_s": round(time.time() - started),
        "note": "a shared 2-core machine (other agents' work beside it: foreign_cores per visit); "
        "compare the two policies' ratio, measured in the same run, alternating order",
    }
    doc = {"meta": meta, "medians": table, "verdicts": {"F4": f4}, "visits": visits, "table": text}
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n")
    print(f"\nwrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
