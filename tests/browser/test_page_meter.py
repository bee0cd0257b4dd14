"""The privacy-budget meter under a cell, in Chromium: on the slides that release through a
``BudgetAccountant`` it shows what was spent of the total; an overspend shows the accountant's
reason, in Spanish and in red, beside it; the speaker view mirrors it; the deck keeps working."""

from __future__ import annotations

from dpdeck.serve.browser import VIEWPORT
from tests.support.browser import (
    CELL,
    authored_code,
    cell_index,
    cell_output,
    cells,
    go_to_slide,
    instrument,
    open_deck,
    reset_cell,
    run_cell,
    wait_until,
)
from tests.support.paths import ROOT

RESULTS = ROOT / "test-results"
SHARED_DECK_QUERY = "?noprerun"  # shared_deck_page: the cells here run when a test says so
SEQUENTIAL = "composicion-secuencial"
CHOOSE_B = "elegir-b-sin-mirar-los-datos"
ERROR_RED = "rgb(164, 22, 26)"  # --error in deck.css


def meter(page, cell_id: str) -> dict:
    """What the cell's meter shows: per accountant its name, texts, bar widths and refusal."""
    return page.evaluate(
        """(id) => {
        const box = document.querySelector(`.cell[data-cell-id='${id}'] .cell-output .out-budget`);
        if (!box) return null;
        return {
          first: box === box.parentElement.firstElementChild,
          rows: [...box.querySelectorAll('.budget-row')].map(row => ({
            name: row.querySelector('.budget-name')?.textContent,
            texts: [...row.querySelectorAll('.budget-text')].map(e => e.textContent),
            fills: [...row.querySelectorAll('.budget-fill')].map(e => parseFloat(e.style.width)),
            refused: row.querySelector('.budget-refused')?.textContent ?? null,
            refusedColor: row.querySelector('.budget-refused')
              ? getComputedStyle(row.querySelector('.budget-refused')).color : null,
            visible: row.getBoundingClientRect().height > 0,
          })),
        };
    }""",
        cell_id,
    )


def apply_try(page, cell_id: str, label: str) -> dict:
    i = cell_index(page, cell_id)
    k = page.evaluate("([i, l]) => window.deck.cells[i].tries.findIndex(t => t.label === l)", [i, label])
    assert k >= 0, f"no try {label!r} on {cell_id}"
    page.evaluate("([i, k]) => window.deck.cells[i].applyTry(k)", [i, k])
    wait_until(
        page,
        "(i) => window.deck.cells[i].running === null && window.deck.cells[i].lastCode "
        "=== window.deck.cells[i].code && window.deck.cells[i].root.dataset.state !== 'running'",
        120,
        arg=i,
    )
    return cell_output(page, cell_id)


# two frames drawn (the last update shows), and no transition left on the current slide
SETTLED = """async () => {
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r())));
    return window.deck.reveal.getCurrentSlide().getAnimations({subtree: true})
        .every((a) => a.playState === 'finished' || a.effect?.getComputedTiming().iterations === Infinity);
}"""


def shoot(page, name: str) -> None:
    RESULTS.mkdir(exist_ok=True)
    wait_until(page, SETTLED, 10)
    page.screenshot(path=str(RESULTS / f"meter-{name}.png"))


