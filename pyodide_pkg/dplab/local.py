"""Local differential privacy: randomized response, and what a hall of reports tells.

In the local model there is no trusted curator: each person randomizes their own answer on
their own device and sends only the randomized one (Near & Abuah, ch. 13, "Local Differential
Privacy"). A mechanism ``R`` is epsilon-*local* DP when, for any two true answers ``x``, ``x'``
and any report ``y``, ``P(R(x) = y) <= e^epsilon * P(R(x') = y)``.

* :func:`randomized_response`: Warner (1965), yes/no: the truth with probability
  ``p = e^epsilon / (1 + e^epsilon)`` (3/4 at epsilon = ln 3), else the opposite.
* :func:`generalized_randomized_response`: k options (Wang, Blocki, Li & Jha, "Locally
  Differentially Private Protocols for Frequency Estimation", USENIX Security 2017, GRR):
  the true option with ``p = e^epsilon / (e^epsilon + k - 1)``, else one of the other k - 1
  uniformly (each with ``q = 1 / (e^epsilon + k - 1)``).
* :func:`rr_estimate`, :func:`grr_estimate`: unbiased estimates of the true shares from the
  counts of reports, with their variance and an interval: Wilson's score interval on the share
  of reports, mapped to the true share (docs/live-polls.md, "The interval").
* :func:`rr_posterior_bound`: what one report can reveal about one person.

Answers are integers: for yes/no, ``0`` is «no» and ``1`` is «sí» (booleans are refused, as
everywhere in dplab: ``np.asarray(answers, dtype=int)`` turns a boolean array into answers).
"""

from __future__ import annotations

import math
from statistics import NormalDist
from typing import NamedTuple

import numpy as np

from ._rng import make_rng
from ._validate import (
    check_delta,
    check_epsilon,
    check_integer,
    check_integer_values,
    finite_result,
)

__all__ = [
    "RREstimate",
    "rr_probabilities",
    "randomized_response",
    "generalized_randomized_response",
    "rr_estimate",
    "grr_estimate",
    "rr_posterior_bound",
    "MAX_LOCAL_EPSILON",
]

#: The largest epsilon the mechanisms take. They tell the truth when a uniform double
#: ``u = j · 2^-53`` (numpy's ``Generator.random``) is below the float ``p``: the truth is told
#: with probability ``P = ceil(p · 2^53) / 2^53``, and the realized worst-case log-ratio is
#: ``ln(P (k - 1) / (1 - P))``, not epsilon. For ``p >= 1/2`` (every ``k = 2``), ``p`` is on
#: the grid and ``P = p``, but the lie probability ``1 - p ≈ (k - 1) e^-epsilon`` keeps only
#: the absolute rounding of ``p`` (``1 + (k - 1) e^-epsilon`` rounded, then its inverse: at most
#: 1.5 · 2^-53), so the excess is at most ``1.5 · 2^-53 · (e^epsilon / (k - 1) + 1) + 2^-52``:
#: 8.1e-8 at epsilon = 20 (k = 2; 5.2e-8 the most measured), 4e-6 at 25, 1e-3 at 30, and past
#: epsilon = 36.7 the lie rounds to 0: the truth always, infinitely revealing. At 20 a hall of
#: a million never sees one lie (``1 - p = 2.1e-9``): a larger epsilon would add nothing.
MAX_LOCAL_EPSILON = 20.0

#: What the realized log-ratio may exceed epsilon by, for every epsilon <= MAX_LOCAL_EPSILON
#: and k <= MAX_OPTIONS: 8.1e-8 from the bound above, 7.5e-9 from MAX_OPTIONS'. Measured
#: exactly over the float thresholds (tests/unit/test_dplab_local.py): 5.2e-8 the most, for
#: k = 2 just below epsilon = 20; at 20 itself -3.6e-8 (below epsilon).
EPSILON_EXCESS = 1e-7

#: The largest number of options. Where ``p < 1/2`` (``e^epsilon < k - 1``), ``p`` is off the
#: 2^-53 grid and ``P`` exceeds it by up to 2^-53, a relative ``2^-53 / p <= 2^-53 k``: 2^-27
#: = 7.5e-9 at this k (at k = 2^53 it would be ln 2). Every option is an exact float and int64.
MAX_OPTIONS = 2**26

