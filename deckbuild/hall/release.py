"""The hall's exercise counts: released by the server, noised, from one budget per lecture.

How many devices solved an exercise is a count of the hall's ``solves`` table; the server, the
lecturer's trusted curator (central DP), is the only one that ever reads it. What leaves the
server is ``dplab.discrete_laplace_mech(count, 1, RELEASE_EPSILON)``: exact discrete Laplace
noise, ε-DP for a count of sensitivity 1 (one device adds or removes at most one solve of an
exercise; the privacy unit is a device, so a student on two devices counts twice). Every release
is spent from one ``dplab.BudgetAccountant(HALL_BUDGET)`` rebuilt from the releases the store
keeps, in one atomic step of the store (``Store.release``: SQLite's write transaction, or
Redis's WATCH/MULTI, retried when another process released meanwhile): the budget holds per
lecture (per hall file or Redis prefix), across restarts and processes, whichever tab or device
of the presenter asks, and a release past it is refused
before any noise is drawn. Sequential composition: everything the hall releases of the
exercises is ``HALL_BUDGET``-DP at most.

Asking again for an exercise already released returns that release (post-processing: free). A
new draw is only made when asked for (``again``): a cached answer chosen because the true count
had not changed would tell the room exactly whether anyone solved it meanwhile, which no ε
covers (the chance that a fresh draw repeats the old value is at most tanh(ε/2) ≈ 0.24 at
ε = 0.5, so seeing the same value again would carry a loss of about ln(1/0.24) ≈ 1.4 > ε).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..resources import project_module
from .store import Store

HALL_BUDGET = 4.0  # ε of everything the hall releases about the exercises, per lecture
RELEASE_EPSILON = 0.5  # ε of one released count
BUDGET_NAME = "presupuesto de la sala"


@dataclass(frozen=True)
class Released:
    """A released count, or a refusal (``value`` None, ``refused`` the accountant's reason)."""

    exercise: str
    value: int | None
    new: bool  # drawn now (and spent), or the earlier release of this exercise
    budget: dict  # the meter's payload: {"accountants": [entry], "more": 0}
    refused: str | None = None

    def payload(self) -> dict:
        return {
            "exercise": self.exercise,
            "value": self.value,
            "new": self.new,
            "epsilon": RELEASE_EPSILON,
            "sd": discrete_laplace_sd(RELEASE_EPSILON),
            "budget": self.budget,
            "refused": self.refused,
        }


def discrete_laplace_sd(epsilon: float) -> float:
    """The standard deviation of discrete Laplace noise of sensitivity 1 at ``epsilon``, in
    counts: sqrt(2 e^-ε) / (1 - e^-ε) (2.80 at ε = 0.5)."""
    a = math.exp(-epsilon)
    return math.sqrt(2 * a) / (1 - a)


def _accountant(releases: list[dict]):
    accountant = project_module("dplab").BudgetAccountant(HALL_BUDGET)
    for r in releases:
        accountant.spend(r["epsilon"], label=r["label"])
    return accountant


def _budget(accountant, refused: str | None = None) -> dict:
    entry = project_module("cellrunner.meter").budget_entry(accountant, BUDGET_NAME, refused)
    return {"accountants": [entry], "more": 0}


def decide(past: list[dict], count: int, exercise: str, again: bool) -> tuple[Released, dict | None]:
    """The answer to a release asked with ``past`` releases kept and ``count`` solves, and the
    row to keep (None: nothing spent). Pure but for the noise it draws: the stores run it
    atomically, and a run whose row is not kept released nothing."""
    dplab = project_module("dplab")
    accountant = _accountant(past)
    earlier = [r for r in past if r["exercise"] == exercise]
    if earlier and not again:
        return Released(exercise, earlier[-1]["value"], False, _budget(accountant)), None
    label = f"resolvieron {exercise}"
    try:
        value = dplab.discrete_laplace_mech(count, 1, RELEASE_EPSILON, accountant=accountant, label=label)
    except dplab.BudgetError as exc:
        return Released(exercise, None, False, _budget(accountant, str(exc)), refused=str(exc)), None
    row = {"exercise": exercise, "value": int(value), "epsilon": RELEASE_EPSILON, "label": label}
    return Released(exercise, int(value), True, _budget(accountant)), row


async def release_count(store: Store, exercise: str, again: bool = False) -> Released:
    """The noised number of devices that solved ``exercise`` (see the module docstring)."""
    return await store.release(exercise, lambda past, count: decide(past, count, exercise, again))
