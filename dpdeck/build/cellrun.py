"""The deck's cells under CPython, as the page's worker runs them in Pyodide.

One machinery for `build.py check --run` and the tests (tests/unit/test_deck_cells.py,
test_try_edits.py, test_exercises.py): the page's own cell runner (the ``cellrunner`` package in
``pyodide_pkg/``: a fresh ``cellrunner.Session``, its own namespace), the deck's prelude run
once, matplotlib prepared as the worker prepares it, and then every cell run on its own in a
namespace reset to what the prelude left (a presenter may jump straight to any slide). The
``dplab`` imported is the one in the project's ``pyodide_pkg/``, the package the build ships to
the page.
"""

from __future__ import annotations

import builtins
import difflib
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpdeck import resources

# dplab and the cell runner, as the build ships them (the repository's, or the installed package's)
PACKAGE_SRC = resources.asset_root() / "pyodide_pkg"


def new_session():
    """A fresh ``cellrunner.Session`` (an empty namespace), as the worker makes one. The runner
    is always the project's, whichever package the deck calls."""
    return resources.project_module("cellrunner").Session()


@dataclass
class Run:
    """What one run of a cell showed: the runner's result (``ok``, ``error``, ``value``), the
    text it printed on stdout and stderr, its figures (``{"svg" or "png", "alt"}``), an
    exercise's verdict (``{"ok", "message"}`` or None) and the wall-clock seconds it took."""

    code: str
    cell_id: str
    result: dict
    seconds: float
    stdout: str = ""
    stderr: str = ""
    figures: list = field(default_factory=list)
    verdict: dict | None = None
    names: tuple[str, ...] = ()  # the names the cell's namespace held when it ended

    @property
    def ok(self) -> bool:
        return bool(self.result.get("ok"))

    @property
    def error(self) -> str:
        """``NameError: name 'epsilom' is not defined. Did you mean: 'epsilon'?``: the last line
        of the traceback, Python's hint included (empty when the run ended well)."""
        error = self.result.get("error") or {}
        if not error:
            return ""
        spanish = resources.project_module("cellrunner.tracebacks").SPANISH_LINE
        lines = [
            line
            for line in error.get("traceback", "").splitlines()
            if line.strip() and not line.startswith(spanish)  # the author reads Python's own
        ]
        last = lines[-1].strip() if lines else f"{error.get('type', '')}: {error.get('message', '')}"
        missing = re.fullmatch(r"NameError: name '(\w+)' is not defined", last)
        if missing:  # Python 3.12 (Pyodide's) says it itself; 3.11's traceback module does not
            close = difflib.get_close_matches(missing[1], [*self.names, *dir(builtins)], n=1)
            last += f". Did you mean: '{close[0]}'?" if close else ""
        return last

    @property
    def error_line(self) -> int | None:
        """The line of the cell where the error happened (the innermost frame in the cell)."""
        traceback = (self.result.get("error") or {}).get("traceback", "")
        name = re.escape(f'"<celda {self.cell_id}>"')
        lines = re.findall(rf"File {name}, line (\d+)", traceback)
        return int(lines[-1]) if lines else None


class Session:
    """A CPython interpreter holding the deck's prelude; :meth:`run` runs one cell on its own.

    ``prelude_run`` is the prelude's :class:`Run` (check ``.ok``). ``package_src``: the folder
    that holds ``dplab`` (put first on ``sys.path``).
    """

    def __init__(self, prelude: str, package_src: Path = PACKAGE_SRC):
        if str(package_src) not in sys.path:
            sys.path.insert(0, str(package_src))
        self.runner = new_session()
        self.prelude_run = self._run(prelude or "", "__prelude__")
        self.runner.prepare_matplotlib()  # as the worker does, after the prelude
        self._after_prelude = dict(self.runner.namespace)

    def _run(self, code: str, cell_id: str) -> Run:
        shown: list[tuple[str, Any]] = []  # the runner's: text (stdout, stderr), a dict (figure, verdict)
        started = time.perf_counter()
        result = self.runner.run(code, cell_id, lambda kind, payload: shown.append((kind, payload)))
        return Run(
            code=code,
            cell_id=cell_id,
            result=result,
            seconds=time.perf_counter() - started,
            stdout="".join(p for k, p in shown if k == "stdout"),
            stderr="".join(p for k, p in shown if k == "stderr"),
            figures=[p for k, p in shown if k == "figure"],
            verdict=next((p for k, p in shown if k == "verdict"), None),
            names=tuple(self.runner.namespace),
        )

    def run(self, code: str, cell_id: str) -> Run:
        """Run ``code`` in a namespace reset to what the prelude left (nothing from other cells)."""
        self.runner.namespace.clear()
        self.runner.namespace.update(self._after_prelude)
        return self._run(code, cell_id)
