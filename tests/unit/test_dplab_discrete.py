"""Exact discrete mechanisms: distributions (chi-square), exactness, privacy, parameters.

Statistical tests use fixed seeds and a stated significance level, so they are
deterministic; the level says how surprising a failure would be for a correct
implementation.
"""

import math
from fractions import Fraction

import dplab
import numpy as np
import pytest
from dplab import discrete
from dplab._rng import noise_session
from scipy import stats

from tests.support.dp_checks import empirical_privacy_violation, integer_edges, karen_counts

ALPHA = 1e-3  # significance level of the chi-square, binomial and moment tests
Z = stats.norm.isf(ALPHA / 2)  # two-sided z for the moment tests
N = 20_000


# --- Exact pmfs (floats are fine here: they check, they do not sample) --------------


def discrete_laplace_pmf(z, scale):
    # P(Z = z) = (1 - e^(-1/t)) / (1 + e^(-1/t)) e^(-|z|/t), t = scale.
    r = math.exp(-1.0 / scale)
    return (1 - r) / (1 + r) * np.exp(-np.abs(z) / scale)


def discrete_gaussian_pmf(z, sigma):
    # P(Z = z) = e^(-z^2 / 2 sigma^2) / sum_y e^(-y^2 / 2 sigma^2); the sum is cut where terms vanish.
    support = np.arange(-int(40 * sigma) - 10, int(40 * sigma) + 11)
    norm = np.exp(-(support.astype(float) ** 2) / (2 * sigma**2)).sum()
    return np.exp(-(np.asarray(z, dtype=float) ** 2) / (2 * sigma**2)) / norm


def pmf_moments(pmf, half_width):
    support = np.arange(-half_width, half_width + 1)
    p = pmf(support)
    mean = float((support * p).sum())
    return mean, float((support.astype(float) ** 2 * p).sum() - mean**2)


def chisquare_pvalue(samples, pmf, min_expected=5.0):
    """Chi-square goodness of fit of integer samples to ``pmf``, pooling both tails.

    The central cells are the integers with expected count >= ``min_expected``;
    everything left and right of them forms two tail cells whose probability is
    the pmf mass beyond (so the expected counts add up to the sample size).
    """
    n = len(samples)
    half_width = 1
    while n * pmf(half_width + 1) >= min_expected:
        half_width += 1
    support = np.arange(-half_width, half_width + 1)
    p = pmf(support)
    tail = (1.0 - p.sum()) / 2  # both pmfs are symmetric
    counts = np.array(
        [np.sum(samples < -half_width)]
        + [np.sum(samples == z) for z in support]
        + [np.sum(samples > half_width)]
    )
    expected = n * np.concatenate([[tail], p, [tail]])
    if tail * n < min_expected:  # merge the thin tails into their neighbours
        counts = np.concatenate([[counts[0] + counts[1]], counts[2:-2], [counts[-2] + counts[-1]]])
        expected = np.concatenate(
            [[expected[0] + expected[1]], expected[2:-2], [expected[-2] + expected[-1]]]
        )
    return stats.chisquare(counts, expected * counts.sum() / expected.sum()).pvalue


# --- Distributions ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "sensitivity, epsilon", [(1, 1.0), (1, 0.1), (3, 0.5), (1, 2.0), (1, Fraction(1, 3))]
)
def test_discrete_laplace_matches_its_pmf(sensitivity, epsilon):
    noise = dplab.discrete_laplace_mech(np.zeros(N, dtype=int), sensitivity, epsilon, rng=2024)
    scale = sensitivity / float(epsilon)
    assert chisquare_pvalue(noise, lambda z: discrete_laplace_pmf(z, scale)) > ALPHA


@pytest.mark.parametrize("sigma", [0.5, 1.0, 3.7, 10.0, 55.5])
def test_discrete_gaussian_matches_its_pmf(sigma):
    noise = dplab.discrete_gaussian_mech(np.zeros(N, dtype=int), 1, sigma=sigma, rng=99)
    assert chisquare_pvalue(noise, lambda z: discrete_gaussian_pmf(z, sigma)) > ALPHA


def test_book_style_discrete_gaussian_uses_discrete_gaussian_sigma():
    sigma = dplab.discrete_gaussian_sigma(1, 0.5, 1e-5)
    noise = dplab.discrete_gaussian_mech(np.zeros(N, dtype=int), 1, 0.5, 1e-5, rng=7)
    assert chisquare_pvalue(noise, lambda z: discrete_gaussian_pmf(z, sigma)) > ALPHA


