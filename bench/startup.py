#!/usr/bin/env python3
"""Start-up and run-speed benchmark: the live deck against a bare Pyodide page, and CPython.

    python bench/startup.py [--reps N] [--compare OLD.json] [--out FILE] [--dist DIR]

One run, served from localhost (deckbuild.serve headers: COOP/COEP, immutable /vendor/ and
/static-*/), headless Debian Chromium driven by Playwright:

- baseline: bench/baseline.html, a bare page served from the same dist files whose module
  worker does loadPyodide -> loadPackage(numpy) -> loadPackage(matplotlib) -> one small figure as
  SVG (bench/baseline-worker.js);
- deck: the built deck; bench/instrument.js (an init script) timestamps the Python worker's
  messages and presses Run on every cell in deck order as soon as the page is ready;
- probe: the deck again, running one numpy-only cell every 150 ms while matplotlib loads, to see
  whether loading matplotlib ever makes it wait;
- each of baseline and deck cold (a new profile: fresh user-data-dir) and warm (the same profile
  launched again: the HTTP cache, and the wasm code cache, are used), --reps times;
- bytes per file type and per wheel, counted by the server (it sends no compression);
- the deck's prelude and cells under CPython through static/py/cellrunner.py, in a fresh process
  per repetition, for the browser/CPython ratio of the cells' own run time.

Prints a table and writes it as JSON to bench/results/startup-<date>.json (--out to choose).
The deck is snapshotted (deck/, static/, templates/, pyodide_pkg/) and built into a temporary
folder, so the browser and CPython run the same code while others edit the tree.
"""
from __future__ import annotations

import argparse
import ast
import datetime as dt
import functools
import http.server
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from deckbuild.browser import LAUNCH_ARGS, VIEWPORT, chromium_path  # noqa: E402 - the tests' Chromium
FILE_TYPES = ("wasm", "js", "zip", "whl", "css", "font", "other")
# run after every cell in the deck's warm visits: which top-level modules got imported
DIAG_CODE = "import sys\nsorted({m.split('.')[0] for m in sys.modules})"
BLOCK_TOLERANCE_MS = 100     # target 3: a numpy-only cell may wait this long for nothing else
PROBE_STEP_MS = 150


# ----------------------------------------------------------------------------- small helpers

def file_type(path: str) -> str:
    name = path.split("?", 1)[0].lower()
    for suffix, kind in ((".wasm", "wasm"), (".mjs", "js"), (".js", "js"), (".zip", "zip"),
                         (".whl", "whl"), (".css", "css"), (".woff2", "font"), (".woff", "font"),
                         (".ttf", "font"), (".otf", "font")):
        if name.endswith(suffix):
            return kind
    return "other"


def stats(values) -> dict | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def ms_to_s(v):
    return None if v is None else v / 1000.0


def fmt_s(v, digits=2) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def fmt_stat(st, digits=2, unit="s") -> str:
    if not st:
        return "—"
    if st["n"] == 1:
        return f"{st['median']:.{digits}f}{'' if unit == '×' else ' '}{unit}"
    return f"{st['median']:.{digits}f} [{st['min']:.{digits}f}–{st['max']:.{digits}f}]"


def fmt_bytes(n) -> str:
    if n is None:
        return "—"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KiB"
    return f"{n} B"


# ----------------------------------------------------------------------------- other load

def proc_times() -> dict[int, tuple[int, int]]:
    """pid -> (ppid, user+system clock ticks) of every process."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as fh:
                text = fh.read()
        except OSError:
            continue
        rest = text[text.rfind(")") + 2:].split()
        try:
            out[int(name)] = (int(rest[1]), int(rest[11]) + int(rest[12]))
        except (IndexError, ValueError):
            continue
    return out


def foreign_cores(before: dict, after: dict, wall: float) -> float | None:
    """CPU used by processes that are not this benchmark or its browser, in cores, meanwhile."""
    if not before or not after or wall <= 0:
        return None
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in after.items():
        children.setdefault(ppid, []).append(pid)
    ours, stack = set(), [os.getpid()]
    while stack:
        pid = stack.pop()
        if pid not in ours:
            ours.add(pid)
            stack.extend(children.get(pid, []))
    ticks = 0
    for pid, (_, t) in after.items():
        if pid in ours:
            continue
        ticks += t - before[pid][1] if pid in before else t
    return max(0.0, ticks / os.sysconf("SC_CLK_TCK") / wall)


def wait_for_quiet(max_wait: float, threshold: float = 0.3) -> float | None:
    """Wait (at most max_wait s) until other processes use < threshold cores; return their use."""
    if max_wait <= 0 or not Path("/proc/self/stat").exists():
        return None
    deadline = time.time() + max_wait
    load = None
    while True:
        a, t0 = proc_times(), time.time()
        time.sleep(0.5)
        load = foreign_cores(a, proc_times(), time.time() - t0)
        if load is None or load < threshold or time.time() >= deadline:
            return load


def descendants(root: int) -> set[int]:
    procs = proc_times()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in procs.items():
        children.setdefault(ppid, []).append(pid)
    out, stack = set(), [root]
    while stack:
        pid = stack.pop()
        if pid not in out:
            out.add(pid)
            stack.extend(children.get(pid, []))
    return out


def thread_group(ptype: str, comm: str, main: bool) -> str:
    if ptype == "renderer":
        if main or comm.startswith("CrRendererMain"):
            return "renderer: page main thread"
        if comm.startswith("DedicatedWorker"):
            return "renderer: workers (Python)"
        if comm.startswith("V8") or comm.startswith("ThreadPool"):
            return "renderer: thread pool (V8 wasm compile, GC)"
        if comm.startswith("Compositor") or "Raster" in comm:
            return "renderer: compositor/raster"
        return "renderer: other threads"
    return {"": "browser process", "gpu-process": "gpu process",
            "utility": "utility (network)"}.get(ptype, f"{ptype} process")


class CpuSampler(threading.Thread):
    """Samples, every `period` s, the CPU ticks of the browser's threads grouped by role."""

    def __init__(self, period: float = 0.25):
        super().__init__(daemon=True)
        self.period = period
        self.samples: list[tuple[float, dict[str, int]]] = []
        self.stop_event = threading.Event()
        self.tick = os.sysconf("SC_CLK_TCK")

    def snapshot(self) -> dict[str, int]:
        groups: dict[str, int] = {}
        for pid in descendants(os.getpid()):
            # re-read every time: a process forked from the zygote renames itself later
            try:
                cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if b"chrom" not in cmd.split(b"\0", 1)[0].split(b" ", 1)[0]:
                continue
            m = re.search(rb"--type=([\w-]+)", cmd)
            ptype = m.group(1).decode() if m else ""
            if ptype in ("-", "zygote"):
                continue
            try:
                tids = os.listdir(f"/proc/{pid}/task")
            except OSError:
                continue
            for tid in tids:
                try:
                    text = Path(f"/proc/{pid}/task/{tid}/stat").read_text()
                except OSError:
                    continue
                comm = text[text.find("(") + 1:text.rfind(")")]
                rest = text[text.rfind(")") + 2:].split()
                g = thread_group(ptype, comm, tid == str(pid))
                groups[g] = groups.get(g, 0) + int(rest[11]) + int(rest[12])
                # time runnable but waiting for a CPU (contention), in clock ticks like the rest
                try:
                    delay_ns = int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1])
                    groups["wait|" + g] = groups.get("wait|" + g, 0) + delay_ns * self.tick / 1e9
                except (OSError, IndexError, ValueError):
                    pass
        return groups

    def run(self):
        while not self.stop_event.is_set():
            t = time.time()
            self.samples.append((t, self.snapshot()))
            self.stop_event.wait(self.period)

    def finish(self) -> list:
        self.stop_event.set()
        self.join(timeout=5)
        self.samples.append((time.time(), self.snapshot()))
        return [[t, {k: v / self.tick for k, v in g.items()}] for t, g in self.samples]


