"""Noise-adding mechanisms: Laplace, Gaussian (classic and analytic), exponential.

Neighbouring data sets differ in one person (added or removed). A query's
sensitivity is how much one person can move its answer: L1 for Laplace, L2 for
Gauss. Every mechanism draws from ``rng`` (fresh noise by default; see
:func:`dplab._rng.make_rng`).

Every noise scale is checked to be a finite, normal float before any noise is
drawn (:func:`dplab._validate.finite_result`), and every noisy answer to be
finite: parameters too extreme for floating point raise ``ValueError`` naming
them, never return inf, NaN or a noiseless answer.

The noise here is floating point, whose low-order bits can reveal the true answer
(Mironov 2012); :mod:`dplab.discrete` has exact integer samplers for integer queries.
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ._maths import classic_c, laplace_scale
from ._rng import charged_rng
from ._special import log_scaled_normal_tail, normal_cdf
from ._validate import (
    check_array,
    check_count,
    check_delta,
    check_epsilon,
    check_positive,
    finite_result,
)

__all__ = [
    "laplace_mech",
    "gaussian_sigma",
    "analytic_gaussian_sigma",
    "gaussian_mech",
    "exponential_mech",
    "report_noisy_max",
    "laplace_vs_gauss_std",
    "laplace_gauss_crossover",
]


def _as_output(noisy, scalar_input: bool, scale_name: str, **params):
    """The noisy answer, checked finite: huge noise on a huge v can still overflow.

    The check reads only the noisy answer (post-processing), and the message shows the
    parameters, never ``v``.
    """
    finite_result(noisy, f"the noisy answer v + noise of {scale_name}", **params)
    return float(noisy) if scalar_input else noisy


def laplace_mech(v, sensitivity, epsilon, rng=None, *, accountant=None, label=""):
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
    accountant : BudgetAccountant, optional
        If given, ``epsilon`` is spent from it before any noise is drawn.
    label : str, optional
        What is released, for the accountant's history.

    Returns
    -------
    float or numpy.ndarray
        The noisy answer, same shape as ``v``; always finite.

    Raises
    ------
    TypeError
        If a parameter has the wrong type (bool and str included).
    ValueError
        If ``sensitivity`` or ``epsilon`` is not > 0 and finite, or ``v`` is not finite;
        if the scale ``sensitivity / epsilon`` overflows or underflows (below 2.2e-308: no
        real noise), e.g. at ``epsilon = 5e-324``; or if the noisy answer overflows.
    BudgetError
        If ``accountant`` cannot pay ``epsilon``; nothing is released or spent then.

    Warnings
    --------
    Floating-point noise. The double this returns is not drawn from the Laplace
    distribution the guarantee is proved for, and its low-order bits can reveal
    ``v``: Mironov (2012), "On significance of the least significant bits for
    differential privacy" (CCS), attacks exactly this textbook sampler. Fine for
    teaching; for an integer query (a count, a histogram) outside the classroom use
    :func:`dplab.discrete_laplace_mech`, whose exact integer noise has no such bits
    (Canonne, Kamath & Steinke 2020).
    """
    values = check_array(v, "v")
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    scale = laplace_scale(sensitivity, epsilon)
    gen = charged_rng(rng, accountant, epsilon, 0.0, label)
    noisy = values + gen.laplace(loc=0.0, scale=scale, size=values.shape)
    return _as_output(
        noisy, values.ndim == 0, "scale sensitivity/epsilon", sensitivity=sensitivity, epsilon=epsilon
    )


def _check_classic_epsilon(epsilon: float) -> None:
    if epsilon >= 1:
        raise ValueError(
            f"epsilon must be < 1 for the classic Gaussian mechanism, got {epsilon!r}; "
            "use analytic_gaussian_sigma (valid for every epsilon > 0)"
        )


