"""dplab.local: randomized response against exact binomial probabilities and a simulation.

The exact checks sum over every outcome of a binomial (scipy.stats.binom): the estimate is
unbiased, its variance is the stated formula, the interval covers. The simulations run the
mechanism itself under CPython with fixed seeds (each tolerance says how often a correct
mechanism would fail it), and the privacy checks compare the empirical report frequencies of
two true answers with e^epsilon.
"""

import math
from fractions import Fraction

import dplab
import mpmath
import numpy as np
import pytest
from dplab.local import EPSILON_EXCESS, MAX_LOCAL_EPSILON, MAX_OPTIONS, RREstimate
from scipy import stats

LN3 = math.log(3)


# --- the mechanism's probabilities --------------------------------------------------------


def test_ln3_tells_the_truth_with_probability_three_quarters():
    assert dplab.rr_probabilities(LN3) == pytest.approx((0.75, 0.25), rel=1e-15)
    p, q = dplab.rr_probabilities(1.0, k=4)
    assert p / q == pytest.approx(math.e, rel=1e-14)
    assert p + 3 * q == pytest.approx(1.0, rel=1e-15)


def test_large_epsilon_does_not_overflow():
    p, q = dplab.rr_probabilities(1000.0, k=3)
    assert p == 1.0 and 0 <= q < 1e-300
    assert dplab.rr_posterior_bound(0.01, 1000.0) == 1.0


# --- the float coin: the epsilon the mechanism really has --------------------------------------

GRID53 = 2**53


def realized_excess(epsilon: float, k: int) -> float:
    """ln(P (k - 1) / (1 - P)) - epsilon, exactly: the truth is told when a uniform double
    u = j 2^-53 (j = 0 … 2^53 - 1, numpy's Generator.random) is below the float threshold p the
    mechanism compares it with, so with probability P = ceil(p 2^53) / 2^53; every other option
    then has (1 - P) / (k - 1) (gen.integers is exactly uniform)."""
    p, _ = dplab.rr_probabilities(epsilon, k)  # the threshold _respond compares with
    truth = Fraction(math.ceil(Fraction(p) * GRID53), GRID53)
    if truth == 1:
        return math.inf
    with mpmath.workdps(40):
        ratio = mpmath.mpf(truth.numerator) * (k - 1) * truth.denominator
        ratio /= mpmath.mpf(truth.denominator - truth.numerator) * truth.denominator
        return float(mpmath.log(ratio) - mpmath.mpf(epsilon))


def test_the_coin_is_a_double_on_the_2_to_the_minus_53_grid():
    u = np.random.default_rng(1).random(10_000)
    assert np.all(u * GRID53 == np.floor(u * GRID53)) and u.max() < 1


def test_the_realized_epsilon_exceeds_the_claimed_one_by_at_most_the_documented_excess():
    """At the bound and below it, for yes/no and k options, from the actual float thresholds:
    k = 2 is the worst: below 1.5 · 2^-53 (e^20 + 1) + 2^-52 = 8.1e-8, 5.2e-8 the most measured
    (100 000 ε in [19, 20]), just below 20 (MAX_LOCAL_EPSILON's docstring); every excess is
    below EPSILON_EXCESS = 1e-7."""
    assert MAX_LOCAL_EPSILON == 20.0 and EPSILON_EXCESS == 1e-7 and MAX_OPTIONS == 2**26
    assert realized_excess(20.0, 2) == pytest.approx(-3.589e-8, rel=1e-3)  # at 20: below ε
    rng = np.random.default_rng(31)
    near = np.concatenate([np.linspace(19.9, 20.0, 2001), rng.uniform(15.0, 20.0, 2000)])
    worst = max(realized_excess(float(e), 2) for e in near)
    bound = 1.5 * 2**-53 * (math.exp(20.0) + 1) + 2**-52
    assert bound == pytest.approx(8.08e-8, rel=1e-3)
    assert 4.0e-8 < worst < 5.2e-8 < bound < EPSILON_EXCESS
    for k in (3, 10, 1000, MAX_OPTIONS):
        epsilons = [*np.linspace(19.5, 20.0, 201), *rng.uniform(0.0, 20.0, 200)]
        assert max(realized_excess(float(e), k) for e in epsilons if e > 0) < EPSILON_EXCESS, k
    for epsilon in (1e-6, 0.1, LN3, 5.0, 10.0):
        assert abs(realized_excess(epsilon, 2)) < 1e-12


