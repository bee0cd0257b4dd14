"""A time against its budget: held or missed, and by how much (bench/cells.py, bench/dplab_speed.py).

Speed limits live in the benchmark, not in unit tests: a test asserts behaviour, and a machine
that is busy for a moment must not fail it.
"""

from __future__ import annotations

import statistics

NAME_WIDTH = 58


def budget_line(name: str, seconds: float, limit: float) -> str:
    """One line: the measured seconds, the limit, «held» or «missed» and the margin (limit − seconds)."""
    verdict = "held" if seconds <= limit else "missed"
    return (
        f"{name:<{NAME_WIDTH}} {seconds:>8.3f} s ≤ {limit:.2f} s: {verdict} (margin {limit - seconds:+.3f} s)"
    )


def median_line(name: str, samples: list[float], limit: float) -> str:
    """``budget_line`` of the samples' median, with their minimum and maximum after it."""
    line = budget_line(name, statistics.median(samples), limit)
    return f"{line}; {len(samples)} runs, {min(samples):.3f}–{max(samples):.3f} s"
