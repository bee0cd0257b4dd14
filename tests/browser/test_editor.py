"""The editor knows Python and dplab (issue 22): completion from the live session, the signature
of a call, a Spanish doc on hover, and a failed run's line marked in place. Chromium."""

from __future__ import annotations

import pytest

from tests.support.browser import (
    CELL,
    cell_code,
    go_to_slide,
    open_deck,
    run_cell,
    wait_runtime_ready,
    wait_until,
)

FIRST_CELL = "el-dato-de-partida"
TOOLTIP = ".cm-tooltip-autocomplete"


def _type_into(page, cell_id: str, code: str) -> None:
    """Replace the cell's code by ``code``, typed like a person (so completion reacts)."""
    go_to_slide(page, cell_id)
    page.locator(CELL.format(cell_id) + " .cm-content").click()
    page.keyboard.press("Control+a")
    page.keyboard.press("Delete")
    page.keyboard.type(code)


def _options(page, expected: str) -> list[str]:
    """The completion list once it offers ``expected`` (the engine's answer comes after the
    static sources' list: wait for it)."""
    labels = f"[...document.querySelectorAll('{TOOLTIP} li .cm-completionLabel')].map(e => e.textContent)"
    wait_until(page, f"{labels}.includes({expected!r})", 30)
    return page.evaluate(labels)


def _engine_loaded(page) -> None:
    """Focus an editor (what loads the engine), then wait until jedi answers."""
    page.locator(CELL.format(FIRST_CELL) + " .cm-content").click()
    wait_until(
        page,
        """async () => { const r = await window.deck.runtime.query('complete', 'np.ran', 1, 6, 2000);
                         return r && r.ready && r.answer && r.answer.items.length > 0; }""",
        180,
        interval=0.5,
    )


@pytest.fixture
def live(page, deck_url):
    open_deck(page, deck_url + "?noprerun")
    wait_runtime_ready(page)
    run_cell(page, FIRST_CELL)  # the prelude ran; census is in the namespace
    _engine_loaded(page)
    return page


def test_completes_dplab_names_keywords_and_census_attributes(live):
    page = live
    _type_into(page, FIRST_CELL, "gaussian_m")
    page.keyboard.press("Control+Space")
    assert "gaussian_mech" in _options(page, "gaussian_mech")
    _type_into(page, FIRST_CELL, "laplace_mech(10, sensitivity=1, eps")
    page.keyboard.press("Control+Space")
    assert "epsilon=" in _options(page, "epsilon=")
    page.wait_for_timeout(300)  # CodeMirror ignores Enter for a moment after the list opens
    page.keyboard.press("Enter")  # accept: the keyword is written into the code
    assert cell_code(page, 0).startswith("laplace_mech(10, sensitivity=1, epsilon=")
    _type_into(page, FIRST_CELL, "census.")  # typing after "." opens it by itself
    options = _options(page, "columns")
    assert "columns" in options and not any(o.startswith("__") for o in options), options


def test_signature_of_gaussian_mech_highlights_the_current_parameter(live):
    page = live
    _type_into(page, FIRST_CELL, "gaussian_mech(10, 1, ")
    wait_until(page, "document.querySelector('.cm-signature')", 30)
    text = page.locator(".cm-signature code").text_content()
    assert text.startswith("gaussian_mech(v, sensitivity, epsilon, delta"), text
    assert page.locator(".cm-signature strong").text_content() == "epsilon"


def test_hover_shows_a_spanish_doc(live):
    page = live
    _type_into(page, FIRST_CELL, "laplace_mech(10, sensitivity=1, epsilon=0.5)")
    page.locator(CELL.format(FIRST_CELL) + " .cm-line", has_text="laplace_mech").hover(
        position={"x": 30, "y": 8}
    )
    wait_until(page, "document.querySelector('.cm-tooltip-hover .cm-doc')", 30)
    doc = page.locator(".cm-tooltip-hover .cm-doc").text_content()
    assert "ruido de Laplace" in doc and "ε-DP" in doc, doc
    assert "epsilon: presupuesto de privacidad" in doc, doc
    # the same doc on a key, for the keyboard alone
    page.mouse.move(0, 0)
    page.keyboard.press("Home")
    page.keyboard.press("Control+k")
    wait_until(page, "document.querySelector('.cm-info .cm-doc')", 30)
    assert "ruido de Laplace" in page.locator(".cm-info .cm-doc").text_content()


def test_a_name_error_marks_its_line_with_a_spanish_message(live):
    page = live
    out = run_cell(page, FIRST_CELL, code="x = 1\nprint(censo.n)\nx")
    assert out["state"] == "error" and "NameError" in out["error"]  # the traceback stays
    marked = wait_until(
        page,
        f"""() => {{ const m = document.querySelector("{CELL.format(FIRST_CELL)} .cm-failing-line");
                    return m && m.closest('.cm-line') && m.closest('.cm-line').textContent; }}""",
        10,
    )
    assert marked == "print(censo.n)"
    page.locator(CELL.format(FIRST_CELL) + " .cm-failing-line").hover()
    wait_until(page, "document.querySelector('.cm-tooltip-lint')", 30)
    lint = page.locator(".cm-tooltip-lint").text_content()
    assert "«censo» no está definido: ¿quiso decir «census»?" in lint, lint
    # a run that succeeds clears the mark
    run_cell(page, FIRST_CELL, code="x = 1\nx")
    wait_until(page, f'!document.querySelector("{CELL.format(FIRST_CELL)} .cm-failing-line")', 10)
