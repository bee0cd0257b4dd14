"""The cells' own run time under CPython, this tree against git commit REF, in one run.

    python bench/cells.py                     # against main, 5 repetitions
    python bench/cells.py --before HEAD~1 --reps 7 --top 10

Both trees are snapshotted (bench/prepare.py) and run by ``bench/cpython.py`` (the prelude,
``prepare_matplotlib()``, then every cell through the snapshot's ``cellrunner.Session``, a fresh
process each time), alternating before and after, so that a machine that gets busier or
quieter part-way disturbs both alike. Prints per cell the median of the runner's own
``seconds`` (and the minimum, the least disturbed by other work), slowest first, with the
after/before ratio, and the sums over all cells; then this tree against the cells' budget
under CPython (BUDGET), held or missed with its margin. Writes nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench import prepare
from bench.budget import budget_line
from bench.cpython import run_cpython
from bench.procstat import foreign_cores, processes

# The cells' budget under CPython, seconds of the runner's own time (medians): every cell of the
# deck in all, and the slowest one. The browser runs them some 2–3× slower (bench/startup.py),
# so this keeps a full pre-run within a lecture's patience with room to spare.
BUDGET = {"all cells": 20.0, "slowest cell": 3.0}


def per_cell(runs: list[dict], key: str) -> dict[str, list[float]]:
    """cell id → its ``key`` (``seconds``, the runner's own; ``cpu``) in each run where it succeeded."""
    times: dict[str, list[float]] = {}
    for run in runs:
        for cell in run["cells"]:
            if cell["ok"] and cell.get(key) is not None:
                times.setdefault(cell["id"], []).append(cell[key])
    return times


def table(before: dict[str, list[float]], after: dict[str, list[float]], top: int) -> list[str]:
    """The per-cell rows (slowest before first), then the sums of medians and of minima."""
    ids = sorted(set(before) & set(after), key=lambda i: -statistics.median(before[i]))
    lines = [
        f"{'cell':<42} {'before med':>10} {'after med':>10} {'ratio':>6} {'before min':>10} {'after min':>10}",
    ]

    def row(name, b_med, a_med, b_min, a_min):
        lines.append(
            f"{name:<42} {b_med:>10.3f} {a_med:>10.3f} {a_med / b_med:>6.2f} {b_min:>10.3f} {a_min:>10.3f}"
        )

    for i in ids[:top]:
        row(i, statistics.median(before[i]), statistics.median(after[i]), min(before[i]), min(after[i]))
    sums = [sum(f(d[i]) for i in ids) for d in (before, after) for f in (statistics.median, min)]
    row(f"all {len(ids)} cells (sum)", sums[0], sums[2], sums[1], sums[3])
    return lines


def budget(after: dict[str, list[float]]) -> list[str]:
    """This tree's sum of medians and slowest median against BUDGET: held or missed, by how much."""
    medians = {i: statistics.median(v) for i, v in after.items()}
    slowest = max(medians, key=medians.get)
    return [
        budget_line("all cells", sum(medians.values()), BUDGET["all cells"]),
        budget_line(f"slowest cell ({slowest})", medians[slowest], BUDGET["slowest cell"]),
    ]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", default="main", help="git commit to compare with (default main)")
    parser.add_argument("--reps", type=int, default=5, help="repetitions of each tree (default 5)")
    parser.add_argument("--top", type=int, default=12, help="cells listed, slowest first (default 12)")
    args = parser.parse_args(argv)
    for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[name] = "1"  # one thread, as in Pyodide (the child processes inherit it)
    with tempfile.TemporaryDirectory(prefix="dpdeck-cells-") as tmp:
        work = Path(tmp)
        trees = {"before": prepare.snapshot_ref(work, args.before), "after": prepare.snapshot_project(work)}
        runs: dict[str, list[dict]] = {"before": [], "after": []}
        procs, t0, load = processes(), time.time(), os.getloadavg()
        for rep in range(args.reps):
            for name, snap in trees.items():
                print(f"repetition {rep + 1}/{args.reps}: {name}…", file=sys.stderr, flush=True)
                runs[name] += run_cpython(snap, 1)
        busy = foreign_cores(procs, processes(), time.time() - t0)
    after = runs["after"][0]
    print(
        f"CPython {after['python']}, numpy {after['numpy']}, matplotlib {after['matplotlib']}; "
        f"{args.reps} repetitions of each tree, alternating; before = {args.before}, after = this tree"
    )
    print(
        f"other processes used {busy or 0:.2f} of the machine's cores meanwhile (those still running at "
        f"the end); load average {load[0]:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    )
    for key, what in (
        ("seconds", "wall seconds per cell (the runner's own)"),
        ("cpu", "CPU seconds per cell"),
    ):
        print(f"\n{what}")
        print("\n".join(table(per_cell(runs["before"], key), per_cell(runs["after"], key), args.top)))
    print("\nthis tree against the cells' budget under CPython (medians of the runner's own seconds)")
    print("\n".join(budget(per_cell(runs["after"], "seconds"))))


if __name__ == "__main__":
    main()
