"""The deck's cells under CPython, through the real cell runner, and the seed's claims.

The prelude runs once; then every cell runs on its own, in a namespace reset to what the
prelude left (a presenter may jump straight to any slide). Each claim of the author's seed
(/work/shared/seed/privacidad-diferencial.txt) that a slide computes is read back from what the
cell printed, with tolerances for the noise, which is fresh on every run.
"""

from __future__ import annotations

import re

import pytest

from tests.support.deck_text import (
    DRAWS,
    not_spanish_numbers,
    number_after,
    spanish_number,
    tradeoff_curves,
)

# The slide titles of the seed, in order (privacidad-diferencial.txt, from the title slide to
# "Referencias"); the deck must show exactly these.
SEED_TITLES = [
    "Privacidad Diferencial",
    "Hoja de ruta",
    "El dato de partida",
    "Los agregados no son anónimos",
    "1 · Privacidad diferencial",
    "La intuición: negación plausible",
    "La definición",
    r"¿Qué tan grande es $e^{\varepsilon}$?",
    "El mecanismo de Laplace",
    r"$\varepsilon$ determina la dispersión",  # the seed says "la sensibilidad": a slip
    "¿Neutraliza el ataque diferencial?",
    "Pregunta",
    "2 · Propiedades de la privacidad diferencial",
    "Por qué una definición no basta",
    "Post-procesamiento",
    "Composición secuencial",
    "El ruido no se acumula: se cancela",
    "Composición paralela",
    "El histograma privado",
    "3 · Sensibilidad",
    "¿Cuánto ruido es suficiente?",
    "Conteos: sensibilidad 1",
    "Sumas: el problema",
    "La solución: recortar (clipping)",
    "Encontrar el codo",
    "Elegir $b$ sin mirar los datos",
    "Promedios: dos consultas, no una",
    "El espejismo de la sensibilidad local",
    "4 · Privacidad diferencial aproximada",
    "Por qué relajar la definición",
    "La definición",
    r"La regla práctica sobre $\delta$",
    "Sensibilidad $L_1$ y $L_2$",
    "El mecanismo Gaussiano: definición",
    "El mecanismo Gaussiano en código",
    "Laplace contra Gauss: escalar",
    "Laplace contra Gauss: vectorial",
    "Composición avanzada",
    "Variantes",
    "Rényi DP: componer sin pérdida",
    "Las tres contabilidades, lado a lado",
    "Cuánto se gana",
    "5 · Aprendizaje automático",
    "El problema",
    "Dónde vive la información privada",
    "Recortar gradientes",
    "Descenso de gradiente privado",
    "El compromiso privacidad–utilidad",
    "El costo de iterar",
    "DP-SGD en la práctica",
    "Las cinco ideas en una página",
    "Lo que no cubrimos",
    "Referencias",
]


def out(ran, cell_id: str) -> str:
    return ran[cell_id]["stdout"]


# --- the deck as a whole ------------------------------------------------------------------


def lecture_slides(deck):
    """The seed's slides: everything up to "Referencias" except the deck's own exercises
    (``kind: exercise``, placed after the section each practises) and polls (``kind: poll``,
    where the hall takes part); what follows the references is the deck's appendix."""
    titles = [s.title for s in deck.slides]
    end = titles.index("Referencias") + 1
    return [s for s in deck.slides[:end] if s.kind not in ("exercise", "poll")]


def test_titles_are_the_seeds_in_order(deck):
    assert [s.title for s in lecture_slides(deck)] == SEED_TITLES


# Seed slide text that must be on its slide (once moved to the notes for lack of space).
SEED_ON_SLIDE = {
    "Los agregados no son anónimos": "Dos agregados, restados, reconstruyen un dato individual.",
    "Composición avanzada": "La relajación también mejora la contabilidad del presupuesto.",
    # these two fit 1280×720 with a slightly tighter spacing (static/css/deck.css)
    "La definición": "La desigualdad se puede expresar de forma equivalente como: el valor "
    "absoluto de la diferencia logarítmica de las probabilidades es menor o "
    "igual a $\\varepsilon$.",
    "Rényi DP: componer sin pérdida": "**zCDP** es el caso particular en que la cota crece "
    "lineal en $\\alpha$: un único parámetro resume toda la "
    "familia.",
    "El costo de iterar": "el número de iteraciones pasa de ser un detalle de implementación a "
    "ser un hiperparámetro de privacidad. Y ajustarlo mirando los datos "
    "también cuesta presupuesto.",
}


