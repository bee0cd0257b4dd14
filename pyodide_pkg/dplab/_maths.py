"""The maths more than one module of dplab needs, on validated values: one home for each formula.

Private to the package (the public functions validate, then call these); every result that can
leave the float range goes through :func:`dplab._validate.finite_result`, so the caller's
``params`` name the parameters in the message.
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import finite_result

__all__ = ["classic_c", "classic_zcdp_epsilon", "clip_rows", "gaussian_rho", "laplace_scale", "zcdp_epsilon"]


def laplace_scale(sensitivity: float, epsilon: float, /, **params) -> float:
    """The Laplace scale b = sensitivity / epsilon, checked: finite and not underflowed.

    ``params`` name the caller's parameters in the message (default: these two).
    """
    return finite_result(
        sensitivity / epsilon,
        "the noise scale sensitivity/epsilon",
        positive=True,
        **(params or dict(sensitivity=sensitivity, epsilon=epsilon)),
    )


def classic_c(log_inv_delta: float) -> float:
    """c = sqrt(2 ln(1.25 / delta)) of Dwork & Roth (2014), Theorem A.1, from ln(1/delta).

    Taking ln(1/delta) rather than delta keeps it finite for every delta > 0: 1.25 / 5e-324
    overflows, ln(1.25) + ln(1/5e-324) = 744.7 does not; callers that split delta (delta/k)
    add ln k instead of dividing.
    """
    return math.sqrt(2.0 * (math.log(1.25) + log_inv_delta))


def gaussian_rho(sigma: float, sensitivity: float, /, **params) -> float:
    """rho = Delta^2 / (2 sigma^2) (Bun & Steinke 2016, Prop. 1.6), checked finite and > 0.

    Computed as (Delta/sigma)^2 / 2: Delta**2 alone raises OverflowError for Delta = 1e200.
    A rho underflowing to 0 is refused: zcdp_epsilon requires rho > 0.
    """
    ratio = sensitivity / sigma
    return finite_result(0.5 * ratio * ratio, "rho = sensitivity^2 / (2 sigma^2)", positive=True, **params)


def classic_zcdp_epsilon(rho: float, delta: float, /, **params) -> float:
    """rho + 2 sqrt(rho ln(1/delta)), checked finite; ``params`` name the caller's.

    Bun & Steinke (2016), Prop. 1.3, for rho-zCDP; the same number is the classic RDP
    conversion (Mironov 2017, Prop. 3) of a curve linear in alpha, minimised over every real
    alpha > 1 (:func:`dplab.rdp_gaussian_epsilon`). Valid, and above :func:`zcdp_epsilon`.
    """
    # as sqrt(rho) sqrt(L): rho L overflows for rho > 2.4e305 at delta = 1e-300.
    epsilon = rho + 2.0 * math.sqrt(rho) * math.sqrt(-math.log(delta))
    return finite_result(epsilon, "epsilon = rho + 2 sqrt(rho ln(1/delta))", **params)


# ln(alpha - 1) is searched in [_LOG_T_LOW, _LOG_T_HIGH]: for every normal rho > 0 and delta in
# (0, 1) (so ln(1/delta) in (1.1e-16, 745)) the optimum lies inside (zcdp_epsilon's comment).
_LOG_T_LOW, _LOG_T_HIGH = -400.0, 360.0
_LOG_T_STEPS = 48  # the bracket's width ends at 760 / 2^48 = 2.7e-12 in ln(alpha - 1)


def _cks_epsilon(t: float, rho: float, log_inv_delta: float) -> float:
    """The epsilon that order alpha = 1 + t gives to rho-zCDP at ln(1/delta) (CKS 2020, Prop. 12):

        eps = alpha rho + ln(1 - 1/alpha) + (ln(1/delta) - ln alpha) / (alpha - 1)
            = rho + t rho + (ln(1/delta) - ln(1 + t)) / t - ln(1 + 1/t),

    written in t so that alpha near 1 (a huge rho) loses no digits. Monotone in rho for each t.
    """
    return rho + t * rho + (log_inv_delta - math.log1p(t)) / t - math.log1p(1.0 / t)


def zcdp_epsilon(rho: float, delta: float, /, **params) -> float:
    """The one zCDP -> (epsilon, delta) conversion, checked finite and >= 0; ``params`` name the
    caller's.

    Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for Differential Privacy",
    Corollary 13: rho-zCDP implies (epsilon, delta)-DP for
    delta = inf over alpha > 1 of exp((alpha - 1)(alpha rho - epsilon)) / (alpha - 1) * (1 - 1/alpha)^alpha.
    Solved for epsilon at a given delta, that is the smallest :func:`_cks_epsilon` over alpha
    (each alpha alone gives a valid epsilon: the minimisation can only be loose, never unsafe).
    With t = alpha - 1, its derivative in t is rho - (ln(1/delta) - ln(1 + t)) / t^2, so the
    optimum is the one root of g(t) = (t sqrt(rho))^2 + ln(1 + t) - ln(1/delta), increasing in
    t; g < 0 at t = e^-400 and > 0 at t = e^360 for every normal rho and delta in (0, 1), and it
    is found by bisection in ln t. The bracket is fixed and g is monotone in rho, so the order
    found never grows with rho. At sigma = 20 (rho = 1/800), delta = 1e-5: 0.1775, where
    :func:`classic_zcdp_epsilon` (Bun & Steinke 2016) says 0.2412; OpenDP's
    ``make_zCDP_to_approxDP`` gives 0.1775 too.
    """
    log_inv_delta = -math.log(delta)
    root_rho = math.sqrt(rho)
    low, high = _LOG_T_LOW, _LOG_T_HIGH
    for _ in range(_LOG_T_STEPS):
        middle = 0.5 * (low + high)
        t = math.exp(middle)
        scaled = t * root_rho  # (t sqrt(rho))^2, never t^2 rho: t^2 overflows at t = e^360
        if scaled * scaled + math.log1p(t) - log_inv_delta > 0.0:
            high = middle
        else:
            low = middle
    epsilon = min(
        _cks_epsilon(math.exp(low), rho, log_inv_delta), _cks_epsilon(math.exp(high), rho, log_inv_delta)
    )
    return finite_result(max(epsilon, 0.0), "the zCDP conversion's epsilon (CKS 2020, Cor. 13)", **params)


def clip_rows(rows: np.ndarray, clip_bound: float) -> np.ndarray:
    """Unchecked core of :func:`clip_rows_l2` for a 2-d array: row * min(1, C / ||row||_2).

    Written as C / max(||row||, C), so that a zero row stays zero (no 0/0).
    """
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))[:, None]
    return rows * (clip_bound / np.maximum(norms, clip_bound))
