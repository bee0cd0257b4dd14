"""The deck's prelude and cells under CPython, as the worker runs them (pyodide_pkg/cellrunner).

    python bench/cpython.py SNAPSHOT [--classify]     # one run, in this process: JSON on stdout

``run_cpython`` starts a fresh process per repetition. ``--classify`` also lists the probe
candidates (bench/diagnose/probe.py): numpy-only cells that run again and again right after the
prelude, drawing nothing.
"""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DRAWING_WORDS = re.compile(r"\b(matplotlib|pyplot|plt|plots)\b")


def run_one(session, code: str, cell_id: str) -> dict:
    """One cell through the runner: its own ``seconds``, the wall and CPU time, figures, error."""
    figures = [0]

    def emit(kind, payload):
        figures[0] += kind == "figure"

    t0, cpu0 = time.perf_counter(), time.process_time()
    result = session.run(code, cell_id, emit)
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    err = result.get("error") or {}
    return {
        "id": cell_id,
        "ok": bool(result.get("ok")),
        "seconds": result.get("seconds"),
        "wall": wall,
        "cpu": cpu,  # this process's CPU seconds: less disturbed than wall time on a busy machine
        "figures": figures[0],
        "error": None if result.get("ok") else f"{err.get('type')}: {err.get('message')}"[:500],
    }


def probe_candidates(session, prelude: str | None, cells: list[dict]) -> list[str]:
    """Cells that draw nothing, name no plotting module and run twice right after the prelude."""
    found = []
    for cell in cells:
        if cell["figures"] or not cell["ok"] or DRAWING_WORDS.search(cell["code"]):
            continue
        session.namespace.clear()
        session.namespace["__name__"] = "__main__"
        if prelude:
            run_one(session, prelude, "__prelude__")
        a, b = (run_one(session, cell["code"], cell["id"]) for _ in range(2))
        if a["ok"] and b["ok"] and not a["figures"]:
            found.append(cell["id"])
    return found


def child(snap: Path, classify: bool) -> dict:
    """Run the prelude and every cell as the deck does (call in a fresh process)."""
    os.environ["MPLBACKEND"] = "agg"
    sys.path[:0] = [str(ROOT), str(snap / "static" / "py"), str(snap / "pyodide_pkg")]
    import numpy

    from dpdeck.build.schema import load_deck

    deck = load_deck(snap / "deck" / "deck.yaml")
    out: dict = {"python": platform.python_version(), "numpy": numpy.__version__}
    session = _session()
    out["prelude"] = run_one(session, deck.prelude, "__prelude__") if deck.prelude else None
    t0 = time.perf_counter()
    session.prepare_matplotlib()
    out["prepare_matplotlib_s"] = time.perf_counter() - t0
    import matplotlib

    out["matplotlib"] = matplotlib.__version__
    out["cells"] = [
        run_one(session, s.code, s.id) | {"code": s.code} for s in deck.slides if s.code is not None
    ]
    out["modules"] = sorted({m.split(".")[0] for m in sys.modules})
    if classify:
        out["probe_candidates"] = probe_candidates(session, deck.prelude, out["cells"])
    return out


def _session():
    """The snapshot's cell runner: a ``cellrunner.Session``, or, in a snapshot from before the
    runner was a package (static/py/cellrunner.py), that module seen through the same calls."""
    import cellrunner

    if hasattr(cellrunner, "Session"):
        return cellrunner.Session()
    from types import SimpleNamespace

    return SimpleNamespace(
        run=cellrunner.run_cell,
        namespace=cellrunner.NAMESPACE,
        prepare_matplotlib=cellrunner.prepare_matplotlib,
    )


# What the child needs beside numpy and matplotlib (dpdeck.build.schema reads the deck's YAML).
CHILD_NEEDS = ("pyyaml",)


def pyodide_libs_python(lock: dict, cache: Path) -> tuple[str | None, str]:
    """A CPython with the numpy and matplotlib versions of Pyodide's ``lock`` (a venv under
    ``cache``, made once): the cells' time in the browser against CPython running the same
    library code, so the ratio is the runtime's (wasm, the worker), not two releases' speed.
    Returns (its python, what it has), or (None, why not) where it cannot be made (offline)."""
    versions = {name: lock["packages"][name]["version"] for name in ("numpy", "matplotlib")}
    label = ", ".join(f"{name} {v}" for name, v in versions.items())
    venv = cache / ("cpython-" + "-".join(f"{name}-{v}" for name, v in versions.items()))
    python, done = venv / "bin" / "python", venv / ".complete"
    if not done.exists():
        pins = [f"{name}=={v}" for name, v in versions.items()] + list(CHILD_NEEDS)
        for cmd in (
            [sys.executable, "-m", "venv", "--clear", str(venv)],
            [str(python), "-m", "pip", "install", "-q", *pins],
        ):
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            if proc.returncode != 0:
                return (
                    None,
                    f"no CPython with {label}: {' '.join(cmd[:4])} failed: {proc.stderr.strip()[-300:]}",
                )
        done.write_text(label + "\n")
    return str(python), label


def run_cpython(snap: Path, reps: int, classify: bool = False, python: str | None = None) -> list[dict]:
    """``reps`` runs, each in a fresh process of ``python`` (this one's by default; the first
    run classifies, if asked)."""
    runs = []
    for rep in range(reps):
        cmd = [python or sys.executable, str(Path(__file__).resolve()), str(snap)]
        cmd += ["--classify"] if classify and rep == 0 else []
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=str(snap), timeout=600)
        if proc.returncode != 0:
            raise SystemExit(f"error: the CPython run failed:\n{proc.stderr[-3000:]}")
        runs.append(json.loads(proc.stdout.strip().splitlines()[-1]))
    return runs


if __name__ == "__main__":
    print(json.dumps(child(Path(sys.argv[1]), "--classify" in sys.argv[2:])))
