"""Noise-adding mechanisms: Laplace, Gaussian (classic and analytic), exponential.

Neighbouring data sets differ in one person (added or removed). A query's
sensitivity is how much one person can move its answer: L1 for Laplace, L2 for
Gauss. Every mechanism draws from ``rng`` (fresh noise by default; see
:func:`dplab._rng.make_rng`).
"""

from __future__ import annotations

import math

import numpy as np

from ._rng import make_rng
from ._validate import check_array, check_delta, check_epsilon, check_integer, check_positive

__all__ = [
    "laplace_mech",
    "gaussian_sigma",
    "analytic_gaussian_sigma",
    "gaussian_mech",
    "exponential_mech",
    "report_noisy_max",
    "laplace_vs_gauss_error",
    "laplace_gauss_crossover",
]


def _as_output(noisy, scalar_input: bool):
    return float(noisy) if scalar_input else noisy


def laplace_mech(v, sensitivity, epsilon, rng=None):
    """Release ``v`` plus Laplace noise of scale ``sensitivity / epsilon``.

    Guarantee: epsilon-DP, provided ``sensitivity`` bounds the L1 sensitivity
    of the query that produced ``v`` (Dwork & Roth 2014, Theorem 3.6; Near &
    Abuah, ch. 3).

    Parameters
    ----------
    v : float or array_like
        The true answer(s) of the query. Each component gets independent noise.
    sensitivity : float
        L1 sensitivity of the query, > 0, in the query's units (1 for a count).
    epsilon : float
        Privacy budget, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh noise on every call.

    Returns
    -------
    float or numpy.ndarray
        The noisy answer, same shape as ``v``.

    Raises
    ------
    TypeError
        If a parameter has the wrong type (bool and str included).
    ValueError
        If ``sensitivity`` or ``epsilon`` is not > 0 and finite, or ``v`` is not finite.
    """
    values = check_array(v, "v")
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    gen = make_rng(rng)
    noisy = values + gen.laplace(loc=0.0, scale=sensitivity / epsilon, size=values.shape)
    return _as_output(noisy, values.ndim == 0)


def gaussian_sigma(sensitivity, epsilon, delta):
    """Standard deviation of the classic Gaussian mechanism.

    ``sigma = sensitivity * sqrt(2 ln(1.25 / delta)) / epsilon``
    (Dwork & Roth 2014, Theorem A.1), valid only for ``0 < epsilon < 1``.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity, > 0.
    epsilon : float
        Privacy budget, in (0, 1).
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    float
        sigma, in the units of the query.

    Raises
    ------
    TypeError
        For a wrong type.
    ValueError
        For an out-of-range value, including ``epsilon >= 1`` (where the
        classic analysis does not hold: use :func:`analytic_gaussian_sigma`).
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    if epsilon >= 1:
        raise ValueError(
            f"epsilon must be < 1 for the classic Gaussian mechanism, got {epsilon!r}; "
            "use analytic_gaussian_sigma (valid for every epsilon > 0)"
        )
    # Dwork & Roth (2014), Theorem A.1: sigma >= c * Delta_2 / eps, c^2 > 2 ln(1.25/delta).
    return sensitivity * math.sqrt(2.0 * math.log(1.25 / delta)) / epsilon


# --- Analytic Gaussian mechanism (Balle & Wang 2018) ------------------------------

def _log_phi(x: float) -> float:
    """log of the standard normal CDF, accurate in the far left tail."""
    if x > -30.0:
        return math.log(0.5 * math.erfc(-x / math.sqrt(2.0)))
    # Asymptotic series of the Mills ratio: Phi(x) ~ phi(x)/|x| (1 - 1/x^2 + 3/x^4 - 15/x^6).
    y = -x
    series = 1.0 - 1.0 / y**2 + 3.0 / y**4 - 15.0 / y**6
    return -0.5 * y * y - math.log(y) - 0.5 * math.log(2.0 * math.pi) + math.log(series)


def _phi(x: float) -> float:
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


def _exp_eps_phi(epsilon: float, x: float) -> float:
    """e^epsilon * Phi(x), in log space so that a large epsilon cannot overflow."""
    return math.exp(epsilon + _log_phi(x))


def _b_plus(v: float, epsilon: float) -> float:
    # Balle & Wang (2018), Algorithm 1: B+(v) = Phi(sqrt(eps v)) - e^eps Phi(-sqrt(eps (v + 2))).
    return _phi(math.sqrt(epsilon * v)) - _exp_eps_phi(epsilon, -math.sqrt(epsilon * (v + 2.0)))


def _b_minus(u: float, epsilon: float) -> float:
    # Balle & Wang (2018), Algorithm 1: B-(u) = Phi(-sqrt(eps u)) - e^eps Phi(-sqrt(eps (u + 2))).
    return _phi(-math.sqrt(epsilon * u)) - _exp_eps_phi(epsilon, -math.sqrt(epsilon * (u + 2.0)))


def _bisect(predicate, low: float, high: float, iterations: int = 200):
    """Bracket the boundary of a monotone predicate.

    Requires predicate(low) True and predicate(high) False; returns the final
    ``(low, high)`` bracket, whose width is at the float resolution.
    """
    for _ in range(iterations):
        mid = 0.5 * (low + high)
        if mid in (low, high):
            break
        if predicate(mid):
            low = mid
        else:
            high = mid
    return low, high


def analytic_gaussian_sigma(sensitivity, epsilon, delta):
    """Smallest sigma for which Gaussian noise gives (epsilon, delta)-DP, for any epsilon > 0.

    Balle & Wang (2018), "Improving the Gaussian Mechanism for Differential
    Privacy", Algorithm 1 (the analytic Gaussian mechanism), solved by
    bisection with ``math.erfc`` (no scipy). The returned sigma satisfies the
    exact condition of their Theorem 8,

        Phi(D/(2s) - e s/D) - e^e Phi(-D/(2s) - e s/D) <= delta,

    with D = ``sensitivity``, e = ``epsilon``, s = sigma, so it is never larger
    than the classic :func:`gaussian_sigma` and stays valid for epsilon >= 1.

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity, > 0.
    epsilon : float
        Privacy budget, > 0 (any size).
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    float
        sigma (rounded up to the bisection's upper end, so the condition holds).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or an out-of-range value.
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)

    delta_zero = _phi(0.0) - _exp_eps_phi(epsilon, -math.sqrt(2.0 * epsilon))  # B(0)
    if delta >= delta_zero:
        # v* = sup{v >= 0 : B+(v) <= delta}; B+ increases in v.
        high = 1.0
        while _b_plus(high, epsilon) <= delta:
            high *= 2.0
        v, _ = _bisect(lambda v: _b_plus(v, epsilon) <= delta, 0.0, high)
        alpha = math.sqrt(1.0 + v / 2.0) - math.sqrt(v / 2.0)
    else:
        # u* = inf{u >= 0 : B-(u) <= delta}; B- decreases in u.
        high = 1.0
        while _b_minus(high, epsilon) > delta:
            high *= 2.0
        _, u = _bisect(lambda u: _b_minus(u, epsilon) > delta, 0.0, high)
        alpha = math.sqrt(1.0 + u / 2.0) + math.sqrt(u / 2.0)
    # Balle & Wang (2018), Algorithm 1, last line: sigma = alpha * Delta / sqrt(2 eps).
    return alpha * sensitivity / math.sqrt(2.0 * epsilon)


