#!/usr/bin/env python3
"""Where the start-up time goes: milestones step by step, and the browser's CPU by thread group.

    python bench/diagnose/threads.py [--reps N]

Cold and warm visits of the baseline and the deck, as bench/startup.py makes them, while a
sampler reads every 0.25 s the CPU seconds of each Chromium thread from /proc, grouped by role
(page main thread, Python worker, V8's thread pool, compositor, browser, GPU, network), and how
long the threads waited, runnable, for a CPU (/proc/…/schedstat).
"""

from __future__ import annotations

import os
import re
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench import milestones, procstat  # noqa: E402
from bench.diagnose.common import parser, timed_visit  # noqa: E402
from bench.session import session  # noqa: E402
from bench.table import Table, fmt_s  # noqa: E402

WORKER = "renderer: workers (Python)"
BASELINE_STEPS = (
    ("navigation → worker script running", "zero", "worker_start"),
    ("import pyodide.mjs", "worker_start", "mjs"),
    ("loadPyodide (asm.js, wasm, stdlib)", "mjs", "core"),
    ("loadPackage(numpy)", "core", "numpy"),
    ("loadPackage(matplotlib)", "numpy", "matplotlib"),
    ("import numpy+pyplot, draw, SVG", "matplotlib", "figure_drawn"),
    ("SVG to the page", "figure_drawn", "figure"),
)
DECK_STEPS = (
    ("navigation → worker created", "zero", "worker_created"),
    ("worker → core ready (its clock)", "worker_created", "core_ready_worker"),
    ("numpy + dplab wheels loaded", "core_ready_worker", "runner_requested"),
    ("cellrunner + prelude", "runner_requested", "ready"),
    ("ready → matplotlib wheels downloaded", "ready", "mpl_wheels_downloaded"),
    ("→ matplotlib ready (unpack, pyplot)", "mpl_wheels_downloaded", "mpl_ready"),
    ("matplotlib ready → first figure", "mpl_ready", "first_figure"),
)


def thread_group(ptype: str, comm: str, main: bool) -> str:
    """A Chromium thread's role, from its process type and its thread name."""
    if ptype != "renderer":
        return {"": "browser process", "gpu-process": "gpu process", "utility": "utility (network)"}.get(
            ptype, f"{ptype} process"
        )
    for prefixes, group in (
        (("CrRendererMain",), "renderer: page main thread"),
        (("DedicatedWorker",), WORKER),
        (("V8", "ThreadPool"), "renderer: thread pool (V8 wasm compile, GC)"),
    ):
        if (main and group.endswith("main thread")) or comm.startswith(prefixes):
            return group
    return (
        "renderer: compositor/raster"
        if comm.startswith("Compositor") or "Raster" in comm
        else "renderer: other threads"
    )


def chromium_type(pid: int) -> str | None:
    """A Chromium process's --type ("" for the browser), None if it is not Chromium's."""
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    if b"chrom" not in cmd.split(b"\0", 1)[0]:
        return None
    m = re.search(rb"--type=([\w-]+)", cmd)
    ptype = m.group(1).decode() if m else ""
    return None if ptype == "zygote" else ptype


def renderer_pids(root: int | None = None) -> list[int]:
    """The Chromium renderer processes under ``root`` (this process by default): each holds
    pages' main threads."""
    root = os.getpid() if root is None else root
    return [p for p in procstat.descendants(root) - {root} if chromium_type(p) == "renderer"]


def main_thread_cpu(pids: list[int]) -> float:
    """CPU seconds so far of the main threads of ``pids`` (a process's main thread's tid is its pid)."""
    total = 0.0
    for pid in pids:
        main = procstat.read_stat(procstat.PROC / str(pid) / "task" / str(pid) / "stat", pid)
        total += main.cpu if main else 0.0
    return total


