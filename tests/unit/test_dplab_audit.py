"""dplab.audit: the Beta quantile, Clopper-Pearson bounds, and the distinguishing game.

The game's tests use fresh noise (the seed is drawn here and shown on failure), so they rest on
probability, and the run sizes are chosen so that every assertion holds with overwhelming
probability. The arguments, used below:

(A) Validity. If the mechanism is eps-DP on (D, D'), ``eps_lower <= eps`` fails with probability
    at most ``1 - confidence`` (the guarantee of :func:`dplab.audit_mechanism`: two one-sided
    Clopper-Pearson bounds at level 1 - (1 - confidence)/2 each, and a union bound). With
    ``confidence = 1 - 1e-9``: at most 1e-9.

(B) Power. Let p be a true rate, p_hat its estimate from n trials and u the one-sided
    Clopper-Pearson upper bound at level 1 - a. Hoeffding: Pr[p_hat >= p + s] <= exp(-2 n s^2).
    And u <= p_hat + h with h = sqrt(ln(1/a) / (2 n)): at q = p_hat + h, Hoeffding for
    Bin(n, q) gives Pr_q[X <= k] <= exp(-2 n h^2) = a, and u is where that tail equals a
    (it falls as q grows). So with probability >= 1 - 2 exp(-2 n s^2), both rate bounds are
    at most p + s + h (plus the bounds' relative widening of 1e-8, negligible), and

        eps_lower >= ln((1 - FPR - s - h) / (FNR + s + h)),   FPR, FNR the true rates.

    Here n = 200_000, s = 0.01 (failure <= 2 exp(-40) = 8.5e-18) and a = 5e-10, so
    h = sqrt(ln(2e9) / 4e5) = 0.00732 and s + h < 0.0174. With threshold d and Laplace noise of
    scale b, FPR = 1/2 and FNR = exp(-|d' - d| / b) / 2.
"""

from __future__ import annotations

import math

import dplab
import numpy as np
import pytest
from dplab import AuditResult, audit_mechanism, beta_quantile, clopper_pearson, laplace_mech

N = 200_000  # trials on each database
CONFIDENCE = 1 - 1e-9  # (A): a correct mechanism's bound exceeds eps w.p. <= 1e-9
SLACK = 0.01 + math.sqrt(math.log(1 / 5e-10) / (2 * N)) + 1e-6  # s + h of (B), rounded up


def power_bound(delta_answers: float, scale: float) -> float:
    """(B): eps_lower is >= this with probability >= 1 - 2 exp(-40), at threshold d."""
    fpr, fnr = 0.5, 0.5 * math.exp(-delta_answers / scale)
    return math.log((1 - fpr - SLACK) / (fnr + SLACK))


def laplace(sensitivity, epsilon):
    return lambda v, rng: laplace_mech(v, sensitivity, epsilon, rng)


@pytest.fixture
def seed():
    return int(np.random.SeedSequence().entropy % 2**63)  # fresh; shown when a test fails


# --- the Beta quantile, without scipy ----------------------------------------------------------


@pytest.mark.parametrize("q", [1e-12, 0.001, 0.05, 0.5, 0.9, 0.999999])
@pytest.mark.parametrize("shape", [0.3, 1.0, 2.5, 40.0, 1e5])
def test_beta_quantile_closed_forms(q, shape):
    # Beta(a, 1) has CDF x^a; Beta(1, b) has CDF 1 - (1 - x)^b
    assert beta_quantile(q, shape, 1) == pytest.approx(q ** (1 / shape), rel=1e-9)
    assert beta_quantile(q, 1, shape) == pytest.approx(-math.expm1(math.log1p(-q) / shape), rel=1e-9)


