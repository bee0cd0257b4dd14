"""The hall's exercise counts: released by the server, noised, from one budget per hall session.

How many devices solved an exercise is a count of the hall's ``solves`` table; the server, the
lecturer's trusted curator (central DP), is the only one that ever reads it. What leaves the
server is ``dplab.discrete_laplace_mech(count, 1, RELEASE_EPSILON)``: exact discrete Laplace
noise, ε-DP for a count of sensitivity 1 in the unit the hall counts, which is a *solve token*:
a random id kept in the browser's storage (``localStorage``), one per exercise. The unit of
privacy is therefore a browser profile, not a person: a student on a laptop and a phone, or in
a private window, is two; and where the browser refuses storage, each load of the page draws a
new token (``live.js`` ``keptId``), so a reload and a second ✓ can count twice. A student counted
m times in one count is protected at mε by each release of it, not ε.

Every release is spent from one ``dplab.BudgetAccountant(HALL_BUDGET)`` rebuilt from the
releases the store keeps, in one atomic step of the store (``Store.release``: SQLite's write
transaction, or Redis's WATCH/MULTI, retried when another process released meanwhile), whichever
tab or device of the presenter asks; a release past it is refused before any noise is drawn.
Sequential composition: everything the hall releases of the exercises is ``HALL_BUDGET``-DP at
most, per browser profile, *per hall session* (one hall file or Redis prefix: ``--hall-db``,
``--hall-session``): a new session starts at 0, and a student's tokens carry over to it, so two
sessions can cost a student 2 × ``HALL_BUDGET``.

The budget holds across restarts and processes because the kept releases are its only source,
and the hall shows a release only after it is kept: SQLite runs the release's transaction with
``synchronous=FULL`` (the commit is on disk before the reply), Redis waits for the append-only
file's fsync (``WAITAOF``, where the server has it: Redis 7.2 or later) after the release. Under
an older Redis, or without an append-only file, a Redis crash can lose a release already shown,
and its ε could be spent again (docs/live-polls.md, "The budget's durability").

Asking again for an exercise already released returns that release (post-processing: free). A
new draw is only made when asked for (``again``): a cached answer chosen because the true count
had not changed would tell the room exactly whether anyone solved it meanwhile, which no ε
covers. A fresh draw repeats a value v with probability at most tanh(ε/2) = 0.2449 at ε = 0.5
(the mode of the noise), so a repeat that the cache guaranteed when nothing changed would carry
a loss of at least ln(1/0.2449) ≈ 1.41 > ε, and of no bound at all for a v far in the tails.
With fresh draws, the chance of a repeat is 0.130 when the count is unchanged and 0.115 when one
more device solved it: a repeat tells no more than ε allows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ..resources import project_module
from .store import Store

HALL_BUDGET = 4.0  # ε of everything the hall releases about the exercises, per hall session
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