def compact_samples(samples: list, time_origin: float) -> list:
    """[epoch s, {group: s}] -> [ms since navigation, {group: s rounded to 10 ms}]."""
    return [[round(t * 1000 - time_origin), {k: round(v, 2) for k, v in g.items()}]
            for t, g in samples]


def cpu_between(samples: list, t_a: float, t_b: float) -> dict[str, float]:
    """CPU seconds per thread group between two times, ms since navigation (nearest samples)."""
    if not samples or t_b <= t_a:
        return {}
    def at(t):
        best = min(samples, key=lambda s: abs(s[0] - t))
        return best[1]
    a, b = at(t_a), at(t_b)
    # a thread group first seen after t_a (a new renderer) started from zero
    return {k: max(0.0, v - a.get(k, 0.0)) for k, v in b.items()}


# ----------------------------------------------------------------------------- the server

class RequestLog:
    """What the server sent, request by request (epoch seconds, body bytes), per visit."""

    def __init__(self):
        self.lock = threading.Lock()
        self.entries: list[dict] = []

    def add(self, entry: dict) -> None:
        with self.lock:
            self.entries.append(entry)

    def take(self) -> list[dict]:
        with self.lock:
            out, self.entries = self.entries, []
        return out


def make_counting_server(directory: Path, log: RequestLog):
    from deckbuild.serve import DeckHandler
    try:
        from deckbuild.serve import _Server as Server
    except ImportError:  # pragma: no cover - if serve.py changes
        Server = http.server.ThreadingHTTPServer

    class CountingHandler(DeckHandler):
        isolate = True
        quiet = True

        def parse_request(self):
            # the request line has arrived (a preconnected socket may have idled before it)
            self._bench_t0 = time.time()
            return super().parse_request()

        def send_response(self, code, message=None):
            self._bench_code = code
            super().send_response(code, message)

        def copyfile(self, source, outputfile):
            n = 0
            while True:
                block = source.read(256 * 1024)
                if not block:
                    break
                outputfile.write(block)
                n += len(block)
            self._bench_bytes = n

        def handle_one_request(self):
            self._bench_t0 = None
            self._bench_code = None
            self._bench_bytes = 0
            self.raw_requestline = b""
            t0 = time.time()
            try:
                super().handle_one_request()
            finally:
                if self.raw_requestline and getattr(self, "command", None):
                    log.add({"path": self.path.split("?", 1)[0], "status": self._bench_code,
                             "bytes": self._bench_bytes, "t0": self._bench_t0 or t0,
                             "t1": time.time()})

    handler = functools.partial(CountingHandler, directory=str(directory))
    server = Server(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    return server, f"http://{host}:{port}/"


# ----------------------------------------------------------------------------- preparing

def snapshot_project(work: Path) -> Path:
    """Copy what the build and the CPython run read, so both see the same code."""
    snap = work / "project"
    snap.mkdir()
    for name in ("deck", "static", "templates", "pyodide_pkg"):
        shutil.copytree(ROOT / name, snap / name, ignore=shutil.ignore_patterns("__pycache__"))
    (snap / "node_modules").symlink_to(ROOT / "node_modules")
    return snap


def build_site(snap: Path, out: Path, dist: Path | None) -> Path:
    if dist is not None:
        shutil.copytree(dist, out, symlinks=True)
        return out
    from deckbuild.site import Project, build
    build(Project(snap), dist=out)
    return out


def read_deck_config(site: Path) -> dict:
    html = (site / "index.html").read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="deck-config">(.*?)</script>', html, re.S)
    if not m:
        raise SystemExit("error: no deck-config in the built index.html")
    return json.loads(m.group(1).replace("<\\/", "</"))


def install_official_pyodide(site: Path, config: dict) -> str:
    """Bare Pyodide as its release ships it, next to the deck's files: the official core,
    stdlib and lock, and the original wheels (the deck serves them with added bytecode)."""
    from deckbuild import vendor
    core = ROOT / "node_modules" / "pyodide"
    lock = json.loads((core / "pyodide-lock.json").read_text())
    index = f"vendor/pyodide-official-{lock['info']['version']}/"
    folder = site / index
    folder.mkdir(parents=True)
    for name in vendor.PYODIDE_CORE:
        shutil.copy2(core / name, folder / name)
    for wheel in vendor.ensure_wheels(lock, vendor.cache_dir()):
        shutil.copy2(wheel, folder / wheel.name)
    return index


def install_baseline(site: Path, config: dict, timeout_ms: int) -> None:
    folder = site / "bench-baseline"
    folder.mkdir()
    bench_config = {k: config.get(k) for k in ("pyodideIndex", "wheel", "prelude")}
    bench_config["pyodideIndex"] = install_official_pyodide(site, config)
    bench_config["timeoutMs"] = timeout_ms
    text = json.dumps(bench_config, ensure_ascii=False).replace("</", "<\\/")
    html = (BENCH / "baseline.html").read_text(encoding="utf-8").replace("__BENCH_CONFIG__", text)
    (folder / "index.html").write_text(html, encoding="utf-8")
    for name in ("baseline.js", "baseline-worker.js"):
        shutil.copy2(BENCH / name, folder / name)


def worker_regex(site: Path, config: dict) -> re.Pattern | None:
    """The deck worker's NEEDS_MATPLOTLIB test, if it still has one."""
    path = site / config["assets"]["static"] / "js" / "worker.js"
    try:
        m = re.search(r"NEEDS_MATPLOTLIB\s*=\s*/(.+?)/([a-z]*);", path.read_text(encoding="utf-8"))
    except OSError:
        return None
    if not m:
        return None
    try:
        return re.compile(m.group(1), re.I if "i" in m.group(2) else 0)
    except re.error:
        return None


# ----------------------------------------------------------------------------- CPython

def cpython_child(snap: Path, classify: bool) -> None:
    """Run the prelude and every cell as the deck does, print JSON (in a fresh process)."""
    os.environ["MPLBACKEND"] = "agg"
    sys.path[:0] = [str(snap / "static" / "py"), str(snap / "pyodide_pkg")]
    from deckbuild.schema import load_deck
    deck = load_deck(snap / "deck" / "deck.yaml")
    import cellrunner

    def run(code, cell_id):
        figures = [0]

        def emit(kind, payload):
            if kind == "figure":
                figures[0] += 1
        t0 = time.perf_counter()
        result = cellrunner.run_cell(code, cell_id, emit)
        wall = time.perf_counter() - t0
        err = result.get("error") or {}
        return {"id": cell_id, "ok": bool(result.get("ok")), "seconds": result.get("seconds"),
                "wall": wall, "figures": figures[0],
                "error": None if result.get("ok") else f"{err.get('type')}: {err.get('message')}"[:500]}

    out: dict = {"python": platform.python_version(), "cells": []}
    import numpy
    out["numpy"] = numpy.__version__
    t0 = time.perf_counter()
    out["prelude"] = run(deck.prelude, "__prelude__") if deck.prelude else None
    out["prelude_wall"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    cellrunner.prepare_matplotlib()
    out["prepare_matplotlib_s"] = time.perf_counter() - t0
    import matplotlib
    out["matplotlib"] = matplotlib.__version__
    cells = [s for s in deck.slides if s.code is not None]
    for slide in cells:
        out["cells"].append(run(slide.code, slide.id) | {"code": slide.code})
    out["modules"] = sorted({m.split(".")[0] for m in sys.modules})
    if classify:
        # a probe cell for target 3: numpy-only (no figure, no matplotlib in its code) and
        # runnable again and again right after the prelude
        drawing_words = re.compile(r"\b(matplotlib|pyplot|plt|plots)\b")
        out["probe_candidates"] = []
        for cell in out["cells"]:
            if cell["figures"] or not cell["ok"] or drawing_words.search(cell["code"]):
                continue
            cellrunner.NAMESPACE.clear()
            cellrunner.NAMESPACE["__name__"] = "__main__"
            if deck.prelude:
                run(deck.prelude, "__prelude__")
            a = run(cell["code"], cell["id"])
            b = run(cell["code"], cell["id"])
            if a["ok"] and b["ok"] and not a["figures"]:
                out["probe_candidates"].append(cell["id"])
    print(json.dumps(out))


def run_cpython(snap: Path, reps: int) -> list[dict]:
    runs = []
    for rep in range(reps):
        cmd = [sys.executable, str(Path(__file__).resolve()), "--cpython-child", str(snap)]
        if rep == 0:
            cmd.append("--classify")
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(snap), timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"error: the CPython run failed:\n{proc.stderr[-3000:]}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return runs


# ----------------------------------------------------------------------------- the browser

class Browser:
    def __init__(self, playwright, executable: str | None, timeout_ms: int, quiet_wait: float):
        self.pw = playwright
        self.executable = executable
        self.timeout_ms = timeout_ms
        self.quiet_wait = quiet_wait

    def visit(self, profile: Path, url: str, log: RequestLog, deck_cfg: dict | None = None) -> dict:
        load_before = wait_for_quiet(self.quiet_wait)
        ctx = self.pw.chromium.launch_persistent_context(
            str(profile), executable_path=self.executable, args=LAUNCH_ARGS, headless=True,
            viewport=VIEWPORT)
        try:
            if deck_cfg is not None:
                ctx.add_init_script(script="window.__BENCH_CFG = " + json.dumps(deck_cfg) + ";")
                ctx.add_init_script(path=str(BENCH / "instrument.js"))
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda e: errors.append(str(e)[:500]))
            page.on("console", lambda m: errors.append(f"console.{m.type}: {m.text[:300]}")
                    if m.type == "error" else None)
            log.take()
            procs0 = proc_times()
            sampler = CpuSampler()
            sampler.start()
            wall0 = time.time()
            try:
                page.goto(url, wait_until="commit", timeout=self.timeout_ms)
                data = page.evaluate("""async () => {
                    while (!window.__bench) await new Promise((r) => setTimeout(r, 10));
                    return await window.__bench.done;
                }""")
            finally:
                cpu = sampler.finish()
            data["cpu_samples"] = compact_samples(cpu, data.get("timeOrigin", 0.0))
            data["wall"] = time.time() - wall0
            data["foreign_cores"] = foreign_cores(procs0, proc_times(), data["wall"])
            time.sleep(0.05)
            data["server"] = log.take()
            data["pageErrors"] = errors
            data["foreign_cores_before"] = load_before
            return data
        finally:
            ctx.close()


def server_ms(entry_t: float, time_origin: float) -> float:
    """A server timestamp (epoch s) on the page's clock (ms since navigation)."""
    return entry_t * 1000.0 - time_origin


# ----------------------------------------------------------------------------- analysis

def bytes_summary(server: list[dict]) -> dict:
    by_type = {k: 0 for k in FILE_TYPES}
    wheels: dict[str, int] = {}
    requests = not_modified = 0
    total = 0
    for e in server:
        requests += 1
        if e["status"] == 304:
            not_modified += 1
        n = e["bytes"] or 0
        total += n
        kind = file_type(e["path"])
        by_type[kind] += n
        if kind == "whl":
            name = e["path"].rsplit("/", 1)[-1]
            wheels[name] = wheels.get(name, 0) + n
    return {"total": total, "by_type": by_type, "wheels": wheels, "requests": requests,
            "not_modified": not_modified}


def first_status(statuses, state, after=None):
    for s in statuses:
        if s.get("gen", 1) == 1 and s["state"] == state and (after is None or s["t"] >= after):
            return s["t"]
    return None


def mpl_ready_time(runs, figures, ready):
    """When the deck's matplotlib was ready, as far as the page can tell: the moment the worker
    started the first run that drew a figure (it holds drawing cells until matplotlib is loaded
    and pyplot imported), if that run was asked for before then; otherwise unknown."""
    if ready is None or not figures:
        return None
    fig_ids = {f["id"] for f in figures}
    drawn = [r for r in runs if r["id"] in fig_ids and r.get("running") is not None
             and r.get("requested") is not None and r["running"] >= ready]
    if not drawn:
        return None
    first = min(drawn, key=lambda r: r["running"])
    return first["running"] if first["requested"] < first["running"] - 20 else None


def analyze_deck(v: dict, config: dict) -> dict:
    marks, runs, statuses = v["marks"], v["runs"], v["statuses"]
    ids = v.get("cellIds") or []
    first_run: dict[str, dict] = {}
    for r in sorted(runs, key=lambda r: r.get("result") or 1e18):
        if r.get("cellId") in ids and r.get("result") is not None and r["cellId"] not in first_run:
            first_run[r["cellId"]] = r
    figs_by_run: dict[int, int] = {}
    for f in v["figures"]:
        figs_by_run[f["id"]] = figs_by_run.get(f["id"], 0) + 1
    ready = marks.get("ready")
    gen1 = [s for s in statuses if s.get("gen", 1) == 1]
    core = gen1[1]["t"] if len(gen1) > 1 and gen1[1]["state"] == "loading" else None
    first_fig = min(v["figures"], key=lambda f: f["t"]) if v["figures"] else None
    all_done = None
    if ids and all(i in first_run for i in ids):
        all_done = max(first_run[i]["result"] for i in ids)
    # network milestones, from the server's log
    t_origin = v["timeOrigin"]
    runner_path = "/" + config.get("runner", "")
    wheel_path = "/" + config.get("wheel", "")
    runner_req = next((server_ms(e["t0"], t_origin) for e in v["server"]
                       if e["path"] == runner_path), None)
    boot_wheels = ("numpy-",)
    mpl_wheels_end = [server_ms(e["t1"], t_origin) for e in v["server"]
                      if file_type(e["path"]) == "whl" and e["path"] != wheel_path
                      and not e["path"].rsplit("/", 1)[-1].startswith(boot_wheels)]
    cells = []
    for cid in ids:
        r = first_run.get(cid)
        cells.append({"id": cid, "ok": r.get("ok") if r else None,
                      "seconds": r.get("seconds") if r else None,
                      "figures": figs_by_run.get(r["id"], 0) if r else 0,
                      "error": r.get("error") if r else "no result"})
    return {
        "zero": 0.0, "core_ready": core, "ready": ready, "deck_ready": marks.get("deckReady"),
        "worker_created": marks.get("workerCreated"),
        "first_cell": first_run[ids[0]]["result"] if ids and ids[0] in first_run else None,
        "first_figure": first_fig["t"] if first_fig else None,
        "first_figure_cell": first_fig["cellId"] if first_fig else None,
        "all_done": all_done,
        "mpl_ready": mpl_ready_time(runs, v["figures"], ready),
        "runner_requested": runner_req,
        "mpl_wheels_downloaded": max(mpl_wheels_end) if mpl_wheels_end else None,
        "cells": cells, "fatal": v.get("fatal"), "error": v.get("error"),
        "long_tasks_before_ready": sum(d for st, d in v.get("longTasks", [])
                                       if ready is None or st < ready) / 1000,
        "foreign_cores": v.get("foreign_cores"),
    }


def analyze_probe(v: dict, probe_id: str) -> dict:
    runs = {r["id"]: r for r in v["runs"]}

    def start_of(r):
        if r.get("running") is not None:
            return r["running"]
        if r.get("result") is not None and r.get("seconds") is not None:
            return r["result"] - r["seconds"] * 1000
        return None

    def waits(records):
        out = []
        for p in records:
            r = runs.get(p.get("runId"))
            if r is None or start_of(r) is None:
                continue
            start = start_of(r)
            wait = max(0.0, start - p["requested"])
            busy = 0.0     # the worker running other cells meanwhile: not matplotlib's fault
            for o in runs.values():
                if o is r or o.get("result") is None:
                    continue
                s, e = start_of(o), o["result"]
                if s is None:
                    continue
                busy += max(0.0, min(e, start) - max(s, p["requested"]))
            out.append({"requested": p["requested"], "wait": wait, "busy": busy, "runId": r["id"],
                        "seconds": p.get("seconds"), "ok": p.get("ok")})
        return out

    probes, idle = waits(v["probes"]), waits(v["idle"])
    # the idle wait: probes once the worker was quiet, or else the quickest probe
    idle_wait = statistics.median([x["wait"] for x in idle]) if idle else \
        (min(x["wait"] for x in probes) if probes else 0.0)
    for p in probes:
        p["unexplained"] = max(0.0, p["wait"] - p["busy"] - idle_wait)
    ready = v["marks"].get("ready")
    mpl = mpl_ready_time(v["runs"], v["figures"], ready)
    worst = max(probes, key=lambda p: p["unexplained"]) if probes else None
    in_window = [p for p in probes if mpl is not None and p["requested"] < mpl]
    cause = None
    if worst and worst["unexplained"] > BLOCK_TOLERANCE_MS:
        w_start = worst["requested"] + worst["wait"]
        others = []
        for o in sorted(runs.values(), key=lambda o: start_of(o) or 0):
            so = start_of(o)
            if o.get("result") is None or so is None or o.get("id") == worst.get("runId"):
                continue
            overlap = min(o["result"], w_start) - max(so, worst["requested"])
            if overlap > 5:
                others.append(f"{o.get('cellId')}{' (pre-run)' if o.get('background') else ''} "
                              f"{overlap / 1000:.2f} s")
        cause = (f"asked for at +{(worst['requested'] - ready) / 1000:.2f} s, it waited "
                 f"{worst['wait'] / 1000:.2f} s: {worst['unexplained'] / 1000:.2f} s while the worker "
                 f"ran no cell (unpacking matplotlib / importing pyplot, or holding the queue for it)"
                 + (f", {worst['busy'] / 1000:.2f} s behind other cells: " + ", ".join(others)
                    if others else ""))
    return {"probe_cell": probe_id, "ready": ready, "mpl_ready": mpl, "n": len(probes),
            "idle_wait": idle_wait, "probes": probes,
            "max_unexplained": worst["unexplained"] if worst else None,
            "worst_offset": (worst["requested"] - ready) if worst and ready is not None else None,
            "worst_wait": worst["wait"] if worst else None,
            "in_mpl_window": len(in_window),
            "blocked": sum(1 for p in probes if p["unexplained"] > BLOCK_TOLERANCE_MS),
            "cause": cause,
            "error": v.get("error"), "fatal": v.get("fatal")}


def parse_modules(diag) -> list[str] | None:
    if not diag or not diag.get("ok") or not diag.get("value"):
        return None
    try:
        return list(ast.literal_eval(diag["value"]))
    except (ValueError, SyntaxError):
        return None


def lock_imports(lock: dict) -> dict[str, list[str]]:
    """wheel file name -> the top-level modules it provides (pyodide-lock.json's "imports")."""
    return {p["file_name"]: p.get("imports") or [] for p in lock["packages"].values()}


def wheel_needs(imports_of: dict[str, list[str]], wheels: dict[str, int],
                modules: list[str] | None) -> list[dict]:
    out = []
    for name, size in sorted(wheels.items(), key=lambda kv: -kv[1]):
        imports = imports_of.get(name) or [name.split("-")[0]]
        used = None if modules is None else any(i in modules for i in imports)
        out.append({"wheel": name, "bytes": size, "imports": imports, "imported": used})
    return out


# ----------------------------------------------------------------------------- reporting

class Table:
    def __init__(self):
        self.lines: list[str] = []

    def title(self, text):
        self.lines += ["", text, "-" * len(text)]

    def row(self, *cols, widths=(44, 24, 24, 22)):
        parts = []
        for i, c in enumerate(cols):
            w = widths[i] if i < len(widths) else 14
            parts.append(str(c).ljust(w) if i == 0 else str(c).rjust(w))
        self.lines.append("  " + "".join(parts).rstrip())

    def text(self, line=""):
        self.lines.append(line)

    def __str__(self):
        return "\n".join(self.lines)


def ratio_stat(num: list, den: list) -> dict | None:
    pairs = [a / b for a, b in zip(num, den) if a is not None and b]
    return stats(pairs)


def summarize(results: dict) -> tuple[Table, dict, dict]:
    # results of the first version of this script kept CPU samples on epoch seconds
    for group in ("baseline", "deck"):
        for visits in results[group].values():
            for v in visits:
                cs = v.get("cpu_samples")
                if cs and cs[0][0] > 1e9:
                    v["cpu_samples"] = compact_samples(cs, v.get("timeOrigin", 0.0))
    reps = results["reps"]
    config = results["config"]
    regex = re.compile(results["worker_regex"]) if results.get("worker_regex") else None
    S: dict[str, dict] = {}      # flat summary: key -> stats (+unit), for --compare
    t = Table()
    meta = results["meta"]
    t.text(f"Start-up benchmark  {meta['date']}  reps={reps}  {meta['chromium']}  "
           f"Pyodide {meta['pyodide']}  {meta['cores']} cores")
    t.text(f"deck {meta['deck_title']!r}: {meta['cells']} code cells, static {meta['static']}, "
           f"git {meta['git']}, niceness {meta.get('niceness', 0)}")

    base = {k: [analyze_baseline_visit(v) for v in results["baseline"][k]] for k in ("cold", "warm")}
    deck = {k: [analyze_deck(v, config) for v in results["deck"].get(k, [])] for k in ("cold", "warm", "third")}

    def col(rows, key):
        return [ms_to_s(r.get(key)) for r in rows]

    loads = [v.get("foreign_cores") for k in ("baseline", "deck") for kind in ("cold", "warm", "third")
             for v in results[k].get(kind, [])] + [v.get("foreign_cores") for v in results.get("probe", [])]
    ls = stats(loads)
    if ls:
        warn = ("  ← NOISY: other processes took CPU during the visits"
                + ("" if meta.get("niceness", 0) < 0 else " (try --nice -5)")) if ls["max"] > 0.3 else ""
        t.text(f"other processes' CPU during the visits: median {ls['median']:.2f} cores, "
               f"max {ls['max']:.2f}{warn}")
        S["foreign_cores"] = ls
    t.title("Times from navigation, seconds: median [min–max]")
    t.row("", "cold", "warm (2nd visit)", "3rd visit", "warm/cold", widths=(44, 22, 22, 22, 18))
    base_rows = [("core ready (loadPyodide)", "core"), ("numpy ready", "numpy"),
                 ("matplotlib ready", "matplotlib"), ("first figure", "figure")]
    t.text("  Baseline: bare Pyodide in a module worker (bench/baseline.html)")
    for label, key in base_rows:
        c, w = col(base["cold"], key), col(base["warm"], key)
        S[f"baseline.cold.{key}"] = stats(c)
        S[f"baseline.warm.{key}"] = stats(w)
        t.row("    " + label, fmt_stat(stats(c)), fmt_stat(stats(w)), "—",
              fmt_stat(ratio_stat(w, c), unit="×"), widths=(44, 22, 22, 22, 18))
    deck_rows = [("page ready (window.deck set)", "deck_ready"),
                 ("core ready (worker's 2nd status)", "core_ready"),
                 ("runtime ready (status 'ready')", "ready"),
                 ("first cell's result", "first_cell"), ("first figure", "first_figure"),
                 ("all cells done", "all_done"),
                 ("matplotlib ready (inferred)", "mpl_ready")]
    t.text("  Deck (Run pressed on each cell in order once the page is ready; 3rd visit: the same "
           "profile once more)")
    for label, key in deck_rows:
        c, w, th = col(deck["cold"], key), col(deck["warm"], key), col(deck["third"], key)
        S[f"deck.cold.{key}"] = stats(c)
        S[f"deck.warm.{key}"] = stats(w)
        S[f"deck.third.{key}"] = stats(th)
        t.row("    " + label, fmt_stat(stats(c)), fmt_stat(stats(w)), fmt_stat(stats(th)),
              fmt_stat(ratio_stat(w, c), unit="×"), widths=(44, 22, 22, 22, 18))
    fig_cells = {r["first_figure_cell"] for r in deck["cold"] + deck["warm"] if r["first_figure_cell"]}
    if fig_cells:
        t.text(f"    (first figure from cell {', '.join(sorted(fig_cells))})")

    t.title("Deck / baseline, same visit kind (median of per-repetition ratios)")
    t.row("", "cold", "warm")
    pairs = [("core ready / core ready", "core_ready", "core"),
             ("runtime ready / numpy ready", "ready", "numpy"),
             ("first figure / first figure", "first_figure", "figure")]
    for label, dk, bk in pairs:
        row = []
        for kind in ("cold", "warm"):
            r = ratio_stat(col(deck[kind], dk), col(base[kind], bk))
            S[f"ratio.{kind}.{dk}"] = r
            row.append(fmt_stat(r, unit="×"))
        t.row("  " + label, *row)

    # ---- where the time goes ----
    t.title("Where the time goes (medians, seconds between milestones)")

    def med_delta(rows, a, b):
        vals = [(r.get(b) - r.get(a)) / 1000 for r in rows
                if r.get(a) is not None and r.get(b) is not None]
        return statistics.median(vals) if vals else None

    t.row("", "cold", "warm")
    t.text("  Baseline worker:")
    for label, a, b in [("navigation → worker script running", "zero", "worker_start"),
                        ("import pyodide.mjs", "worker_start", "mjs"),
                        ("loadPyodide (asm.js, wasm, stdlib)", "mjs", "core"),
                        ("loadPackage(numpy)", "core", "numpy"),
                        ("loadPackage(matplotlib) (10 wheels)", "numpy", "matplotlib"),
                        ("import numpy+pyplot, draw, SVG", "matplotlib", "figure_drawn"),
                        ("SVG to the page", "figure_drawn", "figure")]:
        row = []
        for kind in ("cold", "warm"):
            d = med_delta(base[kind], a, b)
            S[f"breakdown.baseline.{kind}.{b}"] = stats([d])
            row.append(fmt_s(d))
        t.row("    " + label, *row)
    t.text("  Deck worker (from its status messages and the server's log):")
    for label, a, b in [("navigation → worker created", "zero", "worker_created"),
                        ("worker → core ready", "worker_created", "core_ready"),
                        ("numpy + dplab wheels loaded", "core_ready", "runner_requested"),
                        ("cellrunner + prelude", "runner_requested", "ready"),
                        ("ready → matplotlib wheels downloaded", "ready", "mpl_wheels_downloaded"),
                        ("→ matplotlib ready (unpack, pyplot import)", "mpl_wheels_downloaded", "mpl_ready"),
                        ("ready → matplotlib ready", "ready", "mpl_ready"),
                        ("matplotlib ready → first figure", "mpl_ready", "first_figure")]:
        row = []
        for kind in ("cold", "warm"):
            d = med_delta(deck[kind], a, b)
            S[f"breakdown.deck.{kind}.{a}-{b}"] = stats([d])
            row.append(fmt_s(d))
        t.row("    " + label, *row)
    row = []
    for kind in ("cold", "warm"):
        lt = stats([r["long_tasks_before_ready"] for r in deck[kind]])
        S[f"deck.{kind}.long_tasks_before_ready"] = lt
        row.append(fmt_s(lt["median"]) if lt else "—")
    t.row("    (page main thread: long tasks before 'ready')", *row)
    # CPU per thread group of the browser, in the window navigation → milestone
    worker_group = "renderer: workers (Python)"
    for title, bkey, dkey in (("navigation → core ready", "core", "core_ready"),
                              ("navigation → first figure", "figure", "first_figure")):
        t.text(f"  CPU seconds of the browser's threads, {title} (medians):")
        t.row("    thread group", "baseline cold", "deck cold", "baseline warm", "deck warm",
              widths=(44, 16, 16, 16, 16))
        windows = {}
        for who, rows_by_kind, key in (("baseline", base, bkey), ("deck", deck, dkey)):
            for kind in ("cold", "warm"):
                per_rep = []
                for raw, row in zip(results[who][kind], rows_by_kind[kind]):
                    if row.get(key) is None or not raw.get("cpu_samples"):
                        continue
                    per_rep.append(cpu_between(raw["cpu_samples"], 0.0, row[key]))
                windows[(who, kind)] = per_rep
        groups = sorted({g for reps_ in windows.values() for r in reps_ for g in r
                         if not g.startswith("wait|")})
        for g in groups + ["all threads", "wait|" + worker_group]:
            cols = []
            for who, kind in (("baseline", "cold"), ("deck", "cold"), ("baseline", "warm"), ("deck", "warm")):
                vals = [sum(v for k, v in r.items() if not k.startswith("wait|")) if g == "all threads"
                        else r.get(g, 0.0) for r in windows[(who, kind)]]
                cols.append(fmt_s(statistics.median(vals)) if vals else "—")
                if vals and (g == "all threads" or g.endswith("V8 wasm compile, GC)")):
                    S[f"cpu.{who}.{kind}.to_{bkey}.{'all' if g == 'all threads' else 'thread_pool'}"] = stats(vals)
            label_g = "  Python worker: runnable, waiting for a CPU" if g.startswith("wait|") else g
            t.row("    " + label_g, *cols, widths=(44, 16, 16, 16, 16))
    # the boot steps after the core: is the worker computing, starved, or waiting on something?
    for who, raws, rows, a_key, b_key, what in (
            ("baseline", results["baseline"]["cold"], base["cold"], "core", "numpy", "loadPackage(numpy)"),
            ("deck", results["deck"]["cold"], deck["cold"], "core_ready", "ready",
             "numpy + dplab wheels, prelude")):
        walls, cpus, waits_ = [], [], []
        for raw, row in zip(raws, rows):
            if row.get(a_key) is None or row.get(b_key) is None or not raw.get("cpu_samples"):
                continue
            w = cpu_between(raw["cpu_samples"], row[a_key], row[b_key])
            walls.append((row[b_key] - row[a_key]) / 1000)
            cpus.append(w.get(worker_group, 0.0))
            waits_.append(w.get("wait|" + worker_group, 0.0))
        if walls:
            wall, cpu, wait = (statistics.median(x) for x in (walls, cpus, waits_))
            S[f"cpu.{who}.cold.boot_worker_busy_fraction"] = stats([c / w for c, w in zip(cpus, walls) if w])
            t.text(f"    {who} core → {b_key.replace('_', ' ')} ({what}): {wall:.2f} s wall, worker thread "
                   f"on a CPU {cpu:.2f} s, runnable but waiting {wait:.2f} s, blocked/idle "
                   f"{max(0.0, wall - cpu - wait):.2f} s")
    detail = results.get("detail")
    if detail and not detail.get("error"):
        t.text("  One detailed baseline visit (cold; ms per step, measured inside Pyodide):")
        t.row("    step", "wall", "of it compiling .py", widths=(44, 24, 24))
        for step in detail["steps"]:
            comp = "" if step.get("compileMs") is None else \
                f"{step['compileMs']:.0f} ms ({step.get('compiled', 0)} mod.)"
            t.row("    " + step["name"], f"{step['ms']:.0f} ms", comp, widths=(44, 24, 24))
        tot = sum(st["ms"] for st in detail["steps"])
        totc = sum(st.get("compileMs") or 0 for st in detail["steps"])
        t.row("    all steps above", f"{tot:.0f} ms", f"{totc:.0f} ms", widths=(44, 24, 24))
        S["detail.steps_ms"] = stats([tot])
        S["detail.compile_ms"] = stats([totc])
        m = detail["marks"]
        if m.get("dplab-wheel-ready") and m.get("numpy-ready"):
            t.row("    loadPackage(dplab wheel)", f"{m['dplab-wheel-ready'] - m['numpy-ready']:.0f} ms")
        fc = (detail.get("diag") or {}).get("fontCache")
        if fc:
            t.row("    font cache: build anew / read a cached one",
                  f"{fc['rebuild_ms']:.0f} / {fc['read_cached_ms']:.0f} ms")
        mods = (detail.get("diag") or {}).get("moduleImports")
        if mods:
            over = [m for m in mods if m[0] > 100]
            t.text(f"    each module's own import time (without what it imports), {len(mods)} modules "
                   f"imported in all; {len(over)} take > 100 ms:")
            t.text("      " + ", ".join(f"{name} {ms:.0f}" for ms, name in mods[:8]) + " (ms)")
            S["detail.max_module_import_ms"] = stats([mods[0][0]])
        if (detail.get("diag") or {}).get("secondFigureMs") is not None:
            t.row("    second figure (everything imported)", f"{detail['diag']['secondFigureMs']:.0f} ms")

    # ---- bytes ----
    t.title("Bytes sent by the server (no compression)")
    b_cold = [bytes_summary(v["server"]) for v in results["baseline"]["cold"]]
    d_cold = [bytes_summary(v["server"]) for v in results["deck"]["cold"]]
    b_warm = [bytes_summary(v["server"]) for v in results["baseline"]["warm"]]
    d_warm = [bytes_summary(v["server"]) for v in results["deck"]["warm"]]
    t.row("", "baseline cold", "deck cold", "")
    for kind in FILE_TYPES:
        bv = statistics.median([b["by_type"][kind] for b in b_cold]) if b_cold else None
        dv = statistics.median([b["by_type"][kind] for b in d_cold]) if d_cold else None
        S[f"bytes.deck.cold.{kind}"] = stats([dv])
        t.row("  " + kind, fmt_bytes(bv), fmt_bytes(dv))
    for label, bb, db, key in [("total cold", b_cold, d_cold, "cold"), ("total warm", b_warm, d_warm, "warm")]:
        bv = statistics.median([b["total"] for b in bb]) if bb else None
        dv = statistics.median([b["total"] for b in db]) if db else None
        S[f"bytes.deck.{key}.total"] = stats([dv])
        S[f"bytes.baseline.{key}.total"] = stats([bv])
        t.row("  " + label, fmt_bytes(bv), fmt_bytes(dv))
    for label, bb, db in [("requests cold (304s)", b_cold, d_cold), ("requests warm (304s)", b_warm, d_warm)]:
        if bb and db:
            t.row("  " + label, f"{bb[0]['requests']} ({bb[0]['not_modified']})",
                  f"{db[0]['requests']} ({db[0]['not_modified']})")
    modules = None
    for v in results["deck"]["warm"]:
        modules = parse_modules(v.get("diag"))
        if modules:
            break
    wheel_rows = wheel_needs(results["lock_imports"], d_cold[0]["wheels"] if d_cold else {}, modules)
    base_modules = next((v["diag"]["modules"] for v in results["baseline"]["cold"]
                         if v.get("diag") and v["diag"].get("modules")), None)
    t.text("  Wheels on the deck's cold load (imported: a module of the wheel is in the deck's")
    t.text("  sys.modules after every cell ran; baseline: after its figure):")
    t.row("    wheel", "bytes", "deck imports", "baseline imports", widths=(58, 12, 14, 18))
    for w in wheel_rows:
        bused = None if base_modules is None else any(i in base_modules for i in w["imports"])
        yn = lambda x: "?" if x is None else ("yes" if x else "NO")
        t.row("    " + w["wheel"], fmt_bytes(w["bytes"]), yn(w["imported"]), yn(bused),
              widths=(58, 12, 14, 18))

    # ---- CPython ----
    t.title("Cells' own run time (runner's `seconds`): browser vs CPython")
    cp = results["cpython"]
    meta_cp = cp[0] if cp else {}
    t.text(f"  CPython {meta_cp.get('python')} numpy {meta_cp.get('numpy')} matplotlib "
           f"{meta_cp.get('matplotlib')} (fresh process per rep; pyplot imported before the cells "
           f"as the deck does: {fmt_s(stats([c.get('prepare_matplotlib_s') for c in cp])['median'] if cp else None)} s)")
    t.row("  cell", "browser cold", "browser warm", "CPython", "cold/CPython", widths=(36, 22, 22, 22, 14))
    sums = {"cold": 0.0, "warm": 0.0, "cpython": 0.0}
    mins = {"cold": 0.0, "warm": 0.0, "cpython": 0.0}
    excluded = []
    cell_ids = [c["id"] for c in (cp[0]["cells"] if cp else [])]
    for cid in cell_ids:
        def secs(rows):
            vals = []
            for r in rows:
                c = next((c for c in r["cells"] if c["id"] == cid), None)
                vals.append(c["seconds"] if c and c["ok"] else None)
            return vals
        bcold, bwarm = secs(deck["cold"]), secs(deck["warm"])
        cpy = [next((c["seconds"] for c in run["cells"] if c["id"] == cid and c["ok"]), None) for run in cp]
        sc, sw, sp = stats(bcold), stats(bwarm), stats(cpy)
        r = (sc["median"] / sp["median"]) if sc and sp and sp["median"] else None
        t.row("  " + cid[:34], fmt_stat(sc, 3), fmt_stat(sw, 3), fmt_stat(sp, 3),
              "—" if r is None else f"{r:.1f}×", widths=(36, 22, 22, 22, 14))
        if sc and sw and sp:
            for key, st in (("cold", sc), ("warm", sw), ("cpython", sp)):
                sums[key] += st["median"]
                mins[key] += st["min"]
        else:
            excluded.append(cid)
    ratio_cold = sums["cold"] / sums["cpython"] if sums["cpython"] else None
    ratio_warm = sums["warm"] / sums["cpython"] if sums["cpython"] else None
    min_cold = mins["cold"] / mins["cpython"] if mins["cpython"] else None
    min_warm = mins["warm"] / mins["cpython"] if mins["cpython"] else None
    t.row("  sum of medians (cells ok everywhere)", f"{sums['cold']:.3f}", f"{sums['warm']:.3f}",
          f"{sums['cpython']:.3f}", "—" if ratio_cold is None else f"{ratio_cold:.1f}×",
          widths=(36, 22, 22, 22, 14))
    t.row("  sum of minima (least disturbed)", f"{mins['cold']:.3f}", f"{mins['warm']:.3f}",
          f"{mins['cpython']:.3f}", "—" if min_cold is None else f"{min_cold:.1f}×",
          widths=(36, 22, 22, 22, 14))
    S["cells.browser_over_cpython.cold"] = stats([ratio_cold])
    S["cells.browser_over_cpython.warm"] = stats([ratio_warm])
    S["cells.browser_over_cpython_min.cold"] = stats([min_cold])
    S["cells.browser_over_cpython_min.warm"] = stats([min_warm])
    S["cells.sum.cold"] = stats([sums["cold"]])
    S["cells.sum.cpython"] = stats([sums["cpython"]])
    if excluded:
        t.text(f"  not in the sums (failed or no result somewhere): {', '.join(excluded)}")
    failures = sorted({f"{c['id']}: {c['error']}" for r in deck["cold"] + deck["warm"]
                       for c in r["cells"] if c["ok"] is False or c["ok"] is None})
    failures += sorted({f"{c['id']} (CPython): {c['error']}" for run in cp for c in run["cells"] if not c["ok"]})
    for f in failures[:12]:
        t.text(f"  ! {f[:150]}")

    # ---- probe ----
    probes = [analyze_probe(v, results["probe_cell"]) for v in results.get("probe", [])]
    t.title("Does loading matplotlib make a numpy-only cell wait? (target 3)")
    if not probes:
        t.text("  no probe: no numpy-only cell runs on its own after the prelude")
    else:
        t.text(f"  probe cell {results['probe_cell']!r}, run every {PROBE_STEP_MS} ms from 'ready' while "
               "matplotlib loads; wait = request → the worker starts it, minus the time the")
        t.text("  worker spent on other cells meanwhile, minus the idle wait (the quickest probe's)")
        t.row("  rep", "probes (before mpl ready)", "mpl ready after ready", "worst wait (at +s)", widths=(10, 26, 24, 28))
        for i, p in enumerate(probes):
            mpl = None if p["mpl_ready"] is None or p["ready"] is None else (p["mpl_ready"] - p["ready"]) / 1000
            worst = "—" if p["max_unexplained"] is None else \
                f"{p['max_unexplained']:.0f} ms (+{(p['worst_offset'] or 0) / 1000:.2f})"
            t.row(f"  {i}", f"{p['n']} ({p['in_mpl_window']})", fmt_s(mpl), worst, widths=(10, 26, 24, 28))
        for i, p in enumerate(probes):
            if p["cause"]:
                t.text(f"    rep {i}: worst probe: {p['cause']}")
        S["probe.max_unexplained_ms"] = stats([p["max_unexplained"] for p in probes])
        S["probe.idle_wait_ms"] = stats([p["idle_wait"] for p in probes])
    np_first = []
    for r, raw in zip(deck["cold"], results["deck"]["cold"]):
        first_np = next((c for c in r["cells"] if c["ok"] and not c["figures"]), None)
        if first_np and r["mpl_ready"] is not None:
            res = next((x for x in raw["runs"]
                        if x.get("cellId") == first_np["id"] and x.get("result") is not None), None)
            if res:
                np_first.append((res["result"] - r["mpl_ready"]) / 1000)
    if np_first:
        t.text(f"  deck cold: first numpy-only cell's result − matplotlib ready = "
               f"{statistics.median(np_first):+.2f} s (negative: it did not wait for matplotlib)")
    false_waits = []
    if regex is not None and cp:
        for c in cp[0]["cells"]:
            if not c["figures"] and regex.search(c["code"]):
                false_waits.append(c["id"])
    if false_waits:
        t.text(f"  numpy-only cells the worker's NEEDS_MATPLOTLIB test still sends to wait for "
               f"matplotlib: {', '.join(false_waits)}")

    # ---- targets ----
    t.title("Targets")
    verdicts = {}

    def verdict(key, label, ok, detail):
        verdicts[key] = {"ok": ok, "detail": detail}
        t.text(f"  ({key}) {'HOLDS' if ok else ('MISSES' if ok is False else 'n/a  ')}  {label}: {detail}")

    dfig, bfig = S.get("deck.cold.first_figure"), S.get("baseline.cold.figure")
    if dfig and bfig:
        verdict(1, "cold first figure ≤ baseline's", dfig["median"] <= bfig["median"],
                f"deck {dfig['median']:.2f} s vs baseline {bfig['median']:.2f} s "
                f"({dfig['median'] / bfig['median']:.2f}×, {dfig['median'] - bfig['median']:+.2f} s)")
    else:
        verdict(1, "cold first figure ≤ baseline's", None, "no figure measured")
    wfig = S.get("deck.warm.first_figure")
    if dfig and wfig:
        verdict(2, "warm first figure ≤ half the cold one", wfig["median"] <= dfig["median"] / 2,
                f"warm {wfig['median']:.2f} s vs cold {dfig['median']:.2f} s "
                f"({wfig['median'] / dfig['median']:.2f}×; half would be {dfig['median'] / 2:.2f} s, "
                f"{wfig['median'] - dfig['median'] / 2:+.2f} s)")
    else:
        verdict(2, "warm first figure ≤ half the cold one", None, "no figure measured")
    if probes:
        worst = max(p["max_unexplained"] or 0 for p in probes)
        nb = sum(p["blocked"] for p in probes)
        tot = sum(p["n"] for p in probes)
        extra = f"; {len(false_waits)} numpy-only cell(s) wait by design (regex)" if false_waits else ""
        verdict(3, "loading matplotlib never blocks a numpy-only cell",
                worst <= BLOCK_TOLERANCE_MS and not false_waits,
                f"worst unexplained wait {worst:.0f} ms (tolerance {BLOCK_TOLERANCE_MS}); "
                f"{nb}/{tot} probes waited > {BLOCK_TOLERANCE_MS} ms{extra}")
    else:
        verdict(3, "loading matplotlib never blocks a numpy-only cell", None, "no probe cell")
    unneeded = [w for w in wheel_rows if w["imported"] is False]
    if modules is not None:
        verdict(4, "cold load fetches only wheels the deck imports", not unneeded,
                "all imported" if not unneeded else
                f"{len(unneeded)} wheel(s) never imported, {fmt_bytes(sum(w['bytes'] for w in unneeded))}: "
                + ", ".join(w["wheel"].split("-")[0] for w in unneeded))
    else:
        verdict(4, "cold load fetches only wheels the deck imports", None, "no module list")
    if ratio_cold is not None:
        worst5 = max(ratio_cold, min_cold or 0)
        verdict(5, "cells in the browser within 3× of CPython", worst5 <= 3,
                f"{ratio_cold:.2f}× cold, {ratio_warm:.2f}× warm on sums of medians "
                f"({sums['cold']:.3f} s vs {sums['cpython']:.3f} s); on sums of minima "
                f"{min_cold:.2f}× cold, {min_warm:.2f}× warm")
    else:
        verdict(5, "cells in the browser within 3× of CPython", None, "no cell ran everywhere")

    errs = []
    for kind in ("cold", "warm"):
        for v in results["baseline"][kind] + results["deck"][kind]:
            if v.get("error") or v.get("fatal"):
                errs.append(f"{v.get('mode')} {kind}: {v.get('error') or v.get('fatal')}")
    for e in errs[:6]:
        t.text(f"  ! {e[:200]}")
    derived = {"baseline": base, "deck": deck, "probe": probes, "wheels": wheel_rows,
               "deck_modules": modules, "baseline_modules": base_modules, "verdicts": verdicts,
               "bytes": {"baseline_cold": b_cold, "deck_cold": d_cold,
                         "baseline_warm": b_warm, "deck_warm": d_warm}}
    return t, {k: v for k, v in S.items() if v}, derived


def analyze_baseline_visit(v: dict) -> dict:
    m = v.get("marks", {})
    return {"zero": 0.0, "worker_start": m.get("worker-start"), "mjs": m.get("mjs-imported"),
            "core": m.get("core-ready"), "numpy": m.get("numpy-ready"),
            "matplotlib": m.get("matplotlib-ready"), "figure_drawn": m.get("figure-drawn"),
            "figure": m.get("figure-received"), "error": v.get("error")}


def compare(summary: dict, old_path: Path) -> str:
    old = json.loads(old_path.read_text())["summary"]
    t = Table()
    t.title(f"Compared with {old_path}")
    t.row("metric", "old median", "new median", "change", widths=(44, 14, 14, 16))
    for key in summary:
        if key not in old or not old[key] or not summary[key]:
            continue
        a, b = old[key]["median"], summary[key]["median"]
        change = "—" if not a else f"{(b - a) / a * 100:+.0f}%"
        t.row(key, f"{a:.3g}", f"{b:.3g}", change, widths=(44, 14, 14, 16))
    return str(t)


# ----------------------------------------------------------------------------- main

def _rounded(x):
    """Floats to 4 decimals (ms and s alike): the raw data stays exact enough and small."""
    if isinstance(x, float):
        return round(x, 4)
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_rounded(v) for v in x]
    return x