def test_beta_quantile_known_values():
    # Beta(2, 2): CDF 3x^2 - 2x^3; symmetric Beta(a, a): median 1/2
    for q in (0.01, 0.1, 0.3, 0.7):
        x = beta_quantile(q, 2, 2)
        assert 3 * x * x - 2 * x**3 == pytest.approx(q, rel=1e-10)
    for a in (0.5, 3, 1e4):
        assert beta_quantile(0.5, a, a) == pytest.approx(0.5, abs=1e-10)
    assert beta_quantile(0, 2, 3) == 0.0 and beta_quantile(1, 2, 3) == 1.0
    assert beta_quantile(1e-200, 1, 1) == pytest.approx(1e-200, rel=1e-9)  # tiny, not 0


@pytest.mark.parametrize("q", [1 - 1e-9, 1 - 1e-12, 0.75])
@pytest.mark.parametrize("b", [2.5, 40.0, 1000.0, 1e5])
def test_beta_quantile_above_one_half_inverts_the_complement(q, b):
    """Near q = 1 the lower tail I_x = q carries only the few digits of 1 - q that a double keeps
    above 1 - 1e-9: the quantile inverts the upper tail 1 - I_x = 1 - q instead. Beta(1, b) has
    quantile 1 - (1 - q)^(1/b) (here 2e-2 at b = 1000: a small x, where 1e-9 is felt)."""
    assert beta_quantile(q, 1, b) == pytest.approx(-math.expm1(math.log1p(-q) / b), rel=1e-12)


def test_beta_quantile_small_shape_against_a_large_one():
    """a << b: lgamma(a + b) - lgamma(b) is taken without cancelling two large numbers (their
    rounding, ~1e-10 at b = 1e5, the quantile at a = 0.1 multiplies by 1 / a). Checked with
    mpmath at 40 digits: the tail at the returned x is the target, up to x's last digit."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 40
    for q, a, b in [(1 - 1e-9, 0.1, 1000.0), (0.5, 0.1, 1e5), (1e-9, 0.1, 1e5), (1 - 1e-9, 1000.0, 1e5)]:
        x = beta_quantile(q, a, b)
        tail = (
            mpmath.betainc(a, b, x, 1, regularized=True)
            if q > 0.5
            else mpmath.betainc(a, b, 0, x, regularized=True)
        )
        target = 1 - mpmath.mpf(q) if q > 0.5 else mpmath.mpf(q)
        # the tail at x is the target to within what x's last digits can move it
        step = mpmath.betainc(a, b, x, x * (1 + 4e-16), regularized=True)
        assert abs(tail - target) <= 1e-12 * target + abs(step), (q, a, b)


def test_beta_quantile_against_mpmath_on_a_grid():
    """The docstring's bound, 1.5e-12 relative (measured 1.45e-12 at q = 0.975, a = 0.5,
    b = 1.6e5; 4.0e-12 before the continued fraction's first term used the exact 1 - x): x's
    error is the tail's miss at x over the density times x, at 25 digits."""
    mpmath = pytest.importorskip("mpmath")
    worst = 0.0
    with mpmath.workdps(25):
        for a in (0.5, 3.0, 40.0):
            for b in (0.5, 40.0, 2e3, 1.6e5):
                for q in (1e-9, 0.025, 0.5, 0.975, 1 - 1e-9):
                    for s, t in ((a, b), (b, a)):
                        x = mpmath.mpf(beta_quantile(q, s, t))
                        if q > 0.5:
                            miss = mpmath.betainc(s, t, x, 1, regularized=True) - (1 - mpmath.mpf(q))
                        else:
                            miss = mpmath.betainc(s, t, 0, x, regularized=True) - mpmath.mpf(q)
                        log_density = (s - 1) * mpmath.log(x) + (t - 1) * mpmath.log1p(-x)
                        density = mpmath.exp(log_density - mpmath.log(mpmath.beta(s, t)))
                        worst = max(worst, float(abs(miss / (density * x))))
    assert 1e-12 < worst <= 1.5e-12
    # Beta(a, a) is symmetric: its median is 1/2, to its last digits now that the lgammas of
    # about 1e6 no longer cancel (0.5000000000005629 before, at a = 1e5)
    for a in (20.0, 1e3, 1e5, 1.6e5):
        assert abs(beta_quantile(0.5, a, a) - 0.5) <= 2**-51, a  # a few units of the last digit


