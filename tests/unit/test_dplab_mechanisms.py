"""Mechanisms: distributions (KS tests), empirical privacy, calibration formulas.

Statistical tests use fixed seeds and a stated significance level, so they are
deterministic; the level says how surprising a failure would be for a correct
implementation.
"""

import math

import dplab
import numpy as np
import pytest
from scipy import stats

from tests.support.dp_checks import empirical_privacy_violation, karen_counts

ALPHA = 1e-3  # significance level of the KS and chi-square tests


# --- Distributions -------------------------------------------------------------------


@pytest.mark.parametrize("sensitivity, epsilon", [(1.0, 1.0), (1.0, 0.1), (90.0, 0.5)])
def test_laplace_mech_matches_laplace_distribution(sensitivity, epsilon):
    noise = dplab.laplace_mech(np.zeros(20_000), sensitivity, epsilon, rng=12345)
    result = stats.kstest(noise, stats.laplace(scale=sensitivity / epsilon).cdf)
    assert result.pvalue > ALPHA


@pytest.mark.parametrize("sensitivity, epsilon, delta", [(1.0, 0.5, 1e-5), (math.sqrt(12), 0.9, 1e-6)])
def test_gaussian_mech_matches_normal_distribution(sensitivity, epsilon, delta):
    sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / epsilon  # Dwork & Roth, Thm A.1
    noise = dplab.gaussian_mech(np.zeros(20_000), sensitivity, epsilon, delta, rng=777)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > ALPHA


def test_gaussian_mech_analytic_uses_analytic_sigma():
    sigma = dplab.analytic_gaussian_sigma(1.0, 3.0, 1e-5)
    noise = dplab.gaussian_mech(np.zeros(20_000), 1.0, 3.0, 1e-5, rng=5, analytic=True)
    assert stats.kstest(noise, stats.norm(scale=sigma).cdf).pvalue > ALPHA


def test_mechanisms_keep_shape_and_return_float_for_scalars():
    assert isinstance(dplab.laplace_mech(10, 1, 1, rng=0), float)
    assert isinstance(dplab.gaussian_mech(10, 1, 0.5, 1e-5, rng=0), float)
    out = dplab.laplace_mech(np.ones((3, 4)), 1, 1, rng=0)
    assert out.shape == (3, 4)


def test_classic_gaussian_refuses_epsilon_at_least_one_and_names_alternative():
    with pytest.raises(ValueError, match="analytic_gaussian_sigma"):
        dplab.gaussian_sigma(1, 1.0, 1e-5)
    with pytest.raises(ValueError, match="epsilon"):
        dplab.gaussian_mech(0.0, 1, 2.0, 1e-5)


# --- Empirical privacy check ---------------------------------------------------------

N_SAMPLES = 400_000


def _karen_counts():
    return karen_counts(float)


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_laplace_count_passes_empirical_privacy_check(epsilon):
    a, b = _karen_counts()
    out_d = dplab.laplace_mech(np.full(N_SAMPLES, a), 1, epsilon, rng=1)
    out_d_prime = dplab.laplace_mech(np.full(N_SAMPLES, b), 1, epsilon, rng=2)
    assert empirical_privacy_violation(out_d, out_d_prime, epsilon) <= 0


def test_check_catches_noise_five_times_too_small():
    epsilon = 1.0
    a, b = _karen_counts()
    broken_scale_epsilon = 5 * epsilon  # claims epsilon, adds Lap(1 / (5 epsilon))
    out_d = dplab.laplace_mech(np.full(N_SAMPLES, a), 1, broken_scale_epsilon, rng=1)
    out_d_prime = dplab.laplace_mech(np.full(N_SAMPLES, b), 1, broken_scale_epsilon, rng=2)
    # The true privacy loss is 5 epsilon; the check must flag it (> 0), beyond its slack.
    assert empirical_privacy_violation(out_d, out_d_prime, epsilon) > 0


def test_check_catches_noise_scaled_to_local_sensitivity():
    # Sum of capital gains, noise scaled to the *local* sensitivity (the largest
    # value present) instead of a fixed bound: the scale itself leaks.
    epsilon = 1.0
    rng = np.random.default_rng(3)
    d_prime = rng.integers(0, 2_000, size=30).astype(float)
    d = np.append(d_prime, 20_000.0)  # D = D' plus one wealthy person

    def local_sensitivity_mech(data, seed):
        return dplab.laplace_mech(np.full(N_SAMPLES, data.sum()), data.max(), epsilon, rng=seed)

    violation = empirical_privacy_violation(
        local_sensitivity_mech(d, 1), local_sensitivity_mech(d_prime, 2), epsilon, min_count=500
    )
    assert violation > 0


# --- Calibration formulas ------------------------------------------------------------


