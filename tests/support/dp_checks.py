"""Shared statistical checks for the dplab tests (a helper module, not a test file)."""

import numpy as np


def empirical_privacy_violation(
    samples_d, samples_d_prime, epsilon, bins=60, min_count=2_000, z=4.0, edges=None
):
    """How far the histogram log-ratio of two output samples exceeds epsilon.

    epsilon-DP bounds |log P[M(D) in B] - log P[M(D') in B]| <= epsilon for every
    bin B. We estimate both probabilities by counts, keep bins with at least
    ``min_count`` samples on both sides, and allow ``z`` standard errors of the
    estimated log-ratio, sqrt(1/c + 1/c') (delta method, Poisson counts).
    Returns max over bins of |log ratio| - z * se - epsilon: <= 0 means no
    violation detected.

    ``edges`` fixes the bin edges (e.g. half-integers, one bin per integer
    output); by default ``bins`` equal bins span the 0.1 %-99.9 % quantiles.
    """
    if edges is None:
        low = min(np.quantile(samples_d, 0.001), np.quantile(samples_d_prime, 0.001))
        high = max(np.quantile(samples_d, 0.999), np.quantile(samples_d_prime, 0.999))
        edges = np.linspace(low, high, bins + 1)
    c1, _ = np.histogram(samples_d, edges)
    c2, _ = np.histogram(samples_d_prime, edges)
    keep = (c1 >= min_count) & (c2 >= min_count)
    assert keep.sum() >= 5, "too few well-populated bins for the check"
    log_ratio = np.abs(np.log(c1[keep] / c2[keep]))
    slack = z * np.sqrt(1.0 / c1[keep] + 1.0 / c2[keep])
    return float(np.max(log_ratio - slack) - epsilon)


def integer_edges(*samples):
    """Half-integer bin edges giving one bin per integer between the samples' extremes."""
    low = min(int(np.min(s)) for s in samples)
    high = max(int(np.max(s)) for s in samples)
    return np.arange(low, high + 2) - 0.5


def karen_counts(cast=float):
    """The neighbouring counts of the deck's attack: high earners with and without Karen."""
    import dplab

    census = dplab.load_census()
    with_karen = cast(census["income_over_50k"].sum())
    without_karen = cast(census.without("Karen")["income_over_50k"].sum())
    assert with_karen - without_karen == 1
    return with_karen, without_karen
