"""The numbers the audience reads on a poll and an exercise (issue 33, items 11–13): no negative
share from the poll's cell; the poll's lab opens beside the question and the numbers, not over
them; a hall's tally is held until the poll's ``hold`` answers, and the slide says how many are
missing and why; the solution as
«Cargar en el editor» puts it passes but is not a solve (no progress, nothing sent to the hall);
the check's feedback does not give the formula away; the presenter's count reads within what is
public, with its interval."""

from __future__ import annotations

import secrets

import pytest

from tests.browser.test_hall_polls import (
    BOARD,
    POLL,
    _answer_yes_as_new_devices,
    _presenter_tab,
    _student,
    hall,  # noqa: F401  (a fixture)
)
from tests.support.browser import exercise_solved, go_to_slide, run_cell, wait_runtime_ready, wait_until

EXERCISE = "ejercicio-escala-laplace"
FEEDBACK = f"#{EXERCISE} .exercise-feedback"


@pytest.fixture
def deck_page(shared_deck_page):
    """The module's one booted deck: these tests read a poll's and an exercise's numbers."""
    return shared_deck_page


def test_the_poll_shows_no_negative_share(deck_page):
    page = deck_page
    # a hall where every randomized answer is «no»: the unbiased estimate is −50 %
    code = page.evaluate(f"window.deck.cells.find(c => c.id === '{POLL}').code")
    zeros = code.replace("informes = randomized_response(verdad, epsilon)", "informes = np.zeros(n, int)")
    assert zeros != code
    out = run_cell(page, POLL, zeros.replace("N = 60", "N = 10"))
    text = out["stdout"]
    assert "−" not in text and "-5" not in text, text
    assert "estimación 0 %" in text and "recortado a 0 %–100 %" in text, text
    # run_cell opened the lab: the question and the numbers stay above it (issue 33, item 11)
    assert page.locator(f"#{POLL} .poll-lab").get_attribute("open") is not None
    for part in (".poll-question", ".poll-numbers", ".poll-lab .cell-output", ".poll-lab .cm-editor"):
        assert page.locator(f"#{POLL} {part}").is_visible(), part
    boxes = {
        part: page.locator(f"#{POLL} {part}").bounding_box()
        for part in (".poll-question", ".poll-numbers", ".poll-lab")
    }
    assert boxes[".poll-question"]["y"] < boxes[".poll-numbers"]["y"] < boxes[".poll-lab"]["y"], boxes


def test_a_loaded_solution_is_not_a_solve_and_feedback_keeps_the_formula(deck_page):
    page = deck_page
    wrong = run_cell(page, EXERCISE, "epsilon = 0.5\nsensibilidad = 1\nescala = epsilon\n")
    message = page.locator(FEEDBACK).text_content()
    assert "el mismo número que ε" in message and "Δf / ε" not in message, (wrong, message)
    run_cell(page, EXERCISE, "epsilon = 0.5\nsensibilidad = ...\nescala = ...\n")
    assert "todavía tiene el hueco del enunciado (...)." in page.locator(FEEDBACK).text_content()
    assert "...." not in page.locator(FEEDBACK).text_content()
    go_to_slide(page, EXERCISE)
    page.locator(f"#{EXERCISE} button", has_text="Ver solución").click()
    page.locator(f"#{EXERCISE} button", has_text="Cargar en el editor").click()
    run_cell(page, EXERCISE)
    feedback = page.locator(FEEDBACK)
    assert feedback.get_attribute("data-state") == "ok"
    assert "No cuenta como resuelto" in feedback.text_content()
    assert exercise_solved(page, EXERCISE) is False
    # the student's own answer, with the same numbers, is a solve
    run_cell(page, EXERCISE, "epsilon = 0.5\nsensibilidad = 1\nescala = 1 / epsilon\n")
    assert exercise_solved(page, EXERCISE) is True


def test_a_halls_tally_is_held_until_enough_answers_and_a_count_reads_within_the_public(browser, hall):  # noqa: F811
    presenter, board = _presenter_tab(browser, hall, POLL, before=True)
    wait_runtime_ready(board, 180)
    wire: list[str] = []
    laptop, student = _student(browser, hall.audience, {"width": 1280, "height": 720}, wire)
    # ten more devices hold a channel when the poll is shown: each is admitted with a ticket
    others = hall.open_streams([secrets.token_hex(16) for _ in range(10)])
    wait_until(board, "window.deck.hall.devices >= 11", 30)
    go_to_slide(board, POLL)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.mode === 'presenter'", 30)
    tickets = hall.tickets(others)
    _answer_yes_as_new_devices(student, tickets[:1])
    wait_until(board, f"document.querySelector('{BOARD}').dataset.n === '1'", 30)
    posterior = board.locator(f"{BOARD} .poll-posterior").text_content()
    assert posterior.startswith("Faltan 9 respuestas para mostrar el resultado (van 1 de 10)."), posterior
    assert board.evaluate(f"document.querySelector('{BOARD}').dataset.estimate") is None
    assert "recibidos" not in board.locator(f"{BOARD} .poll-numbers").text_content()
    _answer_yes_as_new_devices(student, tickets[1:])
    wait_until(board, f"document.querySelector('{BOARD}').dataset.estimate", 60)
    assert "recibidos" in board.locator(f"{BOARD} .poll-numbers").text_content()

    # the solution loaded and run: nothing reaches the hall
    solves: list[str] = []
    student.on("request", lambda r: solves.append(r.url) if r.url.endswith("/_hall/solved") else None)
    go_to_slide(student, EXERCISE)
    student.locator(f"#{EXERCISE} button", has_text="Ver solución").click()
    student.locator(f"#{EXERCISE} button", has_text="Cargar en el editor").click()
    run_cell(student, EXERCISE)
    assert student.locator(FEEDBACK).get_attribute("data-state") == "ok"
    run_cell(student, EXERCISE, "epsilon = 0.5\nsensibilidad = 1\nescala = 1 / epsilon\n")
    wait_until(student, lambda: len(solves) == 1, 10)
    assert len(solves) == 1

    # the presenter's count: at least 0, at most the devices admitted when the hall says it (never
    # the devices connected now, which do not bound it), with its interval
    go_to_slide(board, EXERCISE)
    board.locator(f"#{EXERCISE} .hall-count-btn").click()
    wait_until(board, f"document.querySelector('#{EXERCISE} .hall-count').dataset.shown", 30)
    shown = board.evaluate(f"JSON.parse(document.querySelector('#{EXERCISE} .hall-count').dataset.shown)")
    top = shown["admitted"] if shown["admitted"] is not None else float("inf")
    assert 0 <= shown["low"] <= shown["value"] <= shown["high"] <= top, shown
    text = board.locator(f"#{EXERCISE} .hall-count-text").text_content()
    assert "IC 95 %" in text and "−" not in text, text
    for page in (board, student):
        page.context.close()
