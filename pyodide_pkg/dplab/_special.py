"""Special functions shared by the mechanisms, the accounting and the audit (no scipy).

One home for each: the stable sigmoid, the normal CDF and its scaled log tail, log erfc,
log-sum-exp and log-add, log binomial coefficients, a safe expm1, and the regularized
incomplete Beta function. Inputs are already validated; nothing here checks arguments.
"""

from __future__ import annotations

import math
import sys

import numpy as np

__all__ = [
    "sigmoid",
    "normal_cdf",
    "log_scaled_normal_tail",
    "log_erfc",
    "expm1",
    "logsumexp",
    "log_add",
    "log_comb",
    "log_comb_int",
    "betainc",
    "betaincc",
]


def sigmoid(z):
    """1 / (1 + exp(-z)), computed without overflow for any finite z."""
    z = np.asarray(z, dtype=float)
    e = np.exp(-np.abs(z))  # in (0, 1]: never overflows
    # 1 / (1 + e) where z >= 0, e / (1 + e) elsewhere: one division over the array instead of
    # two and a choice between them (the same operations per element, so the same bits).
    out = np.where(z >= 0, 1.0, e)
    out /= 1.0 + e
    return out


def log_scaled_normal_tail(y: float) -> float:
    """log(Phi(-y) e^(y^2/2)) for y >= 0: the log normal tail with its Gaussian factor taken out.

    Phi(-y) alone underflows past y ~ 38; scaled, it stays near phi(0)/y.
    """
    if y < 30.0:
        return math.log(0.5 * math.erfc(y / math.sqrt(2.0))) + 0.5 * y * y
    # Asymptotic series of the Mills ratio: Phi(-y) e^(y^2/2) ~ sum_k (-1)^k (2k-1)!! t^k / (y sqrt(2 pi)),
    # t = 1/y^2 (powers of t, not of y, so that y = 1e100 cannot overflow). Nine terms: at y = 30 the
    # first one left out is 9e-20, so the series is as exact as erfc, which matters where B(v) is a
    # small difference of two such tails (tiny epsilon and delta).
    t = 1.0 / (y * y)
    series = 0.0
    for coefficient in _MILLS_COEFFICIENTS:  # Horner, highest power first
        series = coefficient + t * series
    return -math.log(y) - 0.5 * math.log(2.0 * math.pi) + math.log(series)


#: (-1)^k (2k - 1)!! for k = 8, ..., 0: the Mills-ratio series, highest power first.
_MILLS_COEFFICIENTS = (2027025.0, -135135.0, 10395.0, -945.0, 105.0, -15.0, 3.0, -1.0, 1.0)


def normal_cdf(x: float) -> float:
    """Phi(x), the standard normal CDF, through erfc (accurate in the lower tail)."""
    return 0.5 * math.erfc(-x / math.sqrt(2.0))


#: ln of the largest float: math.exp and math.expm1 raise OverflowError above it.
_LOG_MAX = math.log(sys.float_info.max)


def expm1(x: float) -> float:
    """e^x - 1, inf past the float range (math.expm1 raises OverflowError there)."""
    return math.expm1(x) if x < _LOG_MAX else math.inf


def logsumexp(values: np.ndarray) -> float:
    """log(sum(exp(values))), with the maximum taken out (no overflow)."""
    top = float(np.max(values))
    if math.isinf(top):  # all terms 0, or one overflowed (+inf - inf would be NaN)
        return top
    return top + math.log(float(np.sum(np.exp(values - top))))


def log_comb(n: float, k: float) -> float:
    # log C(n, k) = lgamma(n+1) - lgamma(k+1) - lgamma(n-k+1), also for real n.
    return math.lgamma(n + 1.0) - math.lgamma(k + 1.0) - math.lgamma(n - k + 1.0)