def gaussian_mech(v, sensitivity, epsilon, delta, rng=None, analytic=False):
    """Release ``v`` plus Gaussian noise calibrated to its L2 sensitivity.

    Guarantee: (epsilon, delta)-DP, provided ``sensitivity`` bounds the L2
    sensitivity of the query. With ``analytic=False`` (default, the book's and
    the deck's formula) sigma is :func:`gaussian_sigma`, valid for epsilon < 1
    (Dwork & Roth 2014, Theorem A.1). With ``analytic=True`` sigma is
    :func:`analytic_gaussian_sigma` (Balle & Wang 2018), valid for every
    epsilon > 0 and never larger.

    Parameters
    ----------
    v : float or array_like
        True answer(s); every component gets independent N(0, sigma^2) noise.
    sensitivity : float
        L2 sensitivity, > 0 (sqrt(k) for k counts that one person moves by 1).
    epsilon : float
        Privacy budget, > 0 (< 1 unless ``analytic``).
    delta : float
        Failure probability, in (0, 1); should be << 1/n.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh noise on every call.
    analytic : bool, default False
        Use the analytic calibration.

    Returns
    -------
    float or numpy.ndarray
        The noisy answer, same shape as ``v``.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value (``epsilon >= 1`` without ``analytic``).
    """
    values = check_array(v, "v")
    if not isinstance(analytic, (bool, np.bool_)):
        raise TypeError(f"analytic must be a bool, got {analytic!r} of type {type(analytic).__name__}")
    calibrate = analytic_gaussian_sigma if analytic else gaussian_sigma
    sigma = calibrate(sensitivity, epsilon, delta)
    gen = make_rng(rng)
    noisy = values + gen.normal(loc=0.0, scale=sigma, size=values.shape)
    return _as_output(noisy, values.ndim == 0)


# --- Selection: exponential mechanism and report-noisy-max --------------------------

def _scores_array(candidates, scores):
    if callable(scores):
        scores = [scores(c) for c in candidates]
    arr = check_array(scores, "scores", ndim=1)
    if arr.size != len(candidates):
        raise ValueError(
            f"scores must have one entry per candidate ({len(candidates)}), got {arr.size}"
        )
    if arr.size == 0:
        raise ValueError("candidates must not be empty, got 0 candidates")
    return arr


