"""Accounting: the lecture's numbers, advanced composition, RDP/zCDP, DP-SGD.

Reference values and their sources:
* 3236 and 36: the lecture (seed, slide "Cuánto se gana"), sigma = 20,
  Delta = 1, k = 10^4, delta = 1e-5; recomputed here from the formulas.
* Google's dp_accounting 0.6 (``RdpAccountant``, ``GaussianDpEvent``,
  ``PoissonSampledDpEvent``): an independent implementation of RDP accounting
  for the Gaussian and the Poisson-subsampled Gaussian (Mironov, Talwar &
  Zhang 2019) with the conversion of Canonne, Kamath & Steinke (2020).
"""

import math
import warnings

import dp_accounting
import dplab
import numpy as np
import pytest
from dp_accounting.rdp import RdpAccountant

SIGMA, K, DELTA = 20.0, 10**4, 1e-5


# --- The lecture's numbers -----------------------------------------------------------


def test_sequential_gaussian_epsilon_is_3236():
    eps = dplab.sequential_gaussian_epsilon(SIGMA, K, DELTA)
    # each step at delta/k with the classic formula (Dwork & Roth Thm A.1), summed
    per_step = math.sqrt(2 * math.log(1.25 * K / DELTA)) / SIGMA
    assert eps == pytest.approx(K * per_step)
    assert round(eps) == 3236


def test_rdp_gaussian_epsilon_is_36_and_optimal_over_alpha():
    eps = dplab.rdp_gaussian_epsilon(SIGMA, K, DELTA)
    assert 36 <= eps < 37
    # Same as composing in RDP and converting (Mironov Prop. 3) on a fine grid of real alphas.
    alphas = np.linspace(1.001, 20, 200_001)
    grid_eps, best_alpha = dplab.rdp_to_epsilon(
        orders=alphas, rdp=K * dplab.gaussian_rdp(alphas, SIGMA), delta=DELTA
    )
    assert eps == pytest.approx(grid_eps, rel=1e-6)
    c = K / (2 * SIGMA**2)
    assert best_alpha == pytest.approx(1 + math.sqrt(math.log(1 / DELTA) / c), abs=1e-3)
    # ... which is Bun & Steinke's (2016, Prop. 1.3) zCDP bound of rho = c; the improved
    # conversion is zcdp_to_dp's (Canonne, Kamath & Steinke 2020), 35.1, never larger
    assert eps == pytest.approx(c + 2 * math.sqrt(c * math.log(1 / DELTA)), rel=1e-14)
    improved = dplab.rdp_gaussian_epsilon(SIGMA, K, DELTA, conversion="improved")
    assert improved == dplab.zcdp_to_dp(K * dplab.gaussian_zcdp(SIGMA), DELTA)
    assert round(improved, 1) == 35.1 and improved < eps


def test_sequential_refuses_per_step_epsilon_above_one():
    with pytest.raises(ValueError, match="epsilon"):
        dplab.sequential_gaussian_epsilon(1.0, 10, 1e-5)


def test_advanced_gaussian_splits_delta_in_halves():
    eps0 = dplab.gaussian_epsilon(SIGMA, DELTA / (2 * K))  # delta/2 over the k steps
    tight = eps0 * math.sqrt(2 * K * math.log(2 / DELTA)) + K * eps0 * math.expm1(eps0)  # delta' = delta/2
    assert dplab.advanced_gaussian_epsilon(SIGMA, K, DELTA) == pytest.approx(min(tight, K * eps0))
    with pytest.warns(UserWarning, match="not valid"):
        simplified = dplab.advanced_gaussian_epsilon(SIGMA, K, DELTA, simplified=True)
    assert simplified == pytest.approx(2 * eps0 * math.sqrt(2 * K * math.log(2 / DELTA)))
    # ordering of the three accountings at k = 10^4
    assert (
        dplab.rdp_gaussian_epsilon(SIGMA, K, DELTA)
        < dplab.advanced_gaussian_epsilon(SIGMA, K, DELTA)
        < dplab.sequential_gaussian_epsilon(SIGMA, K, DELTA)
    )


# --- Composition ---------------------------------------------------------------------


def test_sequential_composition_numbers_and_pairs():
    assert dplab.sequential_composition([0.1] * 10) == pytest.approx(1.0)
    assert dplab.sequential_composition([(0.5, 1e-6), (0.25, 0.0)]) == pytest.approx((0.75, 1e-6))
    assert dplab.sequential_composition(np.array([0.2, 0.3])) == pytest.approx(0.5)