def fourth_moment(pmf, half_width):
    support = np.arange(-half_width, half_width + 1)
    return float(np.sum(support.astype(float) ** 4 * pmf(support)))


@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_discrete_laplace_mean_and_variance(scale):
    noise = dplab.discrete_laplace_mech(np.zeros(N, dtype=int), 1, 1 / scale, rng=11).astype(float)
    r = math.exp(-1 / scale)
    variance = 2 * r / (1 - r) ** 2  # exact variance of the two-sided geometric
    assert variance == pytest.approx(
        pmf_moments(lambda z: discrete_laplace_pmf(z, scale), int(80 * scale))[1]
    )
    m4 = fourth_moment(lambda z: discrete_laplace_pmf(z, scale), int(80 * scale))
    assert abs(noise.mean()) < Z * math.sqrt(variance / N)
    assert abs(noise.var() - variance) < Z * math.sqrt((m4 - variance**2) / N)


def test_discrete_laplace_variance_approaches_the_laplaces():
    # 2 e^(-1/t) / (1 - e^(-1/t))^2 = 2 t^2 - 1/6 + O(1/t^2): 199.83 at t = 10 against 200.
    r = math.exp(-0.1)
    assert 2 * r / (1 - r) ** 2 == pytest.approx(200 - 1 / 6, abs=1e-2)


def test_discrete_gaussian_variance_is_below_sigma_squared():
    # The exact variance is < sigma^2 (Canonne, Kamath & Steinke 2020); visibly so for small sigma
    # (the gap shrinks like e^(-2 pi^2 sigma^2): 1.3e-4 at sigma = 1, below double precision at 2).
    for sigma in (0.3, 0.5, 1.0):
        _, variance = pmf_moments(lambda z, sigma=sigma: discrete_gaussian_pmf(z, sigma), 100)
        assert variance < sigma**2
    _, var_half = pmf_moments(lambda z: discrete_gaussian_pmf(z, 0.5), 100)
    assert var_half == pytest.approx(0.2150, abs=1e-4)
    # ... and the sampler shows it: at sigma = 0.5 the sample variance is ~0.215, clearly not 0.25.
    noise = dplab.discrete_gaussian_mech(np.zeros(N, dtype=int), 1, sigma=0.5, rng=3).astype(float)
    se = math.sqrt((fourth_moment(lambda z: discrete_gaussian_pmf(z, 0.5), 20) - var_half**2) / N)
    assert abs(noise.var() - var_half) < Z * se
    assert noise.var() < 0.25 - Z * se
    # At sigma = 10 the gap is invisible: the variance is sigma^2 within sampling error.
    big = dplab.discrete_gaussian_mech(np.zeros(N, dtype=int), 1, sigma=10, rng=4).astype(float)
    assert abs(big.var() - 100) < Z * math.sqrt(2 * 100**2 / N)
    assert abs(big.mean()) < Z * math.sqrt(100 / N)


@pytest.mark.parametrize(
    "draw",
    [
        pytest.param(
            lambda n: dplab.discrete_laplace_mech(np.zeros(n, dtype=int), 1, 0.2, rng=5), id="laplace"
        ),
        pytest.param(
            lambda n: dplab.discrete_gaussian_mech(np.zeros(n, dtype=int), 1, sigma=4.2, rng=6), id="gaussian"
        ),
    ],
)
def test_noise_is_symmetric(draw):
    noise = draw(N)
    positive, negative = int(np.sum(noise > 0)), int(np.sum(noise < 0))
    assert stats.binomtest(positive, positive + negative, 0.5).pvalue > ALPHA
    # P(Z = z) = P(Z = -z) for each well-populated z (chi-square of the pairs).
    values = np.arange(1, 8)
    pos = np.array([np.sum(noise == z) for z in values])
    neg = np.array([np.sum(noise == -z) for z in values])
    assert stats.chisquare(np.concatenate([pos, neg]), np.tile((pos + neg) / 2, 2)).pvalue > ALPHA


