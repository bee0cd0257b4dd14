"""The privacy-budget meter: ``emit("budget", {"accountants": [...], "more": n})`` for every
``dplab.BudgetAccountant`` a run creates or spends from, as it changes.

``payload = {"accountants": [entry, ...], "more": n}``, an entry per accountant in order of
first use (at most :data:`MAX_METERS`; ``more`` counts the others)::

    {"name": "presupuesto" or None,       # the cell's variable bound to it (global, else
                                          # a local of the cell's code seen when it spent)
     "epsilon_spent": 1.0, "epsilon_total": 1.5,
     "delta_spent": 0.0, "delta_total": 0.0,
     "releases": 2,                       # releases recorded so far
     "epsilon_text": "1 de 1,5",          # Spanish, rounded down (dplab.accountant.show_budget)
     "delta_text": "5·10⁻⁶ de 10⁻⁵" or None,   # None where the budget has no delta
     "refused": "La publicación … fue rechazada: …" or None}   # the last refusal of the run

Sent at the first change, then at most every :data:`BUDGET_SECONDS` (a loop of 10 000 releases
must not send 10 000 messages), and the last state when the run ends.
"""

from __future__ import annotations

import sys
import time

from .run import Run, Watcher
from .source import CELL_FILE_PREFIX

BUDGET_SECONDS = 0.1  # at most one budget update per this interval (and the last one)
MAX_METERS = 4  # accountants shown per run; more are counted ("more")
NAME_TRIES = 5  # how many spends of one accountant look for a local variable bound to it


class BudgetWatcher(Watcher):
    """Registered with ``dplab.accountant.add_observer`` for the run: hears every accountant
    created, spending or refusing during it (as ``self(accountant, event, detail)``)."""

    def start(self, run: Run) -> None:
        self.run = run
        self.accountants: list = []  # in order of first use, at most MAX_METERS
        self.refused: dict = {}  # id(accountant) -> its last refusal's reason, this run
        self.others: set = set()  # ids of the accountants past MAX_METERS
        self.names: dict = {}  # id(accountant) -> the variable of the cell's code bound to it
        self.tries: dict = {}  # id(accountant) -> how many times it was looked for
        self.dirty = False
        self.last = None  # time.monotonic() of the last emit
        self.module = None
        try:
            from dplab import accountant

            accountant.add_observer(self)
        except (ImportError, AttributeError):  # no dplab, or one without observers
            return
        self.module = accountant

    def finish(self, run: Run) -> None:
        if self.module is None:
            return
        self.module.remove_observer(self)
        try:
            self.flush()  # the last state, whatever the throttle held back
        except Exception:  # noqa: BLE001 - a meter must never break a cell
            pass

    def __call__(self, accountant, event, detail) -> None:
        if not any(a is accountant for a in self.accountants):
            if len(self.accountants) >= MAX_METERS:
                if id(accountant) not in self.others:
                    self.others.add(id(accountant))
                    self.dirty = True
                return
            self.accountants.append(accountant)
        if event == "refused":
            self.refused[id(accountant)] = str(detail)
        key = id(accountant)
        if key not in self.names and self.tries.get(key, 0) < NAME_TRIES:
            self.tries[key] = self.tries.get(key, 0) + 1
            name = _local_name(accountant)
            if name:
                self.names[key] = name
        self.dirty = True
        now = time.monotonic()
        if self.last is None or now - self.last >= BUDGET_SECONDS:
            self.flush()

    def _name(self, accountant):
        for key, value in list(self.run.namespace.items()):
            if value is accountant and not key.startswith("_"):
                return key
        return self.names.get(id(accountant))

    def entry(self, accountant) -> dict:
        return budget_entry(accountant, self._name(accountant), self.refused.get(id(accountant)))

    def flush(self) -> None:
        """Send the current state if it changed since the last one sent."""
        if not self.dirty:
            return
        self.dirty = False
        self.last = time.monotonic()
        payload = {"accountants": [self.entry(a) for a in self.accountants], "more": len(self.others)}
        self.run.emit("budget", payload)


def budget_entry(accountant, name: str | None = None, refused: str | None = None) -> dict:
    """One accountant's entry of the meter's payload (the module's docstring): what it spent of
    what total, in numbers and in Spanish text. The hall's server sends its own budget this way."""
    from dplab.accountant import show_budget

    eps_spent, delta_spent = accountant.total_spent
    eps_total, delta_total = accountant.total
    return {
        "name": name,
        "epsilon_spent": eps_spent,
        "epsilon_total": eps_total,
        "delta_spent": delta_spent,
        "delta_total": delta_total,
        "releases": len(accountant.history),
        "epsilon_text": f"{show_budget(eps_spent)} de {show_budget(eps_total)}",
        "delta_text": (
            f"{show_budget(delta_spent)} de {show_budget(delta_total)}"
            if delta_total > 0 or delta_spent > 0
            else None
        ),
        "refused": refused,
    }


def _local_name(obj):
    """The name that the cell's code, in the frames running now, binds to ``obj``, or ``None``
    (e.g. ``prueba`` inside a function of the cell). The observer is called from inside dplab,
    so the only way to the cell's locals is up the stack: the frames of a cell's file."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith(CELL_FILE_PREFIX):
            for key, value in list(frame.f_locals.items()):
                if value is obj and not key.startswith("_"):
                    return key
        frame = frame.f_back
    return None
