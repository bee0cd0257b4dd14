"""The phone's targets (issue 49), printed as the hall's are: HOLDS or MISSES with the margin.

Pure functions of what ``stats.summarize`` makes of the ``phone`` profile's visits
(``bench/startup.py --profile phone``) and of what ``bench/lecture.py`` measured:

- F1: cold, the deck's first figure ≤ 0.6× bare Pyodide's first figure, both under the phone
  profile in the same run (the median of the per-repetition ratios);
  a miss is marked bounded by the network when the bytes the figure waited for alone take longer
  at the profile's link speed;
- F2: cold, the main thread's total blocking time from page ready to all cells done (each long
  task's excess over 50 ms, as P6) ≤ 200 ms;
- F3: cold, peak memory ≤ 200 MB (10⁶ bytes), as the issue asks, "JS heap plus wasm": the
  largest sum, sampled through the visit, of the main thread's and the workers' JavaScript heaps
  and the Python worker's WebAssembly memory (bench/browser.py's ``MemoryWatch``). Printed beside
  it, not the target's: the renderer process's peak resident set (``VmHWM``), which holds also
  Blink's own memory, the compiled code and the allocators' slack;
- F4 (bench/lecture.py): a followed 10-minute lecture costs the phone ≤ 0.5× the CPU seconds of
  pre-running every cell (the policy before issue 49: ``?prerun=all``), in the same run, and
  every slide the phone reaches in the scenario has its cells' results on screen when it gets
  there; a miss is marked bounded when the CPU every visit pays whatever it runs is over the
  limit already.
"""

from __future__ import annotations

from bench import targets
from bench.hall import limit_target, median, ratio_target, verdict
from bench.profiles import PROFILES

FIGURE_RATIO = 0.6  # F1
TBT_LIMIT_MS = 200.0  # F2
MEMORY_LIMIT_MB = 200.0  # F3
LECTURE_CPU_RATIO = 0.5  # F4
TARGETS = {
    "F1": f"phone: cold first figure ≤ {FIGURE_RATIO}× bare Pyodide's (same profile, same run)",
    "F2": f"phone: cold total blocking time, page ready to all cells done ≤ {TBT_LIMIT_MS:.0f} ms",
    "F3": f"phone: cold peak memory, JS heaps + wasm (sampled) ≤ {MEMORY_LIMIT_MB:.0f} MB",
    "F4": f"phone: a followed lecture's CPU ≤ {LECTURE_CPU_RATIO}× pre-running every cell, every slide's "
    "results on screen when reached",
}


def verdicts(doc: dict | None, profile: str = "phone") -> dict:
    """F1–F3 of the phone profile's document (None: the run had no phone profile); ``profile``:
    the profile it was measured under (its link speed bounds F1)."""
    if doc is None:
        return {}
    tbt, longest = median(doc, "deck.cold.tbt"), median(doc, "deck.cold.longest_task")
    f2 = limit_target(None if tbt is None else tbt * 1000, TBT_LIMIT_MS, "cold TBT", "ms")
    if longest is not None:
        f2["detail"] += f"; longest task {longest * 1000:.0f} ms"
    f3 = limit_target(
        median(doc, "deck.cold.heap_wasm_peak_mb"), MEMORY_LIMIT_MB, "cold peak JS heaps + wasm", "MB"
    )
    rss = median(doc, "deck.cold.renderer_peak_mb")
    if rss is not None:
        f3["detail"] += f"; the renderer's VmHWM (with Blink's, the code's) {rss:.0f} MB"
    return {"F1": first_figure_verdict(doc, profile), "F2": f2, "F3": f3}


def first_figure_verdict(doc: dict, profile: str = "phone") -> dict:
    """F1, and when it misses, whether the network alone forbids it: the bytes the page asked
    for before its first figure and before its offline fill (``stats.figure_requests``), at the
    profile's downlink, take longer than the limit allows (bounded by the network: only fewer
    bytes could hold it, not a faster deck)."""
    baseline = median(doc, "baseline.cold.figure")
    v = ratio_target(
        median(doc, "deck.cold.first_figure"),
        baseline,
        FIGURE_RATIO,
        "deck vs bare Pyodide, cold first figure",
    )
    before = median(doc, "bytes.deck.cold.before_figure")
    rate = PROFILES[profile].down_bytes_per_s if profile in PROFILES else None
    if before is None or not rate or not baseline:
        return v
    floor = before / rate
    v["detail"] += f"; {before / 2**20:.2f} MiB asked for before it: {floor:.1f} s of the link alone"
    if floor / baseline <= FIGURE_RATIO:
        return v
    return targets.bounded(
        v,
        f"the {before / 2**20:.2f} MiB the page asked for before its first figure (Pyodide, "
        f"numpy, matplotlib and the wheels Pyodide's lock makes them need, the page) take {floor:.1f} s "
        f"at {rate * 8 / 1e6:.0f} Mbit/s: {floor / baseline:.2f}× bare Pyodide's first figure before "
        "any of it is run",
        by="the network",
    )


