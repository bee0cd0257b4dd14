"""One helper for randomness: fresh by default, reproducible on request."""

from __future__ import annotations

import numbers
from contextlib import contextmanager

import numpy as np

__all__ = ["make_rng", "noise_session"]


class _Session:
    """The noise of one deck cell: one generator that every fresh draw comes from."""

    def __init__(self, seed: int):
        self.generator = np.random.default_rng(seed)
        self.draws = 0


_session: _Session | None = None


@contextmanager
def noise_session(seed: int):
    """Within the block, every ``rng=None`` draw comes from one generator seeded with ``seed``.

    For the deck's "nuevo ruido" / seed-lock buttons only: the cell runner opens a session per
    cell run with a fresh 128-bit OS-random seed (as fresh as ``default_rng()``), and the same
    seed again when the presenter locks the figure on screen. Successive draws inside a session
    are independent (they advance one generator); outside a session nothing changes. Yields the
    session, whose ``draws`` counts the fresh draws (did the cell use noise?).
    """
    global _session
    previous, _session = _session, _Session(seed)
    try:
        yield _session
    finally:
        _session = previous


def make_rng(rng=None) -> np.random.Generator:
    """Return the random generator a mechanism should draw from.

    Parameters
    ----------
    rng : None, int or numpy.random.Generator
        ``None`` (default): a fresh, OS-seeded ``np.random.default_rng()`` on
        every call, so that two releases never share noise -- what differential
        privacy requires. An ``int >= 0``: a seed, for reproducible teaching
        figures and tests (never for a real release). A ``Generator``: used as
        is (its state advances).

    Raises
    ------
    TypeError
        If ``rng`` is of another type (bool and str included).
    ValueError
        If ``rng`` is a negative seed.
    """
    if rng is None:
        if _session is not None:
            _session.draws += 1
            return _session.generator
        return np.random.default_rng()
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, numbers.Integral) and not isinstance(rng, (bool, np.bool_)):
        if rng < 0:
            raise ValueError(f"rng must be a seed >= 0, got {rng!r}")
        return np.random.default_rng(int(rng))
    raise TypeError(
        "rng must be None, an int seed >= 0 or a numpy.random.Generator, "
        f"got {rng!r} of type {type(rng).__name__}"
    )
