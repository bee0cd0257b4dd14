"""The maths more than one module of dplab needs, on validated values: one home for each formula.

Private to the package (the public functions validate, then call these); every result that can
leave the float range goes through :func:`dplab._validate.finite_result`, so the caller's
``params`` name the parameters in the message.
"""

from __future__ import annotations

import math

import numpy as np

from ._validate import finite_result

__all__ = ["classic_c", "clip_rows", "gaussian_rho", "laplace_scale", "zcdp_epsilon"]


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


def zcdp_epsilon(rho: float, delta: float, /, **params) -> float:
    """The one zCDP -> (epsilon, delta) conversion, checked finite; ``params`` name the caller's."""
    # Bun & Steinke (2016), Prop. 1.3: eps = rho + 2 sqrt(rho ln(1/delta)),
    # as sqrt(rho) sqrt(L): rho L overflows for rho > 2.4e305 at delta = 1e-300.
    epsilon = rho + 2.0 * math.sqrt(rho) * math.sqrt(-math.log(delta))
    return finite_result(epsilon, "epsilon = rho + 2 sqrt(rho ln(1/delta))", **params)


def clip_rows(rows: np.ndarray, clip_bound: float) -> np.ndarray:
    """Unchecked core of :func:`clip_rows_l2` for a 2-d array: row * min(1, C / ||row||_2).

    Written as C / max(||row||, C), so that a zero row stays zero (no 0/0).
    """
    norms = np.sqrt(np.einsum("ij,ij->i", rows, rows))[:, None]
    return rows * (clip_bound / np.maximum(norms, clip_bound))