def lecture_verdict(
    after_cpu: float | None, before_cpu: float | None, missing: list[str], floor_cpu: float | None = None
) -> dict:
    """F4: the lecture's CPU seconds under the phone policy against pre-running every cell (the
    medians of the same run), and the slides reached without their results (``missing``).

    ``floor_cpu``: the CPU seconds a visit pays whatever it pre-runs (the policy's visit less its
    cells' run time: the boot, numpy's and matplotlib's imports, the page's layout). When that
    floor alone is over the limit, no choice of what to run ahead can hold F4: a miss is marked
    bounded by the runtime, with the ratio a visit running no cell at all would reach."""
    if after_cpu is None or not before_cpu:
        return verdict(None, "not measured")
    ratio = after_cpu / before_cpu
    detail = (
        f"{after_cpu:.1f} CPU s vs {before_cpu:.1f} CPU s = {ratio:.2f}× "
        f"(limit {LECTURE_CPU_RATIO}×, {ratio - LECTURE_CPU_RATIO:+.2f}); "
        + (
            f"reached without results: {', '.join(missing)}"
            if missing
            else "every slide's results there when reached"
        )
    )
    v = verdict(ratio <= LECTURE_CPU_RATIO and not missing, detail)
    if floor_cpu is None or missing or floor_cpu / before_cpu <= LECTURE_CPU_RATIO:
        return v
    return targets.bounded(
        v,
        f"{floor_cpu:.1f} CPU s of every visit are not the cells' (boot, package imports, the page): "
        f"running no cell at all would cost {floor_cpu / before_cpu:.2f}×, over {LECTURE_CPU_RATIO}×: "
        "no policy of what to run ahead reaches it while every visit boots Pyodide and imports numpy "
        f"and matplotlib afresh (Pyodide {targets.PYODIDE} snapshots no loaded package: "
        "pyodide/pyodide#5195)",
    )


MEASURES = (  # (label, summary key, unit: s or MB)
    ("page ready (window.deck set), cold", "deck.cold.deck_ready", "s"),
    ("first output shown, warm (the last visit's)", "deck.warm.first_output", "s"),
    ("first figure, cold", "deck.cold.first_figure", "s"),
    ("bare Pyodide's first figure, cold", "baseline.cold.figure", "s"),
    ("the opening code slide's cells done, cold", "deck.cold.current_done", "s"),
    ("all cells done, cold", "deck.cold.all_done", "s"),
    ("longest task, cold (page ready → all done)", "deck.cold.longest_task", "s"),
    ("total blocking time, cold (page ready → all done)", "deck.cold.tbt", "s"),
    ("peak memory, cold: JS heaps + wasm (sampled; F3)", "deck.cold.heap_wasm_peak_mb", "MB"),
    ("  the Python worker's wasm memory, peak", "deck.cold.wasm_peak_mb", "MB"),
    ("  the workers' JS heaps, peak (sampled)", "deck.cold.worker_js_peak_mb", "MB"),
    ("  the main thread's JS heap, peak (sampled)", "deck.cold.js_heap_peak_mb", "MB"),
    ("peak memory, cold: renderer's VmHWM (also Blink, code)", "deck.cold.renderer_peak_mb", "MB"),
    ("memory at the end, cold: measureUserAgentSpecificMemory", "deck.cold.uasm_mb", "MB"),
    ("  of which the workers'", "deck.cold.uasm_workers_mb", "MB"),
)


def measures(doc: dict | None) -> str:
    """The phone profile's measures, medians with their range over the repetitions."""
    if doc is None:
        return ""
    lines = ["", "## The phone profile's measures (medians; min–max)"]
    for label, key, unit in MEASURES:
        st = doc.get("summary", {}).get(key)
        value = "–" if not st else f"{st['median']:.2f} {unit} ({st['min']:.2f}–{st['max']:.2f}, n={st['n']})"
        lines.append(f"  {label}: {value}")
    return "\n".join(lines)


def render(verdicts_: dict) -> str:
    """The verdicts as lines, as table.hall_targets prints the hall's."""
    lines = ["", "## The phone's targets (issue 49)"]
    lines += [targets.line(key, v, TARGETS[key]) for key, v in verdicts_.items()]
    return "\n".join(lines)
