"""Bounding sensitivity: clipping, clipped sums, private means, choosing the bound.

A sum has unbounded sensitivity: one person may hold any value. Clipping each
value to [0, b] makes one person move the sum by at most b, so Laplace noise of
scale b / epsilon suffices (Near & Abuah, ch. 5). Choosing b is a trade-off:
small b biases the sum down, large b needs more noise.
"""

from __future__ import annotations

import numpy as np

from ._maths import clip_rows, laplace_scale
from ._rng import charged_rng, make_rng
from ._validate import check_array, check_bounds, check_epsilon, check_positive, finite_result
from .mechanisms import laplace_mech

__all__ = [
    "clip",
    "clip_rows_l2",
    "clipped_sum",
    "private_mean",
    "clipped_sum_error",
    "choose_clipping_bound",
    "DEFAULT_CLIP_BOUNDS",
]

#: Default search grid for :func:`choose_clipping_bound`: 1, 2, 4, ..., 2**20
#: (about a million). Fixed in advance, so it reveals nothing about the data.
DEFAULT_CLIP_BOUNDS = tuple(float(2**i) for i in range(21))


def clip(values, lower, upper):
    """Clamp every value into [lower, upper] (no privacy cost: no release).

    Parameters
    ----------
    values : float or array_like
        Finite numbers.
    lower, upper : float
        Finite bounds with lower < upper, in the units of ``values``.

    Returns
    -------
    float or numpy.ndarray
        Same shape as ``values``.

    Raises
    ------
    TypeError, ValueError
        For non-numeric input, non-finite values, or lower >= upper.
    """
    arr = check_array(values, "values")
    lo, hi = check_bounds(lower, upper)
    out = np.clip(arr, lo, hi)
    return float(out) if out.ndim == 0 else out


def clip_rows_l2(rows, clip_bound):
    """Scale every row down so that its L2 norm is at most ``clip_bound``.

    Row x becomes x * min(1, C / ||x||_2); rows already inside the ball are
    unchanged. After clipping, adding or removing one row moves a sum of rows
    by at most C in L2 norm: the L2 sensitivity of the sum is ``clip_bound``
    (Abadi et al. 2016, Algorithm 1; Near & Abuah, ch. 12).

    Parameters
    ----------
    rows : array_like, shape (n, d) or (d,)
        Finite numbers; a 1-d input is one row.
    clip_bound : float
        Clipping norm C, > 0, in the units of the rows.

    Returns
    -------
    numpy.ndarray
        Same shape as ``rows``.

    Raises
    ------
    TypeError, ValueError
        For non-numeric or non-finite rows, or a clip_bound that is not > 0 and finite.
    """
    arr = check_array(rows, "rows", ndim=(1, 2))
    clip_bound = check_positive(clip_bound, "clip_bound")
    return clip_rows(np.atleast_2d(arr), clip_bound).reshape(arr.shape)


def clipped_sum(values, clip_bound, epsilon, rng=None, *, accountant=None, label=""):
    """Noisy sum of the values clipped to [0, clip_bound].

    Guarantee: epsilon-DP. After clipping, one person changes the sum by at
    most b = ``clip_bound`` (sensitivity = b), and Laplace noise of scale
    b / epsilon is added (Near & Abuah, ch. 5, "Clipping").

    Parameters
    ----------
    values : array_like
        One non-negative number per person (negative values are clipped to 0).
    clip_bound : float
        Clipping bound b, > 0, in the units of ``values``.
    epsilon : float
        Privacy budget, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; fresh by default.
    accountant, label : BudgetAccountant and str, optional
        As in :func:`dplab.laplace_mech`.

    Returns
    -------
    float
        Finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a noise scale ``clip_bound / epsilon``
        that overflows or underflows.
    BudgetError
        If ``accountant`` cannot pay ``epsilon``; nothing is released or spent then.
    """
    arr = check_array(values, "values", ndim=1)
    clip_bound = check_positive(clip_bound, "clip_bound")
    epsilon = check_epsilon(epsilon)
    laplace_scale(clip_bound, epsilon, clip_bound=clip_bound, epsilon=epsilon)
    true_sum = np.clip(arr, 0.0, clip_bound).sum()
    # sensitivity = clip_bound, by the clipping
    return laplace_mech(true_sum, clip_bound, epsilon, rng, accountant=accountant, label=label)


def private_mean(values, upper, epsilon, rng=None, *, accountant=None, label=""):
    """Private mean: a noisy clipped sum over a noisy count.

    Guarantee: epsilon-DP, by sequential composition of two epsilon/2-DP
    releases (Near & Abuah, ch. 5, "Averages"): the sum of the values clipped
    to [0, upper] with Laplace noise (sensitivity ``upper``), and the count
    with Laplace noise (sensitivity 1). The ratio is post-processing; the
    noisy count is floored at 1 (also post-processing) so the ratio is defined.

    Parameters
    ----------
    values : array_like
        One number per person, expected in [0, upper] (clipped into it).
    upper : float
        Upper end of the data range [0, upper], > 0, in the units of ``values``
        (90 for ages); the values are clipped into it.
    epsilon : float
        Total privacy budget, > 0, split evenly between sum and count.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; fresh by default.
    accountant, label : BudgetAccountant and str, optional
        As in :func:`dplab.laplace_mech`; the cost spent is the whole ``epsilon``, once.

    Returns
    -------
    float

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or when a noise scale
        (``upper / (epsilon/2)`` or ``1 / (epsilon/2)``) overflows or underflows.
    """
    arr = check_array(values, "values", ndim=1)
    upper = check_positive(upper, "upper")
    epsilon = check_epsilon(epsilon)
    half = finite_result(epsilon / 2.0, "the half budget epsilon/2", positive=True, epsilon=epsilon)
    laplace_scale(upper, half, upper=upper, epsilon=epsilon)  # the sum's noise
    laplace_scale(1.0, half, epsilon=epsilon)  # the count's noise
    gen = charged_rng(rng, accountant, epsilon, 0.0, label)
    noisy_sum = clipped_sum(arr, upper, half, gen)  # epsilon/2, sensitivity = upper
    noisy_count = laplace_mech(float(arr.size), 1.0, half, gen)  # epsilon/2, sensitivity 1
    return noisy_sum / max(noisy_count, 1.0)


