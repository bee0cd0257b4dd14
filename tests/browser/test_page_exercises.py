"""Exercises that check themselves, in Chromium at 1280×720.

For each exercise of the deck: a wrong answer shows ✗ with the check's message, the hints
appear one at a time, the solution shows on a click and loads into the editor, and run it
passes with ✓. Progress survives a reload; the speaker view counts what the main window solved;
a check that raises and code that loops never break the deck. Screenshots:
test-results/exercise-*.png.
"""

from __future__ import annotations

import pytest

from dpdeck.build.schema import load_deck
from dpdeck.serve.browser import VIEWPORT
from tests.support.browser import (
    CELL,
    cell_code,
    cell_ids,
    cell_index,
    exercise_ids,
    exercise_solved,
    go_to_slide,
    instrument,
    no_transitions,
    open_deck,
    own_solution,
    run_cell,
    set_code,
    start_run,
    wait_idle,
    wait_running,
    wait_runtime_ready,
    wait_until,
)
from tests.support.paths import ROOT

SHOTS = ROOT / "test-results"
EXERCISES = [s for s in load_deck(ROOT / "deck" / "deck.yaml").slides if s.kind == "exercise"]
EX = "[data-exercise-id='{}']"

# one wrong answer per exercise, and a word its feedback must contain
WRONG = {
    "ejercicio-escala-laplace": (
        "epsilon = 0.5\nsensibilidad = 1\nescala = sensibilidad * epsilon",
        "Δf · ε",
    ),
    "ejercicio-repartir-presupuesto": (
        "presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b', 'c']\neps_cada = 0.5",
        "rechazaría",
    ),
    "ejercicio-suma-recortada": ("b = 100\nepsilon = 1.0\nsensibilidad = 1\nescala = 1", "conteo"),
    "ejercicio-sigma-gaussiano": ("epsilon, delta = 0.5, 1e-5\nsigma = 1.0", "menos ruido"),
    "ejercicio-epsilon-dpsgd": (
        "n, lote, z, epocas, delta = 10_000, 100, 1.1, 3, 1e-5\nq = 0.01\npasos = 3\neps = 1.0",
        "época",
    ),
}


def feedback(page, ex_id: str) -> dict:
    return page.evaluate(
        """(id) => {
        const el = document.querySelector(`[data-exercise-id='${id}'] .exercise-feedback`);
        return {hidden: el.hidden, state: el.dataset.state || '', text: el.textContent};
    }""",
        ex_id,
    )


def visible_hints(page, ex_id: str) -> int:
    return page.locator(EX.format(ex_id) + " .exercise-hint:not([hidden])").count()


@pytest.fixture(scope="module")
def ex_page(browser, deck_url):
    context = browser.new_context(viewport=VIEWPORT)
    page = instrument(context, context.new_page())
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    no_transitions(page)
    yield page
    context.close()


def test_every_exercise_is_a_cell_with_its_controls(ex_page):
    page = ex_page
    assert len(EXERCISES) >= 5
    assert len(exercise_ids(page)) == len(EXERCISES)
    for slide in EXERCISES:
        assert slide.id in cell_ids(page)
        assert cell_code(page, slide.id) == slide.starter.rstrip("\n")
        assert feedback(page, slide.id)["hidden"]
        assert visible_hints(page, slide.id) == 0
        assert page.locator(EX.format(slide.id) + " .exercise-solution").is_hidden()