def test_sequential_composition_meter_and_its_refusal(shared_deck_page, deck_url):
    page = shared_deck_page
    assert page.viewport_size == VIEWPORT
    out = run_cell(page, SEQUENTIAL)
    assert out["state"] == "done" and "ε gastado: 1 = 1" in out["stdout"], out
    m = meter(page, SEQUENTIAL)
    assert m and m["first"], m
    [row] = m["rows"]
    assert row == {
        **row,
        "name": "presupuesto",
        "texts": ["ε: 1 de 1"],
        "fills": [100],
        "refused": None,
        "visible": True,
    }, row
    shoot(page, "secuencial")

    out = apply_try(page, SEQUENTIAL, "presupuesto 1,5")
    assert "¿cabe una tercera? True" in out["stdout"], out
    [row] = meter(page, SEQUENTIAL)["rows"]
    assert row["texts"] == ["ε: 1 de 1,5"] and row["fills"] == [66.7] and row["refused"] is None

    # the speaker view's copy mirrors the meter (it is one of the cell's output items)
    copy = instrument(page.context, page.context.new_page())
    open_deck(copy, deck_url.rstrip("/") + "/?receiver")
    wait_until(
        copy,
        "(id) => document.querySelector(`.cell[data-cell-id='${id}'] .budget-text`)"
        "?.textContent === 'ε: 1 de 1,5'",
        20,
        arg=SEQUENTIAL,
    )

    out = apply_try(page, SEQUENTIAL, "pedir una tercera")
    assert out["state"] == "done" and "rechazada (BudgetError)" in out["stdout"], out
    [row] = meter(page, SEQUENTIAL)["rows"]
    assert row["texts"] == ["ε: 1 de 1"], row
    assert row["refused"] == (
        "✗ La publicación «tercera» fue rechazada: cuesta ε = 0,5 y solo "
        "quedan 0 de 1. No se gastó nada del presupuesto."
    ), row
    assert row["refusedColor"] == ERROR_RED, row
    shoot(page, "secuencial-rechazo")
    wait_until(
        copy,
        "(id) => document.querySelector(`.cell[data-cell-id='${id}'] .budget-refused`)"
        "?.textContent.includes('rechazada')",
        20,
        arg=SEQUENTIAL,
    )
    assert all(c["runs"] == 0 for c in cells(copy))
    copy.close()
    reset_cell(page, cell_index(page, SEQUENTIAL))
    assert not page.errors, page.errors


def test_choosing_b_meter_and_an_overspending_edit(shared_deck_page):
    page = shared_deck_page
    out = run_cell(page, CHOOSE_B)
    assert out["state"] == "done" and "ε total: 1" in out["stdout"], out
    [row] = meter(page, CHOOSE_B)["rows"]
    assert row["name"] == "presupuesto" and row["texts"] == ["ε: 1 de 1"] and row["refused"] is None
    assert row["visible"]
    shoot(page, "elegir-b")

    # a code edit that spends more than what is left: refused, in Spanish, in red, beside it
    authored = authored_code(page, cell_index(page, CHOOSE_B))
    assert authored.count("resto = presupuesto.remaining_budget[0]") == 1
    out = run_cell(
        page, CHOOSE_B, authored.replace("resto = presupuesto.remaining_budget[0]", "resto = 0.75")
    )
    assert out["state"] == "error" and "BudgetError" in out["error"], out
    [row] = meter(page, CHOOSE_B)["rows"]
    assert row["refused"].startswith(
        "✗ La publicación «suma» fue rechazada: cuesta ε = 0,75 y solo quedan "
    ), row
    assert row["refusedColor"] == ERROR_RED
    assert row["texts"][0].startswith("ε: 0,") and row["texts"][0].endswith(" de 1"), row
    shoot(page, "elegir-b-rechazo")

    # δ where the budget has one; and a loop of 10 000 releases does not flood the page
    page.evaluate("""() => { window.__budgetMessages = 0;
        window.deck.runtime.worker.addEventListener('message',
            (e) => { if (e.data.type === 'budget') window.__budgetMessages += 1; }); }""")
    out = run_cell(
        page,
        CHOOSE_B,
        "acc = BudgetAccountant(10_000.0, 1e-5)\n"
        "acc.spend(0.0, 5e-6)\n"
        "for i in range(10_000):\n"
        "    acc.spend(1.0)\n"
        "print('listo')\n",
    )
    assert out["state"] == "done" and "listo" in out["stdout"], out
    [row] = meter(page, CHOOSE_B)["rows"]
    assert row["name"] == "acc" and row["texts"] == ["ε: 10.000 de 10.000", "δ: 5·10⁻⁶ de 10⁻⁵"], row
    assert row["fills"] == [100, 50]
    assert 1 <= page.evaluate("window.__budgetMessages") < 1000

    # the deck keeps working: the authored code runs again, and so does another slide's cell
    reset_cell(page, cell_index(page, CHOOSE_B))
    out = run_cell(page, CHOOSE_B)
    assert out["state"] == "done" and meter(page, CHOOSE_B)["rows"][0]["refused"] is None
    other = run_cell(page, "post-procesamiento")
    assert other["state"] == "done" and meter(page, "post-procesamiento") is None
    go_to_slide(page, CHOOSE_B)
    assert page.locator(CELL.format(CHOOSE_B) + " .out-budget").is_visible()
    assert not page.errors, page.errors