def report(results: dict, out: Path | None, compare_with: Path | None) -> None:
    """Print the table (and the comparison); write table + summary + raw data as JSON."""
    table, summary, derived = summarize(results)
    table.text("")
    table.text(f"(benchmark ran {results['meta'].get('elapsed_s', 0):.0f} s)")
    text = str(table)
    if compare_with:
        text += "\n" + compare(summary, compare_with)
    print(text)
    if out is None:
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"meta": results["meta"], "summary": summary, "verdicts": derived["verdicts"],
               "derived": {k: derived[k] for k in ("baseline", "deck", "probe", "wheels",
                                                   "deck_modules", "baseline_modules")},
               "table": text, "raw": results}
    out.write_text(json.dumps(_rounded(payload), ensure_ascii=False, default=str,
                              separators=(",", ":")))
    print(f"\nwrote {out}")


def visit_note(v: dict) -> str:
    notes = []
    if v.get("foreign_cores") is not None:
        notes.append(f"other processes {v['foreign_cores']:.2f} cores")
    if v.get("error"):
        notes.append(str(v["error"])[:120])
    return f" ({'; '.join(notes)})" if notes else ""


def git_describe() -> str:
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                              text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain"], cwd=ROOT, capture_output=True,
                               text=True).stdout.strip()
        return head + ("+dirty" if dirty else "")
    except OSError:
        return "?"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3, help="repetitions of each visit (default 3)")
    ap.add_argument("--compare", type=Path, help="an earlier results JSON to compare with")
    ap.add_argument("--out", type=Path, help="where to write the JSON "
                    "(default bench/results/startup-<date>.json)")
    ap.add_argument("--dist", type=Path, help="benchmark this built dist/ instead of building one")
    ap.add_argument("--no-probe", action="store_true", help="skip the matplotlib-blocking probe")
    ap.add_argument("--no-detail", action="store_true", help="skip the detailed baseline visit")
    ap.add_argument("--no-third", action="store_true",
                    help="skip the deck's third visit (its service worker, if any, serves from its "
                         "own cache only from the third visit on)")
    ap.add_argument("--timeout", type=float, default=180, help="seconds per visit (default 180)")
    ap.add_argument("--quiet-wait", type=float, default=5,
                    help="before each visit, wait up to this many seconds for other processes to "
                         "leave the CPU (default 5; 0: don't)")
    ap.add_argument("--deck-query", metavar="QUERY",
                    help="open the deck as index.html?QUERY (e.g. nosw: without its service worker)")
    ap.add_argument("--nice", type=int, default=0,
                    help="run the benchmark and its browser at this niceness increment (e.g. -5 as "
                         "root: other work on a shared machine then disturbs it less)")
    ap.add_argument("--report", type=Path, metavar="RESULTS.json",
                    help="print the table of an earlier run again (with --compare: compare them)")
    ap.add_argument("--cpython-child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--classify", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.reps < 1:
        ap.error("--reps must be at least 1")
    if args.cpython_child:
        cpython_child(args.cpython_child, args.classify)
        return 0
    if args.report:
        report(json.loads(args.report.read_text())["raw"], args.out, args.compare)
        return 0

    from playwright.sync_api import sync_playwright
    if args.nice:
        try:
            os.nice(args.nice)    # inherited by Playwright's driver and Chromium
        except OSError as exc:
            print(f"warning: --nice {args.nice} refused ({exc}); running at normal priority",
                  file=sys.stderr)
    started = time.time()
    timeout_ms = int(args.timeout * 1000)
    work = Path(tempfile.mkdtemp(prefix="dpdeck-bench-"))
    try:
        print("building the deck (a snapshot of deck/, static/, templates/, pyodide_pkg/)…", flush=True)
        snap = snapshot_project(work)
        try:
            site = build_site(snap, work / "site", args.dist)
        except Exception as exc:  # noqa: BLE001 - a DeckError or anything else: say it plainly
            print(f"error: the build failed: {exc}", file=sys.stderr)
            return 2
        config = read_deck_config(site)
        lock = json.loads((site / config["pyodideIndex"] / "pyodide-lock.json").read_text())
        install_baseline(site, config, timeout_ms)
        regex = worker_regex(site, config)

        print(f"CPython: prelude and cells, {args.reps}× in fresh processes…", flush=True)
        cpython = run_cpython(snap, args.reps)
        probe_cell = (cpython[0].get("probe_candidates") or [None])[0]

        log = RequestLog()
        server, url = make_counting_server(site, log)
        chromium = chromium_path()
        try:
            version = subprocess.run([chromium or "chromium", "--version"], capture_output=True,
                                     text=True, timeout=30).stdout.strip().splitlines()[-1]
        except (OSError, subprocess.SubprocessError, IndexError):
            version = "chromium ?"
        results = {
            "meta": {"date": dt.datetime.now().isoformat(timespec="seconds"), "chromium": version,
                     "pyodide": lock["info"]["version"], "cores": os.cpu_count(),
                     "deck_title": config.get("deckId"), "cells": len(cpython[0]["cells"]),
                     "static": config["assets"]["static"].rstrip("/"), "git": git_describe(),
                     "machine": platform.platform(), "python": platform.python_version(),
                     "niceness": os.nice(0), "deck_query": args.deck_query},
            "reps": args.reps, "config": {k: config.get(k) for k in
                                          ("pyodideIndex", "packages", "deferredPackages", "wheel", "runner")},
            "lock_imports": lock_imports(lock),
            "worker_regex": regex.pattern if regex is not None else None,
            "baseline": {"cold": [], "warm": []}, "deck": {"cold": [], "warm": [], "third": []},
            "probe": [], "probe_cell": probe_cell, "detail": None, "cpython": cpython,
        }
        base_url = url + "bench-baseline/index.html"
        deck_url = url + "index.html" + (f"?{args.deck_query}" if args.deck_query else "")
        with sync_playwright() as pw:
            browser = Browser(pw, chromium, timeout_ms, args.quiet_wait)
            for rep in range(args.reps):
                order = ("baseline", "deck") if rep % 2 == 0 else ("deck", "baseline")
                for target in order:
                    profile = work / f"profile-{target}-{rep}"
                    kinds = ("cold", "warm", "third") if target == "deck" and not args.no_third \
                        else ("cold", "warm")
                    for kind in kinds:
                        print(f"rep {rep + 1}/{args.reps}: {target} {kind}…", end=" ", flush=True)
                        if target == "baseline":
                            v = browser.visit(profile, base_url, log)
                        else:
                            cfg = {"mode": "presenter", "timeoutMs": timeout_ms,
                                   "diag": DIAG_CODE if kind == "warm" else ""}
                            v = browser.visit(profile, deck_url, log, cfg)
                        results[target][kind].append(v)
                        print(f"{v['wall']:.1f} s" + visit_note(v), flush=True)
                    shutil.rmtree(profile, ignore_errors=True)
                if probe_cell and not args.no_probe:
                    last = analyze_deck(results["deck"]["cold"][-1], config)
                    window = 8000.0
                    if last["mpl_ready"] is not None and last["ready"] is not None:
                        window = min(20000.0, max(4000.0, 1.3 * (last["mpl_ready"] - last["ready"]) + 1500))
                    cfg = {"mode": "probe", "timeoutMs": timeout_ms, "probeCellId": probe_cell,
                           "probeStepMs": PROBE_STEP_MS, "probeWindowMs": window}
                    print(f"rep {rep + 1}/{args.reps}: probe cold…", end=" ", flush=True)
                    profile = work / f"profile-probe-{rep}"
                    v = browser.visit(profile, deck_url, log, cfg)
                    results["probe"].append(v)
                    shutil.rmtree(profile, ignore_errors=True)
                    print(f"{v['wall']:.1f} s" + visit_note(v), flush=True)
            if not args.no_detail:
                print("one detailed baseline visit (cold)…", end=" ", flush=True)
                v = browser.visit(work / "profile-detail", base_url + "?mode=detail", log)
                results["detail"] = v
                print(f"{v['wall']:.1f} s" + visit_note(v), flush=True)
        server.shutdown()

        results["meta"]["elapsed_s"] = round(time.time() - started, 1)
        out = args.out or BENCH / "results" / f"startup-{dt.date.today().isoformat()}.json"
        report(results, out, args.compare)
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
