"""One run of a cell, and the shape of the watchers that see it through.

A :class:`Run` is what the session and its watchers share while a cell runs: its code, where
its output goes (``emit``), the namespace, and what came of it. A :class:`Watcher` does one job
around every run (output, noise, memory, budgets, figures, verdicts): ``start`` before the
cell's code, ``show`` when the cell calls ``plt.show()``, ``finish`` after it (always, in the
session's order, whatever the code did). A watcher's failure is the cell's error if the cell
had none (a figure that cannot be drawn); it never escapes the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from .source import cell_filename
from .tracebacks import format_error

Emit = Callable[[str, object], None]


@dataclass(eq=False)
class Run:
    """One run of a cell: what the watchers read and write between ``start`` and ``finish``."""

    code: str
    cell_id: str
    emit: Emit  # emit(kind, payload): the only way out (PROTOCOL.md, worker → page)
    namespace: dict  # the session's: the cells share it
    seed: object = None  # as asked: None for fresh noise, or a seed (int or decimal text)
    filename: str = field(init=False)  # the cell's frames' file name: "<celda id>"
    value: object = None  # the last expression's value (None without one)
    shown: str | None = None  # what the page shows of it (display.shown), or None
    error: dict | None = None  # tracebacks.format_error's record: the run failed
    raised: tuple = ()  # the error's class, then those it was raised from or during
    memory: dict | None = None  # after exhaustion: {released, left} (memory.MemoryWatcher)
    noise: bool = False  # the run drew fresh noise (noise.NoiseWatcher)
    seed_used: str | None = None  # the seed of its noise, decimal text (noise.NoiseWatcher)

    def __post_init__(self) -> None:
        self.filename = cell_filename(self.cell_id)

    @property
    def ok(self) -> bool:
        return self.error is None

    def fail(self, exc: BaseException) -> None:
        """The run failed with ``exc`` (the first failure is the one reported). Keeps the record
        only, never the exception: its frames, and what they hold, are let go."""
        if self.error is not None:
            return
        self.error = format_error(exc, self.filename)
        self.raised = _chain(exc)
        self.value = self.shown = None

    def result(self, seconds: float) -> dict:
        """``{ok, value | error, [memory], seconds, noise, seedUsed}``: the run's RunResult."""
        out: dict = {"ok": True, "value": self.shown} if self.ok else {"ok": False, "error": self.error}
        if self.memory is not None:
            out["memory"] = self.memory
        out["seconds"] = round(seconds, 4)
        out["noise"] = self.noise
        out["seedUsed"] = self.seed_used
        return out


def _chain(exc: BaseException | None) -> tuple:
    """The classes of ``exc`` and of the exceptions it was raised from or during, in order."""
    seen, classes = set(), []
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        classes.append(type(exc))
        exc = exc.__cause__ or exc.__context__
    return tuple(classes)


class Watcher:
    """One job around every run; a new instance per run, so nothing outlives it."""

    def start(self, run: Run) -> None:
        """Before the cell's code runs."""

    def show(self, run: Run) -> None:
        """The cell called ``plt.show()``: send what it has so far."""

    def finish(self, run: Run) -> None:
        """After the cell's code, whatever it did (also when a later ``start`` failed)."""