def test_past_the_bound_the_float_coin_breaks_the_claim():
    """Why 20: the excess grows as e^epsilon, and past 36,7 the lie probability rounds to 0."""
    assert 1e-6 < max(realized_excess(e, 2) for e in np.linspace(24.9, 25.0, 101)) < 1e-5
    assert realized_excess(30.0, 2) == pytest.approx(1.02e-3, rel=1e-2)
    assert realized_excess(37.0, 2) == math.inf
    for call in (
        lambda: dplab.randomized_response(1, 20.5),
        lambda: dplab.generalized_randomized_response(1, 3, 37.0),
        lambda: dplab.rr_estimate(3, 8, 25.0),
        lambda: dplab.grr_estimate([3, 4, 1], 1e3),
    ):
        with pytest.raises(ValueError, match=r"^epsilon must be in \(0, 20\] .* got "):
            call()
    assert dplab.randomized_response(1, 20.0, rng=1) in (0, 1)  # the bound itself is allowed
    assert dplab.rr_posterior_bound(0.5, 25.0) > 0.99  # a bound for any ε-LDP report: no cap


@pytest.mark.parametrize("epsilon", [0.1, LN3, 2.0])
def test_reports_follow_the_exact_binomial(epsilon):
    """200 000 reports of «sí» and of «no»: the «sí» counts are Binomial(n, p) and
    Binomial(n, 1 - p) (a two-sided exact binomial test; a correct mechanism fails one of
    these 2 × 3 tests with probability about 6e-6)."""
    p, _ = dplab.rr_probabilities(epsilon)
    n = 200_000
    rng = np.random.default_rng(11)
    yes_if_yes = int(dplab.randomized_response(np.ones(n, dtype=int), epsilon, rng=rng).sum())
    yes_if_no = int(dplab.randomized_response(np.zeros(n, dtype=int), epsilon, rng=rng).sum())
    assert stats.binomtest(yes_if_yes, n, p).pvalue > 1e-6
    assert stats.binomtest(yes_if_no, n, 1 - p).pvalue > 1e-6


def test_generalized_reports_follow_p_and_q_and_the_ratio_is_e_to_the_epsilon():
    """Each option's share among 300 000 reports of a true 2 (k = 5) is Binomial(n, p) for the
    true option and Binomial(n, q) for every other one; the log-ratio of the two answers'
    report frequencies stays within epsilon (dp_checks' standard error allowance)."""
    k, epsilon, n = 5, 1.0, 300_000
    p, q = dplab.rr_probabilities(epsilon, k)
    rng = np.random.default_rng(5)
    reports = dplab.generalized_randomized_response(np.full(n, 2), k, epsilon, rng=rng)
    counts = np.bincount(reports, minlength=k)
    for option, count in enumerate(counts):
        assert stats.binomtest(int(count), n, p if option == 2 else q).pvalue > 1e-6, option
    other = np.bincount(
        dplab.generalized_randomized_response(np.full(n, 0), k, epsilon, rng=rng), minlength=k
    )
    log_ratio = np.abs(np.log(counts / other))
    slack = 4 * np.sqrt(1 / counts + 1 / other)
    assert np.all(log_ratio - slack <= epsilon)
    assert log_ratio.max() == pytest.approx(epsilon, abs=0.05)  # and it is reached: no slack


