"""A cell's ``time.sleep`` that Stop can end (PROTOCOL.md, "Recovery": sleeping cells)."""

from __future__ import annotations

import math
import numbers
import time
from collections.abc import Callable

SLEEP_SLICE_SECONDS = 0.25  # the longest one wait of a sleeping cell


def install_sleep(wait: Callable[[float], bool]) -> None:
    """Make ``time.sleep`` in cells wait on the page's interrupt buffer, so that Stop ends a
    sleeping cell at once, and a sleep uses no CPU. For the whole interpreter.

    ``wait(ms)`` (worker.js, ``Atomics.wait`` on the shared buffer) blocks the thread for at most
    ``ms`` milliseconds, or until the page writes the buffer and notifies, and returns True when
    that was Stop (the worker consumed it): the sleep then raises ``KeyboardInterrupt``. Only where
    the buffer is shared; elsewhere Pyodide's own ``time.sleep`` stays (and Stop restarts Python).
    """

    def sleep(secs) -> None:
        """Sleep ``secs`` seconds (as :func:`time.sleep`), or until Stop: ``KeyboardInterrupt``."""
        if not isinstance(secs, numbers.Real) or isinstance(secs, bool):
            raise TypeError(f"'{type(secs).__name__}' object cannot be interpreted as an integer")
        secs = float(secs)
        if math.isnan(secs):
            raise ValueError("Invalid value NaN (not a number)")
        if secs < 0:
            raise ValueError("sleep length must be non-negative")
        deadline = time.monotonic() + secs
        while (left := deadline - time.monotonic()) > 0:
            if wait(min(left, SLEEP_SLICE_SECONDS) * 1000):
                raise KeyboardInterrupt

    time.sleep = sleep
