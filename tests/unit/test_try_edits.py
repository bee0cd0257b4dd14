"""Every suggested live edit of the deck (a code slide's ``try:``) under CPython.

The speaker view offers each edit as a button that applies it to the authored code in the main
window and runs it; here each edited cell runs the same way the deck's own cells do in
test_deck_cells.py (the real cell runner, after the prelude, in a namespace reset to what the
prelude left), and must run without error or warning, draw a figure when it draws, and print
its numbers the Spanish way. Claims a cell prints are computed, so they stay true after an edit;
the checks in EDIT_CLAIMS read back the ones an edit is meant to show.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from deckbuild.schema import load_deck

from test_deck_cells import (DRAWS, _load_runner, not_spanish_numbers, number_after,
                             spanish_number)

ROOT = Path(__file__).resolve().parents[2]


def run_edits(deck) -> dict[tuple[str, str], dict]:
    """Run the prelude, then every ``try:`` edit of every code slide on its own."""
    runner = _load_runner()
    result = runner.run_cell(deck.prelude, "__prelude__", lambda k, p: None)
    assert result["ok"], result.get("error")
    runner.prepare_matplotlib()
    after_prelude = dict(runner.NAMESPACE)
    outputs = {}
    for slide in deck.slides:
        for edit in slide.tries:
            runner.NAMESPACE.clear()
            runner.NAMESPACE.update(after_prelude)
            code = edit.apply(slide.code)
            shown = []
            result = runner.run_cell(code, slide.id, lambda k, p: shown.append((k, p)))
            outputs[(slide.id, edit.label)] = {
                "result": result, "code": code, "slide": slide,
                "stdout": "".join(p for k, p in shown if k == "stdout"),
                "stderr": "".join(p for k, p in shown if k == "stderr"),
                "figures": [p for k, p in shown if k == "figure"],
            }
    return outputs


@pytest.fixture(scope="module")
def deck():
    return load_deck(ROOT / "deck" / "deck.yaml")


@pytest.fixture(scope="module")
def edited(deck):
    return run_edits(deck)


def test_every_code_slide_suggests_an_edit(deck):
    missing = [f"{s.index} {s.title}" for s in deck.slides if s.code and not s.tries]
    assert not missing, missing


def test_every_edit_runs_without_error(edited):
    failed = {key: o["result"]["error"]["traceback"] for key, o in edited.items()
              if not o["result"]["ok"]}
    assert not failed, "\n\n".join(f"{key}:\n{tb}" for key, tb in failed.items())


def test_no_edit_warns(edited):
    noisy = {key: o["stderr"] for key, o in edited.items() if o["stderr"].strip()}
    assert not noisy, noisy


def test_edits_show_something_and_draw_when_the_cell_draws(edited):
    for key, o in edited.items():
        assert o["stdout"].strip() or o["figures"] or o["result"].get("value"), key
        if DRAWS.search(o["code"]):
            assert o["figures"], f"{key} drew no figure"


def test_edits_print_numbers_the_spanish_way(edited):
    bad = {key: not_spanish_numbers(o["stdout"]) for key, o in edited.items()}
    bad = {key: tokens for key, tokens in bad.items() if tokens}
    assert not bad, bad


def test_edits_change_the_code_and_stay_short(edited):
    for key, o in edited.items():
        assert o["code"] != o["slide"].code, key
        assert len(o["code"].strip().splitlines()) <= 17, key


def test_edits_draw_no_noise_of_their_own(edited):
    for key, o in edited.items():
        assert not re.search(r"\.(laplace|normal|exponential)\(", o["code"]), key


# What a given edit is meant to show, read back from what the edited cell printed: each
# (slide id, label) → a check of its stdout. Edits not listed here are checked by the tests
# above (their printed claims are computed by the cell, so they hold whatever the edit).
def _karen_attack(text):
    difference = number_after(text, "Diferencia:")
    assert difference == number_after(text, "Dato real de Karen:") and difference > 1


def _laplace_at_1(text):
    real = number_after(text, "valor real:")
    values = [spanish_number(v) for v in re.findall(r"^([\d.]+,\d)$", text, re.M)]
    assert len(values) == 5 and all(abs(v - real) < 10 for v in values), values


def _spread(text):
    spread = {e: number_after(text, f"ε = {e}: desv.") for e in ("0,05", "0,1", "0,5", "2")}
    assert spread["0,05"] > spread["0,1"] > spread["0,5"] > spread["2"]
    for eps, sd in spread.items():
        assert sd == pytest.approx(2 ** 0.5 / spanish_number(eps), rel=0.15)


def _attack_works_at_5(text):
    assert number_after(text, "señal:") == 1
    assert number_after(text, "desviación") == pytest.approx(0.4, abs=0.1)   # √2·√2/5


def _dp_named(text):
    assert "0,1-DP" not in text and number_after(text, "publicado:") >= 0
    if "-DP" in text:
        assert "0,01-DP" in text


def _slope(text):
    assert -0.6 < number_after(text, "pendiente log-log:") < -0.4


def _counts_to_500k(text):
    rows = re.findall(r"n =\s*([\d.]+): conteo\s+[\d.]+\s+error\s+([\d,]+)", text)
    assert [spanish_number(n) for n, _ in rows] == [50, 500, 5000, 50000, 500000]
    assert all(7 < spanish_number(e) < 13 for _, e in rows)


def _advanced_at_02(text):
    from dplab import advanced_composition_max_epsilon
    k_max = number_after(text, "la fórmula vale para k ≤")
    assert advanced_composition_max_epsilon(k_max, 1e-5) >= 0.2
    assert advanced_composition_max_epsilon(k_max + 1, 1e-5) < 0.2
    assert 50 <= number_after(text, "la avanzada gana desde k =") <= k_max


def _accounting_order(text):
    sequential = number_after(text, "secuencial: ε =")
    advanced = number_after(text, "avanzada:   ε =")
    assert number_after(text, "Rényi DP:   ε =") < advanced < sequential


EDIT_CLAIMS: dict[tuple[str, str], callable] = {
    ("los-agregados-no-son-anonimos", "atacar la edad"): _karen_attack,
    ("el-mecanismo-de-laplace", "ε = 1"): _laplace_at_1,
    ("varepsilon-determina-la-dispersion", "+ ε = 0,05"): _spread,
    ("neutraliza-el-ataque-diferencial", "ε = 5"): _attack_works_at_5,
    ("post-procesamiento", "ε = 0,01"): _dp_named,
    ("composicion-secuencial", "presupuesto 1,5"):
        lambda text: "¿cabe una tercera? True" in text or pytest.fail(text),
    ("composicion-secuencial", "pedir una tercera"):
        lambda text: "rechazada (BudgetError)" in text or pytest.fail(text),
    ("el-ruido-no-se-acumula-se-cancela", "k hasta 3.000"): _slope,
    ("el-ruido-no-se-acumula-se-cancela", "ε = 0,1"): _slope,
    ("conteos-sensibilidad-1", "n = 500.000"): _counts_to_500k,
    ("sumas-el-problema", "un billón"):
        lambda text: number_after(text, "movió la suma en") == 10 ** 12 or pytest.fail(text),
    ("la-solucion-recortar-clipping", "b = 100.000"):
        lambda text: number_after(text, "recortada en") == 100_000 or pytest.fail(text),
    ("el-mecanismo-gaussiano-en-codigo", "δ = 10⁻¹⁰"):
        lambda text: number_after(text, "σ·ε/Δ₂ =") == pytest.approx(6.82, abs=0.01)
        or pytest.fail(text),
    ("laplace-contra-gauss-escalar", "ε = 0,9"):
        lambda text: (lambda l, g: int(l) > 2 * int(g) or pytest.fail(text))(
            *re.search(r"Laplace (\d+) %, Gauss (\d+) %", text).groups()),
    ("laplace-contra-gauss-vectorial", "δ = 10⁻⁹"):   # ln(1,25/δ) ≈ 20,9
        lambda text: 19 <= number_after(text, "Gauss gana desde k =") <= 24 or pytest.fail(text),
    ("composicion-avanzada", "ε = 0,2"): _advanced_at_02,
    ("composicion-avanzada", "ε = 1"):
        lambda text: ("— (nunca)" in text and number_after(text, "vale para k ≤") < 10)
        or pytest.fail(text),
    ("cuanto-se-gana", "k = 100"): _accounting_order,
    ("recortar-gradientes", "C = 0,3"):
        lambda text: spanish_number(re.search(r"→ ([\d,]+)", text).group(1)) <= 0.3
        or pytest.fail(text),
    ("descenso-de-gradiente-privado", "ε = 0,01"):
        lambda text: "(ε = 0,01)" in text or pytest.fail(text),
}


def test_edit_claims(edited):
    missing = [key for key in EDIT_CLAIMS if key not in edited]
    assert not missing, f"claims for edits the deck does not have: {missing}"
    for key, check in EDIT_CLAIMS.items():
        check(edited[key]["stdout"])
