"""The editor knows Python and dplab (issue 22): completion from the live session, the signature
of a call, a Spanish doc on hover, and a failed run's line marked in place. Chromium."""

from __future__ import annotations

import pytest

from tests.support.browser import (
    CELL,
    cell_code,
    go_to_slide,
    run_cell,
    set_code,
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


SHARED_DECK_QUERY = "?noprerun"  # the module's one booted deck (browser/conftest.py)


@pytest.fixture
def live(shared_deck_page):
    """The module's deck with the completion engine loaded (once: what costs the time)."""
    page = shared_deck_page
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
    # the signature is asked as each key is typed: its answer for the last key (the cursor on
    # epsilon) may come after the popup showed an earlier one (sensitivity); it must come
    highlighted = "document.querySelector('.cm-signature strong')?.textContent"
    assert wait_until(page, f"{highlighted} === 'epsilon' && {highlighted}", 10) == "epsilon"


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


def _hover_word(page, cell_id: str, word: str) -> None:
    """Move the mouse onto ``word`` (its first occurrence) in the cell's editor."""
    page.mouse.move(0, 0)
    at = page.evaluate(
        """([id, word]) => { const view = window.deck.cells.find(c => c.id === id).editor.view;
                             const r = view.coordsAtPos(view.state.doc.toString().indexOf(word) + 1);
                             return {x: r.left + 2, y: (r.top + r.bottom) / 2}; }""",
        [cell_id, word],
    )
    page.mouse.move(at["x"], at["y"])


def _list_closed(page) -> None:
    wait_until(page, f"!document.querySelector('{TOOLTIP}')", 10)


def test_completion_by_key_after_a_dot_lists_the_attributes_not_the_globals(live):
    """Issue 33: Ctrl+Space or Tab after ``census.`` listed ~100 globals (``__annotations__``,
    ``abs``…), and Enter wrote ``census.__annotations__`` (main: fails here)."""
    page = live
    for key in ("Control+Space", "Tab"):
        _type_into(page, FIRST_CELL, "census.")
        _options(page, "where")  # typing the "." opened it by itself
        page.keyboard.press("Escape")  # the first Esc closes the list
        _list_closed(page)
        page.keyboard.press(key)
        options = _options(page, "where")
        assert not {"abs", "__annotations__", "census", "print"} & set(options), (key, options)
        page.wait_for_timeout(300)  # CodeMirror ignores Enter for a moment after the list opens
        page.keyboard.press("Enter")
        code = cell_code(page, 0)
        assert code.startswith("census.") and code[len("census.") :] in options, (key, code)
    # the member's doc beside the list is the Spanish one
    _type_into(page, FIRST_CELL, "census.wit")
    _options(page, "without")
    wait_until(page, "document.querySelector('.cm-completionInfo .cm-doc')", 10)
    assert "La tabla vecina" in page.locator(".cm-completionInfo .cm-doc").text_content()
    # the prelude binds dplab itself
    _type_into(page, FIRST_CELL, "dplab.laplace_m")
    page.keyboard.press("Control+Space")
    assert "laplace_mech" in _options(page, "laplace_mech")
    # Shift+Enter runs the cell and closes the list
    page.keyboard.press("Shift+Enter")
    _list_closed(page)


def test_the_editor_speaks_spanish_search_folds_python_errors_and_builtins(live):
    """Issue 33: CodeMirror's search panel and fold markers (its phrases), Python's own errors
    (a Spanish line under them) and the builtins' hover were English (main: fails here)."""
    page = live
    go_to_slide(page, FIRST_CELL)
    set_code(page, FIRST_CELL, "def f():\n    return float(census.columns[0] == 'x')\nprint(1))")
    page.locator(CELL.format(FIRST_CELL) + " .cm-content").click()
    page.keyboard.press("Control+f")
    wait_until(page, "document.querySelector('.cm-search')", 10)
    panel = page.locator(".cm-search")
    assert panel.locator("input[name=search]").get_attribute("placeholder") == "Buscar"
    buttons = panel.locator("button").all_text_contents()
    assert {"siguiente", "anterior", "todas"} <= set(buttons), buttons
    assert "mayúsculas" in panel.text_content() and "Find" not in panel.text_content()
    titles = page.locator(CELL.format(FIRST_CELL) + " .cm-foldGutter span[title]").evaluate_all(
        "els => els.map(e => e.title)"
    )
    assert "Plegar" in titles and set(titles) <= {"Plegar", "Desplegar"}, titles
    page.keyboard.press("Escape")  # the search panel goes
    out = run_cell(page, FIRST_CELL)
    assert "SyntaxError: unmatched ')'" in out["error"], out
    assert "En español: error de sintaxis en la línea 3: sobra un «)»" in out["error"], out
    _hover_word(page, FIRST_CELL, "float")
    wait_until(page, "document.querySelector('.cm-tooltip-hover .cm-doc')", 30)
    doc = page.locator(".cm-tooltip-hover .cm-doc").text_content()
    assert "Convierte un número o un texto" in doc and "Convert a string" not in doc, doc
    _hover_word(page, FIRST_CELL, "census")  # a name the prelude binds: its Spanish doc
    doc = wait_until(page, "document.querySelector('.cm-tooltip-hover .cm-doc')?.textContent", 30)
    assert "El censo sintético" in doc, doc
    _hover_word(page, FIRST_CELL, "columns")  # a census member: dplab's Spanish
    wait_until(
        page,
        "document.querySelector('.cm-tooltip-hover .cm-doc')?.textContent.includes('Los nombres de las columnas')",
        30,
    )
