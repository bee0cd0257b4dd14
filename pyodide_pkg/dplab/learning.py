"""Private learning: logistic regression by noisy gradient descent and DP-SGD.

The gradient of the average logistic loss is an average of per-person terms;
releasing it at every step is releasing a sum. The recipe of Near & Abuah
(ch. 12) and Abadi et al. (2016): clip each person's gradient in L2 norm, add
Gaussian noise to the sum, and account the budget over the iterations.

Labels are y in {0, 1} (1 = income over 50K), so the loss of one person is
log(1 + exp(x.theta)) - y x.theta and their gradient is (sigmoid(x.theta) - y) x.
"""

from __future__ import annotations

import math

import numpy as np

from ._maths import laplace_scale
from ._rng import make_rng
from ._special import sigmoid
from ._validate import (
    check_array,
    check_count,
    check_delta,
    check_epsilon,
    check_integer,
    check_positive,
    check_sample_rate,
    finite_result,
)
from .mechanisms import analytic_gaussian_sigma, laplace_mech

__all__ = [
    "census_features",
    "sigmoid",
    "logistic_loss",
    "per_person_gradients",
    "gradient",
    "predict",
    "accuracy",
    "majority_baseline",
    "sample_people",
    "threshold_epsilon",
    "train_logistic",
    "noisy_gradient_descent",
    "dpsgd",
    "AGE_CENTER",
    "AGE_SCALE",
    "EDUCATION_CENTER",
    "EDUCATION_SCALE",
    "COUNT_BUDGET_SHARE",
]

# Feature scaling with constants fixed *before* seeing the data (a typical
# working age and schooling, and a spread), so scaling spends no budget.
# Scaled this way most feature rows [1, age, education] have L2 norm near 1.
AGE_CENTER, AGE_SCALE = 40.0, 20.0
EDUCATION_CENTER, EDUCATION_SCALE = 10.0, 4.0

#: Share of epsilon that :func:`noisy_gradient_descent` spends on the noisy count n.
COUNT_BUDGET_SHARE = 0.1

# Defaults of the trainers. Chosen once, on the synthetic census, for the
# non-private fit and for epsilon = 1 (not per epsilon): T = 10 steps of size 4
# reach the non-private optimum; C = 1 is about the typical gradient norm at
# the start (|sigmoid - y| ~ 0.5 times ||x|| ~ 1.3), so clipping rarely binds.
DEFAULT_STEPS = 10
DEFAULT_CLIP_BOUND = 1.0
DEFAULT_LEARNING_RATE = 4.0


def census_features(census):
    """Design matrix and labels for "income over 50K from age and education".

    ``X = [1, (age - 40) / 20, (education_num - 10) / 4]`` (an intercept and
    two features scaled with fixed public constants) and
    ``y = income_over_50k`` as integers 0/1.

    Parameters
    ----------
    census : Census
        A table with columns ``age``, ``education_num``, ``income_over_50k``.

    Returns
    -------
    (X, y) : (numpy.ndarray of shape (n, 3), numpy.ndarray of shape (n,))
    """
    age = check_array(census["age"], "census['age']", ndim=1)
    edu = check_array(census["education_num"], "census['education_num']", ndim=1)
    X = np.column_stack(
        [np.ones_like(age), (age - AGE_CENTER) / AGE_SCALE, (edu - EDUCATION_CENTER) / EDUCATION_SCALE]
    )
    y = np.asarray(census["income_over_50k"]).astype(np.int64)
    return X, y


def _check_data(X, y):
    X = check_array(X, "X", ndim=2)
    y = check_array(y, "y", ndim=1)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"X and y must have the same number of rows, got {X.shape[0]} and {y.shape[0]}")
    if X.shape[0] == 0:
        raise ValueError("X must have at least one row, got 0")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError(f"y must contain only 0 and 1, got values {np.unique(y)[:5].tolist()}")
    return X, y


def _check_theta(theta, d):
    theta = check_array(theta, "theta", ndim=1)
    if theta.shape[0] != d:
        raise ValueError(f"theta must have {d} entries (one per column of X), got {theta.shape[0]}")
    return theta


