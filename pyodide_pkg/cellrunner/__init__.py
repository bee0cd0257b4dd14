"""The deck's cell runner: runs one cell at a time in the interpreter's shared namespace and
reports what it shows.

Loaded by the worker (static/js/worker/worker.js) into Pyodide from its wheel, as dplab is; also
imported under CPython, where the tests and ``build.py check --run`` run the deck's cells
through it. A :class:`Session` owns the namespace; ``Session.run(code, cell_id, emit, seed)``
runs a cell, and ``emit(kind, payload)`` is the only way out (each kind is a message to the
page: PROTOCOL.md). One watcher per job, each in a module of its own (:mod:`.run` has their
shape):

- :mod:`.output`: ``stdout`` / ``stderr`` text, in chunks, capped per run;
- :mod:`.figures`: ``figure``, each matplotlib figure shown or left open (SVG, or PNG past the
  caps); :mod:`.pyplot` imports pyplot in steps and routes ``plt.show()`` to the session;
- :mod:`.meter`: ``budget``, the privacy budget of every ``dplab.BudgetAccountant`` in use;
- :mod:`.verdict`: ``verdict``, an exercise's ``{ok, message}`` (the check program's last value);
- :mod:`.noise`: dplab's noise session (the run's seed: ``noise``, ``seedUsed`` in the result);
- :mod:`.memory`: after a MemoryError, the run's bindings undone (``memory`` in the result).

Beside them: :mod:`.tracebacks` (the error a failed run reports; :mod:`.errors_es`, dplab's
range errors in Spanish), :mod:`.display` (the value's text), :mod:`.source` (the cell's file
name and compilation), :mod:`.sleep` (a ``time.sleep`` that Stop ends).
"""

from __future__ import annotations

from .pyplot import MATPLOTLIB_STEPS, import_step
from .run import Run, Watcher
from .session import WATCHERS, Session
from .sleep import install_sleep
from .source import PAGE_SNIPPET
from .tracebacks import INTERRUPTED_TRACEBACK, format_error
from .verdict import Verdict

__version__ = "0.1.0"

__all__ = [
    "INTERRUPTED_TRACEBACK",
    "MATPLOTLIB_STEPS",
    "PAGE_SNIPPET",
    "WATCHERS",
    "Run",
    "Session",
    "Verdict",
    "Watcher",
    "format_error",
    "import_step",
    "install_sleep",
]
