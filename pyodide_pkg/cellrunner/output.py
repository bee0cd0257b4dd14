"""A run's printed text: ``emit("stdout", text)`` / ``emit("stderr", text)`` in chunks, at most
every :data:`FLUSH_SECONDS`, and at most :data:`MAX_OUTPUT_CHARS` in all (a student's ``print``
in a loop must not flood the page or its memory), then a Spanish note that it was cut."""

from __future__ import annotations

import io
import time
from contextlib import redirect_stderr, redirect_stdout

from .run import Run, Watcher

MAX_OUTPUT_CHARS = 200_000  # per run, stdout and stderr together
FLUSH_SECONDS = 0.05


class _Stream(io.TextIOBase):
    """A text stream that forwards to ``emit`` in batches and stops at the cap."""

    def __init__(self, kind: str, emit, budget: list[int]):
        self.kind = kind
        self.emit = emit
        self.budget = budget  # shared by stdout and stderr: chars left
        self.buffer: list[str] = []
        self.last = time.monotonic()
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.budget[0] <= 0:
            self.truncated = True
            return len(text)
        if len(text) > self.budget[0]:
            self.buffer.append(text[: self.budget[0]])
            self.budget[0] = 0
            self.truncated = True
        else:
            self.buffer.append(text)
            self.budget[0] -= len(text)
        if time.monotonic() - self.last > FLUSH_SECONDS:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.buffer:
            self.emit(self.kind, "".join(self.buffer))
            self.buffer.clear()
        self.last = time.monotonic()


class OutputWatcher(Watcher):
    """Sends what the run prints: ``sys.stdout`` and ``sys.stderr`` redirected for the run."""

    def start(self, run: Run) -> None:
        budget = [MAX_OUTPUT_CHARS]
        self.streams = (_Stream("stdout", run.emit, budget), _Stream("stderr", run.emit, budget))
        self.redirects = (redirect_stdout(self.streams[0]), redirect_stderr(self.streams[1]))
        for redirect in self.redirects:
            redirect.__enter__()

    def show(self, run: Run) -> None:
        for stream in self.streams:  # what was printed before a figure comes before it
            stream.flush()

    def finish(self, run: Run) -> None:
        try:
            self.show(run)
        finally:
            for redirect in reversed(self.redirects):
                redirect.__exit__(None, None, None)
        if any(stream.truncated for stream in self.streams):
            shown = f"{MAX_OUTPUT_CHARS:,}".replace(",", ".")
            run.emit("stderr", f"\n… salida recortada: se muestran los primeros {shown} caracteres.\n")
