"""BudgetAccountant: checks before recording, refuses overspending, thread-safe, exact."""

import math
import sys
import threading
import time
from fractions import Fraction

import dplab
import numpy as np
import pytest
from dplab import BudgetAccountant, BudgetError
from dplab._rng import noise_session

NAN, INF = float("nan"), float("inf")


def test_budget_error_is_a_value_error():
    assert issubclass(BudgetError, ValueError)


def test_spend_records_and_refuses_overspending_without_recording():
    acc = BudgetAccountant(1.0, 1e-5)
    acc.spend(0.6, label="suma")
    acc.spend(0.3, 5e-6, label="conteo")
    assert acc.total_spent == pytest.approx((0.9, 5e-6))
    with pytest.raises(BudgetError, match="rechazada"):
        acc.spend(0.2, label="otra")
    with pytest.raises(BudgetError):
        acc.spend(0.05, 1e-5)  # epsilon fits, delta does not
    assert [r.label for r in acc.history] == ["suma", "conteo"]  # refused ones left no trace
    assert acc.remaining_budget == pytest.approx((0.1, 5e-6))


def test_ten_tenths_fit_in_one():
    acc = BudgetAccountant(1.0)
    for _ in range(10):
        acc.spend(0.1)
    assert not acc.check_spend(1e-6)
    assert acc.check_spend(0.0)


def test_refuses_negative_nan_and_bool_costs():
    acc = BudgetAccountant(1.0)
    for bad, exc in [
        (-0.1, ValueError),
        (float("nan"), ValueError),
        (float("inf"), ValueError),
        (True, TypeError),
        ("0.1", TypeError),
    ]:
        with pytest.raises(exc, match="epsilon"):
            acc.spend(bad)
    with pytest.raises(ValueError, match="delta"):
        acc.spend(0.1, -1e-9)
    assert acc.history == ()


def _state(acc):
    return acc.history, acc.total_spent, acc.remaining_budget


# (epsilon, delta) costs that must be refused, and how.
BAD_COSTS = [
    ((-0.1, 0.0), ValueError),
    ((-1e-300, 0.0), ValueError),
    ((0.0, -1e-9), ValueError),
    ((0.0, -1e-300), ValueError),
    ((NAN, 0.0), ValueError),
    ((np.float64("nan"), 0.0), ValueError),
    ((0.0, NAN), ValueError),
    ((INF, 0.0), ValueError),
    ((-INF, 0.0), ValueError),
    ((0.0, INF), ValueError),
    ((0.0, -INF), ValueError),
    ((0.0, 1.0), ValueError),
    ((True, 0.0), TypeError),
    ((np.bool_(True), 0.0), TypeError),
    ((0.1, True), TypeError),
    ((False, 0.0), TypeError),
    (("0.1", 0.0), TypeError),
    ((0.1, "0"), TypeError),
    ((None, 0.0), TypeError),
    ((0.1, None), TypeError),
    ((1 + 0j, 0.0), TypeError),
    (([0.1], 0.0), TypeError),
]


@pytest.mark.parametrize("cost, exc", [pytest.param(c, e, id=repr(c)) for c, e in BAD_COSTS])
def test_bad_costs_are_refused_without_changing_state(cost, exc):
    acc = BudgetAccountant(1.0, 1e-5)
    acc.spend(0.3, 1e-7, label="antes")
    before = _state(acc)
    with pytest.raises(exc):
        acc.spend(*cost, label="mala")
    with pytest.raises(exc):
        acc.check_spend(*cost)
    with pytest.raises(exc):
        dplab.laplace_mech(1.0, 1, cost[0], rng=0, accountant=acc) if cost[1] == 0.0 else acc.spend(*cost)
    assert _state(acc) == before
    acc.spend(0.7, 9.9e-6)  # and the budget is intact: the rest still fits exactly
    assert acc.remaining_budget == (0.0, 0.0)


def test_bad_label_is_refused_without_changing_state():
    acc = BudgetAccountant(1.0)
    with pytest.raises(TypeError, match="label"):
        acc.spend(0.5, label=123)
    assert acc.history == () and acc.total_spent == (0.0, 0.0)


def test_negative_zero_is_recorded_as_zero():
    acc = BudgetAccountant(1.0, 1e-6)
    release = acc.spend(-0.0, -0.0)
    assert math.copysign(1.0, release.epsilon) == 1.0 and math.copysign(1.0, release.delta) == 1.0


@pytest.mark.parametrize(
    "total, cost, fits",
    [
        (1.0, 0.1, 10),
        (1.0, 0.01, 100),
        (1.0, 0.001, 1000),
        (0.3, 0.1, 3),
        (1.0, 1 / 3, 3),
        (2.5, 0.25, 10),
        (1e-3, 1e-4, 10),
        (5.0, 0.7, 7),
    ],
)
def test_many_small_releases_stop_exactly_at_the_boundary(total, cost, fits):
    # 0.1 + 0.1 + 0.1 is 0.30000000000000004 in floats, yet three 0.1 fit in 0.3: exact accounting.
    acc = BudgetAccountant(total)
    for _ in range(fits):
        acc.spend(cost)
    with pytest.raises(BudgetError):
        acc.spend(cost)
    assert len(acc.history) == fits
    assert acc.total_spent[0] <= total
    assert not acc.check_spend(cost)