def test_advanced_composition_formulas():
    eps, k, dp = 0.01, 1000, 1e-6
    root = math.sqrt(2 * k * math.log(1 / dp))
    assert dplab.advanced_composition(eps, k, dp, simplified=True) == pytest.approx(2 * eps * root)
    assert dplab.advanced_composition(eps, k, dp, simplified=False) == pytest.approx(
        eps * root + k * eps * math.expm1(eps)
    )


@pytest.mark.parametrize("k, delta_prime", [(10, 1e-5), (1000, 1e-6), (10**4, 1e-5), (10**6, 1e-9)])
def test_simplified_form_valid_exactly_under_stated_condition(k, delta_prime):
    # 2 eps sqrt(2k ln(1/d')) >= eps sqrt(2k ln(1/d')) + k eps (e^eps - 1)  <=>  eps <= ln(1 + sqrt(2 ln(1/d')/k))
    limit = dplab.advanced_composition_max_epsilon(k, delta_prime)
    assert limit == pytest.approx(math.log1p(math.sqrt(2 * math.log(1 / delta_prime) / k)))
    for eps, valid in [(limit * 0.999, True), (limit * 1.001, False)]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            simplified = dplab.advanced_composition(eps, k, delta_prime, simplified=True)
        tight = dplab.advanced_composition(eps, k, delta_prime, simplified=False)
        assert (simplified >= tight) is valid
        assert (len(caught) == 0) is valid  # warns exactly when invalid


def test_advanced_beats_sequential_only_for_large_k():
    # The lecture: 2 eps sqrt(2k ln(1/d')) < k eps only when k > 8 ln(1/d').
    eps, dp = 0.001, 1e-5
    threshold = 8 * math.log(1 / dp)  # ~ 92
    assert dplab.advanced_composition(eps, 50, dp, simplified=True) > 50 * eps
    assert dplab.advanced_composition(eps, 200, dp, simplified=True) < 200 * eps
    assert 50 < threshold < 200


def test_tight_form_is_smaller_where_the_simplified_form_is_valid():
    eps, k, dp = 0.1, 50, 1e-5
    assert dplab.advanced_composition(eps, k, dp, simplified=False) <= dplab.advanced_composition(
        eps, k, dp, simplified=True
    )


# --- RDP and zCDP against dp_accounting ----------------------------------------------


@pytest.mark.parametrize("sigma, k, delta", [(20.0, 10**4, 1e-5), (1.0, 1, 1e-5), (5.0, 100, 1e-6)])
def test_gaussian_rdp_matches_dp_accounting(sigma, k, delta):
    orders = list(dplab.DEFAULT_RDP_ORDERS)
    accountant = RdpAccountant(orders)
    accountant.compose(dp_accounting.GaussianDpEvent(sigma), k)
    reference = accountant.get_epsilon(delta)  # improved conversion (Canonne et al. 2020)
    ours, _ = dplab.rdp_to_epsilon(
        orders=orders, rdp=k * dplab.gaussian_rdp(np.array(orders), sigma), delta=delta, conversion="improved"
    )
    assert ours == pytest.approx(reference, rel=1e-9)
    # The classic conversion (the lecture's) is valid and never smaller.
    classic, _ = dplab.rdp_to_epsilon(
        orders=orders, rdp=k * dplab.gaussian_rdp(np.array(orders), sigma), delta=delta
    )
    assert classic >= ours


def test_zcdp_conversion_is_dp_accountings_over_every_order():
    # zcdp_to_dp is Canonne, Kamath & Steinke's (2020) conversion minimised over every real
    # alpha > 1; dp_accounting's RDP accountant applies the same conversion (their Prop. 12) on a
    # grid of orders, so it is never below ours, and on a fine grid it meets it.
    sigma, k, delta = 20.0, 10**4, 1e-5
    rho = k * dplab.gaussian_zcdp(sigma)
    assert rho == pytest.approx(k / (2 * sigma**2))
    ours = dplab.zcdp_to_dp(rho, delta)
    accountant = RdpAccountant()
    accountant.compose(dp_accounting.GaussianDpEvent(sigma), k)
    assert ours <= accountant.get_epsilon(delta) <= 1.01 * ours
    fine = RdpAccountant(orders=list(np.linspace(1.5, 3.5, 20_001)))
    fine.compose(dp_accounting.GaussianDpEvent(sigma), k)
    assert ours <= fine.get_epsilon(delta) and fine.get_epsilon(delta) == pytest.approx(ours, rel=1e-8)


