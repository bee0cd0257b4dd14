"""From the raw visits of a run to what the table shows: medians, ratios, sums, verdicts.

``summarize(results)`` returns a JSON-able document: a flat ``summary`` (metric → median, min,
max, n: what ``--compare`` compares, with the same keys since the first run), the per-cell
comparison with CPython, the wheels, the targets' verdicts. No formatting here (bench/table.py).
"""

from __future__ import annotations

import re
import statistics

from bench import milestones as ms
from bench import targets

VISITS = {"baseline": ("cold", "warm"), "deck": ("cold", "warm", "third", "offline")}
BASELINE_KEYS = ("core", "numpy", "matplotlib", "figure")
DECK_KEYS = (
    "deck_ready",
    "core_ready",
    "core_ready_worker",
    "ready",
    "ready_worker",
    "first_cell",
    "first_output",
    "last_visit_all",
    "first_figure",
    "all_done",
    "current_done",
    "mpl_ready",
    "tbt",
    "longest_task",
)
# bare Pyodide's core and numpy ready are its worker's marks: the deck's on the worker's clock
RATIOS = (("core_ready_worker", "core"), ("ready_worker", "numpy"), ("first_figure", "figure"))
CPU_RATIO_LIMIT = 2.0  # target 5 (issue 32: was 3×)


def stats(values) -> dict | None:
    vals = [v for v in values if v is not None]
    if not vals:
        return None
    return {"median": statistics.median(vals), "min": min(vals), "max": max(vals), "n": len(vals)}


def ratio_stat(num: list, den: list) -> dict | None:
    """Stats of the per-repetition ratios num[i] / den[i]."""
    return stats([a / b for a, b in zip(num, den, strict=False) if a is not None and b])


def seconds(rows: list[dict], key: str) -> list[float | None]:
    return [None if r.get(key) is None else r[key] / 1000.0 for r in rows]


def time_summary(base: dict, deck: dict) -> dict:
    """Milestones in seconds per visit kind, and deck/baseline ratios per repetition."""
    s = {
        f"baseline.{kind}.{key}": stats(seconds(base[kind], key))
        for kind in VISITS["baseline"]
        for key in BASELINE_KEYS
    }
    s |= {
        f"deck.{kind}.{key}": stats(seconds(deck[kind], key)) for kind in VISITS["deck"] for key in DECK_KEYS
    }
    s |= {
        f"ratio.{kind}.{dk}": ratio_stat(seconds(deck[kind], dk), seconds(base[kind], bk))
        for kind in ("cold", "warm")
        for dk, bk in RATIOS
    }
    return s


MEMORY_KEYS = (
    "heap_wasm_peak",
    "worker_js_peak",
    "wasm_peak",
    "js_heap_peak",
    "renderer_peak",
    "uasm",
    "uasm_workers",
)  # bench/browser.py's MemoryWatch (the phone profile)


def memory_summary(deck: dict) -> dict:
    """The sampled memory peaks per visit kind, in MB (10⁶ bytes): ``deck.<kind>.<key>_mb``."""
    return {
        f"deck.{kind}.{key}_mb": stats([None if r.get(key) is None else r[key] / 1e6 for r in rows])
        for kind, rows in deck.items()
        for key in MEMORY_KEYS
    }


def lecture_requests(v: dict, until: str = "all_done") -> list[dict]:
    """A visit's requests up to the moment its last cell had a result (all of them when that
    never came, or for the baseline): what the lecture needed. After it, the deck's service
    worker fills its offline copy at low priority; those bytes are counted apart. ``until``:
    another of the deck's milestones (``first_figure``: what the first figure waited for)."""
    done = ms.deck_milestones(v)[until] if "cellIds" in v and v.get("timeOrigin") else None
    if done is None:
        return v["server"]
    cutoff = (v["timeOrigin"] + done) / 1000.0
    return [e for e in v["server"] if e["t0"] <= cutoff]


def figure_requests(v: dict) -> list[dict]:
    """A cold visit's requests before its first figure and before the page asked for its
    service worker (``sw.js``: the offline fill follows, which the figure does not wait for; the
    fill's own fetches also escape the page's throttling). Not all of them were needed by the
    figure (the page's fonts and scripts), so the floor they give is a floor."""
    before = lecture_requests(v, "first_figure")
    sw = [e["t0"] for e in v["server"] if e["path"].split("?", 1)[0].endswith("/sw.js")]
    return [e for e in before if not sw or e["t0"] < min(sw)]