def test_k_two_is_warners_draw_for_draw():
    answers = np.array([0, 1, 1, 0, 1] * 50)
    a = dplab.randomized_response(answers, 0.7, rng=3)
    b = dplab.generalized_randomized_response(answers, 2, 0.7, rng=3)
    assert np.array_equal(a, b)
    assert isinstance(dplab.randomized_response(1, 0.7, rng=3), int)
    assert a.dtype == np.int64 and a.shape == answers.shape


# --- the estimate, exactly over the binomial ------------------------------------------------


def _exact(n, pi, epsilon):
    """Over every count y of Binomial(n, λ), λ = q + π (p - q): the estimate's mean and
    variance, and how often the interval covers π."""
    p, q = dplab.rr_probabilities(epsilon)
    lam = q + pi * (p - q)
    ys = np.arange(n + 1)
    pmf = stats.binom.pmf(ys, n, lam)
    results = [dplab.rr_estimate(int(y), n, epsilon) for y in ys]
    estimates = np.array([r.estimate for r in results])
    covered = np.array([r.low <= pi <= r.high for r in results])
    mean = float(pmf @ estimates)
    return mean, float(pmf @ (estimates - mean) ** 2), float(pmf @ covered), lam, p


@pytest.mark.parametrize("n, pi, epsilon", [(60, 0.3, LN3), (200, 0.1, 1.0), (500, 0.5, 0.5), (40, 0.9, 2.0)])
def test_the_estimate_is_unbiased_with_the_stated_variance(n, pi, epsilon):
    mean, variance, _, lam, p = _exact(n, pi, epsilon)
    assert mean == pytest.approx(pi, abs=1e-12)
    assert variance == pytest.approx(lam * (1 - lam) / (n * (2 * p - 1) ** 2), rel=1e-9)


@pytest.mark.parametrize(
    "n, pi, epsilon", [(100, 0.3, LN3), (400, 0.1, 1.0), (1000, 0.5, 0.5), (60, 0.2, LN3)]
)
def test_the_95_interval_covers_about_95_percent(n, pi, epsilon):
    _, _, coverage, _, _ = _exact(n, pi, epsilon)
    assert 0.93 <= coverage <= 0.97


def test_the_estimate_formula_and_the_clip_of_the_variance():
    r = dplab.rr_estimate(45, 60, LN3)  # λ̂ = 0,75 = p: π̂ = (0,75 - 0,25) / 0,5 = 1
    assert isinstance(r, RREstimate)
    assert r.estimate == pytest.approx(1.0) and r.share == 0.75 and r.n == 60
    assert r.variance == pytest.approx(0.75 * 0.25 / (60 * 0.25))
    every_yes = dplab.rr_estimate(60, 60, LN3)  # π̂ = 1,5: outside [0, 1], still unbiased
    assert every_yes.estimate == pytest.approx(1.5)
    assert every_yes.variance == pytest.approx(r.variance)  # λ̂ = 1 is clipped to p: not 0
    # Wilson's interval on λ ends at λ̂ = 1 itself: π's at (1 - q) / (p - q) = 1,5
    # (60 «sí» of 60 at λ <= p = 0,75 is that unlikely: the whole interval lies above 1)
    assert every_yes.high == every_yes.estimate and 1.0 < every_yes.low < every_yes.high
    wider = dplab.rr_estimate(45, 60, LN3, confidence=0.99)
    assert wider.high - wider.low > r.high - r.low


# --- the interval: Wilson's on the share of reports, mapped to the true share -----------------