@pytest.mark.parametrize(
    "gamma", [Fraction(0), Fraction(1, 7), Fraction(1, 2), Fraction(1), Fraction(7, 3), Fraction(5)]
)
def test_bernoulli_exp_has_probability_exp_minus_gamma(gamma):
    # CKS (2020), Algorithm 1 and its extension to gamma > 1.
    src = discrete._UniformIntegers(np.random.default_rng(8))
    n = 40_000
    hits = sum(discrete._bernoulli_exp(src, gamma.numerator, gamma.denominator) for _ in range(n))
    assert stats.binomtest(hits, n, math.exp(-gamma)).pvalue > ALPHA


@pytest.mark.parametrize("n", [2, 3, 7, 2**64 + 1, 3 * 2**70])
def test_uniform_integers_are_uniform_for_any_size(n):
    src = discrete._UniformIntegers(np.random.default_rng(10))
    draws = [src.below(n) for _ in range(12_000)]
    assert all(0 <= x < n for x in draws)
    cells = min(n, 6)  # cell c holds the x with c n / cells <= x < (c + 1) n / cells
    counts = np.bincount([x * cells // n for x in draws], minlength=cells)
    widths = [-(-(c + 1) * n // cells) + (-c * n // cells) for c in range(cells)]  # ceil - ceil, exact
    assert stats.chisquare(counts, [12_000 * w / n for w in widths]).pvalue > ALPHA


# --- Exactness --------------------------------------------------------------------------


def test_outputs_are_integers_of_the_input_shape():
    out = dplab.discrete_laplace_mech(7, 1, 1.0, rng=0)
    assert type(out) is int
    assert type(dplab.discrete_gaussian_mech(np.int64(7), 1, sigma=2, rng=0)) is int
    assert type(dplab.discrete_gaussian_mech(7.0, 1, 0.5, 1e-5, rng=0)) is int  # integral float accepted
    arr = dplab.discrete_laplace_mech(np.arange(12).reshape(3, 4), 1, 0.5, rng=0)
    assert arr.dtype == np.int64 and arr.shape == (3, 4)
    arr = dplab.discrete_gaussian_mech([1.0, 2.0, 3.0], 1, sigma=1.5, rng=0)
    assert arr.dtype == np.int64 and arr.shape == (3,)
    assert dplab.discrete_laplace_mech(np.array([], dtype=int), 1, 1.0, rng=0).shape == (0,)


def test_huge_python_integers_stay_exact():
    # No float ever touches the value: 10**30 + noise is exact, unlike 1e30 + noise in doubles.
    big = 10**30
    out = dplab.discrete_laplace_mech(big, 1, 1.0, rng=1)
    assert type(out) is int and abs(out - big) < 100
    assert (dplab.discrete_gaussian_mech(big, 1, sigma=3, rng=1) - big) % 1 == 0


class IntegersOnly:
    """A generator stand-in that offers uniform integers and nothing else."""

    def __init__(self, seed):
        self._gen = np.random.default_rng(seed)
        self.calls = 0

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        self.calls += 1
        assert (low, high, endpoint) == (0, 2**64, False) and dtype == np.uint64  # uniform 64-bit words
        return self._gen.integers(low, high, size=size, dtype=dtype)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(
            lambda rng: dplab.discrete_laplace_mech(np.zeros(500, dtype=int), 1, 0.3, rng=rng), id="laplace"
        ),
        pytest.param(
            lambda rng: dplab.discrete_gaussian_mech(np.zeros(500, dtype=int), 1, sigma=7.3, rng=rng),
            id="gaussian-sigma",
        ),
        pytest.param(
            lambda rng: dplab.discrete_gaussian_mech(np.zeros(500, dtype=int), 2, 1.0, 1e-6, rng=rng),
            id="gaussian-eps-delta",
        ),
    ],
)
def test_samplers_draw_only_uniform_integers(monkeypatch, call):
    # Any float draw (random, laplace, normal, exponential, ...) would raise AttributeError here.
    fake = IntegersOnly(12)
    monkeypatch.setattr(dplab._rng, "make_rng", lambda rng: fake)  # via charged_rng
    out = call(None)
    assert out.dtype == np.int64 and fake.calls >= 1


def test_exact_parameters_fractions_and_floats():
    # A Fraction is used exactly; a float at its exact binary value (0.1 != 1/10, and that is fine).
    t_float = Fraction(1) / Fraction(0.1)
    assert t_float != 10 and abs(t_float - 10) < Fraction(1, 10**15)
    noise = dplab.discrete_laplace_mech(np.zeros(N, dtype=int), 1, Fraction(1, 10), rng=21)
    assert chisquare_pvalue(noise, lambda z: discrete_laplace_pmf(z, 10.0)) > ALPHA
    noise = dplab.discrete_gaussian_mech(np.zeros(N, dtype=int), 1, sigma=Fraction(5, 2), rng=22)
    assert chisquare_pvalue(noise, lambda z: discrete_gaussian_pmf(z, 2.5)) > ALPHA


# --- Empirical privacy check (the helper of the continuous mechanisms, shared) ----------

N_PRIVACY = 150_000


def _karen_counts():
    return karen_counts(int)


@pytest.mark.parametrize("epsilon", [0.25, 0.5, 1.0])
def test_discrete_laplace_count_passes_empirical_privacy_check(epsilon):
    a, b = _karen_counts()
    out_d = dplab.discrete_laplace_mech(np.full(N_PRIVACY, a), 1, epsilon, rng=1)
    out_d_prime = dplab.discrete_laplace_mech(np.full(N_PRIVACY, b), 1, epsilon, rng=2)
    edges = integer_edges(out_d, out_d_prime)  # one bin per integer output
    assert empirical_privacy_violation(out_d, out_d_prime, epsilon, edges=edges, min_count=1_000) <= 0


def test_check_catches_discrete_noise_five_times_too_small():
    epsilon = 0.2
    a, b = _karen_counts()
    out_d = dplab.discrete_laplace_mech(np.full(N_PRIVACY, a), 1, 5 * epsilon, rng=1)
    out_d_prime = dplab.discrete_laplace_mech(np.full(N_PRIVACY, b), 1, 5 * epsilon, rng=2)
    edges = integer_edges(out_d, out_d_prime)
    assert empirical_privacy_violation(out_d, out_d_prime, epsilon, edges=edges, min_count=1_000) > 0


def test_discrete_laplace_sensitivity_scales_the_noise():
    # A sum moved by up to 3 by one person: sensitivity 3 keeps the log-ratio within epsilon.
    epsilon = 1.0
    out_d = dplab.discrete_laplace_mech(np.full(N_PRIVACY, 100), 3, epsilon, rng=1)
    out_d_prime = dplab.discrete_laplace_mech(np.full(N_PRIVACY, 103), 3, epsilon, rng=2)
    edges = integer_edges(out_d, out_d_prime)
    assert empirical_privacy_violation(out_d, out_d_prime, epsilon, edges=edges, min_count=1_000) <= 0


# --- Guarantee helpers -------------------------------------------------------------------


@pytest.mark.parametrize(
    "sensitivity, epsilon, delta",
    [(1, 0.5, 1e-5), (math.sqrt(12), 1.0, 1e-6), (2, 0.01, 1e-9), (1, 20.0, 1e-5)],
)
def test_discrete_gaussian_sigma_meets_the_zcdp_conversion(sensitivity, epsilon, delta):
    sigma = dplab.discrete_gaussian_sigma(sensitivity, epsilon, delta)
    eps = dplab.discrete_gaussian_epsilon(sigma, delta, sensitivity=sensitivity)
    assert eps <= epsilon and eps == pytest.approx(epsilon, rel=1e-9)  # tight, never above
    rho = dplab.gaussian_zcdp(sigma, sensitivity)  # same rho as the continuous Gaussian (CKS 2020)
    assert eps == pytest.approx(dplab.zcdp_to_dp(rho, delta), rel=1e-12)


def test_discrete_gaussian_epsilon_at_sigma_10():
    # rho = 1/200: Canonne, Kamath & Steinke (2020), Cor. 13, gives 0.37526 (OpenDP's
    # make_zCDP_to_approxDP too, run by hand); Bun & Steinke's rho + 2 sqrt(rho ln(1e5)), 0.4849.
    eps = dplab.discrete_gaussian_epsilon(10, 1e-5)
    assert eps == pytest.approx(0.3752612356990232, rel=1e-12)
    assert eps < 0.005 + 2 * math.sqrt(0.005 * math.log(1e5))


def test_discrete_gaussian_sigma_is_the_largest_rho_within_epsilon():
    """σ at Δ = 1, ε = 0,5, δ = 10⁻⁵ is 7.67 (the looser Bun–Steinke inversion asked for 9.70):
    a hair more noise than the exact inverse, never less."""
    sigma = dplab.discrete_gaussian_sigma(1, 0.5, 1e-5)
    assert round(sigma, 2) == 7.67
    assert dplab.discrete_gaussian_epsilon(sigma, 1e-5) <= 0.5
    assert dplab.discrete_gaussian_epsilon(sigma * (1 - 1e-9), 1e-5) > 0.5


# --- Parameters ---------------------------------------------------------------------------


def test_v_must_be_integer_valued_and_named():
    with pytest.raises(ValueError, match=r"^v must be integer-valued .*got 2\.5$"):
        dplab.discrete_laplace_mech(2.5, 1, 1.0)
    with pytest.raises(ValueError, match=r"v must be integer-valued .*got 0\.5"):
        dplab.discrete_gaussian_mech([1, 2, 0.5], 1, sigma=1)
    with pytest.raises(ValueError, match=r"v must be integer-valued .*got nan"):
        dplab.discrete_laplace_mech([1.0, math.nan], 1, 1.0)
    with pytest.raises(TypeError, match="v must be an integer"):
        dplab.discrete_laplace_mech([True, False], 1, 1.0)
    with pytest.raises(TypeError, match="v must be an integer"):
        dplab.discrete_laplace_mech("12", 1, 1.0)
    with pytest.raises(ValueError, match="64-bit"):
        dplab.discrete_laplace_mech(np.array([2**63], dtype=np.uint64), 1, 1.0)


def test_laplace_sensitivity_must_be_a_positive_integer():
    for bad, exc in [
        (1.5, ValueError),
        (0, ValueError),
        (-2, ValueError),
        (math.nan, ValueError),
        (True, TypeError),
        ("1", TypeError),
    ]:
        with pytest.raises(exc, match="sensitivity"):
            dplab.discrete_laplace_mech(5, bad, 1.0)
    assert isinstance(dplab.discrete_laplace_mech(5, 2.0, 1.0, rng=0), int)  # an integral float is a count
    assert isinstance(dplab.discrete_laplace_mech(5, np.int32(2), np.float64(1.0), rng=0), int)


def test_gaussian_takes_sigma_or_epsilon_and_delta():
    with pytest.raises(TypeError, match="either sigma"):
        dplab.discrete_gaussian_mech(5, 1)
    with pytest.raises(TypeError, match="either sigma"):
        dplab.discrete_gaussian_mech(5, 1, 0.5)  # delta missing
    with pytest.raises(TypeError, match="not both"):
        dplab.discrete_gaussian_mech(5, 1, 0.5, 1e-5, sigma=3)
    with pytest.raises(TypeError, match="not both"):
        dplab.discrete_gaussian_mech(5, 1, delta=1e-5, sigma=3)
    # L2 sensitivity of an integer query is sqrt(an integer): sqrt(12) is fine.
    assert isinstance(dplab.discrete_gaussian_mech(5, math.sqrt(12), 0.5, 1e-5, rng=0), int)


# --- Randomness -------------------------------------------------------------------------


def test_works_inside_the_decks_noise_session():
    def run():
        return (
            dplab.discrete_laplace_mech(np.zeros(50, dtype=int), 1, 0.5),
            dplab.discrete_gaussian_mech(np.zeros(50, dtype=int), 1, sigma=3),
        )

    with noise_session(2**100 + 7) as session:
        first = run()
        assert session.draws == 2
    with noise_session(2**100 + 7):
        again = run()
    with noise_session(2**100 + 8):
        other = run()
    assert all(np.array_equal(x, y) for x, y in zip(first, again, strict=True))  # the seed lock reproduces
    assert not np.array_equal(first[0], other[0])
    with noise_session(2**100 + 7):
        one, two = run()[0], run()[0]
    assert not np.array_equal(one, two)  # successive draws in a session are independent


def test_fresh_by_default_and_reproducible_with_seed():
    zeros = np.zeros(30, dtype=int)
    fresh = [dplab.discrete_laplace_mech(zeros, 1, 0.5) for _ in range(3)]
    assert not all(np.array_equal(fresh[0], f) for f in fresh[1:])
    assert np.array_equal(
        dplab.discrete_gaussian_mech(zeros, 1, sigma=5, rng=3),
        dplab.discrete_gaussian_mech(zeros, 1, sigma=5, rng=3),
    )