def logistic_loss(theta, X, y):
    """Average logistic loss, mean of log(1 + exp(x.theta)) - y x.theta (log-space safe)."""
    X, y = _check_data(X, y)
    theta = _check_theta(theta, X.shape[1])
    z = X @ theta
    return float(np.mean(np.logaddexp(0.0, z) - y * z))


def _per_person_gradients(theta, X, y):
    # d/dtheta [log(1 + exp(x.theta)) - y x.theta] = (sigmoid(x.theta) - y) x
    return (sigmoid(X @ theta) - y)[:, None] * X


class _ClippedGradientSum:
    """The sum of the per-person gradients at theta, each clipped to L2 norm ``clip_bound``:
    ``clip_rows_l2(_per_person_gradients(theta, X, y), clip_bound).sum(axis=0)``, computed on n
    numbers instead of n x d, with what does not depend on theta computed once per training.

    Person i's gradient is r_i x_i with r_i = sigmoid(x_i.theta) - y_i. With s_i = 1 - 2 y_i
    (+1 or -1), r_i = s_i sigmoid(s_i x_i.theta), so |r_i| = sigmoid(s_i x_i.theta). Clipping
    scales the gradient by min(1, C / (|r_i| ||x_i||)), so the clipped gradient is
    s_i min(|r_i|, C / ||x_i||) x_i. Kept: the signed rows s_i x_i, as the columns of a d x n
    array (both products of a step then read memory in order), and the caps C / ||x_i||
    (infinite for a zero row, whose gradient is 0). A step is then six numpy calls on n
    numbers, which matters in the browser, where each call costs far more than in CPython.
    ``clip_bound=None`` clips nothing: the plain sum of the gradients, in five.

    Call under ``np.errstate(over="ignore")``: where s_i x_i.theta < -709, exp overflows and
    sigmoid is 1 / (1 + inf) = 0, its limit.
    """

    def __init__(self, X, y, clip_bound):
        self.signed_columns = np.multiply(X.T, 1.0 - 2.0 * y, order="C")
        self.caps = None
        if clip_bound is not None:
            with np.errstate(divide="ignore"):
                self.caps = clip_bound / np.sqrt(np.square(self.signed_columns).sum(axis=0))

    def at(self, theta, rows=None):
        """The clipped sum over all rows, or over ``rows`` (a boolean mask: DP-SGD's batch)."""
        columns, caps = self.signed_columns, self.caps
        if rows is not None:
            columns = np.compress(rows, columns, axis=1)
            caps = None if caps is None else np.compress(rows, caps)
        weight = -theta @ columns  # -s_i x_i.theta, in place from here on:
        np.exp(weight, out=weight)
        weight += 1.0
        np.reciprocal(weight, out=weight)  # |r_i| = sigmoid(s_i x_i.theta)
        if caps is not None:
            np.minimum(weight, caps, out=weight)  # |r_i| clipped: min(|r_i|, C / ||x_i||)
        return columns @ weight


def per_person_gradients(theta, X, y):
    """One gradient row per person: (sigmoid(x_i.theta) - y_i) x_i, shape (n, d)."""
    X, y = _check_data(X, y)
    theta = _check_theta(theta, X.shape[1])
    return _per_person_gradients(theta, X, y)


def gradient(theta, X, y):
    """Gradient of :func:`logistic_loss`: the mean of :func:`per_person_gradients`."""
    return per_person_gradients(theta, X, y).mean(axis=0)


def predict(theta, X):
    """Predicted labels, 1 where x.theta >= 0 (probability >= 1/2), else 0."""
    X = check_array(X, "X", ndim=2)
    theta = _check_theta(theta, X.shape[1])
    return _predicts_one(theta, X).astype(np.int64)


def _predicts_one(theta, X):
    return X @ theta >= 0


def accuracy(theta, X, y):
    """Share of rows whose predicted label (:func:`predict`) equals y."""
    X, y = _check_data(X, y)
    theta = _check_theta(theta, X.shape[1])
    return np.count_nonzero(_predicts_one(theta, X) == y) / y.size


def majority_baseline(y):
    """Accuracy of always predicting the most frequent label."""
    y = check_array(y, "y", ndim=1)
    if y.size == 0:
        raise ValueError("y must not be empty, got 0 labels")
    share = float(np.mean(y == 1))
    return max(share, 1.0 - share)


