"""The interpreter's session: the namespace the cells share, and the run of one cell in it."""

from __future__ import annotations

import time

from . import pyplot
from .display import shown
from .figures import FigureWatcher
from .memory import MemoryWatcher
from .meter import BudgetWatcher
from .noise import NoiseWatcher
from .output import OutputWatcher
from .run import Emit, Run, Watcher
from .source import compile_cell, register_source
from .verdict import VerdictWatcher

# The jobs around every run, in the order they start and finish: the printed text first (so a
# watcher's note comes after what the cell printed), the noise session, the namespace kept for
# recovery, the budget meter's last state, then the figures, then the verdict.
WATCHERS: tuple[type[Watcher], ...] = (
    OutputWatcher,
    NoiseWatcher,
    MemoryWatcher,
    BudgetWatcher,
    FigureWatcher,
    VerdictWatcher,
)


class Session:
    """The cells' shared namespace, and :meth:`run`, which runs one cell in it.

    One per interpreter in the deck (the worker's); the tests make a fresh one per test.
    ``watchers``: the classes of the jobs done around every run (:data:`WATCHERS`).
    """

    def __init__(self, watchers: tuple[type[Watcher], ...] = WATCHERS):
        self.namespace: dict = {"__name__": "__main__"}
        self.watchers = tuple(watchers)
        self._current: tuple[Run, list[Watcher]] | None = None  # the run plt.show() is in

    def run(self, code: str, cell_id: str, emit: Emit, seed=None) -> dict:
        """Run ``code`` in the namespace; report its output through ``emit``; never raise.

        ``seed``: ``None`` for fresh noise, or a seed (int or decimal string) to redraw the noise
        of an earlier run. Returns the RunResult ``{ok, value | error, seconds, noise, seedUsed}``
        (PROTOCOL.md), with ``memory`` after a run that exhausted it.
        """
        run = Run(code=code, cell_id=cell_id, emit=emit, namespace=self.namespace, seed=seed)
        watchers = [make() for make in self.watchers]
        outer, self._current = self._current, (run, watchers)
        started = time.perf_counter()
        begun: list[Watcher] = []
        try:
            try:
                for watcher in watchers:
                    watcher.start(run)
                    begun.append(watcher)
            except BaseException as exc:  # noqa: BLE001 - e.g. a seed that is no number
                run.fail(exc)
            else:
                self._execute(run)
        finally:
            for watcher in begun:
                try:
                    watcher.finish(run)
                except BaseException as exc:  # noqa: BLE001 - a broken figure is the cell's error
                    run.fail(exc)
            self._current = outer
        return run.result(time.perf_counter() - started)

    def _execute(self, run: Run) -> None:
        register_source(run.cell_id, run.code)
        try:
            body, tail = compile_cell(run.code, run.filename)
            exec(body, self.namespace)
            run.value = eval(tail, self.namespace) if tail is not None else None
            run.shown = shown(run.value)
        except BaseException as exc:  # noqa: BLE001 - the user's error is our output
            run.fail(exc)

    def show(self) -> None:
        """What ``plt.show()`` does in a cell: each watcher sends what the run has so far."""
        if self._current is not None:
            run, watchers = self._current
            for watcher in watchers:
                watcher.show(run)

    def prepare_matplotlib(self) -> None:
        """Import pyplot (Agg, the deck's style); ``plt.show()`` shows under the running cell."""
        pyplot.prepare(self.show)