def exponential_mech(candidates, scores, sensitivity, epsilon, rng=None):
    """Pick a candidate with probability proportional to exp(epsilon * score / (2 sensitivity)).

    Guarantee: epsilon-DP when one person changes every score by at most
    ``sensitivity`` (McSherry & Talwar 2007; Dwork & Roth 2014, Theorem 3.10).
    Computed in log space with the maximum subtracted, so large scores cannot
    overflow ``exp``.

    Parameters
    ----------
    candidates : sequence
        The possible outputs (any objects); must not be empty.
    scores : array_like or callable
        One score per candidate (higher is better), or a function
        ``score(candidate) -> float`` evaluated on each candidate.
    sensitivity : float
        Sensitivity of the score, > 0.
    epsilon : float
        Privacy budget, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; fresh by default.

    Returns
    -------
    object
        The chosen candidate.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or mismatched lengths.
    """
    candidates = list(candidates)
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    gen = make_rng(rng)
    score = _scores_array(candidates, scores)
    log_weights = epsilon * score / (2.0 * sensitivity)
    log_weights -= log_weights.max()  # max-subtraction: exp() <= 1, no overflow
    probabilities = np.exp(log_weights)
    probabilities /= probabilities.sum()
    return candidates[int(gen.choice(len(candidates), p=probabilities))]


def report_noisy_max(candidates, scores, sensitivity, epsilon, rng=None):
    """Return the candidate whose score plus Laplace(2 sensitivity / epsilon) noise is largest.

    Guarantee: epsilon-DP for scores of sensitivity ``sensitivity`` (Dwork &
    Roth 2014, Claim 3.9 proves it with scale sensitivity/epsilon for monotone
    counting queries; scale 2 sensitivity/epsilon covers arbitrary scores).
    Only the winner is released, not the noisy scores.

    Parameters, return value and errors are as in :func:`exponential_mech`.
    """
    candidates = list(candidates)
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    gen = make_rng(rng)
    score = _scores_array(candidates, scores)
    noisy = score + gen.laplace(scale=2.0 * sensitivity / epsilon, size=score.shape)
    return candidates[int(np.argmax(noisy))]


# --- Laplace against Gauss for a k-component query ----------------------------------

def laplace_vs_gauss_error(k, epsilon, delta):
    """Per-component noise std of Laplace and Gauss for a k-component query.

    Each person changes each of the k components by at most 1, so
    Delta_1 = k and Delta_2 = sqrt(k) (Near & Abuah, ch. 6). Laplace with scale
    Delta_1/epsilon has std sqrt(2) k / epsilon per component (epsilon-DP);
    the classic Gaussian has sigma = sqrt(k) sqrt(2 ln(1.25/delta)) / epsilon
    ((epsilon, delta)-DP, epsilon < 1). Gauss wins once
    sqrt(k) > sqrt(2 ln(1.25/delta)) / sqrt(2), i.e. from k = 12 at delta = 1e-5.

    Parameters
    ----------
    k : int or array_like of int
        Number of components, >= 1.
    epsilon : float
        Privacy budget, in (0, 1) (classic Gaussian).
    delta : float
        Failure probability of the Gaussian mechanism, in (0, 1).

    Returns
    -------
    (laplace_std, gauss_std) : tuple of float or of numpy.ndarray
        Shapes follow ``k``.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value.
    """
    if np.ndim(k) == 0:
        ks = float(check_integer(k, "k"))
    else:
        ks = check_array(k, "k", ndim=1, minimum=1)
        if not np.all(ks == np.round(ks)):
            raise ValueError(f"every entry of k must be an integer >= 1, got {k!r:.80}")
    epsilon = check_epsilon(epsilon)
    gauss_unit = gaussian_sigma(1.0, epsilon, delta)  # sigma for Delta_2 = 1
    laplace_std = math.sqrt(2.0) * ks / epsilon  # Var(Lap(b)) = 2 b^2, b = k / eps
    gauss_std = np.sqrt(ks) * gauss_unit
    if np.ndim(ks) == 0:
        return float(laplace_std), float(gauss_std)
    return laplace_std, gauss_std


def laplace_gauss_crossover(delta):
    """Smallest k from which the Gaussian's per-component std is below Laplace's.

    Same setting as :func:`laplace_vs_gauss_error`; epsilon cancels out.
    Solves sqrt(2) k > sqrt(k) sqrt(2 ln(1.25/delta)), i.e.
    k > ln(1.25/delta). At delta = 1e-5 this gives 12.

    Parameters
    ----------
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    int
    """
    delta = check_delta(delta)
    threshold = math.log(1.25 / delta)  # sqrt(2) k > sqrt(2 k ln(1.25/delta)) <=> k > ln(1.25/delta)
    return int(math.floor(threshold)) + 1
