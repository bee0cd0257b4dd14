"""An exercise's verdict, sent as a message of its own (``emit("verdict", {ok, message})``),
never as a value: the check program (dpdeck/build/exercise.py) ends with a :class:`Verdict`."""

from __future__ import annotations

from dataclasses import dataclass

from .run import Run, Watcher


@dataclass(frozen=True)
class Verdict:
    """Whether the student's code passed the exercise's check, and the Spanish message."""

    ok: bool
    message: str


class VerdictWatcher(Watcher):
    """Sends the verdict a run ended with (its last value), once the run has ended well."""

    def finish(self, run: Run) -> None:
        if run.ok and isinstance(run.value, Verdict):
            run.emit("verdict", {"ok": bool(run.value.ok), "message": str(run.value.message)})
