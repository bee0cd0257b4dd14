"""What one visit's raw report says: milestones in ms since navigation, cells, bytes, modules.

Pure functions of the reports that bench/instrument.js (deck), bench/baseline.js (baseline) and
the counting server produce; no browser needed (tests feed them small made-up reports).
"""

from __future__ import annotations

import ast

FILE_TYPES = ("wasm", "js", "zip", "whl", "css", "font", "other")
SUFFIXES = (
    (".wasm", "wasm"),
    (".mjs", "js"),
    (".js", "js"),
    (".zip", "zip"),
    (".whl", "whl"),
    (".css", "css"),
    (".woff2", "font"),
    (".woff", "font"),
    (".ttf", "font"),
    (".otf", "font"),
)
BASELINE_MARKS = {
    "worker_start": "worker-start",
    "mjs": "mjs-imported",
    "core": "core-ready",
    "numpy": "numpy-ready",
    "matplotlib": "matplotlib-ready",
    "figure_drawn": "figure-drawn",
    "figure": "figure-received",
}


def file_type(path: str) -> str:
    name = path.split("?", 1)[0].lower()
    return next((kind for suffix, kind in SUFFIXES if name.endswith(suffix)), "other")


def bytes_summary(server: list[dict]) -> dict:
    """The server's log of one visit → bytes in all, per file type and per wheel; requests."""
    by_type = dict.fromkeys(FILE_TYPES, 0)
    wheels: dict[str, int] = {}
    for e in server:
        n, kind = e["bytes"] or 0, file_type(e["path"])
        by_type[kind] += n
        if kind == "whl":
            name = e["path"].rsplit("/", 1)[-1]
            wheels[name] = wheels.get(name, 0) + n
    return {
        "total": sum(by_type.values()),
        "by_type": by_type,
        "wheels": wheels,
        "requests": len(server),
        "not_modified": sum(1 for e in server if e["status"] == 304),
    }


def baseline_milestones(v: dict) -> dict:
    marks = v.get("marks", {})
    return {key: marks.get(mark) for key, mark in BASELINE_MARKS.items()} | {
        "zero": 0.0,
        "error": v.get("error"),
    }


def first_results(v: dict) -> dict[str, dict]:
    """Each cell's first run that produced a result: cell id → run record."""
    ids, found = set(v.get("cellIds") or []), {}
    for r in sorted(v["runs"], key=lambda r: r.get("result") or 1e18):
        if r.get("cellId") in ids and r.get("result") is not None:
            found.setdefault(r["cellId"], r)
    return found


def mpl_ready_time(runs: list[dict], figures: list[dict], ready: float | None) -> float | None:
    """When the deck's matplotlib was ready, as far as the page can tell: the moment the worker
    started the first run that drew a figure (it holds drawing cells until matplotlib is loaded
    and pyplot imported), if that run was asked for before then; otherwise unknown."""
    if ready is None or not figures:
        return None
    fig_ids = {f["id"] for f in figures}
    drawn = [
        r
        for r in runs
        if r["id"] in fig_ids
        and r.get("running") is not None
        and r.get("requested") is not None
        and r["running"] >= ready
    ]
    if not drawn:
        return None
    first = min(drawn, key=lambda r: r["running"])
    return first["running"] if first["requested"] < first["running"] - 20 else None


def deck_cells(v: dict, first: dict[str, dict]) -> list[dict]:
    figures: dict[int, int] = {}
    for f in v["figures"]:
        figures[f["id"]] = figures.get(f["id"], 0) + 1
    cells = []
    for cid in v.get("cellIds") or []:
        r = first.get(cid) or {}
        cells.append(
            {
                "id": cid,
                "ok": r.get("ok"),
                "seconds": r.get("seconds"),
                "figures": figures.get(r.get("id"), 0),
                "error": r.get("error") if r else "no result",
            }
        )
    return cells


LONG_TASK_MS = 50  # a task longer than this blocks input (the "long task" of the web's APIs)