@pytest.mark.parametrize("slide", EXERCISES, ids=lambda s: s.id)
def test_wrong_then_hints_then_solution_passes(ex_page, slide):
    page = ex_page
    ex = EX.format(slide.id)
    go_to_slide(page, slide.id)

    # the starter as it is: the blank is named
    out = run_cell(page, slide.id)
    assert out["state"] == "done", out
    fb = feedback(page, slide.id)
    assert fb["state"] == "wrong" and "✗" in fb["text"] and "Falta completar" in fb["text"], fb

    # a wrong answer: ✗ and the check's message; not solved
    code, word = WRONG[slide.id]
    run_cell(page, slide.id, code)
    fb = feedback(page, slide.id)
    assert fb["state"] == "wrong" and "✗" in fb["text"] and word in fb["text"], fb
    assert page.locator(ex + " .exercise-badge").is_hidden()
    assert not exercise_solved(page, slide.id)
    assert out["value"] == ""  # the verdict is not shown as a value

    # hints: one per click, then the button says there are no more
    hint_btn = page.locator(ex + " button.hint")
    for n in range(1, len(slide.hints) + 1):
        hint_btn.click()
        assert visible_hints(page, slide.id) == n
        if n == 1 and slide is EXERCISES[0]:
            SHOTS.mkdir(exist_ok=True)
            page.mouse.move(0, 0)
            page.screenshot(path=str(SHOTS / "exercise-wrong.png"))
    assert hint_btn.is_disabled() and "Sin más pistas" in hint_btn.inner_text()

    # the solution: shown on a click, loaded into the editor on request, and it passes
    page.locator(ex + " button.show-solution").click()
    assert page.locator(ex + " .exercise-solution").is_visible()
    assert visible_hints(page, slide.id) == len(slide.hints)  # shown, though folded away
    assert page.locator(ex + " .exercise-hint").first.is_hidden()  # the solution has the room
    shown = page.locator(ex + " .exercise-solution-code").inner_text()
    assert shown.strip() == slide.solution.strip()
    page.locator(ex + " button.load-solution").click()
    i = cell_index(page, slide.id)
    assert cell_code(page, i) == slide.solution.rstrip("\n")
    out = run_cell(page, slide.id)
    assert out["state"] == "done", out
    fb = feedback(page, slide.id)
    assert fb["state"] == "ok" and "✓" in fb["text"] and "No cuenta" in fb["text"], fb
    assert not page.locator(ex + " .exercise-badge").is_visible()  # loaded, not solved
    out = run_cell(page, slide.id, own_solution(slide.solution))
    assert out["state"] == "done", out
    fb = feedback(page, slide.id)
    assert fb["state"] == "ok" and "✓" in fb["text"], fb
    assert page.locator(ex + " .exercise-badge").is_visible()
    assert not page.errors, page.errors


def test_screenshot_of_an_exercise_passed(ex_page):
    page = ex_page
    SHOTS.mkdir(exist_ok=True)
    assert (SHOTS / "exercise-wrong.png").exists()  # taken above: a wrong answer, one hint
    slide = EXERCISES[3]
    go_to_slide(page, slide.id)
    i = cell_index(page, slide.id)
    run_cell(page, slide.id, cell_code(page, i))
    assert feedback(page, slide.id)["state"] == "ok"
    page.screenshot(path=str(SHOTS / "exercise-right.png"))
    # the accountant's exercise: its solution spends through the accountant, under the verdict
    slide = EXERCISES[1]
    go_to_slide(page, slide.id)
    run_cell(page, slide.id, own_solution(slide.solution))
    assert feedback(page, slide.id)["state"] == "ok"
    page.screenshot(path=str(SHOTS / "exercise-budget.png"))


def test_a_check_that_raises_and_code_that_loops_do_not_break_the_deck(ex_page):
    page = ex_page
    slide = EXERCISES[0]
    go_to_slide(page, slide.id)
    # a name the check needs is missing (the namespace is shared: earlier runs defined it), and
    # a value the check cannot compare: Spanish, no crash
    run_cell(page, slide.id, "epsilon = 0.5\nescala = 2\nglobals().pop('sensibilidad', None)")
    fb = feedback(page, slide.id)
    assert fb["state"] == "wrong" and "Falta definir" in fb["text"], fb
    run_cell(page, slide.id, "epsilon = 0.5\nsensibilidad = 1\nescala = [2]")
    assert feedback(page, slide.id)["state"] == "wrong"
    # the student's code raises: the error shows in the output, the verdict says so
    out = run_cell(page, slide.id, "epsilon = 0.5\nsensibilidad = 1 / 0\nescala = 2")
    assert "ZeroDivisionError" in out["error"]
    fb = feedback(page, slide.id)
    assert fb["state"] == "error" and "ZeroDivisionError" in fb["text"], fb
    # code that loops: Stop ends it, the verdict says it was stopped, and the exercise works after
    i = cell_index(page, slide.id)
    start_run(page, i, "while True:\n    pass")
    wait_running(page, i, 60)
    page.locator(CELL.format(slide.id) + " button.stop").click()
    wait_idle(page, i, 30)
    assert feedback(page, slide.id)["state"] == "stopped"
    wait_runtime_ready(page)
    run_cell(page, slide.id, own_solution(slide.solution))
    assert feedback(page, slide.id)["state"] == "ok"
    assert not page.errors, page.errors


