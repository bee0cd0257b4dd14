"""A poll slide's Python, as named functions the page calls (``cellrunner.calls``): randomize a
device's answer, summarize a hall's randomized answers, draw them, simulate a hall.

Each takes plain JSON-able arguments and returns plain JSON-able values (lists, floats), so
the page never builds Python source out of a student's answer or a hall's counts. Not part of
``from dplab import *``: the cells do not need them; ``dplab.polls`` is theirs to read.

Guarantees are those of :mod:`dplab.local`: :func:`randomize` is ``epsilon``-local DP for the
device's answer (randomized response for two options, generalized randomized response for k);
the others are post-processing of randomized answers, or a simulation, and spend nothing.
"""

from __future__ import annotations

import numpy as np

from . import local
from ._validate import check_integer


def randomize(truth, k, epsilon) -> int:
    """The randomized answer of a device whose true option is ``truth`` (0 … k-1), ε-local DP.

    Drawn from fresh OS randomness, never from a run's noise session: the seed a run reports
    must not let anyone redraw the coins.
    """
    k = check_integer(k, "k", minimum=2)
    truth = check_integer(truth, "truth", minimum=0)
    if truth >= k:
        raise ValueError(f"truth must be an option 0 … {k - 1}, got truth={truth!r}")
    rng = np.random.default_rng()
    if k == 2:
        return int(local.randomized_response(truth, epsilon, rng=rng))
    return int(local.generalized_randomized_response(truth, k, epsilon, rng=rng))


def _counts(counts) -> list[int]:
    if not isinstance(counts, (list, tuple)) or len(counts) < 2:
        raise ValueError(f"counts must list at least two counts, got counts={counts!r}")
    return [check_integer(c, "counts", minimum=0) for c in counts]


def estimate(counts, epsilon) -> local.RREstimate:
    """The estimate of each true share from a hall's ``counts`` of randomized answers: of «sí»
    (``rr_estimate``) for two options, of every option (``grr_estimate``) for more."""
    counts = _counts(counts)
    if len(counts) == 2:
        return local.rr_estimate(counts[1], sum(counts), epsilon)
    return local.grr_estimate(counts, epsilon)


def summary(counts, epsilon, prior) -> dict:
    """``{"estimate": [[estimate…], [variance…], [low…], [high…], [share…]], "posterior": p}``:
    the estimate's fields as lists (one entry for yes/no, k otherwise) and the most one answer
    can raise a belief of ``prior`` (``rr_posterior_bound``). Post-processing: spends nothing."""
    fields = estimate(counts, epsilon)[:5]
    return {
        "estimate": [np.atleast_1d(x).tolist() for x in fields],
        "posterior": local.rr_posterior_bound(prior, epsilon),
    }


def figure(counts, epsilon, labels):
    """The poll's figure (``dplab.plots.poll_figure``), left open for the runner to send."""
    from .plots import poll_figure

    return poll_figure(estimate(counts, epsilon), list(labels))


def simulate(n, k, epsilon, shares) -> list[int]:
    """The randomized answers of a simulated hall of ``n`` students whose true options are
    drawn with probabilities ``shares`` (fresh randomness each call)."""
    n, k = check_integer(n, "n", minimum=0), check_integer(k, "k", minimum=2)
    rng = np.random.default_rng()
    truths = rng.choice(k, size=n, p=np.asarray(shares, dtype=float))
    return local.generalized_randomized_response(truths, k, epsilon, rng=rng).tolist()
