"""Clipping, clipped sums, private means, the elbow and the private search for b."""

import dplab
import numpy as np
import pytest
from scipy import stats

ALPHA = 1e-3  # significance level of the KS tests


@pytest.fixture(scope="module")
def census():
    return dplab.load_census()


def test_clip_and_clip_rows_l2():
    assert dplab.clip(120, 0, 90) == 90.0
    assert np.array_equal(dplab.clip([-1, 5, 100], 0, 90), [0, 5, 90])
    rows = np.array([[3.0, 4.0], [0.3, 0.4], [0.0, 0.0]])
    clipped = dplab.clip_rows_l2(rows, 1.0)
    assert np.allclose(np.linalg.norm(clipped, axis=1), [1.0, 0.5, 0.0])
    assert np.allclose(clipped[0], [0.6, 0.8])  # direction kept
    assert np.allclose(dplab.clip_rows_l2(np.array([3.0, 4.0]), 2.5), [1.5, 2.0])


def test_clipped_sum_is_laplace_around_clipped_total():
    values = np.array([1.0, 50.0, 500.0, 99_999.0])
    bound, epsilon = 100.0, 0.5
    draws = np.array([dplab.clipped_sum(values, bound, epsilon, rng=s) for s in range(3000)])
    center = 1 + 50 + 100 + 100  # clipped to [0, 100]; sensitivity = bound
    assert stats.kstest(draws - center, stats.laplace(scale=bound / epsilon).cdf).pvalue > ALPHA


def test_private_mean_is_close_for_large_budget(census):
    age = census["age"]
    estimate = dplab.private_mean(age, 90, 10.0, rng=0)
    assert estimate == pytest.approx(age.mean(), abs=0.2)


def test_private_mean_splits_budget_in_halves(monkeypatch):
    calls = []
    real = dplab.sensitivity.laplace_mech

    def spy(v, sensitivity, epsilon, rng=None, **kwargs):
        calls.append((sensitivity, epsilon))
        return real(v, sensitivity, epsilon, rng, **kwargs)

    monkeypatch.setattr(dplab.sensitivity, "laplace_mech", spy)
    dplab.private_mean(np.array([10.0, 20.0]), 90, 1.0, rng=0)
    assert sorted(calls) == [(1.0, 0.5), (90.0, 0.5)]


def test_elbow_has_interior_minimum_for_capital_gain(census):
    gain = census["capital_gain"]
    bounds = np.logspace(2, 5.5, 71)
    for epsilon in (0.05, 0.1, 0.2):
        bias2, var, total = dplab.clipped_sum_error(gain, bounds, epsilon)
        best = int(np.argmin(total))
        assert 0 < best < len(bounds) - 1, epsilon
        assert total[best] < 0.8 * min(total[0], total[-1])  # a visible dip
        assert np.all(np.diff(bias2) <= 0) and np.all(np.diff(var) > 0)
        assert np.allclose(var, 2 * (bounds / epsilon) ** 2)


def test_choose_clipping_bound_counts_budget():
    values = np.concatenate([np.full(900, 0.0), np.full(100, 300.0)])
    bound, spent = dplab.choose_clipping_bound(values, 10.0, rng=0)
    grid = dplab.DEFAULT_CLIP_BOUNDS
    assert bound in grid
    assert 0 < spent <= 10.0
    assert (spent / (10.0 / len(grid))) == pytest.approx(round(spent / (10.0 / len(grid))))  # whole queries
    assert 256 <= bound <= 1024  # the elbow of values capped at 300, with a generous budget


def test_choose_clipping_bound_stops_when_sum_stops_growing():
    # With negligible noise (epsilon huge) the noisy sums grow exactly while b < max(values) = 9;
    # from b = 16 on they are equal up to noise, so the search stops at 16 or later, never before.
    values = np.array([5.0, 7.0, 9.0])
    grid = [1, 2, 4, 8, 16, 32, 64]
    for seed in range(20):
        bound, spent = dplab.choose_clipping_bound(values, 1e9, clip_bounds=grid, rng=seed)
        assert bound >= 16.0
        queries = min(grid.index(bound) + 2, len(grid))  # b_j is returned after querying b_{j+1}
        assert spent == pytest.approx(queries * 1e9 / len(grid))


def test_choose_clipping_bound_rejects_bad_grid():
    with pytest.raises(ValueError, match="increasing"):
        dplab.choose_clipping_bound([1.0, 2.0], 1.0, clip_bounds=[4, 2, 8])
    with pytest.raises(ValueError, match="bounds"):
        dplab.choose_clipping_bound([1.0, 2.0], 1.0, clip_bounds=[0, 2, 8])