def test_no_tolerance_refuses_the_smallest_overspend():
    acc = BudgetAccountant(1.0, 1e-6)
    for over in (math.nextafter(1.0, 2.0), 1.0 + 1e-10, 1.0000000005):
        assert not acc.check_spend(over)
        with pytest.raises(BudgetError):
            acc.spend(over)
    assert not acc.check_spend(0.5, math.nextafter(1e-6, 1.0))
    acc.spend(1.0, 1e-6)  # exactly the total fits
    assert not acc.check_spend(1e-300) and not acc.check_spend(0.0, 1e-300)
    assert acc.check_spend(0.0, 0.0)
    assert acc.history == (dplab.Release(1.0, 1e-6),)


def test_ten_tenths_fit_the_eleventh_does_not():
    acc = BudgetAccountant(1.0)
    for i in range(10):
        acc.spend(0.1, label=f"consulta {i}")
    with pytest.raises(BudgetError, match="consulta 10"):
        acc.spend(0.1, label="consulta 10")
    assert acc.total_spent == (1.0, 0.0) and acc.remaining_budget == (0.0, 0.0)
    assert [r.label for r in acc.history] == [f"consulta {i}" for i in range(10)]


def test_recorded_binary_values_exceed_the_total_by_at_most_half_an_ulp():
    # Costs are read as decimals; the floats actually passed may be above them by <= 2**-53 relative.
    acc = BudgetAccountant(1.0)
    while acc.check_spend(0.1):
        acc.spend(0.1)
    exact_binary = sum(Fraction(r.epsilon) for r in acc.history)
    assert exact_binary > 1  # ten binary 0.1 are 1 + 5.6e-17 ...
    assert exact_binary <= Fraction(1) * (1 + Fraction(1, 2**52))  # ... within the stated bound


def test_remaining_always_fits_and_round_off_before_the_call_counts():
    for total, first in [(1.0, 0.7), (2.0, 1 / 3), (1.0, 0.1 + 0.2), (0.3, 0.1), (1e-5, 3.3e-6)]:
        acc = BudgetAccountant(total)
        acc.spend(first)
        rest = acc.remaining_budget[0]
        assert rest == pytest.approx(total - first, rel=1e-12)
        acc.spend(rest)  # spending what is left always fits, and ends exactly at the total ...
        assert acc.total_spent == (total, 0.0) and acc.remaining_budget == (0.0, 0.0)
        assert not acc.check_spend(1e-300)
    acc = BudgetAccountant(1.0)
    acc.spend(0.7)
    assert not acc.check_spend(1 - 0.7)  # ... but 1 - 0.7 = 0.30000000000000004 is above 0.3


def test_a_rounding_crumb_left_over_counts_as_spent():
    # Three thirds leave 1 - 0.9999999999999999 = 1e-16 < 2**-50: counted as spent (over-counting only).
    acc = BudgetAccountant(1.0)
    for _ in range(3):
        acc.spend(1 / 3)
    assert acc.total_spent == (1.0, 0.0) and acc.remaining_budget == (0.0, 0.0)
    assert not acc.check_spend(1e-17)
    # A leftover above the crumb size stays spendable.
    acc = BudgetAccountant(1.0)
    acc.spend(1.0 - 1e-12)
    assert acc.remaining_budget[0] == pytest.approx(1e-12) and acc.check_spend(1e-12)


def test_two_threads_spending_at_once_never_overspend(monkeypatch):
    # Two threads race for a budget of 1.0 in steps of 0.001. To make a race likely if check
    # and record were not atomic, the check yields the GIL right after deciding (sleep(0)) and
    # the switch interval is tiny. (Without the lock this test fails in 5 runs out of 5.)
    fits = BudgetAccountant._fits_unlocked

    def fits_then_yield(self, epsilon, delta):
        answer = fits(self, epsilon, delta)
        time.sleep(0)
        return answer

    monkeypatch.setattr(BudgetAccountant, "_fits_unlocked", fits_then_yield)
    acc = BudgetAccountant(1.0, 1e-6)
    successes = [0, 0]
    refusals = [0, 0]
    barrier = threading.Barrier(2)

    def worker(i):
        barrier.wait()
        for _ in range(800):
            try:
                acc.spend(0.001, 1e-9)
                successes[i] += 1
            except BudgetError:
                refusals[i] += 1

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old_interval)
    assert sum(successes) == 1000 and sum(refusals) == 600  # exactly 1.0 / 0.001 fit
    assert len(acc.history) == 1000
    assert acc.total_spent == (1.0, 1e-6) and acc.remaining_budget == (0.0, 0.0)
    assert math.fsum(r.epsilon for r in acc.history) <= 1.0