def sample_people(X, y, n, rng=None):
    """A simple random sample of ``n`` people (rows), without replacement.

    For showing how the privacy-utility trade-off depends on how many people a model is
    trained on. Not a privacy mechanism (nothing is released); drawn from
    :func:`dplab._rng.make_rng` so the deck's fixed-seed button redraws the same sample.

    Parameters
    ----------
    X : array_like, shape (N, d)
    y : array_like of 0/1, shape (N,)
    n : int
        Sample size, 1 <= n <= N.
    rng : None, int or numpy.random.Generator
        Fresh randomness by default; see :func:`dplab.make_rng`.

    Returns
    -------
    (numpy.ndarray, numpy.ndarray)
        ``X`` and ``y`` restricted to the sampled rows.
    """
    X, y = _check_data(X, y)
    n = check_integer(n, "n")
    if n > y.size:
        raise ValueError(f"n must be at most the number of people ({y.size}), got {n}")
    rows = make_rng(rng).choice(y.size, size=n, replace=False).astype(np.intp, copy=False)
    # X[rows], y[rows], in half the time in the browser; take wants the platform's index type,
    # which the browser's 32-bit numpy does not cast choice's int64 to
    return X.take(rows, axis=0), y.take(rows)


def threshold_epsilon(epsilons, scores, level):
    """The epsilon from which a privacy-utility curve stays at or above ``level``.

    ``scores[i]`` is the (mean) utility at ``epsilons[i]`` (increasing, > 0). Returns the
    smallest epsilon from which every later score is >= ``level``, interpolated linearly in
    log epsilon between the last grid point below ``level`` and the next one (the curves are
    drawn on a log axis). Returns ``epsilons[0]`` when the whole curve is at or above ``level``
    (the threshold is at most that) and ``math.inf`` when the last score is below it (the grid
    never reaches it). Pure arithmetic on released numbers: no privacy cost.
    """
    epsilons = check_array(epsilons, "epsilons", ndim=1)
    scores = check_array(scores, "scores", ndim=1)
    level = float(check_array(level, "level", ndim=0))
    if epsilons.size == 0 or epsilons.size != scores.size:
        raise ValueError(
            f"epsilons and scores must be non-empty and of one length, got {epsilons.size} and {scores.size}"
        )
    if np.any(epsilons <= 0) or np.any(np.diff(epsilons) <= 0):
        raise ValueError(f"epsilons must be positive and increasing, got {epsilons.tolist()}")
    below = np.flatnonzero(scores < level)
    if below.size == 0:
        return float(epsilons[0])
    i = int(below[-1])
    if i == epsilons.size - 1:
        return math.inf
    t = (level - scores[i]) / (scores[i + 1] - scores[i])
    return float(np.exp(np.log(epsilons[i]) + t * np.log(epsilons[i + 1] / epsilons[i])))


def train_logistic(X, y, steps=500, learning_rate=DEFAULT_LEARNING_RATE):
    """Non-private logistic regression by full-batch gradient descent from theta = 0.

    Parameters
    ----------
    X : array_like, shape (n, d)
    y : array_like of 0/1, shape (n,)
    steps : int, default 500
        Number of steps, >= 1.
    learning_rate : float, default 4.0
        Step size, > 0.

    Returns
    -------
    numpy.ndarray, shape (d,)
        theta. No privacy guarantee: this is the reference model.
    """
    X, y = _check_data(X, y)
    steps = check_integer(steps, "steps")
    learning_rate = check_positive(learning_rate, "learning_rate")
    theta = np.zeros(X.shape[1])
    gradient_sum = _ClippedGradientSum(X, y, clip_bound=None)
    with np.errstate(over="ignore"):  # exp overflows where sigmoid is 0: see the class
        for _ in range(steps):
            theta -= learning_rate * gradient_sum.at(theta) / X.shape[0]
    return theta