def test_progress_and_edits_survive_a_reload(page, deck_url):
    slide = EXERCISES[1]
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    go_to_slide(page, slide.id)
    page.locator(EX.format(slide.id) + " button.show-solution").click()
    page.locator(EX.format(slide.id) + " button.load-solution").click()
    run_cell(page, slide.id, own_solution(slide.solution))
    assert feedback(page, slide.id)["state"] == "ok"
    other = EXERCISES[2]
    set_code(page, other.id, "b = 100\nsensibilidad = 7")
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
    assert exercise_solved(page, slide.id)
    assert page.locator(EX.format(slide.id)).evaluate("e => e.classList.contains('is-solved')")
    assert not exercise_solved(page, other.id)
    # the student's code too, as any edit
    assert cell_code(page, slide.id).rstrip("\n") == own_solution(slide.solution).rstrip("\n")
    assert cell_code(page, other.id) == "b = 100\nsensibilidad = 7"
    # "undo all edits" brings the starters back, and leaves the progress alone
    page.once("dialog", lambda d: d.accept())
    page.locator("button[data-action='reset-all']").click()
    assert cell_code(page, slide.id) == slide.starter.rstrip("\n")
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
    assert exercise_solved(page, slide.id)


def test_speaker_view_counts_the_exercises_solved_in_the_main_window(context, page, deck_url):
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    copy = instrument(context, context.new_page())
    open_deck(copy, deck_url.rstrip("/") + "/?receiver")
    count = (
        "() => { const e = document.getElementById('exercise-count'); "
        "return e && [Number(e.dataset.solved), Number(e.dataset.total), e.textContent]; }"
    )
    wait_until(copy, count, 10)
    assert copy.evaluate(count)[:2] == [0, len(EXERCISES)]
    assert page.locator("#exercise-count").count() == 0  # not on the projected window
    for k, slide in enumerate(EXERCISES[:2], 1):
        go_to_slide(page, slide.id)
        run_cell(page, slide.id, own_solution(slide.solution))
        assert feedback(page, slide.id)["state"] == "ok"
        wait_until(copy, f"() => document.getElementById('exercise-count').dataset.solved === '{k}'", 10)
    assert copy.evaluate(count)[2] == f"Ejercicios resueltos: 2 de {len(EXERCISES)}"
    # the copy mirrors the verdict under its exercise
    wait_until(
        copy,
        "(id) => document.querySelector(`[data-exercise-id='${id}'] "
        ".exercise-feedback`).dataset.state === 'ok'",
        10,
        arg=EXERCISES[1].id,
    )
    go_to_slide(copy, EXERCISES[1].id)
    SHOTS.mkdir(exist_ok=True)
    copy.screenshot(path=str(SHOTS / "exercise-speaker-copy.png"))
    # a copy opened later gets the count at once
    late = instrument(context, context.new_page())
    open_deck(late, deck_url.rstrip("/") + "/?receiver")
    wait_until(late, "() => document.getElementById('exercise-count')?.dataset.solved === '2'", 10)
    assert not copy.errors and not late.errors and not page.errors


def test_the_official_solution_typed_without_opening_it_counts(page, deck_url):
    """Issue 47, item 21: a student who writes the official solution word for word, without
    ever loading it, solved the exercise: it counts. Loaded into the editor in this browser
    («Cargar en el editor»), the same code only passes, also after a reload."""
    slide = EXERCISES[0]
    ex = EX.format(slide.id)
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    go_to_slide(page, slide.id)
    out = run_cell(page, slide.id, slide.solution)
    assert out["state"] == "done", out
    fb = feedback(page, slide.id)
    assert fb["state"] == "ok" and "No cuenta" not in fb["text"], fb
    assert exercise_solved(page, slide.id)
    assert page.locator(ex + " .exercise-badge").is_visible()
    # loaded: the same code passes and counts for nothing, here and after a reload
    other = EXERCISES[1]
    go_to_slide(page, other.id)
    page.locator(EX.format(other.id) + " button.show-solution").click()
    page.locator(EX.format(other.id) + " button.load-solution").click()
    for reload in (False, True):
        if reload:
            page.reload()
            wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 20)
            wait_runtime_ready(page)
        out = run_cell(page, other.id)
        assert out["state"] == "done", out
        fb = feedback(page, other.id)
        assert fb["state"] == "ok" and "No cuenta" in fb["text"], (reload, fb)
        assert not exercise_solved(page, other.id)
    assert not page.errors, page.errors