def run_queue_delay(pid: int, tid: int) -> float:
    """Seconds the thread spent runnable, waiting for a CPU."""
    try:
        return int(Path(f"/proc/{pid}/task/{tid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def cpu_by_group() -> dict[str, float]:
    """CPU seconds so far of the browser's threads, summed per group ("wait|group": waiting)."""
    groups: dict[str, float] = {}
    for pid in procstat.descendants(os.getpid()):
        ptype = chromium_type(pid)  # re-read: a process forked from the zygote renames itself
        if ptype is None:
            continue
        for tid, t in procstat.threads(pid).items():
            g = thread_group(ptype, t.name, tid == pid)
            groups[g] = groups.get(g, 0.0) + t.cpu
            groups["wait|" + g] = groups.get("wait|" + g, 0.0) + run_queue_delay(pid, tid)
    return groups


class CpuSampler:
    """A visit's ``watch``: samples cpu_by_group() every ``period`` s from navigation on."""

    def __init__(self, period: float = 0.25):
        self.period, self.samples, self.halt = period, [], threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self):
        while not self.halt.is_set():
            self.samples.append((time.time(), cpu_by_group()))
            self.halt.wait(self.period)

    def start(self):
        self.thread.start()

    def stop(self):
        self.halt.set()
        self.thread.join(timeout=5)
        self.samples.append((time.time(), cpu_by_group()))

    def finish(self, report: dict) -> None:
        """Samples on the page's clock: [ms since navigation, {group: s}]."""
        origin = report.get("timeOrigin", 0.0)
        report["cpu_samples"] = [[t * 1000 - origin, g] for t, g in self.samples]


def cpu_between(samples: list, t_a: float, t_b: float) -> dict[str, float]:
    """CPU seconds per thread group between two times, ms since navigation (nearest samples)."""
    if not samples or t_b <= t_a:
        return {}
    a, b = (min(samples, key=lambda s: abs(s[0] - t))[1] for t in (t_a, t_b))
    return {k: max(0.0, v - a.get(k, 0.0)) for k, v in b.items()}  # a new renderer: from zero


def deck_network_marks(v: dict, config: dict) -> dict:
    """From the server's log: when the runner was asked for, the last matplotlib wheel sent."""
    t0 = v["timeOrigin"]
    runner = next(
        (e["t0"] * 1000 - t0 for e in v["server"] if e["path"] == "/" + config.get("runner", "")), None
    )
    late = [
        e["t1"] * 1000 - t0
        for e in v["server"]
        if milestones.file_type(e["path"]) == "whl"
        and e["path"] != "/" + config.get("wheel", "")
        and not e["path"].rsplit("/", 1)[-1].startswith("numpy-")
    ]
    return {
        "runner_requested": runner,
        "mpl_wheels_downloaded": max(late) if late else None,
        "worker_created": v["marks"].get("workerCreated"),
    }


def median_delta(rows: list[dict], a: str, b: str) -> float | None:
    vals = [(r[b] - r[a]) / 1000 for r in rows if r.get(a) is not None and r.get(b) is not None]
    return statistics.median(vals) if vals else None


def steps_table(t: Table, rows: dict) -> None:
    t.title("Where the time goes (medians, seconds between milestones)")
    t.row("", "cold", "warm")
    for who, steps in (("baseline", BASELINE_STEPS), ("deck", DECK_STEPS)):
        t.text(f"  {who}:")
        for label, a, b in steps:
            t.row("    " + label, *(fmt_s(median_delta(rows[(who, k)], a, b)) for k in ("cold", "warm")))


def cpu_table(t: Table, rows: dict, raw: dict, label: str, keys: dict) -> None:
    """CPU seconds per thread group from navigation to a milestone (``keys``: who → its key)."""
    cols = [(who, kind) for kind in ("cold", "warm") for who in ("baseline", "deck")]
    windows = {
        c: [
            cpu_between(v.get("cpu_samples"), 0.0, r[keys[c[0]]])
            for v, r in zip(raw[c], rows[c], strict=True)
            if r.get(keys[c[0]]) is not None
        ]
        for c in cols
    }
    t.title(f"CPU seconds of the browser's threads, navigation → {label} (medians)")
    t.row("  thread group", *(f"{who} {kind}" for who, kind in cols), widths=(46, 16, 16, 16, 16))
    groups = sorted({g for w in windows.values() for r in w for g in r if "|" not in g})
    for g in groups + ["wait|" + WORKER]:
        vals = [[r.get(g, 0.0) for r in windows[c]] for c in cols]
        label = "Python worker: runnable, waiting for a CPU" if "|" in g else g
        t.row(
            "  " + label,
            *(fmt_s(statistics.median(v)) if v else "—" for v in vals),
            widths=(46, 16, 16, 16, 16),
        )


def main(argv=None) -> int:
    args = parser(__doc__).parse_args(argv)
    raw = {(who, kind): [] for who in ("baseline", "deck") for kind in ("cold", "warm")}
    with session(args) as s:
        for rep in range(args.reps):
            for who in ("baseline", "deck"):
                folder = s.folder(f"{who}-{rep}")
                for kind in ("cold", "warm"):
                    url = s.base_url if who == "baseline" else s.deck_url
                    cfg = None if who == "baseline" else {"mode": "presenter", "timeoutMs": s.timeout_ms}
                    raw[(who, kind)].append(timed_visit(s, f"{who} {kind}", folder, url, cfg, CpuSampler()))
        config = s.config
    rows = {
        c: [
            milestones.baseline_milestones(v)
            if c[0] == "baseline"
            else milestones.deck_milestones(v) | deck_network_marks(v, config)
            for v in vs
        ]
        for c, vs in raw.items()
    }
    t = Table()
    steps_table(t, rows)
    for label, base_key, deck_key in (
        ("core ready (in the worker)", "core", "core_ready_worker"),
        ("first figure", "figure", "first_figure"),
    ):
        cpu_table(t, rows, raw, label, {"baseline": base_key, "deck": deck_key})
    print(t)
    return 0


if __name__ == "__main__":
    sys.exit(main())