def _classic_sigma(sensitivity: float, epsilon: float, delta: float, /, **params) -> float:
    """Classic sigma for valid parameters, checked finite and normal; ``params`` name them."""
    # Dwork & Roth (2014), Theorem A.1: sigma >= c * Delta_2 / eps, c^2 > 2 ln(1.25/delta).
    sigma = sensitivity * classic_c(-math.log(delta)) / epsilon
    return finite_result(
        sigma, "the noise std sigma = sensitivity sqrt(2 ln(1.25/delta)) / epsilon", positive=True, **params
    )


def gaussian_sigma(sensitivity, epsilon, delta):
    """Standard deviation of the classic Gaussian mechanism.

    ``sigma = sensitivity * sqrt(2 ln(1.25 / delta)) / epsilon``
    (Dwork & Roth 2014, Theorem A.1), valid only for ``0 < epsilon < 1``.
    Finite for every delta > 0 (the logarithm is taken without forming 1.25 / delta).

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
        sigma, in the units of the query: finite and >= 2.2e-308.

    Raises
    ------
    TypeError
        For a wrong type.
    ValueError
        For an out-of-range value, including ``epsilon >= 1`` (where the
        classic analysis does not hold: use :func:`analytic_gaussian_sigma`),
        or when sigma overflows or underflows (e.g. ``epsilon = 5e-324``).
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    _check_classic_epsilon(epsilon)
    return _classic_sigma(sensitivity, epsilon, delta, sensitivity=sensitivity, epsilon=epsilon, delta=delta)


# --- Analytic Gaussian mechanism (Balle & Wang 2018) ------------------------------


def _exp_eps_tail(epsilon: float, w: float) -> float:
    """e^eps Phi(-sqrt(eps (w + 2))), for w >= 0, without forming e^eps.

    With y^2 = eps (w + 2): e^eps Phi(-y) = e^(eps - y^2/2) [Phi(-y) e^(y^2/2)]
    = e^(-eps w / 2) [Phi(-y) e^(y^2/2)]; the exponents cancel exactly on paper, so at
    eps = 1e300 neither e^eps nor a rounded eps - y^2/2 (off by ~1e284) is ever formed.
    """
    return math.exp(-0.5 * epsilon * w + log_scaled_normal_tail(math.sqrt(epsilon * (w + 2.0))))


def _b_plus(v: float, epsilon: float) -> float:
    # Balle & Wang (2018), Algorithm 1: B+(v) = Phi(sqrt(eps v)) - e^eps Phi(-sqrt(eps (v + 2))).
    return normal_cdf(math.sqrt(epsilon * v)) - _exp_eps_tail(epsilon, v)


def _b_minus(u: float, epsilon: float) -> float:
    # Balle & Wang (2018), Algorithm 1: B-(u) = Phi(-sqrt(eps u)) - e^eps Phi(-sqrt(eps (u + 2))).
    return normal_cdf(-math.sqrt(epsilon * u)) - _exp_eps_tail(epsilon, u)


def _bracket(predicate, what: str, **params) -> float:
    """The first of 1, 2, 4, ... where a monotone predicate fails, checked finite.

    Past 2**1023 the next double is inf, where the bisection would end at once with a
    meaningless bracket: raise instead, naming ``params``.
    """
    high = 1.0
    while predicate(high):
        high = finite_result(2.0 * high, what, **params)
    return high


def _boundary(predicate, what: str, epsilon: float, delta: float) -> tuple[float, float]:
    """The bracket of a monotone predicate's boundary on [0, inf), ``what`` naming it in errors."""
    return _bisect(
        predicate, 0.0, _bracket(predicate, f"the bisection bracket for {what}", epsilon=epsilon, delta=delta)
    )


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