def test_beta_quantile_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(2026)
    for _ in range(300):
        a, b = np.exp(rng.uniform(-2, 12, size=2))
        q = rng.uniform(1e-6, 1 - 1e-6)
        assert beta_quantile(q, a, b) == pytest.approx(stats.beta.ppf(q, a, b), rel=1e-8), (q, a, b)


# --- Clopper-Pearson -----------------------------------------------------------------------------


def test_clopper_pearson_known_values():
    # the exact 95 % interval for 5 of 10 (R's binom.test): 0.1870860, 0.8129140
    lower, upper = clopper_pearson(5, 10, confidence=0.975)
    assert lower == pytest.approx(0.1870860, abs=1e-7) and upper == pytest.approx(0.8129140, abs=1e-7)
    # none of n: the upper bound solves (1 - p)^n = 1 - confidence; all of n: p^n = 1 - confidence
    # (rounded outwards by a relative 1e-8: never inside the exact value)
    assert clopper_pearson(0, 10) == (0.0, pytest.approx(1 - 0.05**0.1, rel=2e-8))
    assert clopper_pearson(0, 10)[1] >= 1 - 0.05**0.1
    assert clopper_pearson(10, 10) == (pytest.approx(0.05**0.1, rel=2e-8), 1.0)
    assert clopper_pearson(10, 10)[0] <= 0.05**0.1
    assert clopper_pearson(0, 100_000, 0.975)[1] == pytest.approx(
        -math.expm1(math.log(0.025) / 1e5), rel=1e-8
    )


def _binom_cdf(k, n, p):
    return sum(math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k + 1))


@pytest.mark.parametrize("confidence", [0.9, 0.975, 0.999])
def test_clopper_pearson_is_the_exact_binomial_tail(confidence):
    # the definition, with exact binomial sums: Pr_upper[X <= k] = Pr_lower[X >= k] = 1 - confidence
    n, alpha = 40, 1 - confidence
    for k in range(n + 1):
        lower, upper = clopper_pearson(k, n, confidence)
        assert 0 <= lower < k / n < upper <= 1 or (k == 0 and lower == 0) or (k == n and upper == 1)
        # before the bounds' outward widening by a relative 1e-8, the tail is alpha; after, below
        if k < n:
            assert _binom_cdf(k, n, upper / (1 + 1e-8)) == pytest.approx(alpha, rel=1e-6)
            assert _binom_cdf(k, n, upper) <= alpha
        if k > 0:
            assert 1 - _binom_cdf(k - 1, n, lower / (1 - 1e-8)) == pytest.approx(alpha, rel=1e-6)
            assert 1 - _binom_cdf(k - 1, n, lower) <= alpha


def test_clopper_pearson_against_scipy():
    stats = pytest.importorskip("scipy.stats")
    for k, n in [(1, 7), (18_394, 100_000), (3, 200_000), (199_990, 200_000)]:
        lower, upper = clopper_pearson(k, n, 0.99)
        assert lower == pytest.approx(stats.beta.ppf(0.01, k, n - k + 1), rel=1e-7)
        assert upper == pytest.approx(stats.beta.ppf(0.99, k + 1, n - k), rel=1e-7)


# --- the game: a correct mechanism ---------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_correct_laplace_bound_stays_below_epsilon_and_is_nearly_tight(epsilon, seed):
    # a count: D and D' differ by one person, sensitivity 1 — the claim is true.
    # <= epsilon: by (A), fails with probability <= 1e-9. >= power_bound: by (B), fails with
    # probability <= 2 exp(-40); power_bound is 0.41, 0.87, 1.84 for epsilon 0.5, 1, 2.
    r = audit_mechanism(laplace(1, epsilon), 500, 501, trials=N, confidence=CONFIDENCE, rng=seed)
    assert r.eps_lower <= epsilon, (seed, r)
    assert r.eps_lower >= power_bound(1, 1 / epsilon) > 0.8 * epsilon, (seed, r)