def test_seed_text_is_on_its_slide_not_only_in_the_notes(deck):
    for title, text in SEED_ON_SLIDE.items():
        slide = next(s for s in deck.slides if s.title == title)  # the first "La definición"
        assert text in " ".join(slide.body.split()), (title, text)


def test_every_slide_has_speaker_notes(deck):
    missing = [f"{s.index} {s.title}" for s in deck.slides if not s.notes.strip()]
    assert not missing, missing


def test_code_slides_suggest_a_live_edit(deck):
    for s in deck.slides:
        if s.code:
            assert "en vivo" in s.notes, f"{s.index} {s.title}: no live edit in the notes"


def test_prelude_does_not_import_matplotlib(deck):
    assert "matplotlib" not in deck.prelude and "plots" not in deck.prelude


def test_every_cell_runs_on_its_own_without_error(ran):
    failed = {cid: o["result"]["error"]["traceback"] for cid, o in ran.items() if not o["result"]["ok"]}
    assert not failed, "\n\n".join(f"{cid}:\n{tb}" for cid, tb in failed.items())


def test_no_cell_warns(ran):
    noisy = {cid: o["stderr"] for cid, o in ran.items() if o["stderr"].strip()}
    assert not noisy, noisy


def test_cells_that_draw_show_a_figure_with_spanish_labels(ran):
    for cid, o in ran.items():
        if DRAWS.search(o["slide"].code):
            assert len(o["figures"]) >= 1, f"{cid} drew no figure"
            for fig in o["figures"]:
                assert "eje x:" in fig["alt"] and "eje y:" in fig["alt"], (cid, fig["alt"])
        else:
            assert not o["figures"], f"{cid} left a figure open"


def test_numbers_are_printed_the_spanish_way(ran):
    # '5,164,200' reads as five to a Spanish-speaking audience; '0.5' is not how it writes 0,5
    bad = {cid: not_spanish_numbers(o["stdout"]) for cid, o in ran.items()}
    bad = {cid: tokens for cid, tokens in bad.items() if tokens}
    assert not bad, bad


def test_the_spanish_number_check_itself():
    assert not_spanish_numbers("5,164,200") and not_spanish_numbers("ε = 0.5")
    assert not_spanish_numbers("e^10 = 22026.5") and not_spanish_numbers("n = 50000")
    assert not not_spanish_numbers("5.164.200 personas, 0,833; ε = 2; [0,26  -0,07]; 23,7 %")


def test_every_cell_shows_something(ran):
    for cid, o in ran.items():
        assert o["stdout"].strip() or o["figures"] or o["result"].get("value"), cid


def test_cells_are_short(ran):
    for cid, o in ran.items():
        lines = o["slide"].code.strip().splitlines()
        assert len(lines) <= 17, f"{cid}: {len(lines)} lines"


def test_cells_call_dplab_not_their_own_noise(ran):
    for cid, o in ran.items():
        code = o["slide"].code
        assert not re.search(r"\.(laplace|normal|exponential)\(", code), (
            f"{cid} draws its own noise; DP logic belongs in dplab"
        )


# --- chapter 0-1 ------------------------------------------------------------------------


def test_census_has_5000_people(ran):
    assert out(ran, "el-dato-de-partida").startswith("5.000 personas")


def test_the_differential_attack_reveals_karen_exactly(ran):
    text = out(ran, "los-agregados-no-son-anonimos")
    difference = number_after(text, "Diferencia:")
    karen = number_after(text, "Dato real de Karen:")
    assert difference == karen == 1


def test_e_to_the_epsilon(ran):
    text = out(ran, "que-tan-grande-es-e-varepsilon")
    assert number_after(text, "e^1 =") < 3  # ε ≤ 1: a factor under 3, strong
    assert number_after(text, "e^10 =") > 20_000  # ε ≈ 10: weak


def test_smaller_epsilon_wider_spread(ran):
    text = out(ran, "varepsilon-determina-la-dispersion")
    spread = {eps: number_after(text, f"ε = {eps}: desv.") for eps in ("0,1", "0,5", "2")}
    assert spread["0,1"] > spread["0,5"] > spread["2"]
    for eps, sd in spread.items():  # Laplace(1/ε) has standard deviation √2/ε
        assert sd == pytest.approx(2**0.5 / spanish_number(eps), rel=0.15)


