"""Progress of a long build step on the terminal: what it does, how much of how much, how long.

A first build downloads ~77 MB and compresses ~60 MB: minutes during which a silent command
looks hung. :class:`Progress` keeps one status line on stderr, throttled:

- nothing at all when the step ends within ``delay`` (1 s): a quick rebuild stays quiet;
- on a terminal, one line rewritten in place at most every ``TTY_INTERVAL`` (0.25 s);
  elsewhere (a log, CI), a new line at most every ``LOG_INTERVAL`` (10 s);
- a heartbeat thread repaints it even when no news comes (one big file compressing for 20 s),
  so the elapsed seconds keep moving;
- a last line when the step ends: what was done and how long it took.
"""

from __future__ import annotations

import shutil
import signal
import sys
import threading
import time

TTY_INTERVAL = 0.25
LOG_INTERVAL = 10.0
MB = 1_000_000
# the signals whose Python handlers must interrupt the main thread (its blocking calls included)
MAIN_THREAD_SIGNALS = {signal.SIGINT, *([signal.SIGALRM] if hasattr(signal, "SIGALRM") else [])}


def megabytes(n: float) -> str:
    return f"{n / MB:.1f} MB"


class Progress:
    """``with Progress("compressing", total=n_bytes, unit="bytes") as p: p.advance(k, "x.wasm")``.

    ``total``: the amount of work if known (bytes with ``unit="bytes"``, else a count), for
    "12.0 MB of 77.4 MB (15 %)"; ``say(text)`` names the item at work without counting.
    """

    def __init__(
        self, label: str, total: float | None = None, unit: str = "", stream=None, delay: float = 1.0
    ):
        self.label = label
        self.total = total
        self.unit = unit
        self.stream = stream if stream is not None else sys.stderr
        self.delay = delay
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval = TTY_INTERVAL if self.tty else LOG_INTERVAL
        self.done = 0.0
        self.what = ""
        self.started = time.monotonic()
        self.shown = False  # printed anything yet
        self._last = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._beat = threading.Thread(target=self._heartbeat, daemon=True)

    def __enter__(self) -> Progress:
        self._beat.start()
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._stop.set()
        self._beat.join()
        with self._lock:
            if self.shown:
                end = "failed" if exc_type else "done"
                self._write(f"{self.label}: {end} in {time.monotonic() - self.started:.0f} s", final=True)

    def say(self, what: str) -> None:
        """Name the item at work (a file, a slide) and repaint if the throttle allows."""
        self.what = what
        self._maybe_show()

    def advance(self, amount: float, what: str | None = None) -> None:
        """Count ``amount`` more of the work done (thread-safe)."""
        with self._lock:
            self.done += amount
            if what is not None:
                self.what = what
        self._maybe_show()

    def update(self, done: float, what: str | None = None) -> None:
        """Set how much is done (e.g. the bytes of a file being downloaded)."""
        with self._lock:
            self.done = done
            if what is not None:
                self.what = what
        self._maybe_show()

    def line(self) -> str:
        """The status line: label, how much of how much, the item at work, elapsed seconds."""
        parts = [self.label]
        fmt = megabytes if self.unit == "bytes" else (lambda n: f"{n:.0f}")
        if self.total:
            share = min(100, 100 * self.done / self.total)
            unit = "" if self.unit == "bytes" else f" {self.unit}"
            parts.append(f"{fmt(self.done)} of {fmt(self.total)}{unit} ({share:.0f} %)")
        elif self.done:
            parts.append(fmt(self.done) + ("" if self.unit == "bytes" else f" {self.unit}"))
        if self.what:
            parts.append(self.what)
        return ": ".join(parts[:2]) + "".join(f", {p}" for p in parts[2:]) + f" [{self.elapsed():.0f} s]"

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def _maybe_show(self) -> None:
        now = time.monotonic()
        if now - self.started < self.delay:
            return
        with self._lock:
            if now - self._last >= self.interval:
                self._last = now
                self._write(self.line())

    def _heartbeat(self) -> None:
        """Repaint while no news comes. This thread blocks the signals the main thread acts on
        (Ctrl+C's SIGINT, the cell time limit's SIGALRM): the kernel may hand a process's signal
        to any thread that does not block it, and one landing here would leave the main thread
        in its blocking call (a cell's ``time.sleep``), so Ctrl+C would not stop ``check --run``."""
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, MAIN_THREAD_SIGNALS)
        while not self._stop.wait(min(self.interval, 1.0)):
            if time.monotonic() - self._last >= self.interval:
                self._maybe_show()

    def _write(self, text: str, final: bool = False) -> None:
        if self.tty:  # one line, cut to the terminal's width, or \r would not return to its start
            width = shutil.get_terminal_size().columns - 1
            text = text if len(text) <= width else text[: width - 1] + "…"
            self.stream.write("\r\x1b[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self.shown = True