# Past this u* or v*, B+ and B- lose their precision in double: sqrt(eps (u + 2)) and
# sqrt(eps u) differ in their last digits (u + 2 == u from 2**53 on), and the bisection's
# sigma broke the condition, by 2 % at eps = 1e-10 and by a factor 1e135 at eps = 1e-11 with
# delta = 1.6e-224 (checked against the exact condition in mpmath). It happens only for tiny
# epsilon; there a closed-form sigma that is valid for every epsilon is used instead.
_PRECISE_UV = 1e6


def _sigma_without_epsilon(sensitivity, epsilon, delta):
    """A sigma valid for every epsilon: the exact sigma decreases in epsilon, so the one for
    epsilon -> 0 bounds it: Phi(D/2s) - Phi(-D/2s) = erf(D / (2 sqrt(2) s)) <= delta, and since
    erf(z) <= 2 z / sqrt(pi), s = D / (delta sqrt(2 pi)) satisfies it. Also the classic sigma
    when epsilon < 1; the smaller of the two."""
    names = dict(sensitivity=sensitivity, epsilon=epsilon, delta=delta)
    sigma = finite_result(
        sensitivity / (delta * math.sqrt(2.0 * math.pi)),
        "the noise std sigma = sensitivity / (delta sqrt(2 pi))",
        **names,
    )
    if epsilon < 1.0:
        sigma = min(sigma, gaussian_sigma(sensitivity, epsilon, delta))
    return finite_result(sigma, "the noise std sigma", positive=True, **names)


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
        sigma (rounded up to the bisection's upper end, so the condition holds):
        finite and >= 2.2e-308. For tiny epsilon, where the bisection's terms lose
        their precision in double, a closed-form sigma valid for every epsilon (the
        smaller of sensitivity / (delta sqrt(2 pi)) and the classic one), never smaller.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or an out-of-range value, or when sigma (or the
        bisection's bracket) leaves the float range, e.g. at ``epsilon = 5e-324``.
    """
    return _analytic_gaussian_sigma(
        check_positive(sensitivity, "sensitivity"), check_epsilon(epsilon), check_delta(delta)
    )


# A pure function of three floats, asked again and again for the same ones: noisy_gradient_descent
# needs it once per training (a privacy-utility curve trains hundreds of models at a few
# budgets), and each answer costs two bisections of up to 200 steps. Errors are not cached.
@functools.lru_cache(maxsize=1024)
def _analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    names = dict(sensitivity=sensitivity, epsilon=epsilon, delta=delta)

    delta_zero = normal_cdf(0.0) - _exp_eps_tail(epsilon, 0.0)  # B(0)
    if delta >= delta_zero:
        # v* = sup{v >= 0 : B+(v) <= delta}; B+ increases in v.
        def below(v):
            return _b_plus(v, epsilon) <= delta

        v, _ = _boundary(below, "v* = sup{v : B+(v) <= delta}", epsilon, delta)
        if v > _PRECISE_UV:
            return _sigma_without_epsilon(sensitivity, epsilon, delta)
        # sqrt(1 + v/2) - sqrt(v/2), written without the difference of two nearly equal roots
        # (at v = 1e300 the difference is 0.0, the quotient is 7e-151).
        alpha = 1.0 / (math.sqrt(1.0 + v / 2.0) + math.sqrt(v / 2.0))
    else:
        # u* = inf{u >= 0 : B-(u) <= delta}; B- decreases in u.
        def above(u):
            return _b_minus(u, epsilon) > delta

        _, u = _boundary(above, "u* = inf{u : B-(u) <= delta}", epsilon, delta)
        if u > _PRECISE_UV:
            return _sigma_without_epsilon(sensitivity, epsilon, delta)
        alpha = math.sqrt(1.0 + u / 2.0) + math.sqrt(u / 2.0)
    # Balle & Wang (2018), Algorithm 1, last line: sigma = alpha * Delta / sqrt(2 eps)
    # (sqrt(2) sqrt(eps), since 2 eps overflows for eps > 9e307).
    # rounded up by a relative 1e-6: the terms of B+- carry rounding errors up to ~1e-7 of
    # delta at tiny delta (measured against the exact condition in 60-digit mpmath), which
    # this margin covers many times over (the condition falls by ~x^2 * 1e-6 relative)
    sigma = (1.0 + 1e-6) * alpha * sensitivity / (math.sqrt(2.0) * math.sqrt(epsilon))
    return finite_result(
        sigma, "the noise std sigma = alpha sensitivity / sqrt(2 epsilon)", positive=True, **names
    )


def gaussian_mech(v, sensitivity, epsilon, delta, rng=None, analytic=False, *, accountant=None, label=""):
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
    accountant, label : BudgetAccountant and str, optional
        As in :func:`laplace_mech`; the cost spent is ``(epsilon, delta)``.

    Returns
    -------
    float or numpy.ndarray
        The noisy answer, same shape as ``v``; always finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value (``epsilon >= 1`` without ``analytic``),
        when sigma leaves the float range, or when the noisy answer overflows.

    Warnings
    --------
    Floating-point noise: as for :func:`laplace_mech` (Mironov 2012), the noisy double's
    low-order bits can reveal ``v``. For an integer query outside the classroom use
    :func:`dplab.discrete_gaussian_mech`, exact integer noise (Canonne, Kamath &
    Steinke 2020).
    """
    values = check_array(v, "v")
    if not isinstance(analytic, (bool, np.bool_)):
        raise TypeError(f"analytic must be a bool, got {analytic!r} of type {type(analytic).__name__}")
    calibrate = analytic_gaussian_sigma if analytic else gaussian_sigma
    sigma = calibrate(sensitivity, epsilon, delta)
    gen = charged_rng(rng, accountant, epsilon, delta, label)
    noisy = values + gen.normal(loc=0.0, scale=sigma, size=values.shape)
    return _as_output(
        noisy,
        values.ndim == 0,
        f"std sigma = {sigma!r}",
        sensitivity=sensitivity,
        epsilon=epsilon,
        delta=delta,
    )


# --- Selection: exponential mechanism and report-noisy-max --------------------------


def _scores_array(candidates, scores):
    if callable(scores):
        scores = [scores(c) for c in candidates]
    arr = check_array(scores, "scores", ndim=1)
    if arr.size != len(candidates):
        raise ValueError(f"scores must have one entry per candidate ({len(candidates)}), got {arr.size}")
    if arr.size == 0:
        raise ValueError("candidates must not be empty, got 0 candidates")
    return arr


def _selection_scale(sensitivity: float, epsilon: float) -> float:
    """The noise scale 2 sensitivity / epsilon shared by both selection mechanisms, checked.

    Report-noisy-max adds Laplace noise of this scale; the exponential mechanism is
    report-noisy-max with Gumbel noise of the same scale.
    """
    return finite_result(
        2.0 * (sensitivity / epsilon),
        "the noise scale 2 sensitivity/epsilon",
        positive=True,
        sensitivity=sensitivity,
        epsilon=epsilon,
    )


def _standardized(score: np.ndarray, scale: float) -> np.ndarray:
    """(score - max score) / scale: <= 0, 0 at the best, never NaN.

    Halved first: two finite scores (-1.7e308 and 1.7e308) differ by more than the largest
    float, their halves do not; a difference too large for the scale gives -inf, weight 0.
    """
    with np.errstate(over="ignore"):
        return (score / 2.0 - score.max() / 2.0) / (scale / 2.0)


def exponential_mech(candidates, scores, sensitivity, epsilon, rng=None, *, accountant=None, label=""):
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
    accountant, label : BudgetAccountant and str, optional
        As in :func:`laplace_mech`.

    Returns
    -------
    object
        The chosen candidate.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or mismatched lengths, or when the
        scale 2 sensitivity / epsilon overflows or underflows.

    Warnings
    --------
    Its randomness is floating point (see :func:`laplace_mech`, Mironov 2012): the
    guarantee is the idealised one. Fine for teaching.
    """
    candidates = list(candidates)
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    scale = _selection_scale(sensitivity, epsilon)
    score = _scores_array(candidates, scores)
    gen = charged_rng(rng, accountant, epsilon, 0.0, label)
    # log weights epsilon score / (2 sensitivity), shifted by the maximum: exp() <= 1, no overflow.
    probabilities = np.exp(_standardized(score, scale))
    probabilities /= probabilities.sum()
    return candidates[int(gen.choice(len(candidates), p=probabilities))]


def report_noisy_max(candidates, scores, sensitivity, epsilon, rng=None, *, accountant=None, label=""):
    """Return the candidate whose score plus Laplace(2 sensitivity / epsilon) noise is largest.

    Guarantee: epsilon-DP for scores of sensitivity ``sensitivity`` (Dwork &
    Roth 2014, Claim 3.9 proves it with scale sensitivity/epsilon for monotone
    counting queries; scale 2 sensitivity/epsilon covers arbitrary scores).
    Only the winner is released, not the noisy scores.

    Parameters, return value and errors are as in :func:`exponential_mech`; its
    noise is floating point, as there (Mironov 2012).
    """
    candidates = list(candidates)
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    scale = _selection_scale(sensitivity, epsilon)
    score = _scores_array(candidates, scores)
    gen = charged_rng(rng, accountant, epsilon, 0.0, label)
    # argmax(score + Lap(scale)) = argmax((score - max) / scale + Lap(1)): the same winner,
    # computed where nothing overflows (score + noise can pass 1.8e308).
    noisy = _standardized(score, scale) + gen.laplace(scale=1.0, size=score.shape)
    return candidates[int(np.argmax(noisy))]


# --- Laplace against Gauss for a k-component query ----------------------------------


def laplace_vs_gauss_std(k, epsilon, delta):
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
        Shapes follow ``k``; always finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a std that overflows
        (e.g. ``epsilon = 1e-308``).
    """
    if np.ndim(k) == 0:
        ks = float(check_count(k, "k"))
    else:
        ks = check_array(k, "k", ndim=1, minimum=1)
        if not np.all(ks == np.round(ks)):
            raise ValueError(f"every entry of k must be an integer >= 1, got {k!r:.80}")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    _check_classic_epsilon(epsilon)
    names = dict(k=k, epsilon=epsilon, delta=delta)
    gauss_unit = _classic_sigma(1.0, epsilon, delta, **names)  # sigma for Delta_2 = 1
    with np.errstate(over="ignore"):
        laplace_std = math.sqrt(2.0) * (ks / epsilon)  # Var(Lap(b)) = 2 b^2, b = k / eps
        gauss_std = np.sqrt(ks) * gauss_unit
    laplace_std = finite_result(laplace_std, "the Laplace std sqrt(2) k / epsilon", **names)
    gauss_std = finite_result(gauss_std, "the Gaussian std sqrt(k) sqrt(2 ln(1.25/delta)) / epsilon", **names)
    return laplace_std, gauss_std


def laplace_gauss_crossover(delta):
    """Smallest k from which the Gaussian's per-component std is below Laplace's.

    Same setting as :func:`laplace_vs_gauss_std`; epsilon cancels out.
    Solves sqrt(2) k > sqrt(k) sqrt(2 ln(1.25/delta)), i.e.
    k > ln(1.25/delta). At delta = 1e-5 this gives 12.

    Parameters
    ----------
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    int
        At most 746, even for delta = 5e-324.
    """
    delta = check_delta(delta)
    # sqrt(2) k > sqrt(2 k ln(1.25/delta)) <=> k > ln(1.25/delta), taken as a difference of logs:
    # 1.25 / delta overflows for delta < 7e-309.
    threshold = math.log(1.25) - math.log(delta)
    return int(math.floor(threshold)) + 1