def noisy_gradient_descent(
    X,
    y,
    epsilon,
    delta=1e-5,
    *,
    steps=DEFAULT_STEPS,
    clip_bound=DEFAULT_CLIP_BOUND,
    learning_rate=DEFAULT_LEARNING_RATE,
    rng=None,
):
    """Full-batch noisy gradient descent (the lecture's algorithm), (epsilon, delta)-DP in total.

    Algorithm (Near & Abuah, ch. 12, with the budget made explicit):

    1. Spend ``COUNT_BUDGET_SHARE * epsilon`` on a noisy count n~ of the rows
       (Laplace, sensitivity 1), floored at 1.
    2. Split the rest evenly over the T = ``steps`` steps: each gets
       eps_t = (1 - share) epsilon / T and delta_t = delta / T.
    3. At each step clip every per-person gradient to L2 norm ``clip_bound``
       (so the sum has L2 sensitivity ``clip_bound``), add N(0, sigma^2 I) with
       sigma = :func:`analytic_gaussian_sigma` (clip_bound, eps_t, delta_t)
       (valid for every eps_t, unlike the classic formula), divide by n~ and
       take a step: theta <- theta - learning_rate * noisy_sum / n~.

    Guarantee: (epsilon, delta)-DP for adding or removing one person, by
    sequential composition of the count and the T steps. The returned theta
    is post-processing. Tuning ``steps``, ``clip_bound`` or
    ``learning_rate`` on the same data would cost extra budget.

    Parameters
    ----------
    X : array_like, shape (n, d)
        Features (e.g. from :func:`census_features`).
    y : array_like of 0/1, shape (n,)
        Labels.
    epsilon : float
        Total budget, > 0.
    delta : float, default 1e-5
        Total failure probability, in (0, 1); warns if >= 1/n.
    steps : int, default 10
        Number of steps T, >= 1.
    clip_bound : float, default 1.0
        L2 clipping norm C of each person's gradient, > 0.
    learning_rate : float, default 4.0
        Step size, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; fresh by default.

    Returns
    -------
    numpy.ndarray, shape (d,)
        theta; finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value; when a per-step budget or noise
        scale leaves the float range (epsilon = 1e-308); or when theta overflows
        (a huge ``learning_rate``).
    """
    X, y = _check_data(X, y)
    epsilon = check_epsilon(epsilon)
    delta = check_delta(delta, n=X.shape[0])
    steps = check_count(steps, "steps")
    clip_bound = check_positive(clip_bound, "clip_bound")
    learning_rate = check_positive(learning_rate, "learning_rate")
    names = dict(epsilon=epsilon, delta=delta, steps=steps, clip_bound=clip_bound)

    # The count spends COUNT_BUDGET_SHARE * epsilon (Laplace, sensitivity 1), checked before any
    # noise is drawn: share * 5e-324 rounds to 0.
    eps_count = finite_result(
        COUNT_BUDGET_SHARE * epsilon,
        f"the count's epsilon {COUNT_BUDGET_SHARE} epsilon",
        positive=True,
        epsilon=epsilon,
    )
    laplace_scale(1.0, eps_count, epsilon=epsilon)
    # sequential composition over T steps
    eps_step = finite_result(
        (1.0 - COUNT_BUDGET_SHARE) * epsilon / steps,
        f"the per-step epsilon {1 - COUNT_BUDGET_SHARE} epsilon / steps",
        positive=True,
        epsilon=epsilon,
        steps=steps,
    )
    delta_step = finite_result(
        delta / steps, "the per-step delta delta / steps", positive=True, delta=delta, steps=steps
    )
    try:
        sigma = analytic_gaussian_sigma(clip_bound, eps_step, delta_step)  # L2 sensitivity = clip_bound
    except ValueError as exc:  # say which of the caller's parameters gave these per-step values
        shown = ", ".join(f"{k}={v!r}" for k, v in names.items())
        raise ValueError(f"per-step Gaussian of noisy_gradient_descent with {shown}: {exc}") from None

    gen = make_rng(rng)
    noisy_n = max(laplace_mech(float(X.shape[0]), 1.0, eps_count, gen), 1.0)  # the count
    theta = np.zeros(X.shape[1])
    clipped_gradients = _ClippedGradientSum(X, y, clip_bound)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflowing theta is caught below
        for _ in range(steps):
            clipped_sum = clipped_gradients.at(theta)  # sensitivity C
            noisy_sum = clipped_sum + gen.normal(0.0, sigma, size=theta.shape)
            theta = theta - learning_rate * noisy_sum / noisy_n
    return finite_result(theta, "theta", learning_rate=learning_rate, **names)


