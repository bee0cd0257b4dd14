"""bench/cells.py: per-cell times of two trees, side by side (made-up runs, no process started)."""

from __future__ import annotations

from bench.cells import BUDGET, budget, per_cell, table


def _run(**seconds):
    return {"cells": [{"id": k, "ok": v is not None, "seconds": v, "cpu": v} for k, v in seconds.items()]}


def test_per_cell_keeps_only_the_runs_where_the_cell_succeeded():
    runs = [_run(a=1.0, b=None), _run(a=3.0, b=2.0)]
    assert per_cell(runs, "seconds") == {"a": [1.0, 3.0], "b": [2.0]}


def test_the_table_lists_the_slowest_before_first_with_ratios_and_sums():
    before = per_cell([_run(a=1.0, b=4.0), _run(a=3.0, b=6.0)], "cpu")
    after = per_cell([_run(a=1.0, b=2.0), _run(a=1.0, b=2.0)], "cpu")
    header, slow, fast, total = table(before, after, top=5)
    assert header.split()[0] == "cell"
    assert slow.split() == ["b", "5.000", "2.000", "0.40", "4.000", "2.000"]
    assert fast.split() == ["a", "2.000", "1.000", "0.50", "1.000", "1.000"]
    assert total.split()[-5:] == ["7.000", "3.000", "0.43", "5.000", "3.000"]
    assert len(table(before, after, top=1)) == 3  # header, one cell, the sums


def test_the_budget_says_held_or_missed_with_the_margin_and_names_the_slowest_cell():
    fast = per_cell([_run(a=1.0, b=2.5), _run(a=1.0, b=2.7)], "seconds")
    total, slowest = budget(fast)
    assert total.split()[-4:] == ["held", "(margin", "+16.400", "s)"]
    assert "slowest cell (b)" in slowest and "2.600 s ≤ 3.00 s: held" in slowest
    slow = per_cell([_run(**{f"c{i}": BUDGET["slowest cell"] + 0.5 for i in range(6)})], "seconds")
    total, slowest = budget(slow)
    assert "21.000 s ≤ 20.00 s: missed (margin -1.000 s)" in total
    assert slowest.endswith("missed (margin -0.500 s)")