def log_comb_int(n: int) -> np.ndarray:
    # log C(n, i) for i = 0..n, from cumulative sums of logs (no overflow).
    log_fact = np.concatenate([[0.0], np.cumsum(np.log(np.arange(1, n + 1, dtype=float)))])
    return log_fact[n] - log_fact - log_fact[::-1]


def log_erfc(x: float) -> float:
    """log(erfc(x)), with the asymptotic series where erfc underflows."""
    r = math.erfc(x)
    if r > 0.0:
        return math.log(r)
    # Laurent series at infinity (as in dp_accounting's log_erfc fallback):
    # erfc(x) ~ exp(-x^2 - 0.5/x^2 + 0.625/x^4 - ...) / (x sqrt(pi)).
    return (
        -0.5 * math.log(math.pi)
        - math.log(x)
        - x * x
        - 0.5 * x**-2
        + 0.625 * x**-4
        - 37.0 / 24.0 * x**-6
        + 353.0 / 64.0 * x**-8
    )


def log_add(a: float, b: float) -> float:
    """log(e^a + e^b), for a, b in [-inf, inf]."""
    lo, hi = min(a, b), max(a, b)
    if lo == -math.inf or hi == math.inf:  # inf - inf would be NaN
        return hi
    return hi + math.log1p(math.exp(lo - hi))


_TINY = 1e-300  # Lentz's guard against a zero denominator
_CF_EPS = 1e-15  # the continued fraction stops when a step changes it by less


def _beta_cf(a: float, b: float, x: float, y: float) -> float:
    """The continued fraction of I_x(a, b) (Numerical Recipes, 3rd ed., 6.4), by modified Lentz;
    ``y = 1 - x``, passed exactly (it is the caller's x when the tails are swapped).

    Converges fast for x < (a + 1) / (a + b + 2); the number of steps grows as
    sqrt(max(a, b)) (a few hundred at a = b = 10^5).
    """
    qab, qap, qam = a + b, a + 1.0, a - 1.0
    c = 1.0
    # the first term 1 - (a + b) x / (a + 1) = ((a + 1) - (a + b) x) / (a + 1), > 0 here: near
    # x = 1 (the upper tail of a large a) the two terms cancel and (a + b) x carries x's
    # rounding times a + b (1e-11 relative at a = 1.6e5); (a + b) y + 1 - b is the same
    # number from the exact y, summed without cancelling when b <= 1. The form whose terms
    # are smaller loses less.
    if qab * y + abs(1.0 - b) < qap + qab * x:
        d = (qab * y + (1.0 - b)) / qap
    else:
        d = 1.0 - qab * x / qap
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    h = d
    max_steps = 1000 + int(20 * math.sqrt(max(a, b)))
    for m in range(1, max_steps + 1):
        m2 = 2 * m
        aa = m * (b - m) * x / ((qam + m2) * (a + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        h *= d * c
        aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2))
        d = 1.0 + aa * d
        d = 1.0 / (d if abs(d) > _TINY else _TINY)
        c = 1.0 + aa / c
        c = c if abs(c) > _TINY else _TINY
        step = d * c
        h *= step
        if abs(step - 1.0) < _CF_EPS:
            return h
    raise ValueError(  # not reached for a, b <= 1e9 (the steps needed grow as sqrt(max(a, b)))
        f"the continued fraction of the incomplete beta did not converge with a={a!r}, b={b!r}, x={x!r}"
    )


def _stirling_tail(z: float) -> float:
    """lgamma(z) - ((z - 0.5) ln z - z + ln(2 pi) / 2), for z >= 20 (error below 1e-15)."""
    w = 1.0 / (z * z)
    return (1.0 / 12 - w * (1.0 / 360 - w * (1.0 / 1260 - w / 1680))) / z


def _lgamma_shift(big: float, small: float) -> float:
    """lgamma(big + small) - lgamma(big), without the cancellation of two large lgammas (whose
    rounding, about 1e-10 at big = 1e5, a quantile at a small shape multiplies by 1 / shape)."""
    if big < 20.0:
        return math.lgamma(big + small) - math.lgamma(big)
    return (
        (big - 0.5) * math.log1p(small / big)
        + small * math.log(big + small)
        - small
        + _stirling_tail(big + small)
        - _stirling_tail(big)
    )


