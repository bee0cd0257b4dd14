"""`build.py check --run`: every cell of the deck run under CPython, the night before a lecture.

`check` alone validates the deck's shape and the cells' syntax; a cell that names a variable it
never defined (``epsilom``) passes it and fails in front of the audience. Here the prelude runs
once, then each code cell, each of its ``try:`` edits (applied to the authored code) and each
exercise (its solution must pass its own check; its starter, blanks unfilled, must run) runs on
its own through the page's cell runner (:mod:`dpdeck.build.cellrun`). Each failure is a
:class:`~dpdeck.build.errors.DeckError` naming the file and line, the slide (number and title), the
field and the line of the cell. Noise is fresh on every run, as in the browser.
"""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from . import exercise
from .cellrun import PACKAGE_SRC, Run, Session
from .errors import DeckError
from .schema import Deck, Slide

CELL_TIMEOUT = 60.0  # seconds a cell may run before it counts as hung (the page's Stop)


class CellTimeout(BaseException):
    """Raised inside a cell that ran longer than its time limit (caught by the cell runner)."""


@dataclass
class RunReport:
    """What `check --run` found: the failures (DeckErrors, in deck order), the warnings (cells
    that printed to stderr), how many runs and how long it took (seconds)."""

    failures: list[DeckError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    cells: int = 0
    edits: int = 0
    exercises: int = 0
    seconds: float = 0.0


@contextmanager
def _time_limit(seconds: float):
    """Interrupt the cell after ``seconds`` (main thread with SIGALRM only; else no limit)."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable or not seconds:
        yield
        return

    def expired(signum, frame):
        raise CellTimeout(f"the cell ran longer than {seconds:g} s (an endless loop?)")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _file_line(slide: Slide, cell_line: int | None) -> int | None:
    """The line of the chapter file holding line ``cell_line`` of the slide's code, when the code
    is a ``|`` block (it maps line for line), else the slide's own line."""
    if slide.code_line and cell_line:
        return slide.code_line + cell_line - 1
    return slide.line


def _at_slide(slide: Slide, message: str, field_path: str, line: int | None, label=None) -> DeckError:
    """A failure of the check, placed at ``slide``'s file, line and field."""
    return DeckError(
        message,
        file=slide.file,
        line=line,
        slide=slide.index,
        title=slide.title,
        field=field_path,
        entry_label=label,
    )


def _failure(slide: Slide, field_path: str, what: str, run: Run, line: int | None, label=None) -> DeckError:
    at = f"line {run.error_line} of {what}: " if run.error_line else ""
    return _at_slide(slide, f"{at}{run.error}", field_path, line, label)


def _check_code_slide(session: Session, slide: Slide, report: RunReport, run) -> None:
    authored = run(slide.code, slide.id)
    report.cells += 1
    if not authored.ok:
        line = _file_line(slide, authored.error_line)
        report.failures.append(_failure(slide, "code", "the cell", authored, line))
    elif authored.stderr.strip():
        report.warnings.append(
            f"{slide.file}:{slide.line}: slide {slide.index} «{slide.title}» printed to stderr"
        )
    for i, edit in enumerate(slide.tries, 1):
        edited = run(edit.apply(slide.code), slide.id)
        report.edits += 1
        if not edited.ok:
            where = f"try[{i}]"
            report.failures.append(
                _failure(slide, where, "the edited cell", edited, edit.line or slide.line, edit.label)
            )


def _check_exercise(session: Session, slide: Slide, report: RunReport, run) -> None:
    program = "\n" + exercise.program(slide.check, slide.blanks)
    report.exercises += 1
    solved = run(slide.solution + program, slide.id)
    verdict = solved.verdict if solved.ok else None
    if not solved.ok:
        report.failures.append(_failure(slide, "solution", "the solution", solved, slide.line))
    elif not verdict or not verdict["ok"]:
        said = verdict["message"] if verdict else "no verdict"
        report.failures.append(
            _at_slide(slide, f"the solution does not pass its own check: «{said}»", "check", slide.line)
        )
    started = run(slide.starter, slide.id)
    if not started.ok:
        report.failures.append(_failure(slide, "starter", "the starter", started, slide.line))


def run_deck(
    deck: Deck,
    package_src: Path = PACKAGE_SRC,
    timeout: float = CELL_TIMEOUT,
    progress: Callable[[str], None] | None = None,
) -> RunReport:
    """Run the deck's prelude, cells, ``try:`` edits and exercises under CPython; report."""
    started = time.perf_counter()
    report = RunReport()
    if progress:
        progress("the prelude, then matplotlib")
    # the package the page would load: the deck's own (beside its deck file), or dplab's
    session = Session(deck.prelude, deck.package.parent if deck.package else package_src)
    if (session.prelude_run.result.get("error") or {}).get("type") == "KeyboardInterrupt":
        raise KeyboardInterrupt
    if not session.prelude_run.ok:
        prelude = session.prelude_run
        at = f"line {prelude.error_line} of the prelude: " if prelude.error_line else ""
        report.failures.append(DeckError(f"{at}{prelude.error}", file=str(deck.files[0]), field="prelude"))
        report.seconds = time.perf_counter() - started
        return report

    def run(code: str, cell_id: str) -> Run:
        try:
            with _time_limit(timeout):
                ran = session.run(code, cell_id)
        except CellTimeout as exc:  # the limit struck outside the cell's own code (its figures)
            error = {"type": "CellTimeout", "message": str(exc), "traceback": f"CellTimeout: {exc}"}
            return Run(code=code, cell_id=cell_id, result={"ok": False, "error": error}, seconds=timeout)
        if (ran.result.get("error") or {}).get("type") == "KeyboardInterrupt":
            raise KeyboardInterrupt  # Ctrl+C stops the check, not only the cell it landed in
        return ran

    for slide in deck.slides:
        if progress:
            progress(f"slide {slide.index}/{len(deck.slides)} «{slide.title}»")
        if slide.code:
            _check_code_slide(session, slide, report, run)
        elif slide.kind == "exercise":
            _check_exercise(session, slide, report, run)
    report.seconds = time.perf_counter() - started
    return report