def blocking(long_tasks: list, start: float | None, end: float | None) -> tuple[float | None, float | None]:
    """Total blocking time (the sum of each task's excess over 50 ms) and the longest task, in
    ms, of the main thread's long tasks ``[start, duration]`` that began in [start, end]."""
    if start is None or end is None:
        return None, None
    inside = [d for t, d in long_tasks if start <= t <= end]
    return sum(max(0.0, d - LONG_TASK_MS) for d in inside), max(inside, default=0.0)


def current_done(v: dict, first: dict[str, dict]) -> float | None:
    """When the last of the opening slide's cells (instrument.js ``currentCellIds``: the first
    code slide at or after it) had its first result; None if one never had."""
    ids = v.get("currentCellIds") or []
    if not ids or not set(ids) <= set(first):
        return None
    return max(first[i]["result"] for i in ids)


def deck_milestones(v: dict) -> dict:
    """A deck visit's milestones (ms since navigation) and its cells' first results."""
    ids, first = v.get("cellIds") or [], first_results(v)
    gen1 = [s for s in v["statuses"] if s.get("gen", 1) == 1]
    core = gen1[1] if len(gen1) > 1 and gen1[1]["state"] == "loading" else {}
    ready = v["marks"].get("ready")
    ready_status = next((s for s in v["statuses"] if s["state"] == "ready"), {})
    first_fig = min(v["figures"], key=lambda f: f["t"]) if v["figures"] else {}
    all_done = max(first[i]["result"] for i in ids) if ids and set(ids) <= set(first) else None
    tbt, longest = blocking(v.get("longTasks") or [], v["marks"].get("deckReady"), all_done)
    # the first output on screen: the last visit's (a warm visit; lastrun.js) or a live one
    shown = [t for t in (v["marks"].get("lastVisitShown"), first_fig.get("t")) if t is not None]
    shown += [r["result"] for r in first.values()]
    return {
        "zero": 0.0,
        "deck_ready": v["marks"].get("deckReady"),
        "ready": ready,
        # heard by the page: later than the worker said it while the page's main thread is busy
        "core_ready": core.get("t"),
        # said by the worker, on its own clock: as bare Pyodide's marks are taken (its worker's)
        "core_ready_worker": core.get("at"),
        "ready_worker": ready_status.get("at"),
        "first_cell": first[ids[0]]["result"] if ids and ids[0] in first else None,
        "first_output": min(shown, default=None),
        "last_visit_all": v["marks"].get("lastVisitAll"),  # the last of the last visit's outputs shown
        "first_figure": first_fig.get("t"),
        "first_figure_cell": first_fig.get("cellId"),
        "all_done": all_done,
        "current_done": current_done(v, first),
        "tbt": tbt,
        "longest_task": longest,
        "mpl_ready": mpl_ready_time(v["runs"], v["figures"], ready),
        "cells": deck_cells(v, first),
        "error": v.get("error") or v.get("fatal"),
        "foreign_cores": v.get("foreign_cores"),
    } | (v.get("memory") or {})  # the phone profile's (bench/browser.py's MemoryWatch)


def parse_modules(diag: dict | None) -> list[str] | None:
    """The deck's ``sys.modules`` listing (bench's one diagnostic snippet), if it ran."""
    if not diag or not diag.get("ok") or not diag.get("value"):
        return None
    try:
        return list(ast.literal_eval(diag["value"]))
    except (ValueError, SyntaxError):
        return None


def lock_imports(lock: dict) -> dict[str, list[str]]:
    """wheel file name → the top-level modules it provides (pyodide-lock.json's "imports")."""
    return {p["file_name"]: p.get("imports") or [] for p in lock["packages"].values()}


def wheel_needs(
    imports_of: dict[str, list[str]],
    wheels: dict[str, int],
    modules: list[str] | None,
    base_modules: list[str] | None = None,
) -> list[dict]:
    """Each wheel of a load, largest first: is any module it provides ever imported?"""

    def used(imports, mods):
        return None if mods is None else any(i in mods for i in imports)

    out = []
    for name, size in sorted(wheels.items(), key=lambda kv: -kv[1]):
        imports = imports_of.get(name) or [name.split("-")[0]]
        out.append(
            {
                "wheel": name,
                "bytes": size,
                "imports": imports,
                "imported": used(imports, modules),
                "baseline_imported": used(imports, base_modules),
            }
        )
    return out