def _rlog1(e: float) -> float:
    """e - log(1 + e), for e > -1, to full relative precision also where it is e^2 / 2."""
    if abs(e) > 0.25:
        return e - math.log1p(e)
    # with r = e / (2 + e): log(1 + e) = 2 atanh(r) = 2 (r + r^3/3 + r^5/5 + ...) and
    # e = 2r / (1 - r), so e - log(1 + e) = 2r^2 / (1 - r) - 2r^3 (1/3 + r^2/5 + ...): the second
    # term at most 7 % of the first, no cancellation; |r| <= 1/7, 12 terms reach 1e-17
    r = e / (2.0 + e)
    r2 = r * r
    series = 0.0
    for k in range(25, 1, -2):  # 1/25 + ... down to 1/3, Horner in r^2
        series = 1.0 / k + r2 * series
    return 2.0 * r2 / (1.0 - r) - 2.0 * r * r2 * series


def _log_beta_front(a: float, b: float, x: float, y: float) -> float:
    """log(x^a y^b / B(a, b)), y = 1 - x: the factor in front of both continued fractions.

    For a, b >= 20, in DiDonato & Morris's form (ACM TOMS 18, 1992, brcomp): with Stirling's
    series for the three lgammas, ln B(a, b) = a ln x0 + b ln y0 + ln(2 pi (a + b) / (a b)) / 2
    + tails, x0 = a / (a + b), and the front is ``ln(a b / (2 pi (a + b))) / 2 - (a rlog1(-l/a)
    + b rlog1(l/b)) - tails``, l = a - (a + b) x: the large terms cancel exactly on paper, not
    in floats (lgamma(1e5) is 1e6, and its last digit alone moved the median of Beta(1e5, 1e5)
    by 5.6e-13).
    """
    big, small = (a, b) if a >= b else (b, a)
    if small < 20.0:
        return _lgamma_shift(big, small) - math.lgamma(small) + a * math.log(x) + b * math.log1p(-x)
    # l = a - (a + b) x = (a + b) y - b: from the smaller of x and y, which is exact
    lam = a - (a + b) * x if x <= y else (a + b) * y - b
    tails = _stirling_tail(a) + _stirling_tail(b) - _stirling_tail(a + b)
    spread = 0.5 * (math.log(a / (a + b)) + math.log(b) - math.log(2.0 * math.pi))
    return spread - (a * _rlog1(-lam / a) + b * _rlog1(lam / b)) - tails


def _beta_tail(a: float, b: float, x: float) -> tuple[float, bool]:
    """One tail of Beta(a, b) at x in (0, 1), from the continued fraction that converges fast
    there, and whether it is the lower tail (x below the mean's side) or the upper one."""
    y = 1.0 - x
    log_front = _log_beta_front(a, b, x, y)
    if x < (a + 1.0) / (a + b + 2.0):
        return math.exp(log_front) * _beta_cf(a, b, x, y) / a, True
    return math.exp(log_front) * _beta_cf(b, a, y, x) / b, False


def betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta I_x(a, b) = Pr[Beta(a, b) <= x], for a, b > 0, x in [0, 1]."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    tail, lower = _beta_tail(a, b, x)
    return tail if lower else 1.0 - tail


def betaincc(a: float, b: float, x: float) -> float:
    """The complement 1 - I_x(a, b) = Pr[Beta(a, b) > x], to full relative precision where it is
    small (x near 1): the upper tail from its own continued fraction, not 1 minus the lower."""
    if x <= 0.0:
        return 1.0
    if x >= 1.0:
        return 0.0
    tail, lower = _beta_tail(a, b, x)
    return 1.0 - tail if lower else tail
