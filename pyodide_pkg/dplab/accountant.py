"""A privacy budget that is spent and refuses to be overspent.

The accountant is the only stateful piece of the package. It composes releases
by sequential composition (Dwork & Roth 2014, Theorem 3.16): the epsilons and
the deltas of the releases add up. Like dp_accounting's ``compose``, it checks
that a release fits *before* recording it, so a refused release leaves the
state unchanged.

Exact accounting, no tolerance: every cost (and the total) is read as the
shortest decimal that rounds to the float given -- what was typed: ``0.1`` is
1/10 -- and the sums are kept as exact fractions (``fractions.Fraction``). A
release fits iff the exact sum stays <= the exact total, so ten releases of
0.1 fit a budget of 1.0 and an eleventh, or a single 1.0000000000000002, does
not. The float actually passed differs from its decimal by at most half a unit
in the last place (2**-53 relative), so the binary values recorded can exceed
the total by at most that relative amount, however many releases there are.
Round-off *before* the call counts, though: ``1 - 0.7`` is
0.30000000000000004, which does not fit in what is left after 0.7 of 1.0;
spend ``acc.remaining_budget[0]`` instead (rounded down, so it always fits). A
leftover below 2**-50 of the total, a rounding crumb, is counted as spent
(over-counting only), so spending ``remaining_budget`` ends exactly at the total --
for a total above 2.2e-308: on the subnormal grid (steps of 5e-324) a float's
shortest decimal is off by up to half a step, and a leftover of a step or two
can stay (an under-spend, never an overspend).
"""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass
from fractions import Fraction

from ._validate import check_delta, check_epsilon, check_nonnegative

__all__ = ["BudgetAccountant", "BudgetError", "Release", "add_observer", "remove_observer"]


# Observers: who wants to know, as it happens, what every accountant does (the deck's cell
# runner draws a budget meter under the cell with it). Each is called as
# ``observer(accountant, event, detail)`` with ``event`` one of
#   "created"  (detail None)                 -- a new accountant, nothing spent yet;
#   "spent"    (detail the :class:`Release`) -- a release was recorded;
#   "refused"  (detail the Spanish reason)   -- a release did not fit; nothing was recorded.
# Called outside the accountant's lock, after its state changed. With no observer registered
# (plain CPython, the tests) this costs one empty-list check. An observer that raises an
# ``Exception`` is ignored: watching a budget must never change what it lets through.
_OBSERVERS: list = []


def add_observer(observer) -> None:
    """Call ``observer(accountant, event, detail)`` on every accountant's creation, release and
    refusal (see ``_OBSERVERS`` above), until :func:`remove_observer`."""
    if not callable(observer):
        raise TypeError(f"observer must be callable, got {observer!r}")
    _OBSERVERS.append(observer)


def remove_observer(observer) -> None:
    """Stop calling ``observer`` (registered with :func:`add_observer`); absent: nothing happens."""
    for i in range(len(_OBSERVERS) - 1, -1, -1):
        if _OBSERVERS[i] is observer:
            del _OBSERVERS[i]
            return


def _notify(accountant, event: str, detail) -> None:
    for observer in tuple(_OBSERVERS):
        try:
            observer(accountant, event, detail)
        except Exception:  # noqa: BLE001 - a broken observer must not break the accounting
            pass


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def show_budget(x: float, decimals: int = 3) -> str:
    """A budget amount as the lecture writes it: ``0,5``, ``1``, ``1,5``; a tiny one (a delta)
    (below 0,001) as ``10⁻⁵`` or ``5·10⁻⁶``. Otherwise rounded *down* to ``decimals`` (read as its shortest decimal),
    so that what is shown as spent never looks like more than it is, nor a leftover as more
    than what fits."""
    from decimal import ROUND_DOWN, Decimal, localcontext

    from .numfmt import fmt

    x = float(x)
    if not math.isfinite(x):
        return fmt(x)
    if x != 0 and abs(x) < 1e-3:
        mantissa, exponent = f"{x:.2e}".split("e")
        exponent = str(int(exponent)).translate(_SUPERSCRIPT)
        mantissa = mantissa.rstrip("0").rstrip(".").replace(".", ",")
        return f"10{exponent}" if mantissa == "1" else f"{mantissa}·10{exponent}"
    with localcontext() as context:
        context.prec = 400  # every finite float, to ``decimals`` places (1e308 has 309 digits)
        cut = Decimal(repr(x)).quantize(Decimal(1).scaleb(-decimals), rounding=ROUND_DOWN)
    return fmt(float(cut))


def _decimal(x: float) -> Fraction:
    """The shortest decimal that rounds to the float ``x``, as an exact fraction (0.1 -> 1/10)."""
    return Fraction(repr(x))


def _round_down(x: Fraction) -> float:
    """The largest float whose decimal reading is <= ``x`` (>= 0): spending it always fits."""
    if x <= 0:
        return 0.0
    f = float(x)  # within half an ulp of x; step down until its decimal is <= x
    while _decimal(f) > x:
        f = math.nextafter(f, 0.0)
    return f


# A leftover below this fraction of the total (a few units in the last place of a double)
# is a rounding crumb that no float release could use well: it is counted as spent. This only
# ever over-counts, never lets a release through, and makes ``spend(remaining)`` end exactly
# at the total.
_CRUMB = Fraction(1, 2**50)