def bytes_stats(results: dict) -> tuple[dict, dict]:
    """Per visit kind, the server's bytes summaries (up to the last cell's result); and the
    summary's bytes.* entries, with the deck's cold total including the offline fill apart."""
    b = {
        f"{who}_{kind}": [ms.bytes_summary(lecture_requests(v)) for v in results[who][kind]]
        for who in ("baseline", "deck")
        for kind in ("cold", "warm")
    }
    s = {
        f"bytes.{who}.cold.{t}": stats([x["by_type"][t] for x in b[f"{who}_cold"]])
        for who in ("deck", "baseline")
        for t in ms.FILE_TYPES
    }
    s |= {
        f"bytes.{who}.{kind}.total": stats([x["total"] for x in b[f"{who}_{kind}"]])
        for who in ("deck", "baseline")
        for kind in ("cold", "warm")
    }
    # F1's floor: what the first figure waited for, which the link had to carry first
    s["bytes.deck.cold.before_figure"] = stats(
        [ms.bytes_summary(figure_requests(v))["total"] for v in results["deck"]["cold"]]
    )
    s["bytes.deck.cold.with_fill"] = stats(
        [ms.bytes_summary(v["server"])["total"] for v in results["deck"]["cold"]]
    )
    return b, s


def warm_over_cold(base: dict, deck: dict) -> dict:
    """Per milestone, the per-repetition ratio warm / cold."""
    return {
        f"{who}.{key}": ratio_stat(seconds(rows["warm"], key), seconds(rows["cold"], key))
        for who, rows, keys in (("baseline", base, BASELINE_KEYS), ("deck", deck, DECK_KEYS))
        for key in keys
    }


def cell_rows(deck: dict, cpython: list[dict]) -> list[dict]:
    """Per cell: its runner ``seconds`` in the browser (cold, warm) and under CPython."""

    def per_rep(runs, cid):
        return [next((c["seconds"] for c in r["cells"] if c["id"] == cid and c["ok"]), None) for r in runs]

    ids = [c["id"] for c in (cpython[0]["cells"] if cpython else [])]
    return [
        {
            "id": cid,
            "cold": stats(per_rep(deck["cold"], cid)),
            "warm": stats(per_rep(deck["warm"], cid)),
            "cpython": stats(per_rep(cpython, cid)),
        }
        for cid in ids
    ]


def cell_sums(rows: list[dict]) -> dict:
    """Sums of per-cell medians and minima over the cells that ran everywhere, and ratios."""
    kept = [r for r in rows if r["cold"] and r["warm"] and r["cpython"]]
    sums = {
        f"{agg}.{k}": sum(r[k][agg] for r in kept)
        for agg in ("median", "min")
        for k in ("cold", "warm", "cpython")
    }
    for agg in ("median", "min"):
        for kind in ("cold", "warm"):
            den = sums[f"{agg}.cpython"]
            sums[f"ratio_{agg}.{kind}"] = sums[f"{agg}.{kind}"] / den if den else None
    sums["excluded"] = [r["id"] for r in rows if r not in kept]
    return sums


def cells_summary(sums: dict, prefix: str = "cells") -> dict:
    return {
        f"{prefix}.browser_over_cpython.cold": stats([sums["ratio_median.cold"]]),
        f"{prefix}.browser_over_cpython.warm": stats([sums["ratio_median.warm"]]),
        f"{prefix}.browser_over_cpython_min.cold": stats([sums["ratio_min.cold"]]),
        f"{prefix}.browser_over_cpython_min.warm": stats([sums["ratio_min.warm"]]),
        f"{prefix}.sum.cold": stats([sums["median.cold"]]),
        f"{prefix}.sum.cpython": stats([sums["median.cpython"]]),
    }


def failures(deck: dict, cpython: list[dict]) -> list[str]:
    found = sorted(
        {
            f"{c['id']}: {c['error']}"
            for kind in ("cold", "warm")
            for r in deck[kind]
            for c in r["cells"]
            if not c["ok"]
        }
    )
    return found + sorted(
        {f"{c['id']} (CPython): {c['error']}" for run in cpython for c in run["cells"] if not c["ok"]}
    )