def test_classic_factor_is_4_8_at_delta_1e_5():
    # The lecture: sqrt(2 ln(1.25/delta)) ~ 4.8 at delta = 1e-5 (sigma for Delta = epsilon = 1 ... / epsilon).
    factor = dplab.gaussian_sigma(1.0, 0.5, 1e-5) * 0.5
    assert factor == pytest.approx(math.sqrt(2 * math.log(1.25e5)))
    assert round(factor, 1) == 4.8


def _exact_delta(sigma, sensitivity, epsilon):
    # Balle & Wang (2018), Theorem 8: the exact delta of Gaussian noise sigma, by scipy.
    a = sensitivity / (2 * sigma)
    b = epsilon * sigma / sensitivity
    return stats.norm.cdf(a - b) - math.exp(epsilon) * stats.norm.cdf(-a - b)


@pytest.mark.parametrize(
    "sensitivity, epsilon, delta",
    [
        (1.0, 0.1, 1e-5),
        (1.0, 1.0, 1e-5),
        (1.0, 5.0, 1e-6),
        (2.5, 0.5, 1e-3),
        (1.0, 0.01, 0.3),
        (1.0, 20.0, 1e-10),
        (1.0, 0.05, 1e-7),
    ],
)
def test_analytic_gaussian_is_the_smallest_sigma_meeting_the_exact_condition(sensitivity, epsilon, delta):
    sigma = dplab.analytic_gaussian_sigma(sensitivity, epsilon, delta)
    assert _exact_delta(sigma, sensitivity, epsilon) <= delta * (1 + 1e-9)
    assert _exact_delta(sigma * (1 - 1e-6), sensitivity, epsilon) > delta  # and it is tight
    if epsilon < 1:
        assert sigma <= dplab.gaussian_sigma(sensitivity, epsilon, delta)


def test_analytic_gaussian_brute_force_grid():
    # Brute check: scan sigma on a fine grid for the first value meeting the exact condition.
    epsilon, delta = 1.0, 1e-5
    grid = np.linspace(0.5, 10, 200_001)
    ok = _exact_delta(grid, 1.0, epsilon) <= delta
    brute = grid[np.argmax(ok)]
    assert dplab.analytic_gaussian_sigma(1.0, epsilon, delta) == pytest.approx(brute, abs=1e-4)


def test_laplace_vs_gauss_crossover_is_12():
    # The lecture: Gauss beats Laplace for a k-component query from k ~ 12 (delta = 1e-5).
    assert dplab.laplace_gauss_crossover(1e-5) == 12
    lap11, gau11 = dplab.laplace_vs_gauss_std(11, 0.5, 1e-5)
    lap12, gau12 = dplab.laplace_vs_gauss_std(12, 0.5, 1e-5)
    assert gau11 > lap11 and gau12 < lap12
    ks = np.arange(1, 40)
    lap, gau = dplab.laplace_vs_gauss_std(ks, 0.5, 1e-5)
    assert ks[np.argmax(gau < lap)] == 12
    assert lap12 == pytest.approx(math.sqrt(2) * 12 / 0.5)  # std of Lap(k / epsilon)


# --- Exponential mechanism and report-noisy-max --------------------------------------


def test_exponential_mech_frequencies_match_softmax():
    candidates = ["a", "b", "c", "d"]
    scores = np.array([0.0, 1.0, 2.0, 4.0])
    epsilon, sensitivity = 1.0, 1.0
    rng = np.random.default_rng(9)
    draws = [dplab.exponential_mech(candidates, scores, sensitivity, epsilon, rng) for _ in range(20_000)]
    observed = np.array([draws.count(c) for c in candidates])
    weights = np.exp(epsilon * scores / (2 * sensitivity))  # McSherry & Talwar (2007)
    expected = 20_000 * weights / weights.sum()
    assert stats.chisquare(observed, expected).pvalue > ALPHA


def test_exponential_mech_survives_huge_scores_and_accepts_callable():
    big = [1e6, 1e6 + 10, 1e6 + 2000]
    assert dplab.exponential_mech(["x", "y", "z"], big, 1.0, 1.0, rng=0) == "z"  # no overflow
    pick = dplab.exponential_mech(range(10), lambda c: -abs(c - 7) * 100, 1.0, 1.0, rng=0)
    assert pick == 7


def test_exponential_mech_length_mismatch_is_an_error():
    with pytest.raises(ValueError, match="one entry per candidate"):
        dplab.exponential_mech(["a", "b"], [1.0], 1.0, 1.0)


def test_report_noisy_max_picks_clear_winner():
    assert dplab.report_noisy_max(["a", "b"], [0.0, 1000.0], 1.0, 1.0, rng=0) == "b"
