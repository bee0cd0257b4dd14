"""Exact discrete noise for integer-valued queries: discrete Laplace and discrete Gaussian.

Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020 (arXiv:2004.00010), Section 5, Algorithms 1-3.

Why: textbook Laplace and Gaussian noise on floating-point numbers is not the
distribution the proofs are about. The low-order bits of a noisy double can
reveal the true answer (Mironov 2012, "On significance of the least
significant bits for differential privacy", CCS). For a count, a histogram
or any other integer-valued query, adding *integer* noise avoids floats
altogether: the output is an integer, and the samplers here are exact.

How the samplers stay exact:

* the only randomness is uniform 64-bit integers from the generator
  (``Generator.integers``), never a float;
* a uniform integer below any ``n`` is made from those bits by rejection
  (exactly uniform, for Python integers of any size);
* every coin is Bernoulli(p/q) for exact integers p, q: "draw U uniform in
  {0, ..., q-1}, answer U < p";
* parameters become exact fractions (``fractions.Fraction``): a float such as
  ``epsilon = 0.1`` is the dyadic rational it stores, and the guarantee is
  stated for exactly that value (pass ``Fraction(1, 10)`` for exactly 1/10).

The continuous mechanisms of :mod:`dplab.mechanisms` remain the right tool
for teaching and for real-valued queries.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from ._maths import gaussian_rho, zcdp_epsilon
from ._rng import charged_rng
from ._validate import (
    check_delta,
    check_epsilon,
    check_integer,
    check_integer_values,
    check_positive,
    finite_result,
)

__all__ = [
    "discrete_laplace_mech",
    "discrete_gaussian_mech",
    "discrete_gaussian_sigma",
    "discrete_gaussian_epsilon",
]


# --- Exact randomness: uniform integers and rational coins ----------------------------


class _UniformIntegers:
    """Exactly uniform integers below any n >= 1, from the 64-bit words of a Generator.

    The generator is asked only for uniform integers in [0, 2**64), in batches
    (one ``integers`` call per 256 words, for speed). Bits are taken from those
    words in order; a uniform integer below n takes k = bit_length(n - 1) bits
    and is rejected and redrawn when >= n, so every value in {0, ..., n-1} has
    probability exactly 1/n. Unused bits are discarded with the object.
    """

    __slots__ = ("_gen", "_words", "_pool", "_bits")

    _BATCH = 256

    def __init__(self, gen: np.random.Generator):
        self._gen = gen
        self._words: list = []
        self._pool = 0  # unused random bits, least significant first
        self._bits = 0  # how many bits _pool holds

    def below(self, n: int) -> int:
        """A uniform integer in {0, ..., n - 1}."""
        if n == 1:
            return 0
        k = (n - 1).bit_length()
        mask = (1 << k) - 1
        while True:
            while self._bits < k:
                if not self._words:
                    # 2**64 is an exclusive upper bound: every uint64 word is equally likely.
                    self._words = self._gen.integers(0, 2**64, size=self._BATCH, dtype=np.uint64).tolist()
                self._pool |= self._words.pop() << self._bits
                self._bits += 64
            x = self._pool & mask
            self._pool >>= k
            self._bits -= k
            if x < n:  # rejection keeps it exactly uniform
                return x


def _bernoulli_exp_at_most_one(src: _UniformIntegers, p: int, q: int) -> bool:
    """Bernoulli(exp(-p/q)) for integers 0 <= p <= q, q >= 1.

    Canonne, Kamath & Steinke (2020), Algorithm 1 (von Neumann's method): draw
    A_K ~ Bernoulli(gamma / K) for K = 1, 2, ... until the first A_K = 0; answer
    1 iff that K is odd. P[K odd] = sum_k (-1)^k gamma^k / k! = exp(-gamma).
    Bernoulli(gamma / K) = Bernoulli(p / (K q)) is "uniform below K q is < p".
    """
    k = 1
    while src.below(k * q) < p:
        k += 1
    return k % 2 == 1


def _bernoulli_exp(src: _UniformIntegers, p: int, q: int) -> bool:
    """Bernoulli(exp(-p/q)) for integers p >= 0, q >= 1 (any gamma = p/q >= 0).

    CKS (2020), Section 5: exp(-gamma) = exp(-1)^floor(gamma) * exp(-(gamma - floor(gamma))),
    a product of independent coins, stopping at the first 0.
    """
    whole = p // q
    for _ in range(whole):
        if not _bernoulli_exp_at_most_one(src, 1, 1):
            return False
    return _bernoulli_exp_at_most_one(src, p - whole * q, q)


def _discrete_laplace(src: _UniformIntegers, s: int, t: int) -> int:
    """One draw Z with P(Z = z) proportional to exp(-|z| s / t), integers s, t >= 1.

    CKS (2020), Algorithm 2: X = U + t V is geometric, P(X = x) ∝ exp(-x/t),
    with U uniform on {0..t-1} kept with probability exp(-U/t) and V geometric
    (count of Bernoulli(exp(-1)) successes); Y = floor(X / s) is geometric with
    ratio exp(-s/t); a fair sign, rejecting "-0", makes it two-sided.
    """
    while True:
        u = src.below(t)
        if not _bernoulli_exp_at_most_one(src, u, t):
            continue
        v = 0
        while _bernoulli_exp_at_most_one(src, 1, 1):
            v += 1
        y = (u + t * v) // s
        negative = src.below(2) == 1
        if negative and y == 0:
            continue  # otherwise 0 would be counted twice
        return -y if negative else y


def _discrete_gaussian(src: _UniformIntegers, a: int, b: int) -> int:
    """One draw Z with P(Z = z) proportional to exp(-z^2 / (2 sigma^2)), sigma^2 = a/b > 0.

    CKS (2020), Algorithm 3: propose Y from the discrete Laplace with scale
    t = floor(sigma) + 1 and accept with probability
    exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)).
    """
    t = math.isqrt(a // b) + 1  # floor(sqrt(a/b)) = isqrt(floor(a/b)), exactly
    while True:
        y = _discrete_laplace(src, 1, t)
        # (|y| - a/(b t))^2 / (2 a/b) = (|y| b t - a)^2 / (2 a b t^2): one exact ratio of integers.
        p = (abs(y) * b * t - a) ** 2
        q = 2 * a * b * t * t
        if _bernoulli_exp(src, p, q):
            return y


def _exact(raw, checked: float) -> Fraction:
    """The exact rational value of a validated parameter (a Fraction stays as given)."""
    return raw if isinstance(raw, Fraction) else Fraction(checked)


_INT64 = np.iinfo(np.int64)


def _add_noise(values, draw, **params):
    """values (a Python int or an int64 array) plus one independent draw per entry.

    A scalar stays a Python int of any size. An array must stay int64: a noisy entry
    outside it (noise of scale 1e300) raises ValueError naming ``params`` -- it reads
    only the noisy output (post-processing) and never shows it.
    """
    if isinstance(values, int):
        return values + draw()
    flat = [x + draw() for x in values.ravel().tolist()]  # exact Python-int sums
    if flat and not _INT64.min <= min(flat) <= max(flat) <= _INT64.max:
        shown = ", ".join(f"{name}={value!r}" for name, value in params.items())
        raise ValueError(
            f"the noisy answer does not fit in a 64-bit integer array with {shown}: the noise is "
            "too large; pass a scalar v (returned as a Python int of any size) or less extreme parameters"
        )
    return np.array(flat, dtype=np.int64).reshape(values.shape)


# --- Public mechanisms -------------------------------------------------------------------


def discrete_laplace_mech(v, sensitivity, epsilon, rng=None, *, accountant=None, label=""):
    """Release integer ``v`` plus exact discrete Laplace noise of scale ``sensitivity / epsilon``.

    The noise Z is the discrete Laplace (two-sided geometric) distribution
    with scale t = sensitivity / epsilon,

        P(Z = z) = (1 - e^(-1/t)) / (1 + e^(-1/t)) * e^(-|z|/t),  z in Z,

    whose variance is 2 e^(-1/t) / (1 - e^(-1/t))^2 (about 2 t^2, the Laplace's,
    for large t). Guarantee: epsilon-DP when ``v`` is an integer-valued query
    whose L1 sensitivity is at most ``sensitivity`` (the geometric mechanism,
    Ghosh, Roughgarden & Sundararajan 2009): P(z) / P(z + d) <= e^(|d|/t) for
    every integer shift |d| <= sensitivity.

    Prefer it to :func:`dplab.laplace_mech` for counts and histograms in a
    real release: the sampler is exact (Canonne, Kamath & Steinke 2020,
    Algorithms 1-2; only uniform integers are drawn, all arithmetic is on
    exact fractions), so floating point cannot leak the answer (Mironov 2012).
    ``epsilon`` is used at its exact value: a float is the binary fraction it
    stores; pass a :class:`fractions.Fraction` for an exact decimal.

    Parameters
    ----------
    v : int or array_like of int
        The true answer(s): integers, or floats with integral values (3.0).
        Each component gets independent noise.
    sensitivity : int
        L1 sensitivity of the query, a positive integer (1 for a count or a
        histogram under adding/removing one person).
    epsilon : float or fractions.Fraction
        Privacy budget, > 0 and finite.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh noise on every call.
    accountant, label : BudgetAccountant and str, optional
        As in :func:`dplab.laplace_mech` (the (epsilon, delta) form only).

    Returns
    -------
    int or numpy.ndarray of int64
        The noisy answer: a Python ``int`` for a scalar ``v`` (exact at any
        size, even at ``epsilon = 5e-324``), else an int64 array of ``v``'s shape.

    Raises
    ------
    TypeError
        For a wrong type (bool and str included).
    ValueError
        If ``sensitivity`` is not a positive integer (1.5, NaN), ``epsilon``
        is not > 0 and finite, or ``v`` is not integer-valued (2.5, NaN); or
        if an array's noisy entry does not fit in int64.

    Examples
    --------
    >>> discrete_laplace_mech(1234, 1, 0.5, rng=0)  # doctest: +SKIP
    1236
    """
    values = check_integer_values(v, "v")
    sensitivity = check_integer(sensitivity, "sensitivity")
    eps = _exact(epsilon, check_epsilon(epsilon))
    scale = Fraction(sensitivity) / eps  # t = Delta_1 / epsilon, exactly
    src = _UniformIntegers(charged_rng(rng, accountant, float(eps), 0.0, label))
    # CKS Algorithm 2 samples P(z) ∝ exp(-|z| s/t'); s/t' = 1/scale.
    s, t = scale.denominator, scale.numerator
    return _add_noise(values, lambda: _discrete_laplace(src, s, t), sensitivity=sensitivity, epsilon=epsilon)


_RHO_DOUBLINGS = 2100  # from the smallest normal rho, 2^2100 passes the largest float
_RHO_STEPS = 80  # bisection steps in ln rho, from a bracket at most ln 2 wide: 6e-25


def _rho_for(epsilon: float, delta: float, /, **params) -> float:
    """The largest rho (to 1e-24 relative) whose zCDP conversion (:func:`dplab._maths.zcdp_epsilon`)
    is at most ``epsilon`` at ``delta``; the conversion increases with rho.

    The search starts at rho_c, where the looser rho + 2 sqrt(rho L) equals epsilon, so
    ``zcdp_epsilon(rho_c) <= epsilon``; it doubles rho until the conversion passes epsilon,
    then bisects in ln rho, keeping the lower end (never above epsilon).
    """
    log_term = -math.log(delta)  # ln(1/delta), finite even where 1/delta overflows
    # sqrt(rho_c) = sqrt(L + eps) - sqrt(L), free of cancellation (Bun & Steinke 2016, Prop. 1.3
    # inverted; sqrt(2) sqrt(eps): 2 eps overflows past 9e307)
    root = epsilon / (math.sqrt(log_term + epsilon) + math.sqrt(log_term))
    low = finite_result(root * root, "rho (zCDP)", positive=True, **params)  # refused subnormal
    high = low
    for _ in range(_RHO_DOUBLINGS):
        if zcdp_epsilon(high, delta, **params) > epsilon:
            break
        low, high = high, high * 2.0
    else:  # the conversion grows without bound in rho: it passes epsilon (or overflows and
        # zcdp_epsilon raises, naming the parameters) long before 2^2100 rho_c
        raise ValueError("no rho reaches this epsilon: " + ", ".join(f"{k}={v!r}" for k, v in params.items()))
    for _ in range(_RHO_STEPS):
        middle = math.sqrt(low) * math.sqrt(high)  # the geometric mean, never low * high
        if zcdp_epsilon(middle, delta, **params) > epsilon:
            high = middle
        else:
            low = middle
    return low


def discrete_gaussian_sigma(sensitivity, epsilon, delta):
    """sigma of the discrete Gaussian that gives (epsilon, delta)-DP through zCDP.

    The discrete Gaussian of parameter sigma is rho-zCDP with
    rho = Delta^2 / (2 sigma^2) (Canonne, Kamath & Steinke 2020, Section 2),
    and rho-zCDP implies (epsilon, delta)-DP by their Corollary 13, the
    conversion of :func:`dplab.zcdp_to_dp`. This inverts it: the largest rho
    whose conversion is at most epsilon (by bisection: the conversion has no
    closed form), and sigma = Delta / sqrt(2 rho), rounded up by a relative
    1e-12, so round-off can only add noise. At Delta = 1, epsilon = 0.5,
    delta = 1e-5: sigma = 7.67 (the looser rho + 2 sqrt(rho ln(1/delta)) of
    Bun & Steinke 2016, Prop. 1.3, asked for 9.70).

    Parameters
    ----------
    sensitivity : float
        L2 sensitivity of the integer query, > 0 (1 for a histogram; sqrt(k)
        when one person moves k counts by 1).
    epsilon : float
        Privacy budget, > 0.
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    float
        sigma, in the query's units: finite and >= 2.2e-308.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or an out-of-range value, or a sigma that overflows
        (epsilon = 5e-324: rho underflows) or underflows (sensitivity = 1e-300,
        epsilon = 1e300).
    """
    sensitivity = check_positive(sensitivity, "sensitivity")
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta)
    names = dict(sensitivity=sensitivity, epsilon=epsilon, delta=delta)
    rho = _rho_for(epsilon, delta, **names)
    sigma = sensitivity / (math.sqrt(2.0) * math.sqrt(rho))  # Delta / sqrt(2 rho): 2 rho may overflow
    return finite_result(sigma * (1.0 + 1e-12), "the noise parameter sigma", positive=True, **names)


def discrete_gaussian_epsilon(sigma, delta, *, sensitivity=1):
    """epsilon of one discrete Gaussian release, at failure probability delta.

    ``zcdp_to_dp(gaussian_zcdp(sigma, sensitivity), delta)``: the release is
    rho-zCDP with rho = Delta^2 / (2 sigma^2) (Canonne, Kamath & Steinke 2020,
    Section 2, the same rho as the continuous Gaussian), hence (epsilon, delta)-DP
    by their Corollary 13 (:func:`dplab.zcdp_to_dp`). At sigma = 10, delta = 1e-5:
    0.3753. Compose k releases by adding their rho first.

    Parameters
    ----------
    sigma : float
        Parameter of the discrete Gaussian, > 0.
    delta : float
        Failure probability, in (0, 1).
    sensitivity : float, default 1
        L2 sensitivity, > 0.

    Returns
    -------
    float
        Finite and >= 0 (0 when rho is so small that (0, delta)-DP already holds).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or an out-of-range value, or when rho or epsilon
        leaves the float range (sigma = 5e-324, or sigma = 1e200: rho underflows).
    """
    sigma = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    names = dict(sigma=sigma, delta=delta, sensitivity=sensitivity)
    rho = gaussian_rho(sigma, sensitivity, **names)  # CKS (2020): rho = Delta^2 / (2 sigma^2)
    return zcdp_epsilon(rho, delta, **names)  # Canonne, Kamath & Steinke (2020), Cor. 13


def discrete_gaussian_mech(
    v, sensitivity, epsilon=None, delta=None, rng=None, *, sigma=None, accountant=None, label=""
):
    """Release integer ``v`` plus exact discrete Gaussian noise.

    The noise Z has P(Z = z) proportional to exp(-z^2 / (2 sigma^2)) on the
    integers; its variance is slightly *below* sigma^2 (for sigma >= 1 the gap
    is negligible; at sigma = 0.5 it is 0.215 instead of 0.25).

    Two ways to call it:

    * book style, ``discrete_gaussian_mech(v, sensitivity, epsilon, delta)``:
      sigma = :func:`discrete_gaussian_sigma` ``(sensitivity, epsilon, delta)``;
      guarantee (epsilon, delta)-DP, for every epsilon > 0;
    * zCDP form, ``discrete_gaussian_mech(v, sensitivity, sigma=s)``:
      guarantee rho-zCDP with rho = sensitivity^2 / (2 s^2) (the same rho as
      :func:`dplab.gaussian_zcdp`); in (epsilon, delta) terms,
      :func:`discrete_gaussian_epsilon` ``(s, delta, sensitivity)``.

    Either guarantee requires ``v`` to be an integer-valued query whose L2
    sensitivity is at most ``sensitivity``; each component gets independent
    noise (Canonne, Kamath & Steinke 2020, Section 2: one dimension and
    several). ``sensitivity`` only sets sigma (book style) or states the
    guarantee (zCDP form); the noise depends on sigma alone.

    Prefer it to :func:`dplab.gaussian_mech` for counts and histograms in a
    real release: the sampler is exact (CKS 2020, Algorithms 1-3: uniform
    integers only, exact fractions; sigma is used at its exact value), so
    floating point cannot leak the answer (Mironov 2012).

    Parameters
    ----------
    v : int or array_like of int
        The true answer(s): integers, or floats with integral values (3.0).
    sensitivity : float
        L2 sensitivity, > 0 and finite. For an integer query it is the square
        root of an integer: 1 for a histogram, sqrt(k) when one person moves
        k counts by 1 (so, unlike the L1 sensitivity of
        :func:`discrete_laplace_mech`, it need not be an integer).
    epsilon : float, optional
        Privacy budget, > 0 (book style; give ``delta`` too).
    delta : float, optional
        Failure probability, in (0, 1); should be << 1/n (book style).
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; ``None`` draws fresh noise on every call.
    accountant, label : BudgetAccountant and str, optional
        As in :func:`dplab.laplace_mech` (the (epsilon, delta) form only).
    sigma : float or fractions.Fraction, keyword only
        Noise parameter, > 0 and finite, in the query's units (zCDP form;
        then leave ``epsilon`` and ``delta`` out).

    Returns
    -------
    int or numpy.ndarray of int64
        The noisy answer: a Python ``int`` for a scalar ``v``, else an int64
        array of ``v``'s shape.

    Raises
    ------
    TypeError
        For a wrong type (bool and str included), or unless exactly one of
        ``sigma`` and the pair (``epsilon``, ``delta``) is given.
    ValueError
        For an out-of-range value, or ``v`` not integer-valued; when sigma
        (book style) leaves the float range; or when an array's noisy entry
        does not fit in int64.
    """
    values = check_integer_values(v, "v")
    if sigma is None:
        if epsilon is None or delta is None:
            raise TypeError(
                "discrete_gaussian_mech needs either sigma=... or both epsilon and delta, "
                f"got epsilon={epsilon!r}, delta={delta!r}, sigma={sigma!r}"
            )
        noise_sigma = discrete_gaussian_sigma(sensitivity, epsilon, delta)
        sigma2 = Fraction(noise_sigma) ** 2
        names = dict(sensitivity=sensitivity, epsilon=epsilon, delta=delta)
    else:
        if epsilon is not None or delta is not None:
            raise TypeError(
                "discrete_gaussian_mech takes either sigma or (epsilon, delta), not both: "
                f"got epsilon={epsilon!r}, delta={delta!r}, sigma={sigma!r}"
            )
        check_positive(sensitivity, "sensitivity")
        sigma2 = _exact(sigma, check_positive(sigma, "sigma")) ** 2
        names = dict(sigma=sigma)
        if accountant is not None:
            raise TypeError(
                "accountant= needs the (epsilon, delta) form of discrete_gaussian_mech: the "
                "sigma form states a zCDP guarantee, which a BudgetAccountant does not add up"
            )
    src = _UniformIntegers(
        charged_rng(
            rng, accountant, *((0.0, 0.0) if sigma is not None else (float(epsilon), float(delta))), label
        )
    )
    a, b = sigma2.numerator, sigma2.denominator
    return _add_noise(values, lambda: _discrete_gaussian(src, a, b), **names)