def _wilson_mpmath(yes: int, n: int, epsilon: float, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson's interval by its definition: the roots λ of (λ̂ - λ)² = z² λ (1 - λ) / n, i.e.
    (n + z²) λ² - (2 yes + z²) λ + yes² / n = 0, at 40 digits; then π = (λ - q) / (p - q)."""
    p, q = dplab.rr_probabilities(epsilon)
    with mpmath.workdps(40):
        z = mpmath.sqrt(2) * mpmath.erfinv(mpmath.mpf(confidence))
        a, b, c = n + z**2, -(2 * yes + z**2), mpmath.mpf(yes) ** 2 / n
        root = mpmath.sqrt(b * b - 4 * a * c)
        low, high = (-b - root) / (2 * a), (-b + root) / (2 * a)
        return float((low - q) / (p - q)), float((high - q) / (p - q))


@pytest.mark.parametrize("n, epsilon", [(1, LN3), (8, LN3), (30, 1.0), (60, 5.0), (150, 0.2)])
def test_the_interval_is_wilsons_mapped_and_holds_the_estimate(n, epsilon):
    p, q = dplab.rr_probabilities(epsilon)
    # λ = 0 and λ = 1 mapped: -q / (p - q) and (1 - q) / (p - q), as the estimator computes them
    floor, ceiling = dplab.rr_estimate(0, n, epsilon).estimate, dplab.rr_estimate(n, n, epsilon).estimate
    assert floor == pytest.approx(-q / (p - q), rel=1e-14)
    assert ceiling == pytest.approx((1 - q) / (p - q), rel=1e-14)
    for confidence in (0.95, 0.8):
        for yes in range(n + 1):
            r = dplab.rr_estimate(yes, n, epsilon, confidence)
            assert floor <= r.low <= r.estimate <= r.high <= ceiling, (yes, r)
            low, high = _wilson_mpmath(yes, n, epsilon, confidence)
            assert r.low == pytest.approx(low, rel=1e-12, abs=1e-13), yes
            assert r.high == pytest.approx(high, rel=1e-12, abs=1e-13), yes
    assert dplab.rr_estimate(0, n, epsilon).low == floor  # Wilson's ends at λ̂ = 0 and 1
    assert dplab.rr_estimate(n, n, epsilon).high == ceiling


def test_the_generalized_intervals_are_each_options_wilson():
    counts = [3, 9, 0, 18]
    r = dplab.grr_estimate(counts, 1.3, confidence=0.9)
    p, q = dplab.rr_probabilities(1.3, 4)
    z = stats.norm.ppf(0.95)
    for v, c in enumerate(counts):
        low, high = stats.binomtest(c, 30).proportion_ci(0.9, method="wilson")  # scipy's own
        assert r.low[v] == pytest.approx((low - q) / (p - q), rel=1e-10, abs=1e-12)
        assert r.high[v] == pytest.approx((high - q) / (p - q), rel=1e-10, abs=1e-12)
        assert r.low[v] <= r.estimate[v] <= r.high[v]
    assert z > 1.6


def _coverage(n, epsilon, interval):
    """Exact coverage of π by ``interval(yes)`` for π = 0, 0,01, …, 1: (mean, least)."""
    p, q = dplab.rr_probabilities(epsilon)
    ys = np.arange(n + 1)
    bounds = np.array([interval(int(y)) for y in ys])
    covers = []
    for pi in np.linspace(0, 1, 101):
        pmf = stats.binom.pmf(ys, n, q + pi * (p - q))
        covers.append(float(pmf @ ((bounds[:, 0] <= pi) & (pi <= bounds[:, 1]))))
    return float(np.mean(covers)), min(covers)


def _normal(yes, n, epsilon):
    """The interval rr_estimate gave before Wilson's: π̂ ± z √Var (λ̂ clipped to [q, p])."""
    r = dplab.rr_estimate(yes, n, epsilon)
    half = stats.norm.ppf(0.975) * math.sqrt(r.variance)
    return r.estimate - half, r.estimate + half


@pytest.mark.parametrize(
    "epsilon, wilson_mean, wilson_least, normal_mean, normal_least",
    [(LN3, 0.952, 0.920, 0.934, 0.884), (5.0, 0.9506, 0.846, 0.849, 0.436)],
)
def test_at_ten_reports_wilson_covers_better_than_the_normal_interval(
    epsilon, wilson_mean, wilson_least, normal_mean, normal_least
):
    """Exact coverage over every binomial outcome, averaged over the truths π = 0 … 1 (and its
    least); measured (bench/rr_interval.py, docs/live-polls.md «The interval»)."""
    n = 10
    wilson = _coverage(n, epsilon, lambda y: dplab.rr_estimate(y, n, epsilon)[2:4])
    normal = _coverage(n, epsilon, lambda y: _normal(y, n, epsilon))
    assert wilson[0] >= wilson_mean and wilson[1] >= wilson_least
    assert normal[0] == pytest.approx(normal_mean, abs=1e-3)
    assert normal[1] == pytest.approx(normal_least, abs=1e-3)
    assert wilson[0] > normal[0] + 0.015 and wilson[1] > normal[1] + 0.03


def test_generalized_estimate_with_two_options_is_warners():
    binary = dplab.rr_estimate(23, 70, 0.8)
    general = dplab.grr_estimate([47, 23], 0.8)
    for a, b in zip(binary[:5], general[:5], strict=True):
        assert a == pytest.approx(float(b[1]))
    assert general.estimate.sum() == pytest.approx(1.0)


def _counts(k, v, y, n):
    counts = [0] * k
    counts[v] = y
    counts[(v + 1) % k] = n - y
    return counts


def test_generalized_estimate_is_unbiased_exactly():
    """Each option's count is Binomial(n, λᵥ) (a marginal of the multinomial): the exact mean
    of f̂ᵥ is fᵥ and its variance λᵥ(1 - λᵥ) / (n (p - q)²)."""
    k, n, epsilon = 4, 150, 1.2
    f = np.array([0.1, 0.2, 0.3, 0.4])
    p, q = dplab.rr_probabilities(epsilon, k)
    for v in range(k):
        lam = q + f[v] * (p - q)
        ys = np.arange(n + 1)
        pmf = stats.binom.pmf(ys, n, lam)
        # f̂ᵥ reads only cᵥ and n: the other options share the rest in any way
        est = np.array([dplab.grr_estimate(_counts(k, v, int(y), n), epsilon).estimate[v] for y in ys])
        assert float(pmf @ est) == pytest.approx(f[v], abs=1e-12)
        assert float(pmf @ (est - f[v]) ** 2) == pytest.approx(lam * (1 - lam) / (n * (p - q) ** 2), rel=1e-9)


# --- a CPython simulation of whole halls ----------------------------------------------------


def test_simulated_halls_estimate_the_true_share():
    """4 000 halls of 120 students, 30 % of whom answer «sí», at ε = ln 3: the mean estimate
    is within 4 standard errors of 0,3; the spread matches the formula within 4 of its standard errors; the 95 %
    intervals cover 0,3 in 93-97 % of the halls."""
    rng = np.random.default_rng(2026)
    n, pi, halls = 120, 0.3, 4000
    truth = (np.arange(n) < int(pi * n)).astype(int)
    estimates, covered = [], 0
    for _ in range(halls):
        reports = dplab.randomized_response(truth, LN3, rng=rng)
        r = dplab.rr_estimate(int(reports.sum()), n, LN3)
        estimates.append(r.estimate)
        covered += r.low <= pi <= r.high
    estimates = np.array(estimates)
    # answers fixed: only the coins vary, Var = p(1 - p) / (n (2p - 1)²) (the docstring's note)
    fixed = 0.75 * 0.25 / (n * 0.25)
    assert abs(estimates.mean() - pi) < 4 * math.sqrt(fixed / halls)
    # a sample variance of 4 000 draws has a relative standard error of √(2/4000) = 2,2 %: 4 of them
    assert estimates.var() == pytest.approx(fixed, rel=0.09)
    assert 0.93 <= covered / halls <= 0.985  # the interval is Warner's: a little wider here


def test_simulated_generalized_halls():
    rng = np.random.default_rng(7)
    truth = np.repeat([0, 1, 2], [50, 30, 20])
    est = np.array(
        [
            dplab.grr_estimate(
                np.bincount(dplab.generalized_randomized_response(truth, 3, 1.5, rng=rng), minlength=3), 1.5
            ).estimate
            for _ in range(3000)
        ]
    )
    assert est.mean(axis=0) == pytest.approx([0.5, 0.3, 0.2], abs=0.01)


# --- what one report reveals ------------------------------------------------------------------


@pytest.mark.parametrize("prior, epsilon", [(0.1, LN3), (0.5, 1.0), (0.01, 3.0), (0.9, 0.2)])
def test_posterior_bound_is_bayes_with_the_mechanisms_probabilities(prior, epsilon):
    p, q = dplab.rr_probabilities(epsilon)
    bayes = p * prior / (p * prior + q * (1 - prior))
    assert dplab.rr_posterior_bound(prior, epsilon) == pytest.approx(bayes, rel=1e-12)
    assert prior < bayes < 1


def test_ten_percent_becomes_twenty_five_at_ln3():
    assert dplab.rr_posterior_bound(0.1, LN3) == pytest.approx(0.25)


# --- bad input (the privacy parameters are in test_dplab_validate.py's table too) -------------


@pytest.mark.parametrize(
    "call, error, words",
    [
        (lambda: dplab.randomized_response(2, 1.0), ValueError, "answer"),
        (lambda: dplab.randomized_response([0, 1, -1], 1.0), ValueError, "-1"),
        (lambda: dplab.randomized_response(True, 1.0), TypeError, "answer"),
        (lambda: dplab.randomized_response(np.array([True, False]), 1.0), TypeError, "answer"),
        (lambda: dplab.randomized_response(0.5, 1.0), ValueError, "answer"),
        (lambda: dplab.randomized_response("1", 1.0), TypeError, "answer"),
        (lambda: dplab.randomized_response(1, 1.0, rng="x"), TypeError, "rng"),
        (lambda: dplab.generalized_randomized_response(3, 3, 1.0), ValueError, "0 … 2"),
        (lambda: dplab.generalized_randomized_response(0, 1, 1.0), ValueError, "k"),
        (lambda: dplab.generalized_randomized_response(0, 2**60, 1.0), ValueError, "k"),
        (lambda: dplab.generalized_randomized_response(0, 2**26 + 1, 1.0), ValueError, "k"),
        (lambda: dplab.rr_estimate(61, 60, 1.0), ValueError, "yes"),
        (lambda: dplab.rr_estimate(-1, 60, 1.0), ValueError, "yes"),
        (lambda: dplab.rr_estimate(0, 0, 1.0), ValueError, "n"),
        (lambda: dplab.rr_estimate(1.5, 60, 1.0), ValueError, "yes"),
        (lambda: dplab.rr_estimate(True, 60, 1.0), TypeError, "yes"),
        (lambda: dplab.rr_estimate(1, 60, 1.0, confidence=1.0), ValueError, "confidence"),
        (lambda: dplab.rr_estimate(1, 60, 1.0, confidence=float("nan")), ValueError, "confidence"),
        (lambda: dplab.rr_estimate(1, 60, 5e-324), ValueError, "epsilon"),
        (lambda: dplab.grr_estimate([0, 0, 0], 1.0), ValueError, "counts"),
        (lambda: dplab.grr_estimate([5], 1.0), ValueError, "counts"),
        (lambda: dplab.grr_estimate([5, -1], 1.0), ValueError, "counts"),
        (lambda: dplab.grr_estimate([5, 2.5], 1.0), ValueError, "counts"),
        (lambda: dplab.grr_estimate([[1, 2], [3, 4]], 1.0), ValueError, "counts"),
        (lambda: dplab.grr_estimate(["1", "2"], 1.0), TypeError, "counts"),
        (lambda: dplab.rr_posterior_bound(0, 1.0), ValueError, "prior"),
        (lambda: dplab.rr_posterior_bound(1.0, 1.0), ValueError, "prior"),
        (lambda: dplab.rr_posterior_bound(float("nan"), 1.0), ValueError, "prior"),
        (lambda: dplab.rr_posterior_bound(True, 1.0), TypeError, "prior"),
    ],
)
def test_bad_input_is_refused_naming_the_parameter(call, error, words):
    with pytest.raises(error, match=words):
        call()