def test_the_game_works_in_both_directions(seed):
    # d' < d: the attacker says D' below the threshold; the same bounds, (A) and (B)
    r = audit_mechanism(laplace(1, 1.0), 501, 500, trials=N, confidence=CONFIDENCE, rng=seed)
    assert power_bound(1, 1.0) <= r.eps_lower <= 1.0, (seed, r)


# --- the game: broken mechanisms -----------------------------------------------------------------


def test_forgotten_sensitivity_is_exposed(seed):
    # a sum where one person moves the answer by up to 10, released with sensitivity 1 as if it
    # were a count: claimed eps = 1, true eps = 10. By (B), with probability >= 1 - 2 exp(-40),
    # eps_lower >= ln((0.5 - 0.0174) / (0.5 e^-10 + 0.0174)) = 3.3 > 1; and <= 10 by (A).
    r = audit_mechanism(laplace(1, 1.0), 5000, 5010, trials=N, confidence=CONFIDENCE, rng=seed)
    assert r.eps_lower >= power_bound(10, 1.0) > 3, (seed, r)
    assert r.eps_lower > 1.0 and r.eps_lower <= 10.0, (seed, r)


def test_halved_noise_is_exposed(seed):
    # noise of half the scale (sensitivity 1/2 for a count): claimed 1, true 2. By (B), with
    # probability >= 1 - 2 exp(-40), eps_lower >= ln((0.5 - 0.0174) / (0.5 e^-2 + 0.0174)) = 1.74
    r = audit_mechanism(laplace(0.5, 1.0), 500, 501, trials=N, confidence=CONFIDENCE, rng=seed)
    assert 1.0 < power_bound(1, 0.5) <= r.eps_lower <= 2.0, (seed, r)


# --- what the result says ------------------------------------------------------------------------


def test_result_fields(seed):
    r = audit_mechanism(laplace(1, 1.0), 0, 1, trials=10_000, rng=seed)
    assert isinstance(r, AuditResult) and r.trials == 10_000 and r.threshold == 0.0
    assert r.confidence == 0.95 and r.rate_confidence == pytest.approx(0.975)
    for rate, (lower, upper) in [(r.fpr, r.fpr_interval), (r.fnr, r.fnr_interval)]:
        assert 0 <= lower <= rate <= upper <= 1
        assert (lower, upper) == pytest.approx(
            clopper_pearson(round(rate * r.trials), r.trials, 0.975), rel=1e-7
        )
    fpr_up, fnr_up = r.fpr_interval[1], r.fnr_interval[1]
    expected = max(0.0, math.log((1 - fpr_up) / fnr_up), math.log((1 - fnr_up) / fpr_up))
    assert r.eps_lower == pytest.approx(expected)


def test_delta_lowers_the_bound_and_a_seed_reproduces():
    one = audit_mechanism(laplace(1, 1.0), 0, 1, trials=20_000, rng=7)
    assert audit_mechanism(laplace(1, 1.0), 0, 1, trials=20_000, rng=7) == one
    approx = audit_mechanism(laplace(1, 1.0), 0, 1, trials=20_000, rng=7, delta=0.1)
    assert approx.fpr == one.fpr and approx.fnr == one.fnr
    assert approx.eps_lower < one.eps_lower


def test_a_threshold_far_from_both_gives_no_evidence():
    # the attacker always says D': FPR = 1, FNR = 0 — nothing learnt, the bound is 0
    r = audit_mechanism(lambda v, rng: v, 0, 1, threshold=-5, trials=1000)
    assert r.fpr == 1.0 and r.fnr == 0.0 and r.eps_lower == 0.0


def test_a_deterministic_mechanism_is_caught():
    # no noise at all: the attacker never errs; from 1000 trials, eps >= ln(0.997 / 0.0037) ≈ 5.6
    r = audit_mechanism(lambda v, rng: v, 0, 1, threshold=0.5, trials=1000)
    assert r.fpr == 0.0 and r.fnr == 0.0 and r.eps_lower > 5


