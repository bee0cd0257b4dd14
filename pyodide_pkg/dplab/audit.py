"""Auditing a mechanism: an empirical, statistically valid lower bound on its epsilon.

A mechanism claims epsilon-DP. An auditor cannot prove the claim by running it, but can
refute it: play a distinguishing game between two neighbouring databases D and D' many
times, and turn the attacker's error rates into a lower bound on the epsilon the mechanism
really has. If that lower bound exceeds the claimed epsilon, the claim is false.

The game (Kairouz, Oh & Viswanath 2015; Jagielski, Ullman & Oprea 2020; Nasr et al. 2021):
the mechanism runs ``trials`` times on D and ``trials`` times on D'; each time the attacker
sees only the output and says "D'" when it lies beyond a ``threshold`` (on the side of D''s
answer), "D" otherwise. Its false-positive rate FPR = Pr[says D' | D] and false-negative
rate FNR = Pr[says D | D'] obey, for every (epsilon, delta)-DP mechanism and every
threshold (the two sets {says D'} and {says D} in the definition),

    FPR + e^epsilon FNR >= 1 - delta   and   FNR + e^epsilon FPR >= 1 - delta,

so epsilon >= ln((1 - delta - FPR) / FNR) and epsilon >= ln((1 - delta - FNR) / FPR).
The rates are estimated from the trials; one-sided Clopper-Pearson upper bounds on both
(exact binomial tails, not a normal approximation) make the bound a valid one: with
probability >= ``confidence`` over the mechanism's noise, :attr:`AuditResult.eps_lower`
is at most the mechanism's true epsilon on (D, D').

The Clopper-Pearson bounds need quantiles of the Beta distribution; they are computed here
without scipy (numpy and ``math`` only, as in the browser): the regularized incomplete
beta function by its continued fraction (modified Lentz), inverted by bisection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ._rng import make_rng
from ._special import betainc, betaincc
from ._validate import (
    check_array,
    check_integer,
    check_positive,
    check_real,
    finite_result,
    to_float,
)

__all__ = ["AuditResult", "audit_mechanism", "beta_quantile", "clopper_pearson"]

#: The most trials one audit plays on each database (drawn in chunks of ``_CHUNK``).
MAX_TRIALS = 10**8
_CHUNK = 1 << 20


# --- The Beta distribution, without scipy --------------------------------------------------


def _beta_bracket(q: float, a: float, b: float) -> tuple[float, float]:
    """(lo, hi) with I_lo(a, b) <= q <= I_hi(a, b), hi - lo within a few units of hi's last digit.

    Bisection on the increasing x -> I_x(a, b): halving towards 0 while the bracket starts at 0
    (so a quantile of 1e-200 is found in ~660 steps, not missed), geometric while hi / lo > 2,
    then arithmetic.
    """
    if q <= 0.5:
        below = lambda x: betainc(a, b, x) < q  # noqa: E731
    else:  # above one half, the upper tail: 1 - I_x is exact there, 1 - q exact (Sterbenz)
        upper = 1.0 - q
        below = lambda x: betaincc(a, b, x) > upper  # noqa: E731
    lo, hi = 0.0, 1.0
    for _ in range(2200):
        if lo == 0.0:
            mid = 0.5 * hi
        elif hi > 2.0 * lo:
            mid = math.sqrt(lo * hi)
        else:
            mid = 0.5 * (lo + hi)
        if mid <= lo or mid >= hi or hi - lo <= 4e-16 * hi:
            break
        if below(mid):
            lo = mid
        else:
            hi = mid
    return lo, hi


def _check_probability(value, name: str) -> float:
    x = to_float(value, name, "in (0, 1)")
    if not 0.0 < x < 1.0:  # NaN fails
        raise ValueError(f"{name} must be in (0, 1), got {x!r}")
    return x


def beta_quantile(q, a, b):
    """The q-quantile of the Beta(a, b) distribution: the x with Pr[Beta(a, b) <= x] = q.

    Computed without scipy: the regularized incomplete beta I_x(a, b) by its continued fraction,
    inverted by bisection; above q = 1/2 the upper tail 1 - I_x(a, b) = 1 - q is inverted
    instead (near q = 1 the lower tail keeps too few digits); lgamma(a + b) - lgamma(b) is
    taken without cancelling two large numbers, and for a, b >= 20 the factor x^a (1-x)^b / B(a, b)
    in DiDonato & Morris's form, without the lgammas of 1e6 that cancel (they put the median of
    Beta(1e5, 1e5) at 0.5 + 5.6e-13; now within 2^-52 of it). Relative error at most 1.5e-12
    measured against mpmath at 25 digits (a, b in {0.1, 0.5, 3, 40} x {0.1 … 1.6e5} both ways,
    q in {1e-9, 0.025, 0.5, 0.975, 1 - 1e-9}): the worst at q = 0.975, a = 0.5, b = 1.6e5, where
    the upper tail's continued fraction runs next to the x where it stops converging fast and
    its terms cancel (4.0e-12 before its first term was taken from the exact 1 - x); scipy's
    own ppf is off by up to 1e-9 there, e.g. at q = 1 - 1e-9, a = 1000, b = 1e5.

    Parameters
    ----------
    q : float
        Probability, in [0, 1] (0 and 1 give 0.0 and 1.0).
    a, b : float
        Shape parameters, > 0 and finite.

    Returns
    -------
    float
        The quantile, in [0, 1].

    Raises
    ------
    TypeError
        For a wrong type (bool and str included).
    ValueError
        If ``q`` is outside [0, 1] or NaN, or ``a`` or ``b`` is not > 0 and finite.
    """
    qf = to_float(q, "q", "in [0, 1]")
    if not 0.0 <= qf <= 1.0:
        raise ValueError(f"q must be in [0, 1], got {qf!r}")
    a = check_positive(a, "a")
    b = check_positive(b, "b")
    if qf == 0.0:
        return 0.0
    if qf == 1.0:
        return 1.0
    lo, hi = _beta_bracket(qf, a, b)
    return 0.5 * (lo + hi)


def _check_count_of(successes, trials) -> tuple[int, int]:
    trials = check_integer(trials, "trials", minimum=1)
    successes = check_integer(successes, "successes", minimum=0)
    if successes > trials:
        raise ValueError(f"successes must be <= trials = {trials}, got {successes!r}")
    return successes, trials


_WIDEN = 1e-8


def _cp_upper(k: int, n: int, alpha: float) -> float:
    """One-sided upper Clopper-Pearson bound, rounded up: Pr_p[X <= k] = alpha, X ~ Bin(n, p)."""
    if k == n:
        return 1.0
    # widened by a relative 1e-8: the incomplete beta carries rounding errors up to ~1e-10
    # relative (lgamma's, for very unequal a and b near 10^5; measured against scipy)
    return min(1.0, _beta_bracket(1.0 - alpha, k + 1.0, float(n - k))[1] * (1.0 + _WIDEN))


def _cp_lower(k: int, n: int, alpha: float) -> float:
    """One-sided lower Clopper-Pearson bound, rounded down: Pr_p[X >= k] = alpha."""
    if k == 0:
        return 0.0
    return _beta_bracket(alpha, float(k), n - k + 1.0)[0] * (1.0 - _WIDEN)


def clopper_pearson(successes, trials, confidence=0.95):
    """Clopper-Pearson (exact) one-sided bounds on a binomial proportion p: k successes in n trials.

    Returns ``(lower, upper)``: each is a one-sided bound at level ``confidence``, i.e.
    Pr[p >= lower] >= confidence and Pr[p <= upper] >= confidence, for every p (over the draw
    of k ~ Binomial(n, p)). Together they form a two-sided interval at level
    2 confidence - 1 (the usual 95 % interval is ``clopper_pearson(k, n, 0.975)``).

    ``upper`` is the Beta(k + 1, n - k) quantile at ``confidence`` (1 when k = n) and
    ``lower`` the Beta(k, n - k + 1) quantile at 1 - confidence (0 when k = 0); both are
    rounded outwards (the bisection's outer end, widened by a relative 1e-8, far more than the
    quantile's rounding error), so they never claim more than they should.

    Parameters
    ----------
    successes : int
        k, with 0 <= k <= n.
    trials : int
        n, >= 1.
    confidence : float, default 0.95
        In (0, 1).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or a value out of range, naming the parameter.
    """
    k, n = _check_count_of(successes, trials)
    confidence = _check_probability(confidence, "confidence")
    alpha = 1.0 - confidence
    return _cp_lower(k, n, alpha), _cp_upper(k, n, alpha)


# --- The distinguishing game -----------------------------------------------------------------


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit_mechanism` found.

    Attributes
    ----------
    eps_lower : float
        A statistical lower bound on the mechanism's epsilon: with probability >= ``confidence``
        (over the noise of the trials), the true epsilon on (D, D') is >= ``eps_lower``. It is
        not an estimate of epsilon: a claim "epsilon-DP" with epsilon < eps_lower is refuted
        (at that confidence); eps_lower <= epsilon proves nothing. Always >= 0.
    fpr, fnr : float
        The attacker's observed rates: says D' on D's outputs, says D on D''s outputs.
    fpr_interval, fnr_interval : (float, float)
        Their one-sided Clopper-Pearson bounds (lower, upper), each at level
        ``rate_confidence``; eps_lower uses the upper ends.
    rate_confidence : float
        1 - (1 - confidence) / 2: both upper bounds hold at once with probability
        >= ``confidence`` (union bound).
    trials, threshold, confidence, delta, d, d_prime
        The audit's parameters.
    """

    eps_lower: float
    fpr: float
    fnr: float
    fpr_interval: tuple
    fnr_interval: tuple
    rate_confidence: float
    trials: int
    threshold: float
    confidence: float
    delta: float
    d: float
    d_prime: float


def _says_d_prime_count(mechanism, value: float, threshold: float, above: bool, trials: int, gen) -> int:
    """How many of ``trials`` runs of ``mechanism`` on ``value`` the attacker calls D'."""
    hits = 0
    left = trials
    while left:
        size = min(left, _CHUNK)
        out = mechanism(np.full(size, value), gen)
        out = check_array(out, "the mechanism's output")
        if out.shape != (size,):
            raise ValueError(
                f"the mechanism's output must have the shape of its input, {(size,)}, "
                f"got {out.shape}: mechanism(v, rng) must return one noisy answer per entry of v"
            )
        hits += int(np.count_nonzero(out > threshold if above else out < threshold))
        left -= size
    return hits


def _log_ratio(miss_upper: float, other_upper: float, delta: float) -> float:
    """ln((1 - delta - other) / miss), or 0 when the numerator is <= 0 (no information)."""
    numerator = 1.0 - delta - other_upper
    if numerator <= 0.0:
        return 0.0
    return math.log(numerator) - math.log(miss_upper)


def audit_mechanism(
    mechanism, d, d_prime, threshold=None, trials=100_000, confidence=0.95, delta=0.0, rng=None
):
    """Play the distinguishing game against ``mechanism`` and bound its epsilon from below.

    The mechanism runs ``trials`` times on D and ``trials`` times on D' (vectorised: one call
    per chunk of up to 2^20 runs). Each time the attacker sees the output only and says "D'"
    when it lies beyond ``threshold`` towards ``d_prime`` (above it when ``d_prime > d``), "D"
    otherwise. From its false-positive rate (says D' on D) and false-negative rate (says D on
    D'), through the hypothesis-testing form of differential privacy,

        FPR + e^eps FNR >= 1 - delta   and   FNR + e^eps FPR >= 1 - delta,

    and one-sided Clopper-Pearson upper bounds on both rates, it returns

        eps_lower = max(0, ln((1 - delta - FPR_up) / FNR_up), ln((1 - delta - FNR_up) / FPR_up)).

    Guarantee: if the mechanism is (eps, delta)-DP on the pair (D, D'), then
    Pr[eps_lower <= eps] >= ``confidence`` (over the noise of the trials), for every
    ``threshold`` fixed in advance. So eps_lower > claimed epsilon refutes the claim at that
    confidence. The converse does not hold: one pair and one threshold can miss a violation.
    A threshold chosen after looking at these same outputs voids the guarantee.

    Parameters
    ----------
    mechanism : callable
        ``mechanism(v, rng)``: ``v`` is a float array of true answers (every entry ``d``, or
        every entry ``d_prime``), ``rng`` a ``numpy.random.Generator``; returns one noisy
        answer per entry, e.g. ``lambda v, rng: laplace_mech(v, 1, 0.5, rng)``.
    d, d_prime : float
        The query's true answers on two neighbouring databases D and D' (differing in one
        person), in the query's units; they must differ.
    threshold : float, optional
        Where the attacker's guess switches, in the query's units. Default ``d``: for Laplace
        noise every threshold at or beyond ``d`` (away from ``d_prime``) meets the DP inequality
        with equality, and ``d`` keeps the most outputs on that side, so the bound is tightest.
    trials : int, default 100_000
        Runs on each database, in [1, 10^8].
    confidence : float, default 0.95
        Probability, in (0, 1), with which ``eps_lower`` is a valid lower bound.
    delta : float, default 0.0
        The delta of the claim, in [0, 1): 0 audits pure epsilon-DP.
    rng : None, int or numpy.random.Generator, optional
        Passed to the mechanism as a Generator; ``None`` draws fresh noise on every call.

    Returns
    -------
    AuditResult
        ``eps_lower``, the rates, their bounds and the parameters.

    Raises
    ------
    TypeError
        If ``mechanism`` is not callable, a parameter has the wrong type, or the mechanism
        returns something that is not an array of numbers.
    ValueError
        If ``d_prime == d``, a parameter is out of range (naming it), or the mechanism's output
        has the wrong shape or is not finite.
    """
    if not callable(mechanism):
        raise TypeError(
            f"mechanism must be callable as mechanism(v, rng), got {mechanism!r:.80} "
            f"of type {type(mechanism).__name__}"
        )
    d = check_real(d, "d")
    d_prime = check_real(d_prime, "d_prime")
    if d_prime == d:
        raise ValueError(
            f"d_prime must differ from d = {d!r} (the answers on two neighbouring databases), got {d_prime!r}"
        )
    threshold = d if threshold is None else check_real(threshold, "threshold")
    trials = check_integer(trials, "trials", minimum=1)
    if trials > MAX_TRIALS:
        raise ValueError(f"trials must be an integer in [1, {MAX_TRIALS}], got {trials!r}")
    confidence = _check_probability(confidence, "confidence")
    delta = to_float(delta, "delta", "in [0, 1)")
    if not 0.0 <= delta < 1.0:
        raise ValueError(f"delta must be in [0, 1), got {delta!r}")
    gen = make_rng(rng)

    above = d_prime > d
    false_pos = _says_d_prime_count(mechanism, d, threshold, above, trials, gen)
    false_neg = trials - _says_d_prime_count(mechanism, d_prime, threshold, above, trials, gen)

    # a union bound over the two upper bounds: each fails with probability <= (1 - confidence) / 2
    alpha = (1.0 - confidence) / 2.0
    fpr_interval = (_cp_lower(false_pos, trials, alpha), _cp_upper(false_pos, trials, alpha))
    fnr_interval = (_cp_lower(false_neg, trials, alpha), _cp_upper(false_neg, trials, alpha))
    fpr_up, fnr_up = fpr_interval[1], fnr_interval[1]
    eps_lower = max(0.0, _log_ratio(fnr_up, fpr_up, delta), _log_ratio(fpr_up, fnr_up, delta))
    eps_lower = finite_result(
        eps_lower, "the lower bound eps_lower", trials=trials, confidence=confidence, delta=delta
    )
    return AuditResult(
        eps_lower=eps_lower,
        fpr=false_pos / trials,
        fnr=false_neg / trials,
        fpr_interval=fpr_interval,
        fnr_interval=fnr_interval,
        rate_confidence=1.0 - alpha,
        trials=trials,
        threshold=threshold,
        confidence=confidence,
        delta=delta,
        d=d,
        d_prime=d_prime,
    )
