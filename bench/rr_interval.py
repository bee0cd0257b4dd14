"""Exact coverage of the poll estimate's 95 % interval: the old normal one beside Wilson's.

    .venv/bin/python bench/rr_interval.py

No sampling: for a hall of n reports whose true share of «sí» is π, the randomized «sí» count is
Binomial(n, λ), λ = q + π (p - q); the coverage is the sum of the binomial probabilities of the
counts whose interval holds π. Both intervals are of ``dplab.rr_estimate``'s estimate: the old
one ``π̂ ± z √Var`` (Warner's variance at λ̂ clipped to [q, p]), the new one Wilson's score
interval on λ mapped through π = (λ - q) / (p - q) (what ``rr_estimate`` returns now), and for
comparison Clopper-Pearson's exact interval on λ, mapped the same way. "grid" rows average the
coverage over the truths π = 0, 0,01, …, 1 (and give its minimum); the width is the mean
width of π's interval at the grid's truths (or at the one truth).

The numbers are in docs/live-polls.md, "The interval".
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from statistics import NormalDist

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pyodide_pkg"))

import dplab  # noqa: E402
from dplab.local import RREstimate  # noqa: E402

CONFIDENCE = 0.95
LN3 = math.log(3)
GRID = [i / 100 for i in range(101)]


def normal_interval(yes: int, n: int, epsilon: float) -> tuple[float, float]:
    """The interval rr_estimate returned before: π̂ ± z √Var, Var at λ̂ clipped to [q, p]."""
    p, q = dplab.rr_probabilities(epsilon)
    estimate = (yes / n - q) / (p - q)
    lam = min(max(yes / n, q), p)
    half = NormalDist().inv_cdf(0.5 + CONFIDENCE / 2) * math.sqrt(lam * (1 - lam) / (n * (p - q) ** 2))
    return estimate - half, estimate + half


def wilson_interval(yes: int, n: int, epsilon: float) -> tuple[float, float]:
    r: RREstimate = dplab.rr_estimate(yes, n, epsilon, CONFIDENCE)
    return r.low, r.high


def clopper_pearson_interval(yes: int, n: int, epsilon: float) -> tuple[float, float]:
    p, q = dplab.rr_probabilities(epsilon)
    low, high = dplab.clopper_pearson(yes, n, 0.5 + CONFIDENCE / 2)
    return (low - q) / (p - q), (high - q) / (p - q)


METHODS = {
    "normal (old)": normal_interval,
    "Wilson (new)": wilson_interval,
    "Clopper-Pearson": clopper_pearson_interval,
}


def binomial_pmf(n: int, lam: float) -> list[float]:
    if lam <= 0.0 or lam >= 1.0:
        return [float(y == (0 if lam <= 0 else n)) for y in range(n + 1)]
    return [math.comb(n, y) * lam**y * (1 - lam) ** (n - y) for y in range(n + 1)]


def coverage(intervals: list[tuple[float, float]], n: int, pi: float, epsilon: float) -> float:
    p, q = dplab.rr_probabilities(epsilon)
    pmf = binomial_pmf(n, q + pi * (p - q))
    return sum(w for w, (low, high) in zip(pmf, intervals, strict=True) if low <= pi <= high)


def row(ns: list[int], truths: list[float], epsilon: float) -> dict[str, tuple[float, float, float]]:
    """{method: (mean coverage, least coverage, mean width)} over the n's and the truths."""
    out = {}
    for name, method in METHODS.items():
        covers, widths = [], []
        for n in ns:
            intervals = [method(y, n, epsilon) for y in range(n + 1)]
            p, q = dplab.rr_probabilities(epsilon)
            for pi in truths:
                covers.append(coverage(intervals, n, pi, epsilon))
                pmf = binomial_pmf(n, q + pi * (p - q))
                widths.append(sum(w * (high - low) for w, (low, high) in zip(pmf, intervals, strict=True)))
        out[name] = (sum(covers) / len(covers), min(covers), sum(widths) / len(widths))
    return out


CASES = [
    ("n = 8, ε = ln 3, π = 0,3", [8], [0.3], LN3),
    ("n = 10, ε = ln 3, grid", [10], GRID, LN3),
    ("n = 10…20, ε = ln 3, grid", list(range(10, 21)), GRID, LN3),
    ("n = 10, ε = 5, π = 0,3", [10], [0.3], 5.0),
    ("n = 10, ε = 5, grid", [10], GRID, 5.0),
    ("n = 60, ε = ln 3, π = 0,3", [60], [0.3], LN3),
    ("n = 60, ε = ln 3, grid", [60], GRID, LN3),
    ("n = 300, ε = ln 3, π = 0,3", [300], [0.3], LN3),
    ("n = 300, ε = ln 3, grid", [300], GRID, LN3),
]


def table() -> str:
    names = list(METHODS)
    head = "| case | " + " | ".join(f"{m}: mean (least) coverage, width" for m in names) + " |"
    lines = [head, "|---|" + "---|" * len(names)]
    for label, ns, truths, epsilon in CASES:
        cells = [
            f"{mean:.3f} ({least:.3f}), {width:.2f}"
            for mean, least, width in row(ns, truths, epsilon).values()
        ]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


if __name__ == "__main__":
    print(table())