def test_noise_buries_the_attack_signal(ran):
    text = out(ran, "neutraliza-el-ataque-diferencial")
    assert number_after(text, "señal:") == 1
    # the difference of two Lap(1/0.5) draws: standard deviation √2 · (√2/0.5) = 4
    assert number_after(text, "desviación") == pytest.approx(4.0, abs=0.5)


# --- chapter 2 ----------------------------------------------------------------------------


def test_post_processing_publishes_a_clean_count(ran):
    published = number_after(out(ran, "post-procesamiento"), "publicado:")
    assert published >= 0 and published == int(published)


def test_sequential_composition_adds_budgets(ran):
    text = out(ran, "composicion-secuencial")
    assert "ε gastado: 1 = 1" in text
    assert "¿cabe una tercera? False" in text


def test_error_falls_as_one_over_sqrt_k(ran):
    slope = number_after(out(ran, "el-ruido-no-se-acumula-se-cancela"), "pendiente log-log:")
    assert -0.6 < slope < -0.4


def test_private_histogram_noise_is_a_few_people(ran):
    # Lap(1/0.5) on 16 bars: the worst bar is off by a few people (P(> 20) < 1e-3)
    assert number_after(out(ran, "el-histograma-privado"), "error máximo por barra:") < 20


# --- chapter 3 ----------------------------------------------------------------------------


def test_count_noise_does_not_grow_with_n(ran):
    rows = re.findall(
        r"n =\s*([\d.]+): conteo\s+([\d.]+)\s+error\s+([\d,]+)\s+relativo\s+([\d,]+) %",
        out(ran, "conteos-sensibilidad-1"),
    )
    assert len(rows) == 4
    errors = [spanish_number(r[2]) for r in rows]
    relative = [spanish_number(r[3]) for r in rows]
    assert all(7 < e < 13 for e in errors), errors  # 1/ε = 10, whatever n
    assert relative == sorted(relative, reverse=True) and relative[-1] < 0.5


def test_one_person_moves_an_unbounded_sum_arbitrarily(ran):
    assert number_after(out(ran, "sumas-el-problema"), "movió la suma en") == 1_000_000_000


def test_clipping_bounds_the_sensitivity_by_b(ran):
    assert number_after(out(ran, "la-solucion-recortar-clipping"), "mueve la suma recortada en") == 10_000


def test_the_clipping_error_has_an_interior_minimum(ran):
    b = number_after(out(ran, "encontrar-el-codo"), "b con menor error total:")
    assert 1e3 < b < 1e6  # the grid runs from 1e2 to 1e7


def test_choosing_b_is_paid_for(ran):
    text = out(ran, "elegir-b-sin-mirar-los-datos")
    spent_on_b = number_after(text, "(ε =")
    total = number_after(text, "ε total:")
    assert 0 < spent_on_b <= 0.5 and total == pytest.approx(1.0)


def test_private_mean_is_close(ran):
    text = out(ran, "promedios-dos-consultas-no-una")
    real = number_after(text, "real:")
    assert abs(number_after(text, "promedio privado:") - real) < 1
    assert abs(number_after(text, "con private_mean:") - real) < 1


# --- chapter 4 ----------------------------------------------------------------------------


def test_gaussian_price_factor(ran):
    factor = number_after(out(ran, "el-mecanismo-gaussiano-en-codigo"), "σ·ε/Δ₂ =")
    assert factor == pytest.approx(4.8, abs=0.05)  # √(2 ln(1.25/1e-5)) = 4.84


def test_laplace_concentrates_more_mass_near_zero(ran):
    text = out(ran, "laplace-contra-gauss-escalar")
    laplace, gauss = re.search(r"Laplace (\d+) %, Gauss (\d+) %", text).groups()
    assert int(laplace) > 2 * int(gauss)


def test_gauss_wins_from_about_12_components(ran):
    k = number_after(out(ran, "laplace-contra-gauss-vectorial"), "Gauss gana desde k =")
    assert 11 <= k <= 13


def test_advanced_composition_only_pays_for_large_k(ran):
    k = number_after(out(ran, "composicion-avanzada"), "la avanzada gana desde k =")
    assert k >= 50


def test_advanced_composition_is_drawn_only_where_it_holds(ran):
    # 2ε√(2k ln(1/δ')) holds while ε ≤ ln(1 + √(2 ln(1/δ')/k)): for ε = 0,1, δ' = 1e-5, k ≤ 2081
    from dplab import advanced_composition_max_epsilon

    o = ran["composicion-avanzada"]
    k_max = number_after(o["stdout"], "la fórmula vale para k ≤")
    assert advanced_composition_max_epsilon(k_max, 1e-5) >= 0.1
    assert advanced_composition_max_epsilon(k_max + 1, 1e-5) < 0.1
    assert r"\ln\bigl(1 + \sqrt{2\ln(1/\delta')/k}\bigr)" in o["slide"].body


