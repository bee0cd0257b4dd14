"""Recovery from a cell that exhausted memory (PROTOCOL.md, "Recovery").

When a run ends in a MemoryError (itself, or raised from or during one), :class:`MemoryWatcher`
undoes what the run bound in the namespace (names it added are deleted, names it rebound get
their earlier value), collects, and checks that :data:`MEMORY_PROBE_BYTES` can be allocated
again: ``run.memory = {"released": [names], "left": bool}``. ``left`` False means the heap is
still full (e.g. the cell grew an object that existed before it): the worker restarts Python.
"""

from __future__ import annotations

import gc

from .run import Run, Watcher

MEMORY_PROBE_BYTES = 64 * 2**20  # allocatable again after a MemoryError, or Python is replaced


class MemoryWatcher(Watcher):
    """Keeps what the namespace held before the run; gives it back if the run exhausted memory."""

    def start(self, run: Run) -> None:
        self.before = dict(run.namespace)

    def finish(self, run: Run) -> None:
        try:
            if any(issubclass(kind, MemoryError) for kind in run.raised):
                run.memory = release(run.namespace, self.before)
        finally:
            self.before.clear()


def release(namespace: dict, before: dict) -> dict:
    """Undo what a run bound in ``namespace`` since ``before``, collect, and probe the heap:
    ``{"released": [names, sorted], "left": bool}``."""
    released = []
    for name in list(namespace):
        if name.startswith("__") and name.endswith("__"):  # the interpreter's (__builtins__ …)
            continue
        if name not in before:
            del namespace[name]
            released.append(name)
        elif namespace[name] is not before[name]:
            namespace[name] = before[name]
            released.append(name)
    before.clear()
    gc.collect()
    try:
        probe = bytearray(MEMORY_PROBE_BYTES)
    except MemoryError:
        left = False
    else:
        del probe
        left = True
    return {"released": sorted(released), "left": left}
