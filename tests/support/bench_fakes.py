"""Small made-up visit reports, shaped as bench/instrument.js, bench/baseline.js and the
counting server produce them, for the benchmark's unit tests."""

from __future__ import annotations


def server_log(files: dict[str, int]) -> list[dict]:
    return [{"path": path, "status": 200, "bytes": n, "t0": 0.0, "t1": 0.1} for path, n in files.items()]


def baseline_visit(scale: float = 1.0) -> dict:
    marks = {
        "worker-start": 100,
        "mjs-imported": 200,
        "core-ready": 2000,
        "numpy-ready": 2500,
        "matplotlib-ready": 4000,
        "figure-drawn": 5000,
        "figure-received": 5100,
    }
    return {
        "marks": {k: v * scale for k, v in marks.items()},
        "error": None,
        "server": server_log(
            {"/vendor/p/pyodide.asm.wasm": 9 << 20, "/vendor/p/numpy-2.0.2-cp312.whl": 3 << 20}
        ),
        "foreign_cores": 0.1,
        "diag": {"modules": ["numpy", "matplotlib"]},
    }


def deck_visit(scale: float = 1.0, cell_seconds=(0.2, 0.5), modules=None) -> dict:
    """Two cells: c1 (numpy only) and c2 (draws a figure)."""
    runs = [
        {
            "id": 1,
            "cellId": "c1",
            "requested": 500,
            "running": 1900 * scale,
            "result": 2000 * scale,
            "ok": True,
            "seconds": cell_seconds[0],
        },
        {
            "id": 2,
            "cellId": "c2",
            "requested": 500,
            "running": 3000 * scale,
            "result": 3500 * scale,
            "ok": True,
            "seconds": cell_seconds[1],
        },
    ]
    diag = None if modules is None else {"ok": True, "value": repr(sorted(modules))}
    return {
        "marks": {"ready": 1800 * scale, "deckReady": 600 * scale},
        "statuses": [
            {"t": 300, "at": 290, "state": "loading", "gen": 1},
            {"t": 1400 * scale, "at": 1300 * scale, "state": "loading", "gen": 1},
            {"t": 1800 * scale, "at": 1750 * scale, "state": "ready", "gen": 1},
        ],
        "runs": runs,
        "cellIds": ["c1", "c2"],
        "diag": diag,
        "figures": [{"t": 3400 * scale, "id": 2, "cellId": "c2"}],
        "server": server_log(
            {
                "/vendor/p/pyodide.asm.wasm": 9 << 20,
                "/index.html": 2048,
                "/vendor/p/numpy-2.0.2-cp312.whl": 3 << 20,
            }
        ),
        "foreign_cores": 0.2,
    }


def cpython_run(cell_seconds=(0.1, 0.25)) -> dict:
    return {
        "python": "3.11",
        "numpy": "2.0",
        "matplotlib": "3.8",
        "cells": [
            {
                "id": "c1",
                "ok": True,
                "seconds": cell_seconds[0],
                "figures": 0,
                "code": "x = np.zeros(3)",
                "error": None,
            },
            {
                "id": "c2",
                "ok": True,
                "seconds": cell_seconds[1],
                "figures": 1,
                "code": "plt.plot(x)",
                "error": None,
            },
        ],
    }


def results(reps: int = 3) -> dict:
    """A whole run: ``reps`` visits of each kind, the warm deck listing its modules."""
    return {
        "meta": {
            "date": "2026-12-01T08:00:00",
            "chromium": "Chromium 156",
            "pyodide": "0.27.7",
            "cores": 2,
            "deck_title": "dp",
            "cells": 2,
            "static": "static-abc",
            "git": "abc123",
            "niceness": 0,
            "profile": "local",
            "reps": reps,
            "elapsed_s": 60.0,
        },
        "cpython": [cpython_run() for _ in range(reps)],
        "lock_imports": {"numpy-2.0.2-cp312.whl": ["numpy"]},
        "worker_regex": r"(?i)\bplt\b",
        "baseline": {
            "cold": [baseline_visit(1 + i / 10) for i in range(reps)],
            "warm": [baseline_visit(0.8) for _ in range(reps)],
        },
        "deck": {
            "cold": [deck_visit(1 + i / 10) for i in range(reps)],
            "warm": [deck_visit(0.4, modules=["numpy", "sys"]) for _ in range(reps)],
            "third": [deck_visit(0.4) for _ in range(reps)],
        },
    }