_TOO_LARGE = (
    " (randomized response draws its coin as a uniform double on a 2^-53 grid: above"
    f" {MAX_LOCAL_EPSILON:g} the lie probability e^-epsilon is too small for it, and the report"
    " reveals more than epsilon says)"
)


class RREstimate(NamedTuple):
    """The estimate of the true share(s) from randomized reports (floats, or arrays by option).

    ``estimate`` is unbiased and may fall outside [0, 1]; ``low``, ``high`` bound the
    interval at the confidence asked (Wilson's on the share of reports, mapped to the true
    share: it holds ``estimate`` and lies in ``[-q/(p - q), (1 - q)/(p - q)]``, unclipped, so
    it too may leave [0, 1]); ``share`` is the raw share of the reports (what the server
    sees); ``variance`` is the estimate's estimated variance; ``n`` the reports.
    """

    estimate: float | np.ndarray
    variance: float | np.ndarray
    low: float | np.ndarray
    high: float | np.ndarray
    share: float | np.ndarray
    n: int


def _check_k(k) -> int:
    k = check_integer(k, "k", minimum=2)
    if k > MAX_OPTIONS:
        raise ValueError(
            f"k must be an integer <= 2**26 (above it the coin's 2^-53 grid rounds p by more than"
            f" 7.5e-9 of itself), got {k}"
        )
    return k


def _check_local_epsilon(epsilon) -> float:
    """The epsilon of a report of :func:`randomized_response` or
    :func:`generalized_randomized_response`: > 0 and at most :data:`MAX_LOCAL_EPSILON`."""
    return check_epsilon(epsilon, maximum=MAX_LOCAL_EPSILON, why=_TOO_LARGE)


def _probabilities(epsilon: float, k: int) -> tuple[float, float]:
    # p = e^ε / (e^ε + k - 1), q = 1 / (e^ε + k - 1) (Wang et al. 2017, Sec. 4.1), written
    # with t = e^-ε so that a large ε does not overflow
    t = math.exp(-epsilon)
    denominator = 1.0 + (k - 1) * t
    return 1.0 / denominator, t / denominator


def rr_probabilities(epsilon, k=2) -> tuple[float, float]:
    """``(p, q)``: the probability of reporting the true option, and each other one.

    ``p = e^epsilon / (e^epsilon + k - 1)``, ``q = 1 / (e^epsilon + k - 1)``, so that
    ``p / q = e^epsilon`` (the mechanism is epsilon-local DP, and no more). At
    ``epsilon = ln 3``, ``k = 2``: ``(0.75, 0.25)``.

    Parameters
    ----------
    epsilon : float
        The local privacy budget, > 0 and finite.
    k : int, default 2
        The number of options, >= 2 (2 for yes/no).
    """
    epsilon = check_epsilon(epsilon)
    return _probabilities(epsilon, _check_k(k))


def _answers(answer, k: int):
    """``answer`` as integers in 0 … k-1 (a Python int, or an int64 array)."""
    values = check_integer_values(answer, "answer")
    if isinstance(values, int):
        low = high = values
    else:
        low, high = (int(values.min()), int(values.max())) if values.size else (0, 0)
    if low < 0 or high >= k:
        bad = low if low < 0 else high
        raise ValueError(f"answer must be an option in 0 … {k - 1} (k = {k}), got {int(bad)}")
    return values


def _respond(answer, k, epsilon, rng):
    k = _check_k(k)
    values = _answers(answer, k)
    epsilon = _check_local_epsilon(epsilon)
    p, _ = _probabilities(epsilon, k)
    gen = make_rng(rng)
    shape = np.shape(values)
    # the truth when u < p, u uniform on {0, 2^-53, …, 1 - 2^-53}: with probability
    # ceil(p 2^53) / 2^53, p itself for p >= 1/2 (see MAX_LOCAL_EPSILON)
    keep = gen.random(shape) < p
    # another option, uniform among the k - 1 others: the true one shifted by 1 … k-1
    other = (np.asarray(values) + gen.integers(1, k, size=shape)) % k
    reported = np.where(keep, values, other).astype(np.int64)
    return int(reported) if isinstance(values, int) else reported