def test_fresh_noise_by_default():
    a = audit_mechanism(laplace(1, 1.0), 0, 1, trials=50_000)
    b = audit_mechanism(laplace(1, 1.0), 0, 1, trials=50_000)
    assert (a.fpr, a.fnr) != (b.fpr, b.fnr)  # equal with probability < 1e-2 (each count's sd ≈ 100)


def test_exported():
    assert {"audit_mechanism", "clopper_pearson", "beta_quantile"} <= set(dplab.__all__)
    assert dplab.AuditResult is dplab.audit.AuditResult  # a record: importable, not in __all__


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "kwargs, exc, words",
    [
        (dict(mechanism=42), TypeError, "mechanism must be callable"),
        (dict(d=float("nan")), ValueError, "d must be finite"),
        (dict(d="0"), TypeError, "d must be"),
        (dict(d_prime=0.0), ValueError, "d_prime must differ from d"),
        (dict(d_prime=float("inf")), ValueError, "d_prime must be finite"),
        (dict(threshold=float("nan")), ValueError, "threshold must be finite"),
        (dict(trials=0), ValueError, "trials must be an integer >= 1, got 0"),
        (dict(trials=2.5), ValueError, "trials must be an integer >= 1, got 2.5"),
        (dict(trials=True), TypeError, "trials must be"),
        (dict(trials=10**9), ValueError, "trials must be an integer in [1, 100000000], got 1000000000"),
        (dict(confidence=1.0), ValueError, "confidence must be in (0, 1), got 1.0"),
        (dict(confidence=0), ValueError, "confidence must be in (0, 1), got 0.0"),
        (dict(confidence=float("nan")), ValueError, "confidence must be in (0, 1), got nan"),
        (dict(confidence="95 %"), TypeError, "confidence must be"),
        (dict(delta=1.0), ValueError, "delta must be in [0, 1), got 1.0"),
        (dict(delta=-0.1), ValueError, "delta must be in [0, 1), got -0.1"),
        (dict(rng=-1), ValueError, "rng must be a seed >= 0"),
        (dict(mechanism=lambda v, rng: v[:1]), ValueError, "must have the shape of its input"),
        (dict(mechanism=lambda v, rng: v + np.inf), ValueError, "must contain only finite numbers"),
        (dict(mechanism=lambda v, rng: ["a"] * len(v)), TypeError, "the mechanism's output must be"),
    ],
)
def test_audit_validation(kwargs, exc, words):
    args = dict(mechanism=laplace(1, 1.0), d=0.0, d_prime=1.0, trials=100)
    args.update(kwargs)
    with pytest.raises(exc) as info:
        audit_mechanism(**args)
    assert words in str(info.value)


@pytest.mark.parametrize(
    "call, exc, words",
    [
        (lambda: beta_quantile(-0.1, 1, 1), ValueError, "q must be in [0, 1], got -0.1"),
        (lambda: beta_quantile(float("nan"), 1, 1), ValueError, "q must be in [0, 1], got nan"),
        (lambda: beta_quantile(0.5, 0, 1), ValueError, "a must be > 0 and finite, got 0.0"),
        (lambda: beta_quantile(0.5, 1, float("inf")), ValueError, "b must be > 0 and finite, got inf"),
        (lambda: beta_quantile(True, 1, 1), TypeError, "q must be"),
        (lambda: clopper_pearson(11, 10), ValueError, "successes must be <= trials = 10, got 11"),
        (lambda: clopper_pearson(-1, 10), ValueError, "successes must be an integer >= 0, got -1"),
        (lambda: clopper_pearson(0, 0), ValueError, "trials must be an integer >= 1, got 0"),
        (lambda: clopper_pearson(1.5, 10), ValueError, "successes must be an integer >= 0, got 1.5"),
        (lambda: clopper_pearson("1", 10), TypeError, "successes must be"),
        (lambda: clopper_pearson(1, 10, confidence=1.5), ValueError, "confidence must be in (0, 1), got 1.5"),
    ],
)
def test_quantile_and_interval_validation(call, exc, words):
    with pytest.raises(exc) as info:
        call()
    assert words in str(info.value)