def _cks_reference(rho, delta, digits=40):
    """Corollary 13 of Canonne, Kamath & Steinke (2020) in 40-digit arithmetic (mpmath): the
    optimal order is the root of (alpha - 1)^2 rho = ln(1/delta) - ln alpha (where the derivative
    of the epsilon each order gives vanishes), found by bisection, and its epsilon, at least 0."""
    import mpmath  # a test dependency (pyproject.toml)

    with mpmath.workdps(digits):
        rho, log_inv_delta = mpmath.mpf(rho), -mpmath.log(mpmath.mpf(delta))
        low, high = mpmath.mpf(0), mpmath.sqrt(log_inv_delta / rho)  # t = alpha - 1
        for _ in range(400):
            middle = (low + high) / 2
            if middle * middle * rho + mpmath.log1p(middle) - log_inv_delta > 0:
                high = middle
            else:
                low = middle
        alpha = 1 + (low + high) / 2
        epsilon = alpha * rho + mpmath.log(1 - 1 / alpha) + (log_inv_delta - mpmath.log(alpha)) / (alpha - 1)
        return float(max(epsilon, 0))


@pytest.mark.parametrize("rho", [1e-12, 1e-6, 1 / 800, 0.005, 0.02, 0.5, 1.0, 12.5, 100.0, 1e6])
@pytest.mark.parametrize("delta", [1e-300, 1e-10, 1e-5, 1e-2, 0.5])
def test_zcdp_to_dp_is_the_tight_conversion_on_a_grid(rho, delta):
    """Against a 40-digit computation of the same corollary: to 1e-12 relative, and never above
    Bun & Steinke's looser rho + 2 sqrt(rho ln(1/delta)). (OpenDP's make_zCDP_to_approxDP, run
    once by hand: 0.17751 at sigma = 20, delta = 1e-5, as here.)"""
    ours = dplab.zcdp_to_dp(rho, delta)
    reference = _cks_reference(rho, delta)
    assert ours == pytest.approx(reference, rel=1e-12, abs=1e-300)
    assert ours <= rho + 2 * math.sqrt(rho * math.log(1 / delta))


def test_zcdp_to_dp_at_sigma_20_is_0178_not_0241():
    """Issue 47, item 17: one Gaussian release at sigma = 20, delta = 1e-5."""
    rho = dplab.gaussian_zcdp(20)
    assert round(dplab.zcdp_to_dp(rho, 1e-5), 3) == 0.178
    assert round(rho + 2 * math.sqrt(rho * math.log(1e5)), 3) == 0.241


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda: dplab.zcdp_to_dp(-1.0, 1e-5), r"^rho must be > 0 and finite, got -1\.0"),
        (lambda: dplab.zcdp_to_dp(0.1, 1.0), r"^delta must be .*got 1\.0"),
        (
            lambda: dplab.rdp_gaussian_epsilon(20, 10, 1e-5, conversion="tight"),
            r"conversion must be .*'tight'",
        ),
    ],
)
def test_the_conversions_name_a_bad_parameter_and_its_value(call, words):
    with pytest.raises(ValueError, match=words):
        call()


@pytest.mark.parametrize(
    "q, z, steps, delta",
    [
        (0.01, 1.1, 1000, 1e-5),  # Abadi et al.-style setting
        (0.05, 0.8, 500, 1e-6),  # small noise: fractional orders matter
        (0.002, 2.0, 10_000, 1e-5),
    ],
)
def test_dpsgd_epsilon_within_1_percent_of_dp_accounting(q, z, steps, delta):
    accountant = RdpAccountant()
    accountant.compose(dp_accounting.PoissonSampledDpEvent(q, dp_accounting.GaussianDpEvent(z)), steps)
    reference = accountant.get_epsilon(delta)
    assert dplab.dpsgd_epsilon(q, z, steps, delta) == pytest.approx(reference, rel=0.01)


def test_subsampled_rdp_reduces_to_gaussian_at_q_one_and_shrinks_with_q():
    orders = np.array([2.0, 3.5, 10.0])
    assert dplab.subsampled_gaussian_rdp(1.0, 2.0, orders) == pytest.approx(orders / 8)
    assert np.all(dplab.subsampled_gaussian_rdp(0.01, 2.0, orders) < orders / 8)


def test_rdp_to_epsilon_rejects_mismatch_and_unknown_conversion():
    with pytest.raises(ValueError, match="equal length"):
        dplab.rdp_to_epsilon(orders=[2.0], rdp=[0.1, 0.2], delta=1e-5)
    with pytest.raises(ValueError, match="conversion"):
        dplab.rdp_to_epsilon(orders=[2.0], rdp=[0.1], delta=1e-5, conversion="magic")
    with pytest.raises(ValueError, match="orders"):
        dplab.rdp_to_epsilon(orders=[1.0], rdp=[0.1], delta=1e-5)
    with pytest.raises(TypeError):  # keyword-only, as dp_accounting orders them
        dplab.rdp_to_epsilon([2.0], [0.1], 1e-5)
