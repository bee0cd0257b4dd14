"""Where every release's randomness comes from: fresh by default, reproducible on request,
and drawn only once the release is paid for (:func:`charged_rng`)."""

from __future__ import annotations

import numbers
from contextlib import contextmanager

import numpy as np

from .accountant import BudgetAccountant

__all__ = ["charged_rng", "make_rng", "noise_session"]


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


def _charge(accountant, epsilon, delta, label) -> None:
    """Spend ``(epsilon, delta)`` from ``accountant`` (a :class:`dplab.BudgetAccountant`), if any.

    Called after every argument is validated and before any noise is drawn: a refused release
    (:class:`dplab.BudgetError`) draws nothing and spends nothing.
    """
    if accountant is None:
        return
    if not isinstance(accountant, BudgetAccountant):
        raise TypeError(
            f"accountant must be a BudgetAccountant or None, got {accountant!r} "
            f"of type {type(accountant).__name__}"
        )
    accountant.spend(epsilon, delta, label)


def charged_rng(rng, accountant=None, epsilon=0.0, delta=0.0, label="") -> np.random.Generator:
    """The generator to draw from, once the release is paid for (see :func:`_charge`).

    A seed or a Generator is checked first, so a bad ``rng`` spends nothing; ``rng=None`` is
    resolved only after the budget is recorded, so a refused release does not even touch the
    deck's noise session.
    """
    gen = None if rng is None else make_rng(rng)
    _charge(accountant, epsilon, delta, label)
    return make_rng(None) if gen is None else gen
