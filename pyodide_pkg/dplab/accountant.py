"""A privacy budget that is spent and refuses to be overspent.

The accountant is the only stateful piece of the package. It composes releases
by sequential composition (Dwork & Roth 2014, Theorem 3.16): the epsilons and
the deltas of the releases add up. Like dp_accounting's ``compose``, it checks
that a release fits *before* recording it, so a refused release leaves the
state unchanged.
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass

from ._rng import make_rng
from ._validate import check_array, check_delta, check_epsilon, check_nonnegative, check_positive
from .mechanisms import laplace_mech

__all__ = ["BudgetAccountant", "BudgetError", "Release"]

# Relative slack for float round-off when comparing sums with the total
# (0.1 spent ten times must fit in a budget of 1.0).
_TOLERANCE = 1e-9


class BudgetError(ValueError):
    """A release would exceed the total privacy budget."""


@dataclass(frozen=True)
class Release:
    """One recorded release: its cost and a label."""

    epsilon: float
    delta: float
    label: str = ""


class BudgetAccountant:
    """A total (epsilon, delta) budget, spent release by release.

    Guarantee: if every release recorded here is (eps_i, delta_i)-DP on the
    same data, everything released is (sum eps_i, sum delta_i)-DP, and the
    accountant never lets those sums exceed ``(epsilon, delta)``. Valid also
    when each cost is chosen after seeing earlier results (for pure DP, a
    privacy filter: Rogers, Roth, Ullman & Vadhan 2016). Thread-safe: checks
    and records happen under one lock.

    Parameters
    ----------
    epsilon : float
        Total epsilon, > 0 and finite.
    delta : float, default 0.0
        Total delta, in [0, 1).

    Raises
    ------
    TypeError, ValueError
        For a wrong type or out-of-range total.

    Examples
    --------
    >>> acc = BudgetAccountant(1.0)
    >>> acc.spend(0.5, label="conteo")
    Release(epsilon=0.5, delta=0.0, label='conteo')
    >>> acc.remaining
    (0.5, 0.0)
    """

    def __init__(self, epsilon, delta=0.0):
        self._epsilon = check_epsilon(epsilon)
        self._delta = check_delta(delta, "delta", allow_zero=True)
        self._history: list = []
        self._lock = threading.Lock()

    @property
    def total(self) -> tuple:
        """The total budget ``(epsilon, delta)``."""
        return self._epsilon, self._delta

    @property
    def spent(self) -> tuple:
        """What the recorded releases cost together ``(epsilon, delta)``."""
        with self._lock:
            return self._spent_unlocked()

    @property
    def remaining(self) -> tuple:
        """What is left ``(epsilon, delta)``, never negative."""
        with self._lock:
            eps, delta = self._spent_unlocked()
        return max(self._epsilon - eps, 0.0), max(self._delta - delta, 0.0)

    @property
    def history(self) -> tuple:
        """The recorded releases, oldest first."""
        with self._lock:
            return tuple(self._history)

    def _spent_unlocked(self) -> tuple:
        # Sequential composition: costs add (math.fsum avoids round-off drift).
        return (
            math.fsum(r.epsilon for r in self._history),
            math.fsum(r.delta for r in self._history),
        )

    @staticmethod
    def _check_cost(epsilon, delta):
        return (
            check_nonnegative(epsilon, "epsilon"),
            check_delta(delta, "delta", allow_zero=True),
        )

    def _fits_unlocked(self, epsilon: float, delta: float) -> bool:
        eps_spent, delta_spent = self._spent_unlocked()
        return (
            eps_spent + epsilon <= self._epsilon * (1 + _TOLERANCE)
            and delta_spent + delta <= self._delta * (1 + _TOLERANCE)
        )

    def can_spend(self, epsilon, delta=0.0) -> bool:
        """Whether a release costing ``(epsilon, delta)`` would fit (nothing is recorded)."""
        epsilon, delta = self._check_cost(epsilon, delta)
        with self._lock:
            return self._fits_unlocked(epsilon, delta)

    def spend(self, epsilon, delta=0.0, label: str = "") -> Release:
        """Record a release costing ``(epsilon, delta)`` if it fits the budget.

        Parameters
        ----------
        epsilon : float
            The release's epsilon, >= 0 and finite.
        delta : float, default 0.0
            The release's delta, in [0, 1).
        label : str, optional
            What was released, for the history.

        Returns
        -------
        Release
            The recorded entry.

        Raises
        ------
        TypeError, ValueError
            For a wrong type or an out-of-range (negative, NaN, inf) cost.
        BudgetError
            If the release would exceed the total; nothing is recorded then.
        """
        epsilon, delta = self._check_cost(epsilon, delta)
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {label!r} of type {type(label).__name__}")
        with self._lock:  # check and record atomically
            if not self._fits_unlocked(epsilon, delta):
                eps_spent, delta_spent = self._spent_unlocked()
                raise BudgetError(
                    f"release {label!r} costing (epsilon={epsilon!r}, delta={delta!r}) exceeds the "
                    f"budget: spent ({eps_spent:.6g}, {delta_spent:.3g}) of "
                    f"({self._epsilon:.6g}, {self._delta:.3g})"
                )
            release = Release(epsilon, delta, label)
            self._history.append(release)
            return release

    def laplace_mech(self, v, sensitivity, epsilon, rng=None, label: str = ""):
        """Spend ``epsilon`` and release ``v`` through :func:`dplab.laplace_mech`.

        The budget is checked and recorded before any noise is drawn; if it
        does not fit, :class:`BudgetError` is raised and nothing is released.
        """
        # Validate everything first, so that a bad argument spends nothing.
        check_array(v, "v")
        check_positive(sensitivity, "sensitivity")
        check_epsilon(epsilon)
        gen = make_rng(rng)
        self.spend(epsilon, 0.0, label)
        return laplace_mech(v, sensitivity, epsilon, gen)

    def __repr__(self) -> str:
        eps, delta = self.spent
        return (
            f"BudgetAccountant(spent epsilon={eps:.6g} of {self._epsilon:.6g}, "
            f"delta={delta:.3g} of {self._delta:.3g}, releases={len(self._history)})"
        )
