"""BudgetAccountant: checks before recording, refuses overspending, thread-safe."""

import threading

import numpy as np
import pytest

import dplab
from dplab import BudgetAccountant, BudgetError


def test_budget_error_is_a_value_error():
    assert issubclass(BudgetError, ValueError)


def test_spend_records_and_refuses_overspending_without_recording():
    acc = BudgetAccountant(1.0, 1e-5)
    acc.spend(0.6, label="suma")
    acc.spend(0.3, 5e-6, label="conteo")
    assert acc.spent == pytest.approx((0.9, 5e-6))
    with pytest.raises(BudgetError, match="exceeds the budget"):
        acc.spend(0.2, label="otra")
    with pytest.raises(BudgetError):
        acc.spend(0.05, 1e-5)  # epsilon fits, delta does not
    assert [r.label for r in acc.history] == ["suma", "conteo"]  # refused ones left no trace
    assert acc.remaining == pytest.approx((0.1, 5e-6))


def test_ten_tenths_fit_in_one():
    acc = BudgetAccountant(1.0)
    for _ in range(10):
        acc.spend(0.1)
    assert not acc.can_spend(1e-6)
    assert acc.can_spend(0.0)


def test_refuses_negative_nan_and_bool_costs():
    acc = BudgetAccountant(1.0)
    for bad, exc in [(-0.1, ValueError), (float("nan"), ValueError), (float("inf"), ValueError),
                     (True, TypeError), ("0.1", TypeError)]:
        with pytest.raises(exc, match="epsilon"):
            acc.spend(bad)
    with pytest.raises(ValueError, match="delta"):
        acc.spend(0.1, -1e-9)
    assert acc.history == ()


def test_laplace_mech_spends_then_releases_and_refuses_when_exhausted():
    acc = BudgetAccountant(1.0)
    out = acc.laplace_mech(100.0, 1, 0.75, rng=0, label="conteo")
    assert isinstance(out, float)
    with pytest.raises(BudgetError):
        acc.laplace_mech(100.0, 1, 0.5, rng=0)
    with pytest.raises(ValueError, match="sensitivity"):
        acc.laplace_mech(100.0, -1, 0.1)  # a bad argument spends nothing
    assert acc.spent[0] == pytest.approx(0.75)


def test_sensitivity_search_then_sum_fits_a_fixed_budget():
    # Slide 25: the budget spent choosing b is counted; the rest pays for the sum.
    gain = dplab.load_census()["capital_gain"]
    acc = BudgetAccountant(2.0)
    bound, spent = dplab.choose_clipping_bound(gain, 1.0, rng=0)
    acc.spend(spent, label="elegir b")
    rest = acc.remaining[0]
    acc.spend(rest, label="suma")
    dplab.clipped_sum(gain, bound, rest, rng=0)
    assert acc.spent[0] == pytest.approx(2.0)


def test_thread_safe_never_overspends():
    acc = BudgetAccountant(1.0)
    successes = []
    barrier = threading.Barrier(8)

    def worker():
        barrier.wait()
        for _ in range(50):
            try:
                acc.spend(0.01)
                successes.append(1)
            except BudgetError:
                pass

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(successes) == 100  # exactly 1.0 / 0.01 releases fit
    assert acc.spent[0] == pytest.approx(1.0)


def test_repr_and_total():
    acc = BudgetAccountant(np.float64(3.0), 1e-6)
    assert acc.total == (3.0, 1e-6)
    assert "releases=0" in repr(acc)
