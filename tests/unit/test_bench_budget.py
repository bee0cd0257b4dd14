"""bench/budget.py and bench/dplab_speed.py: a time against its budget; dplab's timed paths run."""

from __future__ import annotations

from bench.budget import budget_line, median_line
from bench.dplab_speed import CHECKS, time_once


def test_a_budget_line_says_held_or_missed_and_the_margin():
    assert budget_line("x", 0.5, 1.0).split()[1:] == [
        "0.500",
        "s",
        "≤",
        "1.00",
        "s:",
        "held",
        "(margin",
        "+0.500",
        "s)",
    ]
    assert budget_line("x", 1.25, 1.0).endswith("missed (margin -0.250 s)")
    assert budget_line("x", 1.0, 1.0).endswith("held (margin +0.000 s)")  # at the limit: held


def test_a_median_line_judges_the_median_and_shows_the_spread():
    line = median_line("x", [0.2, 3.0, 0.4], 0.5)
    assert "0.400 s ≤ 0.50 s: held" in line and line.endswith("3 runs, 0.200–3.000 s")


def test_every_timed_path_of_dplab_runs_and_is_timed():
    seconds = time_once()
    assert set(seconds) == set(CHECKS)
    assert all(s > 0 for s in seconds.values())
