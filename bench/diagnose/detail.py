#!/usr/bin/env python3
"""One bare-Pyodide visit with the imports split module by module, plus the deck's own steps.

    python bench/diagnose/detail.py

bench/baseline.html?mode=detail, cold: the baseline's sequence with `import matplotlib.pyplot`
split into its modules, the dplab wheel, `import dplab` and the prelude; per step, how much
Python spent compiling .py source to bytecode; each module's own import time (the smallest
pieces a background import could be cut into); the matplotlib font cache, built anew vs read.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path[:] = [str(Path(__file__).resolve().parents[2])] + sys.path[1:]

from bench.diagnose.common import parser, timed_visit  # noqa: E402
from bench.session import session  # noqa: E402
from bench.table import Table  # noqa: E402

COLUMNS = (44, 24, 24)


def steps(t: Table, detail: dict) -> None:
    t.row("  step", "wall", "of it compiling .py", widths=COLUMNS)
    for step in detail["steps"]:
        comp = (
            ""
            if step.get("compileMs") is None
            else f"{step['compileMs']:.0f} ms ({step.get('compiled', 0)} mod.)"
        )
        t.row("  " + step["name"], f"{step['ms']:.0f} ms", comp, widths=COLUMNS)
    total = sum(st["ms"] for st in detail["steps"])
    compiling = sum(st.get("compileMs") or 0 for st in detail["steps"])
    t.row("  all steps above", f"{total:.0f} ms", f"{compiling:.0f} ms", widths=COLUMNS)
    m = detail["marks"]
    if m.get("dplab-wheel-ready") and m.get("numpy-ready"):
        t.row("  loadPackage(dplab wheel)", f"{m['dplab-wheel-ready'] - m['numpy-ready']:.0f} ms")


def extras(t: Table, diag: dict) -> None:
    if fc := diag.get("fontCache"):
        t.row(
            "  font cache: build anew / read a cached one",
            f"{fc['rebuild_ms']:.0f} / {fc['read_cached_ms']:.0f} ms",
        )
    if mods := diag.get("moduleImports"):
        over = [m for m in mods if m[0] > 100]
        t.text(
            f"  each module's own import time (without what it imports), {len(mods)} modules "
            f"imported in all; {len(over)} take > 100 ms:"
        )
        t.text("    " + ", ".join(f"{name} {ms:.0f}" for ms, name in mods[:8]) + " (ms)")
    if diag.get("secondFigureMs") is not None:
        t.row("  second figure (everything imported)", f"{diag['secondFigureMs']:.0f} ms")


def render(detail: dict) -> str:
    t = Table()
    t.title("One detailed baseline visit (cold; ms per step, measured inside Pyodide)")
    if detail.get("error"):
        t.text(f"  ! {detail['error']}")
        return str(t)
    steps(t, detail)
    extras(t, detail.get("diag") or {})
    return str(t)


def main(argv=None) -> int:
    args = parser(__doc__).parse_args(argv)
    with session(args) as s:
        detail = timed_visit(
            s, "detailed baseline visit (cold)", s.folder("detail"), s.base_url + "?mode=detail"
        )
    print(render(detail))
    return 0


if __name__ == "__main__":
    sys.exit(main())