def test_refused_laplace_release_leaves_no_trace_not_even_a_noise_draw():
    acc = BudgetAccountant(0.5)
    with noise_session(1234) as session:
        with pytest.raises(BudgetError):
            dplab.laplace_mech(10.0, 1, 1.0, label="demasiado", accountant=acc)
        assert session.draws == 0  # no noise was drawn or requested
        dplab.laplace_mech(10.0, 1, 0.5, label="cabe", accountant=acc)
        assert session.draws == 1
    assert [r.label for r in acc.history] == ["cabe"]
    with pytest.raises(TypeError, match="rng"):
        dplab.laplace_mech(1.0, 1, 0.5, rng="x", accountant=BudgetAccountant(1.0))  # a bad rng spends nothing


def test_laplace_mech_spends_then_releases_and_refuses_when_exhausted():
    acc = BudgetAccountant(1.0)
    out = dplab.laplace_mech(100.0, 1, 0.75, rng=0, label="conteo", accountant=acc)
    assert isinstance(out, float)
    with pytest.raises(BudgetError):
        dplab.laplace_mech(100.0, 1, 0.5, rng=0, accountant=acc)
    with pytest.raises(ValueError, match="sensitivity"):
        dplab.laplace_mech(100.0, -1, 0.1, accountant=acc)  # a bad argument spends nothing
    assert acc.total_spent[0] == pytest.approx(0.75)


def test_sensitivity_search_then_sum_fits_a_fixed_budget():
    # Slide 25: the budget spent choosing b is counted; the rest pays for the sum.
    gain = dplab.load_census()["capital_gain"]
    acc = BudgetAccountant(2.0)
    bound, spent = dplab.choose_clipping_bound(gain, 1.0, rng=0)
    acc.spend(spent, label="elegir b")
    rest = acc.remaining_budget[0]
    acc.spend(rest, label="suma")
    dplab.clipped_sum(gain, bound, rest, rng=0)
    assert acc.total_spent[0] == pytest.approx(2.0)


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
    assert acc.total_spent[0] == pytest.approx(1.0)


def test_repr_and_total():
    acc = BudgetAccountant(np.float64(3.0), 1e-6)
    assert acc.total == (3.0, 1e-6)
    assert "releases=0" in repr(acc)


# --- Mechanisms spend from an accountant themselves (accountant=, as in diffprivlib) ------------

COUNTS = np.zeros(5, dtype=int)
#: name -> (a call of it with accountant=acc, label=..., the (epsilon, delta) it must cost)
SPENDING = {
    "laplace_mech": (lambda acc: dplab.laplace_mech(3.0, 1, 0.3, accountant=acc, label="x"), (0.3, 0.0)),
    "gaussian_mech": (
        lambda acc: dplab.gaussian_mech(3.0, 1, 0.5, 1e-6, accountant=acc, label="x"),
        (0.5, 1e-6),
    ),
    "exponential_mech": (
        lambda acc: dplab.exponential_mech("ab", [1.0, 2.0], 1, 0.2, accountant=acc, label="x"),
        (0.2, 0.0),
    ),
    "report_noisy_max": (
        lambda acc: dplab.report_noisy_max("ab", [1.0, 2.0], 1, 0.2, accountant=acc, label="x"),
        (0.2, 0.0),
    ),
    "discrete_laplace_mech": (
        lambda acc: dplab.discrete_laplace_mech(COUNTS, 1, 0.4, accountant=acc, label="x"),
        (0.4, 0.0),
    ),
    "discrete_gaussian_mech": (
        lambda acc: dplab.discrete_gaussian_mech(COUNTS, 1, 0.5, 1e-6, accountant=acc, label="x"),
        (0.5, 1e-6),
    ),
    "clipped_sum": (
        lambda acc: dplab.clipped_sum([1.0, 2.0], 5, 0.25, accountant=acc, label="x"),
        (0.25, 0.0),
    ),
    "private_mean": (
        lambda acc: dplab.private_mean([1.0, 2.0], 5, 0.6, accountant=acc, label="x"),
        (0.6, 0.0),
    ),
}


def test_every_function_with_an_accountant_parameter_is_listed():
    import inspect

    with_accountant = {
        name
        for name in dplab.__all__
        if callable(getattr(dplab, name))
        and not inspect.isclass(getattr(dplab, name))
        and "accountant" in inspect.signature(getattr(dplab, name)).parameters
    }
    assert with_accountant == set(SPENDING)


@pytest.mark.parametrize("name", sorted(SPENDING))
def test_mechanism_spends_from_its_accountant_then_refuses_without_drawing(name):
    call, cost = SPENDING[name]
    acc = BudgetAccountant(1.0, 1e-5)
    call(acc)
    assert acc.total_spent == pytest.approx(cost) and acc.history[-1].label == "x"
    full = BudgetAccountant(1e-9, 1e-12)
    with noise_session(7) as session:
        with pytest.raises(BudgetError):
            call(full)
        assert session.draws == 0  # refused before any noise was drawn
    assert full.history == () and full.total_spent == (0.0, 0.0)
    with pytest.raises(TypeError, match="accountant"):
        call(object())


def test_discrete_gaussian_sigma_form_takes_no_accountant():
    with pytest.raises(TypeError, match="accountant"):
        dplab.discrete_gaussian_mech(COUNTS, 1, sigma=2.0, accountant=BudgetAccountant(1.0))