def dpsgd(
    X,
    y,
    noise_multiplier,
    sample_rate,
    steps,
    clip_bound=DEFAULT_CLIP_BOUND,
    learning_rate=1.0,
    rng=None,
    lot_size=None,
):
    """DP-SGD with Poisson-subsampled batches (Abadi et al. 2016).

    At each step every person joins the batch independently with probability
    q = ``sample_rate``; the batch's per-person gradients are clipped to L2
    norm C = ``clip_bound``, summed, and N(0, (z C)^2 I) noise is added
    (z = ``noise_multiplier``); the step divides the noisy sum by the lot
    size L = ``lot_size``, a public number.

    The data-set size n is public unless a lot size is given. By default
    L = q n, the expected batch size, as in TF Privacy and Opacus: the
    guarantee below then holds for neighbours that share n (n known, e.g.
    published), since theta's scale depends on the exact n. Pass a public
    ``lot_size`` (a fixed number, e.g. q times a rounded, published size)
    for the guarantee under adding or removing one person with n private.
    (Abadi et al.'s lot size L is an expected size too: their q is L/N.)

    Guarantee: (epsilon, delta)-DP for adding or removing one person, for every
    delta in (0, 1), with epsilon = :func:`dplab.dpsgd_epsilon` (q, z, steps,
    delta): RDP of the subsampled Gaussian (Mironov, Talwar & Zhang 2019)
    composed over the steps. As in Opacus (``make_private`` trains,
    ``get_epsilon(delta)`` accounts), training and accounting are two calls;
    like :func:`noisy_gradient_descent` it returns theta alone.

    Parameters
    ----------
    X : array_like, shape (n, d)
    y : array_like of 0/1, shape (n,)
    noise_multiplier : float
        z = noise std / clip_bound, > 0.
    sample_rate : float
        q, in (0, 1].
    steps : int
        Number of steps, >= 1.
    clip_bound : float, default 1.0
        C, > 0.
    learning_rate : float, default 1.0
        Step size, > 0.
    rng : None, int or numpy.random.Generator, optional
        Source of randomness; fresh by default.
    lot_size : float, optional
        L, > 0: what each step divides the noisy sum by; public. Default
        ``sample_rate * n`` (then n is taken as public; see above).

    Returns
    -------
    numpy.ndarray, shape (d,)
        theta; finite.

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range value; when the noise std
        ``noise_multiplier * clip_bound`` leaves the float range;
        or when theta overflows (a huge ``learning_rate``, a tiny ``sample_rate``).
    """
    X, y = _check_data(X, y)
    noise_multiplier = check_positive(noise_multiplier, "noise_multiplier")
    sample_rate = check_sample_rate(sample_rate)
    steps = check_count(steps, "steps")
    clip_bound = check_positive(clip_bound, "clip_bound")
    learning_rate = check_positive(learning_rate, "learning_rate")
    lot_size = None if lot_size is None else check_positive(lot_size, "lot_size")
    names = dict(noise_multiplier=noise_multiplier, sample_rate=sample_rate, clip_bound=clip_bound)
    sigma = finite_result(
        noise_multiplier * clip_bound, "the noise std noise_multiplier * clip_bound", positive=True, **names
    )
    gen = make_rng(rng)

    n, d = X.shape
    expected_batch = sample_rate * n if lot_size is None else lot_size
    theta = np.zeros(d)
    clipped_gradients = _ClippedGradientSum(X, y, clip_bound)
    with np.errstate(over="ignore", invalid="ignore"):  # an overflowing theta is caught below
        for _ in range(steps):
            batch = gen.random(n) < sample_rate  # Poisson sampling
            clipped_sum = clipped_gradients.at(theta, batch)
            noisy_sum = clipped_sum + gen.normal(0.0, sigma, size=d)
            theta = theta - learning_rate * noisy_sum / expected_batch
    return finite_result(theta, "theta", learning_rate=learning_rate, **names)