def clipped_sum_error(values, clip_bounds, epsilon):
    """Expected squared error of :func:`clipped_sum` for each clipping bound (teaching aid).

    For a bound b the released value is sum(clip(x, 0, b)) + Lap(b/epsilon), so

        bias(b)     = sum(x) - sum(clip(x, 0, b))   (clipping loses the tail)
        variance(b) = 2 (b / epsilon)^2             (Var Lap(s) = 2 s^2)
        total(b)    = bias(b)^2 + variance(b)       (mean squared error)

    This looks at the true data and is **not** private: it draws the
    "find the elbow" picture; a real analysis chooses b with
    :func:`choose_clipping_bound`.

    Parameters
    ----------
    values : array_like
        One non-negative number per person.
    clip_bounds : array_like
        Clipping bounds b to evaluate, each > 0.
    epsilon : float
        Budget of the clipped sum, > 0.

    Returns
    -------
    (bias_squared, noise_variance, total) : tuple of numpy.ndarray
        Each with one entry per bound, in squared units of ``values``; finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or a squared error beyond the
        largest float (a bound of 1e200, or values of 1e200).
    """
    arr = np.clip(check_array(values, "values", ndim=1), 0.0, None)
    b = check_array(clip_bounds, "clip_bounds", ndim=1, minimum=0.0, strict_minimum=True)
    epsilon = check_epsilon(epsilon)
    names = dict(values=values, clip_bounds=clip_bounds, epsilon=epsilon)
    with np.errstate(over="ignore"):
        clipped_sums = np.minimum(arr[None, :], b[:, None]).sum(axis=1)
        bias_squared = (arr.sum() - clipped_sums) ** 2
        noise_variance = 2.0 * (b / epsilon) ** 2
        total = bias_squared + noise_variance
    finite_result(total, "the squared error bias^2 + 2 (b/epsilon)^2", **names)  # >= both parts
    return bias_squared, noise_variance, total


def choose_clipping_bound(values, epsilon, *, clip_bounds=None, rng=None):
    """Choose a clipping bound privately: the book's search for the elbow.

    For increasing bounds b_1 < b_2 < ... (fixed in advance) release noisy
    clipped sums S_j = :func:`clipped_sum` (values, b_j, epsilon / m), with m
    the number of bounds, and stop at the first b_j whose next noisy sum is
    not larger (S_{j+1} <= S_j): past the elbow, raising b adds noise but no
    signal (Near & Abuah, ch. 5 "Clipping" and ch. 10's search for b).
    If the sum never stops growing, the largest bound is returned.

    Guarantee and accounting: each query is (epsilon / m)-DP; by sequential
    composition the search is at most epsilon-DP. It returns the budget it
    actually used, (queries made) * epsilon / m. Spending the remainder later
    under the same fixed total budget (e.g. with a :class:`BudgetAccountant`)
    is sound: for pure DP, basic composition holds even when each budget is
    chosen adaptively, as long as the total stays within the fixed budget (a
    privacy filter; Rogers, Roth, Ullman & Vadhan 2016). The chosen bound is
    post-processing of the noisy sums.

    Parameters
    ----------
    values : array_like
        One non-negative number per person.
    epsilon : float
        Maximum budget for the whole search, > 0.
    clip_bounds : array_like, optional
        Strictly increasing candidate bounds, each > 0, at least 2. Defaults
        to :data:`DEFAULT_CLIP_BOUNDS` (1, 2, 4, ..., 2**20). Must not be chosen by
        looking at the data.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; fresh by default.

    Returns
    -------
    (bound, epsilon_spent) : tuple of float
        The chosen b, and the budget the search used (<= ``epsilon``).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value, or bounds not increasing, or a
        noise scale ``b / (epsilon / m)`` that overflows or underflows.
    """
    arr = check_array(values, "values", ndim=1)
    epsilon = check_epsilon(epsilon)
    grid = check_array(
        DEFAULT_CLIP_BOUNDS if clip_bounds is None else clip_bounds,
        "clip_bounds",
        ndim=1,
        minimum=0.0,
        strict_minimum=True,
    )
    if grid.size < 2 or np.any(np.diff(grid) <= 0):
        raise ValueError(
            f"clip_bounds must be at least 2 strictly increasing numbers, got {grid.tolist()!r:.120}"
        )
    # sequential composition over at most m queries
    epsilon_each = finite_result(
        epsilon / grid.size,
        "the per-query budget epsilon / len(clip_bounds)",
        positive=True,
        epsilon=epsilon,
        **{"len(clip_bounds)": grid.size},
    )
    for b in (grid[0], grid[-1]):  # the smallest and the largest noise scale b / epsilon_each
        laplace_scale(b, epsilon_each, clip_bounds=grid.tolist(), epsilon=epsilon)
    gen = make_rng(rng)
    previous = clipped_sum(arr, grid[0], epsilon_each, gen)
    queries = 1
    for j in range(1, grid.size):
        current = clipped_sum(arr, grid[j], epsilon_each, gen)
        queries += 1
        if current <= previous:  # the noisy sum stopped growing: b_{j-1} is the elbow
            return float(grid[j - 1]), queries * epsilon_each
        previous = current
    return float(grid[-1]), queries * epsilon_each