def randomized_response(answer, epsilon, rng=None):
    """Warner's randomized response: the true yes/no answer with probability ``p``, else the
    other one, ``p = e^epsilon / (1 + e^epsilon)`` (3/4 at ``epsilon = ln 3``).

    Guarantee: epsilon-local DP for the person who answers (Warner 1965; Near & Abuah, ch. 13):
    whatever the report, ``P(report | sí) / P(report | no)`` is ``e^epsilon`` or its inverse,
    up to the float coin: the realized log-ratio exceeds epsilon by less than
    :data:`EPSILON_EXCESS` = 1e-7 (5.2e-8 the most measured, just below epsilon = 20), and only
    because epsilon is at most :data:`MAX_LOCAL_EPSILON` = 20 (it grows as e^epsilon above).
    A second report of the same answer is a second release: two compose to 2·epsilon.

    Parameters
    ----------
    answer : int or array_like of int
        The true answer(s): ``0`` («no») or ``1`` («sí``); an array randomizes each entry
        independently (a whole simulated hall at once).
    epsilon : float
        The local privacy budget, in (0, 20] (:data:`MAX_LOCAL_EPSILON`).
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws fresh randomness on every call (what a real report needs).

    Returns
    -------
    int or numpy.ndarray
        The randomized answer(s), 0 or 1, same shape as ``answer``.

    Raises
    ------
    TypeError
        If ``answer`` is a bool, a string or not integer; if ``epsilon`` is not a real number.
    ValueError
        If an answer is not 0 or 1; if ``epsilon`` is not in (0, 20].
    """
    return _respond(answer, 2, epsilon, rng)


def generalized_randomized_response(answer, k, epsilon, rng=None):
    """k-ary randomized response (generalized randomized response, GRR): the true option with
    probability ``p = e^epsilon / (e^epsilon + k - 1)``, else one of the other ``k - 1``
    options uniformly, each with ``q = 1 / (e^epsilon + k - 1)``.

    Guarantee: epsilon-local DP, since ``p / q = e^epsilon`` (Wang et al., USENIX Security 2017,
    Sec. 4.1; Near & Abuah, ch. 13), up to the float coin: the realized log-ratio exceeds
    epsilon by less than :data:`EPSILON_EXCESS` = 1e-7 for epsilon <= 20 and k <= 2**26 (see
    :data:`MAX_LOCAL_EPSILON`, :data:`MAX_OPTIONS`). With ``k = 2`` it is
    :func:`randomized_response`, draw for draw.

    Parameters
    ----------
    answer : int or array_like of int
        The true option(s), each in ``0 … k-1``.
    k : int
        The number of options, 2 … 2**26.
    epsilon : float
        The local privacy budget, in (0, 20] (:data:`MAX_LOCAL_EPSILON`).
    rng : None, int or numpy.random.Generator, optional
        ``None`` draws fresh randomness on every call.

    Returns
    -------
    int or numpy.ndarray
        The reported option(s), same shape as ``answer``.

    Raises
    ------
    TypeError, ValueError
        As :func:`randomized_response`; ``ValueError`` also for ``k`` < 2 (or above 2**26),
        or an answer outside ``0 … k-1``.
    """
    return _respond(answer, k, epsilon, rng)


