"""dplab's hot paths under CPython against their budgets, in a fresh process each repetition.

    python bench/dplab_speed.py            # 5 repetitions
    python bench/dplab_speed.py --reps 9

What the deck asks of dplab between two slides: the census the prelude loads, 10 000 discrete
samples, and the privacy–utility curve (10 values of ε × 5 seeds of noisy gradient descent).
Each repetition is a new interpreter: dplab imported and the census made once, then each path
timed once, in this order. The median of each against its budget, held or missed with the
margin (bench/budget.py). These limits were unit tests until
a busy machine failed one (issue 32, item 7). Writes nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace

ROOT = Path(__file__).resolve().parents[1]
if __package__ in (None, ""):
    sys.path.insert(0, str(ROOT))

from bench.budget import median_line  # noqa: E402

# name → (budget in seconds, what is timed; ``d``: dplab, numpy and the census's features)
CHECKS = {
    "load_census() (the prelude's table of 5 000)": (0.05, lambda d: d.dplab.load_census()),
    "10 000 discrete Laplace samples (ε = 0,1)": (
        1.0,
        lambda d: d.dplab.discrete_laplace_mech(d.zeros, 1, 0.1),
    ),
    "10 000 discrete Gaussian samples (σ = 10)": (
        1.0,
        lambda d: d.dplab.discrete_gaussian_mech(d.zeros, 1, sigma=10),
    ),
    "privacy–utility curve: 10 ε × 5 seeds of noisy GD": (
        2.0,
        lambda d: [
            d.dplab.accuracy(d.dplab.noisy_gradient_descent(d.X, d.y, eps, rng=seed), d.X, d.y)
            for eps in d.np.logspace(-2, 1, 10)
            for seed in range(5)
        ],
    ),
}


def time_once() -> dict[str, float]:
    """Every check once, in this process (dplab imported and the census made first): name → seconds."""
    sys.path.insert(0, str(ROOT / "pyodide_pkg"))
    import dplab
    import numpy as np

    X, y = dplab.census_features(dplab.load_census())
    d = SimpleNamespace(dplab=dplab, np=np, zeros=np.zeros(10_000, dtype=int), X=X, y=y)
    seconds = {}
    for name, (_, timed) in CHECKS.items():
        start = time.perf_counter()
        timed(d)
        seconds[name] = time.perf_counter() - start
    return seconds


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="fresh processes (default 5)")
    parser.add_argument("--once", action="store_true", help=argparse.SUPPRESS)  # one run: JSON out
    args = parser.parse_args(argv)
    if args.once:
        print(json.dumps(time_once()))
        return
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}  # as in Pyodide
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, __file__, "--once"], env=env, check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(args.reps)
    ]
    print(
        f"dplab under CPython {sys.version.split()[0]}, {args.reps} fresh processes; load average "
        f"{os.getloadavg()[0]:.1f}"
    )
    for name, (limit, _) in CHECKS.items():
        print(median_line(name, [run[name] for run in runs], limit))


if __name__ == "__main__":
    main()