def test_rdp_accounting_gain(ran):
    text = out(ran, "cuanto-se-gana")
    sequential = number_after(text, "secuencial: ε =")
    advanced = number_after(text, "avanzada:   ε =")
    rdp = number_after(text, "Rényi DP:   ε =")
    assert sequential == pytest.approx(3236, abs=1)
    assert rdp == pytest.approx(36, abs=1)
    assert rdp < advanced < sequential


# --- chapter 5 ----------------------------------------------------------------------------


def _baselines(ran):
    text = out(ran, "el-problema")
    return (
        number_after(text, "exactitud de la clase mayoritaria:"),
        number_after(text, "exactitud del modelo no privado:"),
    )


def test_the_learning_problem_beats_the_majority(ran):
    majority, nonprivate = _baselines(ran)
    assert nonprivate > majority + 0.05


def test_gradient_is_a_sum_over_people(ran):
    text = out(ran, "donde-vive-la-informacion-privada")
    grad = re.search(r"gradient\(theta, X, y\): \[([^\]]+)\]", text).group(1).split()
    assert len(grad) == 3
    summed = re.search(r"suma de filas / n:\s+\[([^\]]+)\]", text).group(1).split()
    assert grad == summed


def test_gradient_clipping_bounds_the_norm(ran):
    text = out(ran, "recortar-gradientes")
    before, after = re.search(r"norma máxima: ([\d,]+) → ([\d,]+)", text).groups()
    assert spanish_number(before) > 1.0 >= spanish_number(after)


def test_noisy_gradient_descent_at_epsilon_1(ran):
    _, nonprivate = _baselines(ran)
    accuracy = number_after(out(ran, "descenso-de-gradiente-privado"), "exactitud privada (ε = 1):")
    assert accuracy == pytest.approx(nonprivate, abs=0.02)


# The thresholds vary from run to run (20 trainings per point): over 150 runs under CPython,
# n = 5 000 gave 0,017-0,042 and n = 1 000 gave 0,096-0,281, accuracy at ε = 1 0,831-0,832 and
# 0,818-0,828 (non-private 0,833). The bounds below sit about twice outside those ranges.


def test_above_epsilon_1_privacy_is_almost_free(ran):
    _, nonprivate = _baselines(ran)
    for n, (_, top, acc) in tradeoff_curves(out(ran, "el-compromiso-privacidad-utilidad")).items():
        assert top == 1
        assert acc == pytest.approx(nonprivate, abs=0.03), n


def test_with_a_thousand_people_the_model_collapses_below_02(ran):
    """The seed's sentence, in the regime where it holds: trained on 1 000 people the model
    reaches the majority line only around ε ≈ 0,2 (below it, it collapses)."""
    e0, _, _ = tradeoff_curves(out(ran, "el-compromiso-privacidad-utilidad"))[1000]
    assert 0.05 <= e0 <= 0.5


def test_the_whole_census_collapses_only_near_003(ran):
    """With all 5 000 people the averaged gradient's noise is five times smaller: the
    threshold falls to ε ≈ 0,03 (the mean of 40 runs: test_deck_claims), several times below the
    thousand-person one."""
    curves = tradeoff_curves(out(ran, "el-compromiso-privacidad-utilidad"))
    e0 = curves[5000][0]
    assert 0.006 <= e0 <= 0.08
    assert curves[1000][0] > 1.5 * e0


def test_iterating_has_an_interior_optimum(ran):
    best = number_after(out(ran, "el-costo-de-iterar"), "mejor T:")
    assert 1 < best < 100  # the grid runs from T = 1 to T = 100


def test_the_education_histogram_has_one_integer_tick_per_level(deck):
    """Issue 33, item 20: the levels are 1…16, and the axis said «2,5 / 7,5»."""
    from dpdeck.build.cellrun import Session

    slide = next(s for s in deck.slides if s.title == "El histograma privado")
    session = Session(deck.prelude)
    run = session.run(slide.code + "\nprint('ticks:', [float(t) for t in ax.get_xticks()])", slide.id)
    assert run.result["ok"], run.result
    ticks = eval(run.stdout.split("ticks:", 1)[1])  # a list of floats, printed by Python itself
    assert ticks == [float(k) for k in range(1, 17)], ticks