def _estimate(counts: np.ndarray, epsilon: float, confidence) -> RREstimate:
    k = len(counts)
    n = int(counts.sum())
    confidence = check_delta(confidence, "confidence")
    p, q = _probabilities(epsilon, k)
    # p - q = (1 - e^-ε) / (1 + (k-1) e^-ε): below the smallest normal float the estimate
    # would divide by nothing
    gap = finite_result(
        -math.expm1(-epsilon) / (1.0 + (k - 1) * math.exp(-epsilon)),
        "p - q",
        positive=True,
        epsilon=epsilon,
        k=k,
    )
    share = counts / n
    # f̂ = (c/n - q) / (p - q): E[c/n] = q + f (p - q), so f̂ is unbiased (Wang et al., Sec. 4.1)
    estimate = (share - q) / gap
    # Var(f̂) = λ(1 - λ) / (n (p - q)²), λ = q + f (p - q) the chance of reporting the option
    # (Warner 1965 for k = 2). λ̂ is clipped to [q, p], the range every true share in [0, 1]
    # gives, so a hall that reported all «sí» is not given a variance of 0.
    lam = np.clip(share, q, p)
    variance = finite_result(
        lam * (1.0 - lam) / (n * gap**2), "the variance λ(1-λ)/(n (p-q)²)", epsilon=epsilon, n=n
    )
    # Wilson's score interval on λ (Wilson 1927): the λ with |λ̂ - λ| <= z √(λ(1 - λ)/n), the
    # roots of a quadratic in λ; it holds λ̂ and lies in [0, 1] (the clip only undoes rounding:
    # at λ̂ = 1 the upper root is 1 - 2^-53). Mapped through π = (λ - q) / (p - q), increasing,
    # so it covers π exactly as often as Wilson's covers λ.
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    z2n = z * z / n
    center = (share + z2n / 2) / (1.0 + z2n)
    spread = z / (1.0 + z2n) * np.sqrt(share * (1.0 - share) / n + z2n / (4 * n))
    low = (np.clip(center - spread, 0.0, share) - q) / gap
    high = (np.clip(center + spread, share, 1.0) - q) / gap
    return RREstimate(estimate, variance, low, high, share, n)


def _scalar(result: RREstimate, index: int) -> RREstimate:
    return RREstimate(*(float(np.asarray(x)[index]) for x in result[:5]), result.n)


def rr_estimate(yes, n, epsilon, confidence=0.95) -> RREstimate:
    """The unbiased estimate of the share of true «sí» from ``yes`` randomized «sí» out of
    ``n`` reports of :func:`randomized_response` at ``epsilon``.

    With ``λ̂ = yes / n`` and ``p = e^epsilon / (1 + e^epsilon)``:
    ``π̂ = (λ̂ - (1 - p)) / (2p - 1)`` (unbiased), ``Var(π̂) = λ(1 - λ) / (n (2p - 1)²)``
    (Warner 1965: each report a draw that says «sí» with probability ``λ``; estimated at
    ``λ̂`` clipped to ``[1 - p, p]``, so never 0). For a hall whose answers are fixed, only
    the coins vary and the variance is ``p(1 - p) / (n (2p - 1)²)``, at most this one.

    The interval is Wilson's score interval on ``λ`` (Wilson 1927: the ``λ`` with
    ``|λ̂ - λ| <= z √(λ(1 - λ)/n)``, ``z = 1,96`` at 95 %), mapped through
    ``π = (λ - (1 - p)) / (2p - 1)``: it always holds ``π̂``, and covers the true share exactly
    as often as Wilson's covers ``λ``. Exact coverage at 95 % (bench/rr_interval.py), averaged
    over true shares 0 … 1 at ``epsilon = ln 3``: 0,952 at n = 10 (least 0,920), 0,951 for
    n = 10 … 20, 0,950 at n = 60; ``π̂ ± z·√Var``, the normal interval it replaces, 0,934
    (least 0,884), 0,938 and 0,946, and 0,849 (least 0,437) at ``epsilon = 5``, n = 10.

    Post-processing of the reports only: it spends no privacy.

    Showing it: ``π̂`` (and the interval, which spans ``[-(1 - p), p] / (2p - 1)`` at most) can
    fall outside [0, 1]: a true share cannot. To show it, clip the estimate and both ends to
    [0, 1] and say so next to it (e.g. «estimación: 0 % (recortada)»; never a negative share);
    the clipped estimate is no longer unbiased, so compute with the unclipped one.

    Parameters
    ----------
    yes : int
        Randomized «sí» reports, 0 … n.
    n : int
        Reports, >= 1.
    epsilon : float
        The epsilon each report was randomized with, in (0, 20] (as the mechanisms take it).
    confidence : float, default 0.95
        The interval's confidence level, in (0, 1).

    Returns
    -------
    RREstimate
        ``(estimate, variance, low, high, share, n)``, floats; ``share = yes / n``.

    Raises
    ------
    TypeError
        For a bool, a string, or a non-integer count.
    ValueError
        If ``n`` < 1, ``yes`` is not in 0 … n, ``epsilon`` is not in (0, 20] (or so small
        that ``2p - 1`` underflows), or ``confidence`` is not in (0, 1).
    """
    n = check_integer(n, "n", minimum=1)
    yes = check_integer(yes, "yes", minimum=0)
    if yes > n:
        raise ValueError(f"yes must be <= n = {n}, got {yes}")
    epsilon = _check_local_epsilon(epsilon)
    result = _estimate(np.array([n - yes, yes], dtype=float), epsilon, confidence)
    return _scalar(result, 1)


