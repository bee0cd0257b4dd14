"""Privacy accounting: pure functions that compose and convert guarantees.

Nothing here holds state; :class:`dplab.accountant.BudgetAccountant` does.
Neighbouring data sets differ by adding or removing one person throughout.

Three ways to account k runs of the same Gaussian mechanism (noise sigma,
L2 sensitivity Delta) at a total failure probability delta:

* sequential: calibrate each run at delta/k with the classic formula, add the
  epsilons (:func:`sequential_gaussian_epsilon`);
* advanced: Dwork-Rothblum-Vadhan composition of the k runs
  (:func:`advanced_gaussian_epsilon`);
* Renyi DP: add the RDP curves, convert once (:func:`rdp_gaussian_epsilon`).

At the edges of floating point: every failure probability enters as
ln(1/delta) (never 1/delta, which overflows for delta < 5.6e-309), a split
delta/k as ln(1/delta) + ln k (never a delta/k that underflows to 0), and every
result goes through :func:`dplab._validate.finite_result`, so parameters too
extreme for floating point raise ``ValueError`` naming them instead of
returning inf or NaN. The private ``_functions`` hold the math on validated
values; the public ones validate and check.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ._maths import classic_c, classic_zcdp_epsilon, gaussian_rho, zcdp_epsilon
from ._special import expm1, log_add, log_comb, log_comb_int, log_erfc, logsumexp
from ._validate import (
    check_array,
    check_count,
    check_delta,
    check_epsilon,
    check_nonnegative,
    check_positive,
    check_sample_rate,
    finite_result,
)

__all__ = [
    "sequential_composition",
    "advanced_composition",
    "advanced_composition_max_epsilon",
    "gaussian_epsilon",
    "gaussian_rdp",
    "rdp_to_epsilon",
    "gaussian_zcdp",
    "zcdp_to_dp",
    "sequential_gaussian_epsilon",
    "advanced_gaussian_epsilon",
    "rdp_gaussian_epsilon",
    "subsampled_gaussian_rdp",
    "dpsgd_epsilon",
    "DEFAULT_RDP_ORDERS",
]


# --- Composition of (epsilon, delta) guarantees -------------------------------------


def _sum_epsilons(values, **params) -> float:
    """The exact sum of finite epsilons (math.fsum), checked: it can still pass 1.8e308."""
    try:
        total = math.fsum(values)
    except OverflowError:  # fsum's "intermediate overflow"
        total = math.inf
    return finite_result(total, "the summed epsilon", **params)


def sequential_composition(epsilons):
    """Total guarantee of releasing several results computed on the same data.

    Sequential composition (Dwork & Roth 2014, Theorem 3.16): mechanisms that
    are (eps_i, delta_i)-DP together are (sum eps_i, sum delta_i)-DP, also when
    each is chosen after seeing the previous outputs.

    Parameters
    ----------
    epsilons : sequence of float, or sequence of (epsilon, delta) pairs
        Each epsilon >= 0 and finite; each delta in [0, 1). Must not be empty.

    Returns
    -------
    float or (float, float)
        The summed epsilon, or ``(epsilon, delta)`` when pairs were given; finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type, an empty sequence, or an out-of-range entry, or a sum
        beyond the largest float (two epsilons of 1e308).
    """
    if isinstance(epsilons, (str, bytes)) or not hasattr(epsilons, "__iter__"):
        raise TypeError(f"epsilons must be a sequence of numbers or (epsilon, delta) pairs, got {epsilons!r}")
    items = list(epsilons)
    if not items:
        raise ValueError("epsilons must not be empty, got []")
    if all(isinstance(it, (tuple, list)) for it in items):
        eps_total, delta_total = [], []
        for i, pair in enumerate(items):
            if len(pair) != 2:
                raise ValueError(f"epsilons[{i}] must be an (epsilon, delta) pair, got {pair!r}")
            eps_total.append(check_nonnegative(pair[0], f"epsilons[{i}][0] (epsilon)"))
            delta_total.append(check_delta(pair[1], f"epsilons[{i}][1] (delta)", allow_zero=True))
        return _sum_epsilons(eps_total, epsilons=items), math.fsum(delta_total)  # deltas < 1 each
    checked = [check_nonnegative(e, f"epsilons[{i}]") for i, e in enumerate(items)]
    return _sum_epsilons(checked, epsilons=items)


def _advanced_max_epsilon(k: int, log_inv_delta_prime: float) -> float:
    # eps <= ln(1 + sqrt(2 ln(1/delta') / k)): see advanced_composition_max_epsilon. A ratio of
    # roots, since 2 ln(1/delta') / k underflows to 0 for delta' near 1 and k = 1e308.
    return math.log1p(math.sqrt(2.0 * log_inv_delta_prime) / math.sqrt(k))


def _advanced_tight(epsilon: float, k: int, log_inv_delta_prime: float) -> float:
    # Dwork & Roth (2014), Theorem 3.20: eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1);
    # sqrt(k) sqrt(2 ln(1/delta')) since 2k overflows for k > 9e307. inf past the float range.
    return epsilon * (math.sqrt(k) * math.sqrt(2.0 * log_inv_delta_prime)) + k * epsilon * expm1(epsilon)


def _advanced_simplified(epsilon: float, k: int, log_inv_delta_prime: float) -> float:
    """The lecture's 2 eps sqrt(2k ln(1/delta')), warning where it is not a valid bound."""
    limit = _advanced_max_epsilon(k, log_inv_delta_prime)
    if epsilon > limit:
        warnings.warn(
            f"advanced_composition: epsilon = {epsilon!r} > {limit:.4g} = ln(1 + sqrt(2 ln(1/delta') / k)) "
            f"for k = {k}: the simplified bound is not valid here; use simplified=False",
            UserWarning,
            stacklevel=3,
        )
    # Simplification of Dwork & Roth (2014), Theorem 3.20 (Corollary 3.21's form).
    return 2.0 * epsilon * (math.sqrt(k) * math.sqrt(2.0 * log_inv_delta_prime))


def advanced_composition_max_epsilon(k, delta_prime):
    """Largest per-step epsilon for which the simplified advanced bound is valid.

    The simplified form 2 eps sqrt(2k ln(1/delta')) upper-bounds the theorem's
    eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1) exactly when

        k eps (e^eps - 1) <= eps sqrt(2k ln(1/delta'))
        <=>  e^eps - 1 <= sqrt(2 ln(1/delta') / k)
        <=>  eps <= ln(1 + sqrt(2 ln(1/delta') / k)),

    which is roughly eps <= sqrt(2 ln(1/delta') / k) for large k.

    Parameters
    ----------
    k : int
        Number of mechanisms, >= 1.
    delta_prime : float
        The extra failure probability delta', in (0, 1).

    Returns
    -------
    float
        Finite for every valid k (<= the largest float) and delta'.
    """
    k = check_count(k, "k")
    delta_prime = check_delta(delta_prime, "delta_prime")
    return _advanced_max_epsilon(k, -math.log(delta_prime))


def advanced_composition(epsilon, k, delta_prime, *, simplified):
    """Advanced composition: the epsilon of k (eps, delta)-DP mechanisms composed (also adaptively).

    Dwork, Rothblum & Vadhan (2010); Dwork & Roth (2014), Theorem 3.20: k
    mechanisms, each (eps, delta)-DP, compose to (eps', k delta + delta')-DP with

        eps' = eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1)        (simplified=False)

    always valid. ``simplified=True`` gives the lecture's form

        eps' = 2 eps sqrt(2k ln(1/delta'))                           (simplified=True)

    which bounds the theorem's **only** while eps <= ln(1 + sqrt(2 ln(1/delta') / k))
    (:func:`advanced_composition_max_epsilon`; the regime of Dwork & Roth 2014,
    Corollary 3.21, where the total eps' < 1). Outside it the simplified value is
    *not* a valid guarantee and a warning is issued.

    Parameters
    ----------
    epsilon : float
        Per-mechanism epsilon, > 0.
    k : int
        Number of mechanisms, >= 1.
    delta_prime : float
        Extra failure probability delta', in (0, 1), chosen freely.
    simplified : bool, keyword-only, required
        Which form (above): the caller says which guarantee it states.

    Returns
    -------
    float
        eps' (the delta part is k delta + delta', for the caller to add); finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or an eps' beyond the largest
        float (epsilon > 709 makes e^epsilon overflow).

    Warns
    -----
    UserWarning
        ``simplified=True`` where the simplified form is not valid.
    """
    if not isinstance(simplified, (bool, np.bool_)):
        raise TypeError(f"simplified must be a bool, got {simplified!r} of type {type(simplified).__name__}")
    epsilon = check_epsilon(epsilon)
    k = check_count(k, "k")
    delta_prime = check_delta(delta_prime, "delta_prime")
    names = dict(epsilon=epsilon, k=k, delta_prime=delta_prime)
    if simplified:
        return finite_result(
            _advanced_simplified(epsilon, k, -math.log(delta_prime)),
            "eps' = 2 eps sqrt(2k ln(1/delta'))",
            **names,
        )
    return finite_result(
        _advanced_tight(epsilon, k, -math.log(delta_prime)),
        "eps' = eps sqrt(2k ln(1/delta')) + k eps (e^eps - 1)",
        **names,
    )


# --- The Gaussian mechanism under three accountings ---------------------------------


def _classic_epsilon(sigma: float, sensitivity: float, log_inv_delta: float, /, **params) -> float:
    """Epsilon of one classic-Gaussian release at failure probability e^(-log_inv_delta).

    Dwork & Roth (2014), Theorem A.1 solved for eps: Delta sqrt(2 ln(1.25/delta)) / sigma.
    Checked finite and not underflowed (it feeds compositions that need eps > 0), and < 1,
    where the theorem holds. ``params`` name the caller's parameters in messages.
    """
    eps = finite_result(
        sensitivity * classic_c(log_inv_delta) / sigma,
        "the per-release epsilon sensitivity sqrt(2 ln(1.25/delta)) / sigma",
        positive=True,
        **params,
    )
    if eps >= 1:
        raise ValueError(
            f"sigma = {sigma!r} gives epsilon = {eps:.4g} >= 1 per step, where the classic "
            "Gaussian analysis does not hold; use a larger sigma or RDP accounting"
        )
    return eps


def _check_run(sigma, k, delta, sensitivity):
    """The validated (sigma, k, delta, sensitivity) of k Gaussian releases, and their names."""
    sigma = check_positive(sigma, "sigma")
    k = check_count(k, "k")
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return sigma, k, delta, sensitivity, dict(sigma=sigma, k=k, delta=delta, sensitivity=sensitivity)


def gaussian_epsilon(sigma, delta, *, sensitivity=1):
    """Epsilon of one classic-Gaussian release: the inverse of :func:`gaussian_sigma`.

    eps = Delta sqrt(2 ln(1.25/delta)) / sigma (Dwork & Roth 2014, Theorem A.1),
    valid only if the result is < 1.

    Parameters
    ----------
    sigma : float
        Noise standard deviation, > 0.
    delta : float
        Failure probability, in (0, 1).
    sensitivity : float, default 1
        L2 sensitivity, > 0.

    Returns
    -------
    float
        In [2.2e-308, 1).

    Raises
    ------
    ValueError
        Also when the result is >= 1 (the classic analysis does not hold), or
        underflows (sigma = 1e300 with sensitivity = 1e-10).
    """
    sigma = check_positive(sigma, "sigma")
    delta = check_delta(delta)
    sensitivity = check_positive(sensitivity, "sensitivity")
    return _classic_epsilon(
        sigma, sensitivity, -math.log(delta), sigma=sigma, delta=delta, sensitivity=sensitivity
    )


def sequential_gaussian_epsilon(sigma, k, delta, *, sensitivity=1):
    """Total epsilon of k Gaussian releases under sequential composition.

    Each release gets delta/k and is calibrated with the classic formula,
    eps_0 = Delta sqrt(2 ln(1.25 k/delta)) / sigma; the total is
    (k eps_0, delta)-DP by sequential composition. For sigma = 20, Delta = 1,
    k = 10^4, delta = 1e-5 this is about 3236 (the lecture's number).

    Parameters
    ----------
    sigma : float
        Noise std of each release, > 0.
    k : int
        Number of releases, >= 1.
    delta : float
        Total failure probability, in (0, 1).
    sensitivity : float, default 1
        L2 sensitivity of each query, > 0.

    Returns
    -------
    float
        Finite (k eps_0 < k <= the largest float).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a per-step epsilon >= 1
        or underflowing.
    """
    sigma, k, delta, sensitivity, names = _check_run(sigma, k, delta, sensitivity)
    # ln(k / delta) = ln(1/delta) + ln k: delta / k itself may underflow to 0.
    eps_0 = _classic_epsilon(sigma, sensitivity, math.log(k) - math.log(delta), **names)
    return k * eps_0


def advanced_gaussian_epsilon(sigma, k, delta, *, sensitivity=1, simplified=False):
    """Total epsilon of k Gaussian releases under advanced composition.

    The total delta is split in two halves: delta/2 for the k releases (each
    calibrated classically at delta/(2k), giving eps_0 as in
    :func:`gaussian_epsilon`) and delta' = delta/2 for the composition
    theorem, so the result is (eps', k delta/(2k) + delta/2) = (eps', delta)-DP.

    With ``simplified=False`` (default) eps' is the theorem's always-valid
    bound (:func:`advanced_composition` with ``simplified=False``), capped by the
    sequential total k eps_0 (both are valid, so their minimum is). With
    ``simplified=True`` it is the lecture's 2 eps_0 sqrt(2k ln(1/delta')),
    which warns when eps_0 is too large for that form to hold -- the case for
    sigma = 20 at large k.

    Parameters
    ----------
    sigma : float
        Noise std of each release, > 0.
    k : int
        Number of releases, >= 1.
    delta : float
        Total failure probability, in (0, 1).
    sensitivity : float, default 1
        L2 sensitivity, > 0.
    simplified : bool, default False
        Use the lecture's simplified form.

    Returns
    -------
    float
        Finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a per-step epsilon >= 1
        or underflowing.
    """
    sigma, k, delta, sensitivity, names = _check_run(sigma, k, delta, sensitivity)
    if not isinstance(simplified, (bool, np.bool_)):
        raise TypeError(f"simplified must be a bool, got {simplified!r} of type {type(simplified).__name__}")
    log_inv_delta_prime = math.log(2.0) - math.log(delta)  # delta' = delta/2 goes to the composition theorem
    # delta/2 shared by the k steps: each at delta/(2k), ln(2k/delta) = ln(2/delta) + ln k.
    eps_0 = _classic_epsilon(sigma, sensitivity, log_inv_delta_prime + math.log(k), **names)
    # Both are finite: eps_0 < 1 and k <= 1.8e308 keep 2 eps_0 sqrt(2k ln(1/delta')) and k eps_0 in range.
    if simplified:
        return _advanced_simplified(eps_0, k, log_inv_delta_prime)
    return min(_advanced_tight(eps_0, k, log_inv_delta_prime), k * eps_0)


def gaussian_rdp(orders, sigma, sensitivity=1):
    """Renyi-DP curve of the Gaussian mechanism: eps_bar(alpha) = alpha Delta^2 / (2 sigma^2).

    Mironov (2017), "Renyi Differential Privacy", Proposition 7 / Table II.
    Holds for every order alpha > 1 at once; composition adds curves.

    Parameters
    ----------
    orders : float or array_like
        Renyi order(s) alpha, each > 1.
    sigma : float
        Noise std, > 0.
    sensitivity : float, default 1
        L2 sensitivity Delta, > 0.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``orders``; finite and > 0.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a result that overflows
        or underflows (sigma = 5e-324).
    """
    alphas = check_array(orders, "orders", minimum=1.0, strict_minimum=True)
    sigma = check_positive(sigma, "sigma")
    sensitivity = check_positive(sensitivity, "sensitivity")
    names = dict(orders=orders, sigma=sigma, sensitivity=sensitivity)
    with np.errstate(over="ignore"):
        rdp = alphas * gaussian_rho(sigma, sensitivity, **names)  # Mironov (2017), Prop. 7: alpha rho
    return finite_result(rdp, "the RDP alpha sensitivity^2 / (2 sigma^2)", **names)


def rdp_to_epsilon(*, orders, rdp, delta, conversion="classic"):
    """Convert an RDP curve into (epsilon, delta)-DP, optimising over the orders.

    Keyword-only, in the order of dp_accounting's and Opacus' ``compute_epsilon(orders, rdp,
    delta)``, and returning, like them, ``(epsilon, order)``.

    ``conversion="classic"`` (the lecture's): eps = eps_bar(alpha) + ln(1/delta)/(alpha-1),
    Mironov (2017), Proposition 3. ``conversion="improved"``:
    eps = eps_bar(alpha) + ln(1 - 1/alpha) - ln(delta alpha)/(alpha - 1),
    Canonne, Kamath & Steinke (2020), Proposition 12 (also Asoodeh et al.
    2020), the conversion of Google's dp_accounting and Opacus; never larger.
    Both are valid; the minimum over the given orders is returned.

    Parameters
    ----------
    orders : array_like
        Orders alpha, each > 1.
    rdp : array_like
        RDP epsilons eps_bar(alpha), each >= 0, one per order.
    delta : float
        Target failure probability, in (0, 1).
    conversion : {"classic", "improved"}, default "classic"

    Returns
    -------
    (epsilon, order) : tuple of float
        epsilon is finite and >= 0; order is the alpha where it is reached.

    Raises
    ------
    TypeError, ValueError
        For a wrong type, out-of-range value, or mismatched lengths, or when
        the conversion overflows at every order (rdp = 1.7e308).
    """
    r = check_array(rdp, "rdp", ndim=(0, 1), minimum=0.0).reshape(-1)
    a = check_array(orders, "orders", ndim=(0, 1), minimum=1.0, strict_minimum=True).reshape(-1)
    delta = check_delta(delta)
    if r.size != a.size or r.size == 0:
        raise ValueError(f"rdp and orders must be non-empty and of equal length, got {r.size} and {a.size}")
    if conversion not in ("classic", "improved"):
        raise ValueError(f"conversion must be 'classic' or 'improved', got {conversion!r}")
    epsilon, best_alpha = _rdp_epsilon(r, a, -math.log(delta), conversion)
    epsilon = finite_result(
        epsilon, "the converted epsilon, at its best order", orders=orders, rdp=rdp, delta=delta
    )
    return epsilon, best_alpha


def _rdp_epsilon(r: np.ndarray, a: np.ndarray, log_inv_delta: float, conversion: str):
    """(epsilon, best order) for valid RDP values and orders; epsilon is inf if every order overflows."""
    with np.errstate(over="ignore"):
        if conversion == "classic":
            eps = r + log_inv_delta / (a - 1.0)  # Mironov (2017), Prop. 3
        else:
            # Canonne et al. (2020), Prop. 12, with -ln(delta alpha) = ln(1/delta) - ln(alpha).
            eps = r + np.log1p(-1.0 / a) + (log_inv_delta - np.log(a)) / (a - 1.0)
    best = int(np.argmin(eps))  # never NaN: a finite r plus finite or +inf terms
    return max(float(eps[best]), 0.0), float(a[best])


def rdp_gaussian_epsilon(sigma, k, delta, *, sensitivity=1, conversion="classic"):
    """Total epsilon of k Gaussian releases under Renyi-DP accounting.

    Composition adds the RDP curves: k alpha Delta^2 / (2 sigma^2) at every
    alpha, which is rho-zCDP with rho = c = k Delta^2 / (2 sigma^2). Converted
    once, minimising over every real alpha > 1:

    * ``"classic"`` (Mironov 2017, Prop. 3, the lecture's): with
      L = ln(1/delta), min over alpha of c alpha + L / (alpha - 1) is the
      closed form c + 2 sqrt(c L), at alpha* = 1 + sqrt(L / c); the same number
      as Bun & Steinke's (2016) zCDP bound. For sigma = 20, Delta = 1,
      k = 10^4, delta = 1e-5 this is about 36.
    * ``"improved"`` (Canonne, Kamath & Steinke 2020, Prop. 12 and Cor. 13):
      :func:`zcdp_to_dp` of rho = c, never larger; about 35.1 there.

    Parameters
    ----------
    sigma : float
        Noise std of each release, > 0.
    k : int
        Number of releases, >= 1.
    delta : float
        Failure probability, in (0, 1).
    sensitivity : float, default 1
        L2 sensitivity, > 0.
    conversion : {"classic", "improved"}, default "classic"
        As in :func:`rdp_to_epsilon`.

    Returns
    -------
    float
        Finite and > 0 (classic), >= 0 (improved).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, a conversion other than the
        two, or a result that overflows or underflows (sigma = 5e-324,
        k = 1e308).
    """
    sigma, k, delta, sensitivity, names = _check_run(sigma, k, delta, sensitivity)
    if conversion not in ("classic", "improved"):
        raise ValueError(f"conversion must be 'classic' or 'improved', got {conversion!r}")
    c = k * gaussian_rho(sigma, sensitivity, **names)  # the k RDP curves add up: k rho
    if conversion == "classic":
        return classic_zcdp_epsilon(c, delta, **names)  # c + 2 sqrt(c L)
    return zcdp_epsilon(c, delta, **names)


def gaussian_zcdp(sigma, sensitivity=1):
    """zCDP parameter of the Gaussian mechanism: rho = Delta^2 / (2 sigma^2).

    Bun & Steinke (2016), "Concentrated Differential Privacy", Proposition 1.6.
    rho-zCDP composes additively (their Lemma 1.7). The same rho holds for the
    discrete Gaussian on integer queries (Canonne, Kamath & Steinke 2020;
    :func:`dplab.discrete_gaussian_mech`).

    Parameters
    ----------
    sigma : float
        Noise std, > 0.
    sensitivity : float, default 1
        L2 sensitivity, > 0.

    Returns
    -------
    float
        Finite and >= 2.2e-308 (what :func:`zcdp_to_dp` accepts).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a rho that overflows
        (sigma = 1e-200) or underflows (sigma = 1e200).
    """
    sigma = check_positive(sigma, "sigma")
    sensitivity = check_positive(sensitivity, "sensitivity")
    return gaussian_rho(sigma, sensitivity, sigma=sigma, sensitivity=sensitivity)


def zcdp_to_dp(rho, delta):
    """Convert rho-zCDP into (epsilon, delta)-DP, tightly (Canonne, Kamath & Steinke 2020).

    "The Discrete Gaussian for Differential Privacy", Corollary 13: rho-zCDP
    implies (epsilon, delta)-DP for delta = inf over alpha > 1 of
    exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha;
    this is the smallest such epsilon, found by bisection over alpha (the same
    conversion as OpenDP's ``make_zCDP_to_approxDP``). Bun & Steinke's (2016,
    Prop. 1.3) rho + 2 sqrt(rho ln(1/delta)) is valid but looser: for one
    Gaussian release at sigma = 20 (rho = 1/800) and delta = 1e-5 this gives
    0.178 where theirs gives 0.241.

    Parameters
    ----------
    rho : float
        zCDP parameter, > 0.
    delta : float
        Failure probability, in (0, 1).

    Returns
    -------
    float
        Finite and >= 0 (0 when rho is so small that (0, delta)-DP already holds).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value (``rho must be > 0 and finite,
        got -1``), or a result beyond the largest float.
    """
    rho = check_positive(rho, "rho")
    delta = check_delta(delta)
    return zcdp_epsilon(rho, delta, rho=rho, delta=delta)


# --- DP-SGD: the Poisson-subsampled Gaussian mechanism ------------------------------

#: Orders used by :func:`dpsgd_epsilon`: the default grid of Google's
#: dp_accounting (rdp_privacy_accountant.DEFAULT_RDP_ORDERS).
DEFAULT_RDP_ORDERS = tuple(
    [1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64)) + [128, 256, 512, 1024]
)


def _log_a_int(q: float, sigma: float, alpha: int) -> float:
    """log A_alpha for an integer order (Mironov, Talwar & Zhang 2019, Sec. 3.3).

    A_alpha = sum_{i=0}^{alpha} C(alpha, i) q^i (1-q)^(alpha-i) exp((i^2 - i) / (2 sigma^2)),
    summed in log space as in Opacus' and dp_accounting's _compute_log_a_int.
    """
    i = np.arange(alpha + 1, dtype=float)
    with np.errstate(over="ignore"):  # a tiny sigma makes the last term +inf: A_alpha overflows
        log_terms = (
            log_comb_int(alpha)
            + i * math.log(q)
            + (alpha - i) * math.log1p(-q)
            + _over_two_sigma_squared(i * i - i, sigma)
        )
    return logsumexp(log_terms)


def _over_two_sigma_squared(x, sigma: float):
    """x / (2 sigma^2), dividing twice: sigma**2 raises OverflowError at sigma = 1e200 and
    underflows to 0 at sigma = 1e-170 (x / 0); x >= 0 gives 0 or +inf at the extremes, never NaN."""
    return x / (2.0 * sigma) / sigma


def _log_product(*logs: float) -> float:
    """log of a product from the logs of its factors. An overflowed factor (+inf) times an
    underflowed one (-inf) is unknown: counted as +inf (no finite bound), never NaN."""
    total = sum(logs)
    return math.inf if math.isnan(total) else total


def _log_a_frac(q: float, sigma: float, alpha: float, max_terms: int = 1000) -> float:
    """log A_alpha for a fractional order (Mironov, Talwar & Zhang 2019, Sec. 3.3).

    Two series, the integrals over (-inf, z0] and [z0, inf), with
    z0 = sigma^2 ln(1/q - 1) + 1/2; summed in log space until both terms stop
    increasing and are negligible (30 nats below the total), as in dp_accounting.
    The erfc arguments (i - z0) / (sqrt(2) sigma) are expanded as
    (i - 1/2) / (sqrt(2) sigma) - sigma ln(1/q - 1) / sqrt(2), so that sigma^2 is
    never formed, and ln(1/q - 1) as ln(1 - q) - ln q (1/q overflows at q = 5e-324).
    """
    log_a0 = log_a1 = -math.inf
    log_q, log_1mq = math.log(q), math.log1p(-q)
    shift = sigma * (log_1mq - log_q) / math.sqrt(2.0)  # (z0 - 1/2) / (sqrt(2) sigma)
    last_s0 = last_s1 = -math.inf
    for i in range(max_terms):
        log_coef = log_comb(alpha, i)
        j = alpha - i
        log_t0 = log_coef + i * log_q + j * log_1mq
        log_t1 = log_coef + j * log_q + i * log_1mq
        log_e0 = math.log(0.5) + log_erfc((i - 0.5) / (math.sqrt(2.0) * sigma) - shift)
        log_e1 = math.log(0.5) + log_erfc(shift - (j - 0.5) / (math.sqrt(2.0) * sigma))
        log_s0 = _log_product(log_t0, _over_two_sigma_squared(i * i - i, sigma), log_e0)
        log_s1 = _log_product(log_t1, _over_two_sigma_squared(j * j - j, sigma), log_e1)
        log_a0 = log_add(log_a0, log_s0)
        log_a1 = log_add(log_a1, log_s1)
        total = log_add(log_a0, log_a1)
        if total == math.inf:
            return total  # overflowed: this order has no finite bound
        # "not increasing" rather than "decreasing": at sigma = 1e20 a negligible series sits at
        # -1e41, where one term's change is below the float resolution and never shows.
        if log_s0 <= last_s0 and log_s1 <= last_s1 and max(log_s0, log_s1) < total - 30:
            return total
        last_s0, last_s1 = log_s0, log_s1
    return math.inf  # did not converge: this order has no finite bound


def _rdp_at(q: float, z: float, alpha: float) -> float:
    """RDP of one subsampled-Gaussian step at one order: >= 0, +inf only if it overflows.

    Exact at an integer order. At a fractional one, MTZ's series; where it does not
    converge (or overflows), the value at the next integer order, a valid bound since
    RDP is non-decreasing in alpha (van Erven & Harremoes 2014, Theorem 3).
    """
    if not float(alpha).is_integer():
        log_a = _log_a_frac(q, z, alpha)
        if log_a < math.inf:
            # A_alpha >= 1 exactly (E[(mu_1/mu_0)^alpha] >= 1 by Jensen): a negative log is round-off.
            return max(log_a, 0.0) / (alpha - 1.0)
        alpha = float(math.ceil(alpha))
    return max(_log_a_int(q, z, int(alpha)), 0.0) / (alpha - 1.0)


def _subsampled_rdp(q: float, z: float, orders: np.ndarray) -> np.ndarray:
    """RDP per order for valid parameters: >= 0, +inf where it overflows."""
    if q == 1.0:
        with np.errstate(over="ignore"):
            return _over_two_sigma_squared(orders, z)  # the plain Gaussian, alpha / (2 z^2)
    return np.array([_rdp_at(q, z, float(alpha)) for alpha in orders])


def subsampled_gaussian_rdp(sample_rate, noise_multiplier, orders=DEFAULT_RDP_ORDERS):
    """RDP of one step of the Poisson-subsampled Gaussian mechanism.

    Each person is included independently with probability q = ``sample_rate``;
    the clipped sum of the batch gets N(0, (z C)^2) noise, z = ``noise_multiplier``.
    Its RDP at order alpha is ln(A_alpha) / (alpha - 1) (Mironov, Talwar &
    Zhang 2019, "Renyi Differential Privacy of the Sampled Gaussian
    Mechanism", Sec. 3.3; exact for integer alpha, their series for fractional
    alpha). With q = 1 it is the plain Gaussian, alpha / (2 z^2).

    Parameters
    ----------
    sample_rate : float
        q, in (0, 1].
    noise_multiplier : float
        z = sigma / C, > 0.
    orders : array_like, default :data:`DEFAULT_RDP_ORDERS`
        Orders alpha, each > 1.

    Returns
    -------
    numpy.ndarray
        RDP epsilons, one per order: finite and >= 0. At a fractional order
        whose series does not converge within 1000 terms, the (larger, still
        valid) value at the next integer order.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or when the RDP at some order
        overflows (noise_multiplier = 1e-160 makes e^(1/(2 z^2)) overflow):
        :func:`dpsgd_epsilon` leaves such orders out instead.
    """
    q = check_sample_rate(sample_rate)
    z = check_positive(noise_multiplier, "noise_multiplier")
    checked = check_array(orders, "orders", ndim=1, minimum=1.0, strict_minimum=True)
    return finite_result(
        _subsampled_rdp(q, z, checked),
        "the RDP ln(A_alpha) / (alpha - 1)",
        sample_rate=q,
        noise_multiplier=z,
        orders=orders,
    )


def dpsgd_epsilon(sample_rate, noise_multiplier, steps, delta):
    """Epsilon spent by DP-SGD: ``steps`` Poisson-subsampled Gaussian steps, RDP-accounted.

    The per-step RDP (:func:`subsampled_gaussian_rdp`) is multiplied by
    ``steps`` (RDP composes additively) and converted once to (epsilon, delta)
    with the improved conversion of Canonne, Kamath & Steinke (2020),
    Prop. 12, minimised over :data:`DEFAULT_RDP_ORDERS` -- the same orders
    and conversion as Google's dp_accounting ``RdpAccountant``, whose result
    this matches. Neighbours: add or remove one person.

    Parameters
    ----------
    sample_rate : float
        Poisson sampling probability q, in (0, 1].
    noise_multiplier : float
        z = noise std / clipping norm, > 0.
    steps : int
        Number of steps, >= 1.
    delta : float
        Target failure probability, in (0, 1).

    Returns
    -------
    float
        epsilon such that the whole training run is (epsilon, delta)-DP; finite, >= 0.
        Orders whose RDP overflows are left out.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or when no order gives a finite
        epsilon (noise_multiplier = 1e-160, or steps = 1e308 with little noise).
    """
    q = check_sample_rate(sample_rate)
    z = check_positive(noise_multiplier, "noise_multiplier")
    steps = check_count(steps, "steps")
    delta = check_delta(delta)
    names = dict(sample_rate=q, noise_multiplier=z, steps=steps, delta=delta)
    orders = np.asarray(DEFAULT_RDP_ORDERS, dtype=float)
    with np.errstate(over="ignore"):
        rdp = steps * _subsampled_rdp(q, z, orders)  # RDP composes additively
    finite_result(rdp.min(), "the run's RDP steps ln(A_alpha) / (alpha - 1) at every order", **names)
    keep = np.isfinite(rdp)
    epsilon, _ = _rdp_epsilon(rdp[keep], orders[keep], -math.log(delta), "improved")
    return finite_result(epsilon, "the converted epsilon", **names)