def false_waits(regex: str | None, cpython: list[dict]) -> list[str]:
    """Numpy-only cells (no figure under CPython) that the worker's NEEDS_MATPLOTLIB matches."""
    if not regex or not cpython:
        return []
    test = re.compile(regex)
    return [c["id"] for c in cpython[0]["cells"] if not c["figures"] and test.search(c["code"])]


def first_modules(visits: list[dict], read) -> list[str] | None:
    return next((m for m in (read(v.get("diag")) for v in visits) if m), None)


def wheels(results: dict, deck_cold_bytes: list[dict]) -> list[dict]:
    """The deck's cold-load wheels against the modules the deck (and the baseline) imported."""
    modules = first_modules(results["deck"]["warm"], ms.parse_modules)
    base = first_modules(results["baseline"]["cold"], lambda d: (d or {}).get("modules"))
    loaded = deck_cold_bytes[0]["wheels"] if deck_cold_bytes else {}
    return ms.wheel_needs(results["lock_imports"], loaded, modules, base)


def foreign_load(results: dict) -> dict | None:
    return stats(
        v.get("foreign_cores")
        for who, kinds in VISITS.items()
        for k in kinds
        for v in results[who].get(k, [])
    )


def visit_errors(results: dict) -> list[str]:
    return [
        f"{who} {kind}: {v.get('error') or v.get('fatal')}"
        for who in VISITS
        for kind in ("cold", "warm")
        for v in results[who][kind]
        if v.get("error") or v.get("fatal")
    ]


def summarize(results: dict) -> dict:
    """Raw visits of a run → the document the table is printed from and the JSON keeps."""
    base = {k: [ms.baseline_milestones(v) for v in results["baseline"][k]] for k in VISITS["baseline"]}
    deck = {k: [ms.deck_milestones(v) for v in results["deck"].get(k, [])] for k in VISITS["deck"]}
    b, s = bytes_stats(results)
    rows = cell_rows(deck, results["cpython"])
    sums = cell_sums(rows)
    same_libs = results.get("cpython_pyodide_libs") or []
    sums_same = cell_sums(cell_rows(deck, same_libs)) if same_libs else None
    summary = {"foreign_cores": foreign_load(results)} | time_summary(base, deck) | s | cells_summary(sums)
    summary |= memory_summary(deck)
    if sums_same:
        summary |= cells_summary(sums_same, "cells.pyodide_libs")
    for kind, visits in results.get("next", {}).items():  # a newer bare Pyodide: its core ready
        summary[f"next.{kind}.core"] = stats(seconds([ms.baseline_milestones(v) for v in visits], "core"))
    doc = {
        "summary": {k: v for k, v in summary.items() if v},
        "cells": rows,
        "sums": sums,
        # the same, against CPython with Pyodide's numpy and matplotlib (bench/cpython.py)
        "sums_pyodide_libs": sums_same,
        "cpython_pyodide_libs": {k: same_libs[0].get(k) for k in ("python", "numpy", "matplotlib")}
        if same_libs
        else None,
        "warm_over_cold": warm_over_cold(base, deck),
        "wheels": wheels(results, b["deck_cold"]),
        "requests": {k: [x["requests"], x["not_modified"]] for k, v in b.items() for x in v[:1]},
        "first_figure_cells": sorted(
            {r["first_figure_cell"] for k in ("cold", "warm") for r in deck[k] if r["first_figure_cell"]}
        ),
        "false_waits": false_waits(results.get("worker_regex"), results["cpython"]),
        "failures": failures(deck, results["cpython"]),
        "errors": visit_errors(results),
        "offline": offline_runs(deck.get("offline", [])),
        "visits": {"baseline": base, "deck": strip_cells(deck)},
    }
    doc["verdicts"] = verdicts(doc)
    return doc


def offline_runs(rows: list[dict]) -> list[dict]:
    """Per offline visit (the network off from before navigation): how many cells ran ok."""
    return [
        {
            "cells": len(r["cells"]),
            "ok": sum(1 for c in r["cells"] if c["ok"]),
            "failed": [c["id"] for c in r["cells"] if not c["ok"]][:8],
            "error": r["error"],
        }
        for r in rows
    ]


def strip_cells(deck: dict) -> dict:
    """The deck's milestones per visit, without the per-cell lists (kept once, in ``cells``)."""
    return {k: [{f: v for f, v in r.items() if f != "cells"} for r in rows] for k, rows in deck.items()}