def _absorb_crumb(spent: Fraction, total: Fraction) -> Fraction:
    return total if 0 < total - spent < total * _CRUMB else spent


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
    and records happen under one lock, so two threads spending at once can
    never overspend.

    Sums are exact (see the module docstring): each cost is read as the
    shortest decimal of its float and added as a :class:`fractions.Fraction`;
    there is no tolerance, so a release is refused exactly when it would pass
    the total. ``total_spent`` is rounded to the nearest float;
    ``remaining_budget`` is rounded down, so that spending it always fits.

    Mechanisms spend from it themselves: ``laplace_mech(v, sensitivity,
    epsilon, accountant=acc)`` checks and records the cost, then releases
    (diffprivlib's ``accountant=``). Names follow diffprivlib's vocabulary:
    :meth:`check_spend`, :attr:`remaining_budget`, :attr:`total_spent`,
    :meth:`spend`.

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
    >>> acc.remaining_budget
    (0.5, 0.0)
    """

    def __init__(self, epsilon, delta=0.0):
        self._epsilon = check_epsilon(epsilon)
        self._delta = check_delta(delta, "delta", allow_zero=True) + 0.0  # -0.0 -> 0.0
        self._epsilon_total = _decimal(self._epsilon)
        self._delta_total = _decimal(self._delta)
        self._epsilon_spent = Fraction(0)
        self._delta_spent = Fraction(0)
        self._history: list = []
        self._lock = threading.Lock()
        if _OBSERVERS:
            _notify(self, "created", None)

    @property
    def total(self) -> tuple:
        """The total budget ``(epsilon, delta)``."""
        return self._epsilon, self._delta

    @property
    def total_spent(self) -> tuple:
        """What the recorded releases cost together ``(epsilon, delta)`` (nearest floats)."""
        with self._lock:
            return float(self._epsilon_spent), float(self._delta_spent)

    @property
    def remaining_budget(self) -> tuple:
        """What is left ``(epsilon, delta)``, never negative, rounded down so that it fits."""
        with self._lock:
            return (
                _round_down(self._epsilon_total - self._epsilon_spent),
                _round_down(self._delta_total - self._delta_spent),
            )

    @property
    def history(self) -> tuple:
        """The recorded releases, oldest first."""
        with self._lock:
            return tuple(self._history)

    @staticmethod
    def _check_cost(epsilon, delta):
        # "+ 0.0" turns -0.0 into 0.0, so that a history never shows a negative zero.
        return (
            check_nonnegative(epsilon, "epsilon") + 0.0,
            check_delta(delta, "delta", allow_zero=True) + 0.0,
        )

    def _fits_unlocked(self, epsilon: Fraction, delta: Fraction) -> bool:
        # Sequential composition, exactly: costs add; no tolerance.
        return (
            self._epsilon_spent + epsilon <= self._epsilon_total
            and self._delta_spent + delta <= self._delta_total
        )

    def check_spend(self, epsilon, delta=0.0) -> bool:
        """Whether a release costing ``(epsilon, delta)`` would fit now (nothing is recorded).

        Parameters and errors are as in :meth:`spend` (without ``label``).
        """
        epsilon, delta = self._check_cost(epsilon, delta)
        with self._lock:
            return self._fits_unlocked(_decimal(epsilon), _decimal(delta))

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
            For a wrong type (bool and str included) or an out-of-range
            (negative, NaN, inf) cost; nothing is recorded then.
        BudgetError
            If the exact sum would exceed the total; nothing is recorded then.
        """
        epsilon, delta = self._check_cost(epsilon, delta)
        if not isinstance(label, str):
            raise TypeError(f"label must be a str, got {label!r} of type {type(label).__name__}")
        eps_cost, delta_cost = _decimal(epsilon), _decimal(delta)
        with self._lock:  # check and record atomically
            refused = not self._fits_unlocked(eps_cost, delta_cost)
            if refused:
                reason = self._refusal_unlocked(epsilon, delta, eps_cost, delta_cost, label)
            else:
                release = Release(epsilon, delta, label)
                self._epsilon_spent = _absorb_crumb(self._epsilon_spent + eps_cost, self._epsilon_total)
                self._delta_spent = _absorb_crumb(self._delta_spent + delta_cost, self._delta_total)
                self._history.append(release)
        if refused:
            if _OBSERVERS:
                _notify(self, "refused", reason)
            raise BudgetError(reason)
        if _OBSERVERS:
            _notify(self, "spent", release)
        return release

    def _refusal_unlocked(self, epsilon, delta, eps_cost, delta_cost, label) -> str:
        """Why a release does not fit, in plain Spanish (the :class:`BudgetError` message)."""

        def short(cost, left, total):
            # 3 decimals, rounded down; 6 where the cost would then look like what is left
            for decimals in (3, 6):
                texts = [show_budget(x, decimals) for x in (cost, left, total)]
                if texts[0] != texts[1]:
                    break
            return texts

        what = f"La publicación «{label}»" if label else "La publicación"
        parts = []
        if self._epsilon_spent + eps_cost > self._epsilon_total:
            left = _round_down(self._epsilon_total - self._epsilon_spent)
            cost, left, total = short(epsilon, left, self._epsilon)
            parts.append(f"cuesta ε = {cost} y solo quedan {left} de {total}")
        if self._delta_spent + delta_cost > self._delta_total:
            left = _round_down(self._delta_total - self._delta_spent)
            cost, left, total = short(delta, left, self._delta)
            if self._delta_total == 0:
                parts.append(f"cuesta δ = {cost} y este presupuesto no admite δ (su δ total es 0)")
            else:
                parts.append(f"cuesta δ = {cost} y solo quedan {left} de {total}")
        return f"{what} fue rechazada: {'; y además '.join(parts)}. No se gastó nada del presupuesto."

    def __repr__(self) -> str:
        eps, delta = self.total_spent
        return (
            f"BudgetAccountant(spent epsilon={eps:.6g} of {self._epsilon:.6g}, "
            f"delta={delta:.3g} of {self._delta:.3g}, releases={len(self._history)})"
        )