def grr_estimate(counts, epsilon, confidence=0.95) -> RREstimate:
    """Unbiased estimates of the true share of each option from the counts of reports of
    :func:`generalized_randomized_response` at ``epsilon`` (k = ``len(counts)`` options).

    ``f̂ᵥ = (cᵥ / n - q) / (p - q)`` (Wang et al., USENIX Security 2017, Sec. 4.1), unbiased;
    ``Var(f̂ᵥ) = λᵥ(1 - λᵥ) / (n (p - q)²)`` with ``λᵥ = q + fᵥ (p - q)`` the chance that a
    report says ``v`` (each report a draw; estimated at ``cᵥ / n`` clipped to ``[q, p]``).
    Wang et al.'s variance, ``q(1 - q) / (n (p - q)²) + fᵥ (1 - p - q) / (n (p - q))``, is
    that of a hall whose answers are fixed: this one minus ``fᵥ(1 - fᵥ) / n``. With two
    options it is :func:`rr_estimate` (``counts = [no, sí]``). The estimates sum to 1; each
    may fall outside [0, 1] (show them clipped, and say so: see :func:`rr_estimate`). Each
    option's interval is Wilson's score interval on its share of reports ``cᵥ / n``, mapped
    through ``fᵥ = (λᵥ - q) / (p - q)`` (one option at a time: not a simultaneous region).

    Post-processing of the reports only: it spends no privacy.

    Parameters
    ----------
    counts : array_like of int
        Reports of each option, ``counts[v]`` for ``v`` in ``0 … k-1``; k >= 2, each >= 0,
        at least one report in all.
    epsilon : float
        The epsilon each report was randomized with, in (0, 20] (as the mechanisms take it).
    confidence : float, default 0.95
        The intervals' confidence level, in (0, 1).

    Returns
    -------
    RREstimate
        ``(estimate, variance, low, high, share, n)``, arrays of length k (``n`` an int).

    Raises
    ------
    TypeError
        For bools, strings or non-integer counts.
    ValueError
        For fewer than two options, a negative count, no report at all, a bad ``epsilon`` or
        ``confidence``.
    """
    values = check_integer_values(counts, "counts")
    if np.ndim(values) != 1 or len(values) < 2:
        raise ValueError(f"counts must be a list of k >= 2 counts (one per option), got {counts!r:.80}")
    if values.min() < 0:
        raise ValueError(f"every entry of counts must be >= 0, got {int(values.min())}")
    if values.sum() < 1:
        raise ValueError(f"counts must hold at least one report, got {counts!r:.80}")
    _check_k(len(values))
    epsilon = _check_local_epsilon(epsilon)
    return _estimate(values.astype(float), epsilon, confidence)


def rr_posterior_bound(prior, epsilon) -> float:
    """The most that one epsilon-local-DP report can raise a belief about its sender.

    If the server believed, before the report, that the sender's true answer is «sí» (or any
    one option) with probability ``prior``, then after seeing the report it believes it with
    probability at most ``e^epsilon · prior / (e^epsilon · prior + 1 - prior)`` (Bayes' rule
    with a likelihood ratio of at most ``e^epsilon``; Near & Abuah, ch. 13). For randomized
    response the bound is reached: a «sí» at ``epsilon = ln 3`` turns a prior of 10 % into 25 %.

    Parameters
    ----------
    prior : float
        The belief before the report, in (0, 1).
    epsilon : float
        The epsilon of the report, > 0 and finite.

    Returns
    -------
    float
        The posterior bound, in (prior, 1).
    """
    prior = check_delta(prior, "prior")
    epsilon = check_epsilon(epsilon)
    # e^ε π / (e^ε π + 1 - π), divided by e^ε: no overflow for a large ε
    return prior / (prior + (1.0 - prior) * math.exp(-epsilon))