# ---------------------------------------------------------------------------- the targets


def verdict(ok: bool | None, detail: str) -> dict:
    return {"ok": ok, "detail": detail}


def target_first_figure(s: dict) -> dict:
    d, b = s.get("deck.cold.first_figure"), s.get("baseline.cold.figure")
    if not (d and b):
        return verdict(None, "no figure measured")
    d, b = d["median"], b["median"]
    return verdict(d <= b, f"deck {d:.2f} s vs baseline {b:.2f} s ({d / b:.2f}×, {d - b:+.2f} s)")


def target_warm(s: dict) -> dict:
    c, w = s.get("deck.cold.first_figure"), s.get("deck.warm.first_figure")
    if not (c and w):
        return verdict(None, "no figure measured")
    c, w = c["median"], w["median"]
    return verdict(
        w <= c / 2,
        f"warm {w:.2f} s vs cold {c:.2f} s ({w / c:.2f}×; half would be {c / 2:.2f} s, {w - c / 2:+.2f} s)",
    )


def target_no_wait(waiting: list[str]) -> dict:
    if waiting:
        return verdict(
            False,
            f"numpy-only cells sent to wait for matplotlib by the worker's "
            f"NEEDS_MATPLOTLIB test: {', '.join(waiting)}",
        )
    return verdict(
        None,
        "no numpy-only cell matches the worker's NEEDS_MATPLOTLIB test; "
        "the waits themselves: python bench/diagnose/probe.py",
    )


def target_wheels(rows: list[dict]) -> dict:
    if any(w["imported"] is None for w in rows):
        return verdict(None, "no module list")
    unused = [w for w in rows if w["imported"] is False]
    if not unused:
        return verdict(True, "all imported")
    mib = sum(w["bytes"] for w in unused) / (1 << 20)
    return verdict(
        False,
        f"{len(unused)} wheel(s) never imported, {mib:.2f} MiB: "
        + ", ".join(w["wheel"].split("-")[0] for w in unused),
    )


def _cpython_ratios(sums: dict) -> str:
    return (
        f"{sums['ratio_median.cold']:.2f}× cold, {sums['ratio_median.warm']:.2f}× warm on sums of medians "
        f"({sums['median.cold']:.3f} s vs {sums['median.cpython']:.3f} s); on sums of "
        f"minima {sums['ratio_min.cold']:.2f}× cold, {sums['ratio_min.warm']:.2f}× warm"
    )


def target_cpython(sums: dict, same_libs: dict | None = None, libs: dict | None = None) -> dict:
    """The browser within CPU_RATIO_LIMIT of CPython, on the cold sums of medians and of minima.
    Judged against CPython running Pyodide's numpy and matplotlib (``same_libs``, ``libs``: their
    versions) where that was measured: the same library code on both sides, so what is compared
    is the runtime. Against this machine's CPython libraries (``sums``) it is shown beside it."""
    if sums["ratio_median.cold"] is None:
        return verdict(None, "no cell ran everywhere")
    judged = same_libs if same_libs and same_libs["ratio_median.cold"] is not None else sums
    held = max(judged["ratio_median.cold"], judged["ratio_min.cold"] or 0) <= CPU_RATIO_LIMIT
    if judged is sums:
        return verdict(held, _cpython_ratios(sums))
    versions = f"numpy {libs.get('numpy')}, matplotlib {libs.get('matplotlib')}" if libs else "Pyodide's"
    return verdict(
        held,
        f"like for like (CPython with {versions}): {_cpython_ratios(same_libs)}; "
        f"against this machine's CPython libraries: {_cpython_ratios(sums)}",
    )


def verdicts(doc: dict) -> dict:
    s = doc["summary"]
    return {
        1: target_first_figure(s),
        2: targets.bounded(target_warm(s), targets.RUNTIME_BOUNDS["snapshot"]),  # hall's P4, per profile
        3: target_no_wait(doc["false_waits"]),
        4: target_wheels(doc["wheels"]),
        5: targets.bounded(
            target_cpython(doc["sums"], doc.get("sums_pyodide_libs"), doc.get("cpython_pyodide_libs")),
            targets.RUNTIME_BOUNDS["simd"],
        ),
    }
