"""The whole deck in Chromium at 1280×720: every slide, every cell, every key result.

One walk goes through the slides in order with the keyboard, runs each cell the way the Run
button does, and checks that no cell fails, that every cell that draws shows a figure, and that
nothing on any slide spills out of the 1280×720 slide or hides behind a scrollbar. Other tests
read the seed's key numbers from the live output of their slides.
"""

from __future__ import annotations

import re
import time

import pytest

from dpdeck.build.schema import load_deck
from tests.support.browser import (
    current_slide,
    current_slide_element,
    go_to_slide,
    no_transitions,
    run_cell,
    wait_until,
)
from tests.support.deck_text import DRAWS
from tests.support.layout import LAYOUT_PROBLEMS
from tests.support.paths import ROOT

DECK = load_deck(ROOT / "deck" / "deck.yaml")
CODE_SLIDES = [s for s in DECK.slides if s.code]


def slide_handle(page, index: int):
    return page.evaluate_handle("(i) => window.deck.reveal.getSlides()[i]", index)


def show_all_fragments(page) -> None:
    page.evaluate("() => { const r = window.deck.reveal; const i = r.getIndices(); r.slide(i.h, i.v, 999); }")


def numbers(text: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?", text.replace(",", ""))]


@pytest.fixture
def deck_page(shared_deck_page):
    """The module's one booted deck: these tests read the deck, not its start-up."""
    return shared_deck_page


def test_walk_every_slide_run_every_cell(deck_page):
    """Arrow through all slides; run each cell; no error, figures present, nothing overflows."""
    page = deck_page
    no_transitions(page)
    page.evaluate("() => window.deck.reveal.slide(0, 0, 0)")
    page.locator("body").click(position={"x": 5, "y": 360})  # focus the deck, not a control
    failures, overflow, seen = [], [], []
    started = time.monotonic()
    for slide in DECK.slides:
        current = current_slide(page)
        assert current == slide.id, f"expected slide {slide.index} {slide.id!r}, at {current!r}"
        seen.append(current)
        if slide.code:
            out = run_cell(page, slide.id)
            if out["state"] != "done" or out["error"]:
                failures.append(f"{slide.id}: {out['error'][-600:]}")
            elif DRAWS.search(slide.code) and out["figures"] < 1:
                failures.append(f"{slide.id}: drew no figure")
            if slide.code and not out["stdout"] and not out["figures"] and not out["value"]:
                failures.append(f"{slide.id}: showed nothing")
            # every figure drawn on the slide is decoded before its layout is read; a lazy
            # image under display: none is not loaded until shown (the poll's simulated-hall
            # figure, hidden while the lab is open, may arrive after the run), and takes no room
            wait_until(
                page,
                "() => [...window.deck.reveal.getCurrentSlide()"
                ".querySelectorAll('img.out-figure')]"
                ".every(i => i.complete || i.getClientRects().length === 0)",
                10,
            )
        show_all_fragments(page)
        problems = page.evaluate(LAYOUT_PROBLEMS, current_slide_element(page))
        if problems:
            overflow.append(f"{slide.index} {slide.title}: {problems}")
        if slide is not DECK.slides[-1]:
            page.keyboard.press("ArrowRight")
            # past the last fragment, the arrow goes to the next slide
            while current_slide(page) == slide.id:
                page.keyboard.press("ArrowRight")
    assert seen == [s.id for s in DECK.slides]
    assert not failures, "cells failed:\n" + "\n".join(failures)
    assert not overflow, "slides that do not fit 1280×720:\n" + "\n".join(overflow)
    assert not page.errors, page.errors
    print(f"walked {len(seen)} slides, ran {len(CODE_SLIDES)} cells in {time.monotonic() - started:.1f} s")


def test_question_answer_appears_on_click(deck_page):
    page = deck_page
    go_to_slide(page, "pregunta")
    hidden = page.evaluate("() => !document.querySelector('#pregunta .answer').classList.contains('visible')")
    assert hidden, "the answer shows before the click"
    page.keyboard.press("ArrowRight")
    wait_until(page, "() => document.querySelector('#pregunta .answer').classList.contains('visible')", 5)
    assert current_slide(page) == "pregunta"


def test_live_budget_accounting_numbers(deck_page):
    """'Cuánto se gana': ε for k = 10⁴ falls from ≈ 3236 (sequential) to ≈ 36 (RDP)."""
    out = run_cell(deck_page, "cuanto-se-gana")
    assert out["state"] == "done", out["error"]
    found = {
        name: float(value.replace(".", "").replace(",", "."))  # printed as 3.236,2
        for name, value in re.findall(r"(secuencial|avanzada|Rényi DP):\s+ε =\s+([\d.,]+)", out["stdout"])
    }
    assert abs(float(found["secuencial"]) - 3236) <= 1
    assert abs(float(found["Rényi DP"]) - 36) <= 1
    assert float(found["Rényi DP"]) < float(found["avanzada"]) < float(found["secuencial"])


def test_live_crossover_of_laplace_and_gauss(deck_page):
    """'Laplace contra Gauss: vectorial': Gauss wins from k ≈ 12, measured in the browser."""
    out = run_cell(deck_page, "laplace-contra-gauss-vectorial")
    assert out["state"] == "done", out["error"]
    assert out["figures"] >= 1
    k = int(re.search(r"Gauss gana desde k = (\d+)", out["stdout"]).group(1))
    assert 11 <= k <= 13


def test_live_differential_attack(deck_page):
    """'Los agregados no son anónimos': the difference of the counts is Karen's value."""
    out = run_cell(deck_page, "los-agregados-no-son-anonimos")
    assert out["state"] == "done", out["error"]
    diff = int(re.search(r"Diferencia:\s+(-?\d+)", out["stdout"]).group(1))
    karen = int(re.search(r"Dato real de Karen:\s+(-?\d+)", out["stdout"]).group(1))
    assert diff == karen == 1


def test_live_privacy_utility_regime(deck_page):
    """'El compromiso privacidad–utilidad', in Chromium: with 1 000 people the model reaches the
    majority line near ε ≈ 0,2 (the seed's sentence); with the whole census far lower."""
    from tests.support.deck_text import tradeoff_curves

    out = run_cell(deck_page, "el-compromiso-privacidad-utilidad")
    assert out["state"] == "done", out["error"]
    assert out["figures"] >= 1
    curves = tradeoff_curves(out["stdout"])
    assert 0.05 <= curves[1000][0] <= 0.5
    assert 0.006 <= curves[5000][0] <= 0.08 and curves[1000][0] > 1.5 * curves[5000][0]
    assert all(top == 1 and acc > 0.8 for _, top, acc in curves.values())
