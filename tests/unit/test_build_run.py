"""`build.py check --run`: the deck's cells, try: edits and exercises under CPython, the night
before a lecture. `check` alone validates shapes and syntax; a misspelled name passes it and
must not pass `check --run`, which names file and line, slide (number and title), field and the
line of the cell."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from dpdeck.build import runcheck
from dpdeck.build.cellrun import Session
from dpdeck.build.schema import load_deck
from tests.support.paths import ROOT

FIXTURES = ROOT / "tests" / "fixtures"
MISSPELLED = FIXTURES / "run_misspelled" / "deck.yaml"


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "build.py", *args], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_check_alone_passes_a_misspelled_name_and_check_run_catches_it():
    alone = _cli("check", "--deck", str(MISSPELLED))
    assert alone.returncode == 0, alone.stderr  # what `check --run` is for
    run = _cli("check", "--run", "--deck", str(MISSPELLED))
    assert run.returncode == 1, run.stdout + run.stderr
    errors = [line for line in run.stderr.splitlines() if line.startswith("error in the deck:")]
    assert errors == [
        "error in the deck: tests/fixtures/run_misspelled/capitulo.yaml:16, slide 3 «La errata», "
        "field 'code': line 3 of the cell: NameError: name 'epsilom' is not defined. "
        "Did you mean: 'epsilon'?",
        "error in the deck: tests/fixtures/run_misspelled/capitulo.yaml:25, slide 4 «Una edición "
        "que rompe», field 'try', 2nd entry «rota»: line 2 of the edited cell: AttributeError: "
        "'numpy.ndarray' object has no attribute 'suma'",
    ], run.stderr
    assert "2 failed of 3 cells, 3 try: edits, 0 exercises" in run.stderr


def test_the_file_line_is_the_line_of_the_failing_code():
    deck = load_deck(MISSPELLED)
    report = runcheck.run_deck(deck)
    (code_error, _) = report.failures
    lines = (ROOT / "tests/fixtures/run_misspelled/capitulo.yaml").read_text().splitlines()
    assert lines[code_error.line - 1].strip() == "escala = sensibilidad / epsilom"


def test_a_good_deck_passes_and_says_what_it_ran():
    run = _cli("check", "--run", "--deck", str(FIXTURES / "good" / "deck.yaml"))
    assert run.returncode == 0, run.stderr
    assert "ok: ran 1 cells, 2 try: edits, 0 exercises under CPython in" in run.stdout


def _deck(tmp_path: Path, prelude: str, slides: str) -> Path:
    (tmp_path / "c.yaml").write_text("slides:\n" + slides, encoding="utf-8")
    deck = tmp_path / "deck.yaml"
    deck.write_text(f"title: T\nchapters: [c.yaml]\nprelude: |\n  {prelude}\n", encoding="utf-8")
    return deck


def test_a_broken_prelude_is_one_failure_naming_the_deck_file(tmp_path):
    deck = load_deck(_deck(tmp_path, "import numpy as npp\n  x = np.zeros(2)", "  - {title: A, body: b}\n"))
    report = runcheck.run_deck(deck)
    (failure,) = report.failures
    assert failure.field == "prelude" and failure.file.endswith("deck.yaml")
    assert "line 2 of the prelude: NameError: name 'np' is not defined" in str(failure)


def test_each_cell_starts_from_the_prelude_not_from_the_cell_before(tmp_path):
    slides = (
        "  - {kind: code, title: Uno, code: 'y = 1'}\n"
        "  - {kind: code, title: Dos, code: 'print(y)'}\n"  # works only after Uno, in one session
    )
    deck = load_deck(_deck(tmp_path, "x = 0", slides))
    (failure,) = runcheck.run_deck(deck).failures
    assert failure.slide == 2 and "NameError: name 'y' is not defined" in str(failure)


def test_an_endless_cell_is_stopped_and_named(tmp_path):
    deck = load_deck(_deck(tmp_path, "x = 0", "  - {kind: code, title: Bucle, code: 'while True: pass'}\n"))
    report = runcheck.run_deck(deck, timeout=0.5)
    (failure,) = report.failures
    assert "CellTimeout" in str(failure) and "longer than 0.5 s" in str(failure)
    assert report.seconds < 30


def test_an_exercise_whose_solution_fails_its_check_is_named(tmp_path):
    slides = (
        "  - kind: exercise\n    title: Ej\n    body: Complete b.\n"
        "    starter: 'b = ...'\n    check: 'return b == 2, \"b vale 2\"'\n    solution: 'b = 3'\n"
    )
    deck = load_deck(_deck(tmp_path, "x = 0", slides))
    (failure,) = runcheck.run_deck(deck).failures
    assert failure.field == "check" and "the solution does not pass its own check: «b vale 2»" in str(failure)


@pytest.mark.parametrize("code,line", [("a = 1\nb = a +\n", 2), ("a = 1\nb = c\n", 2), ("1/0", 1)])
def test_a_run_knows_the_line_of_its_error(code, line):
    session = Session("")
    ran = session.run(code, "celda-x")
    assert not ran.ok and ran.error_line == line, ran.result


def test_ctrl_c_stops_the_whole_check_not_only_the_cell_it_lands_in(tmp_path):
    """Ctrl+C while a cell runs ends the check (exit 130, «interrupted»), and the next cell never
    starts. Each cell marks a file as it starts, so Ctrl+C is sent once the first cell runs."""
    marks = {name: tmp_path / f"{name}.started" for name in ("lenta", "otra")}
    slides = "".join(
        f"  - {{kind: code, title: {name.title()}, code: 'import pathlib, time; "
        f'pathlib.Path(r"{mark}").touch(); time.sleep(120)\'}}\n'
        for name, mark in marks.items()
    )
    deck = _deck(tmp_path, "x = 0", slides)
    proc = subprocess.Popen(
        [sys.executable, "build.py", "check", "--run", "--deck", str(deck)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # as a terminal's command gets it: a suite started in the background of a shell (``&``)
        # runs with SIGINT ignored, and a child would inherit that and rightly ignore Ctrl+C
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    try:
        deadline = time.monotonic() + 90
        while not marks["lenta"].exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marks["lenta"].exists(), "the first cell never started"
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()  # nothing left running if the check did not stop
    assert proc.returncode == 130 and "interrupted" in err, err
    assert not marks["otra"].exists(), "the check ran on into the next cell"
