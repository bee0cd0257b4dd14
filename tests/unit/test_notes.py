"""The speaker notes tell the truth: every number a code slide's notes quote is accounted for.

The cells run under CPython as in test_deck_cells.py (its fixtures, the real cell runner), and
so do the slide's suggested edits (``try:``, as in test_try_edits.py). A number in the notes
must be one of:

* a literal of the slide (its code, text, sliders or suggested edits): "cambie `0.5` por `5`";
* within ``REL_TOL`` of a number the cell prints, authored or after one of its edits (the
  notes quote results: "la desviación del ruido es 4"; noisy results are quoted rounded, and
  the tolerance holds with overwhelming probability for the noise of these cells);
* listed in ``ALLOWED`` below for that slide, with the reason it is neither.

Numbers are read the way the audience reads them: "22.000" and "0{,}1" in the prose and the
formulas (Spanish), "1e-5" and "10_000" inside `code` (Python). A percentage may match a
printed fraction ("76 %" and 0,763).
"""

from __future__ import annotations

import re

import pytest

from tests.support.deck_text import spanish_number
from tests.support.edit_claims import run_edits

REL_TOL = 0.10  # a quoted result is the printed one, rounded ("unos 1400" for 1.443,7)

# Numbers in a code slide's notes that are neither a literal of the slide nor printed by it.
ALLOWED = {
    "que-tan-grande-es-e-varepsilon": {
        73: "the green band's edge read off the figure: e·0,5/(e·0,5 + 0,5) = 0,73",
        88: "an attribute's bound there, group privacy at 2ε: e²·0,5/(e²·0,5 + 0,5) = 0,88",
        2014: "citation year (Dwork y Roth)",
    },
    "recortar-gradientes": {
        17: "the census's age domain [17, 90] (test_dplab_learning checks the 3,51 it gives)",
        90: "the census's age domain [17, 90]: Adult top-codes age at 90",
    },
    "el-mecanismo-de-laplace": {
        10: "the noise scale 1/ε, the result of the formula it is quoted in: $1/0{,}1 = 10$",
    },
    "encontrar-el-codo": {
        99_999: "the top-coded capital gain of Adult, which the census keeps",
    },
    "laplace-contra-gauss-vectorial": {
        1.25: "the constant in that formula (the classic Gaussian mechanism's)",
    },
    "sumas-el-problema": {
        200: "1.005.164.200 / 5.164.200 ≈ 195: 'la multiplica por 200'",
    },
    "el-compromiso-privacidad-utilidad": {
        100: "the book's Adult has about 100 features",
        0.03: "the threshold at n = 5 000, the mean of 40 runs (test_deck_claims recomputes it); "
        "one run prints anything from 0,017 to 0,042",
    },
    "el-costo-de-iterar": {
        76: "the majority class's accuracy, printed on 'El problema' (0,763)",
    },
    "lo-que-no-cubrimos": {
        2012: "citation year (Mironov)",
        2020: "citation year (Canonne, Kamath y Steinke)",
        2: "the exponential mechanism's exponent ε·conteo/2",
    },
    "encuesta-copiar": {
        1965: "citation year (Warner)",
        13: "Near & Abuah's chapter on local DP",
        50: "the poll's stated prior (its `prior`, 0,5 by default), which the poll slide shows",
        75: "the posterior bound the poll slide shows: rr_posterior_bound(0.5, ln 3) = 0,75",
        90: "two «sí» of one device (two rounds, 2ε = ln 9): rr_posterior_bound(0.5, 2 ln 3) = 0,9",
    },
    "apendice-la-auditoria-en-vivo": {
        0.1: "1 − confidence (0.999): the chance that a correct bound exceeds ε, in %",
    },
}

# a formula's "2 \times 10^{-4}" or "10^{-5}" is one number
POWER = re.compile(r"(?:(\d+(?:,\d+)?)\s*\\times\s*)?10\^\{?(−|-)?(\d+)\}?")
PYTHON_NUMBER = re.compile(r"(?<![\w.])\d[\d_]*(?:\.\d+)?(?:e-?\d+)?(?![\w])")
SPANISH = re.compile(r"(?<![\w.,])\d+(?:\.\d{3})*(?:,\d+)?(?![\w])")
CODE_SPAN = re.compile(r"`([^`]*)`")


def python_numbers(text: str) -> list[float]:
    return [float(t.replace("_", "")) for t in PYTHON_NUMBER.findall(text)]


def spanish_numbers(text: str) -> list[float]:
    """Numbers as the audience reads them, powers of ten in formulas included."""
    text = text.replace("{,}", ",")
    found = []

    def power(m):
        mantissa = spanish_number(m.group(1)) if m.group(1) else 1.0
        found.append(mantissa * 10.0 ** (-int(m.group(3)) if m.group(2) else int(m.group(3))))
        return " "

    text = POWER.sub(power, text)
    return found + [spanish_number(t) for t in SPANISH.findall(text)]


def note_numbers(notes: str) -> list[tuple[str, float, bool]]:
    """(token, value, is_percent) for each number in ``notes``: Python inside `code`, else Spanish."""
    found = []
    for span in CODE_SPAN.findall(notes):
        found += [(span, v, False) for v in python_numbers(span)]
    prose = CODE_SPAN.sub(" ", notes).replace("{,}", ",")
    for m in POWER.finditer(prose):
        mantissa = spanish_number(m.group(1)) if m.group(1) else 1.0
        exponent = -int(m.group(3)) if m.group(2) else int(m.group(3))
        found.append((m.group(0), mantissa * 10.0**exponent, False))
    prose = POWER.sub(" ", prose)
    for m in re.finditer(SPANISH.pattern + r"(\s*%|\s+millones)?", prose):
        token = m.group(0)
        value = spanish_number(token.removesuffix("millones").rstrip(" %"))
        found.append((token, value * (1e6 if token.endswith("millones") else 1), token.endswith("%")))
    return found


def literals(slide) -> set[float]:
    """Every number written in the slide itself: code, text, sliders, suggested edits."""
    texts = [slide.code or "", slide.body or "", slide.title or ""]
    texts += [repr(p) for p in (slide.params or [])]
    for edit in slide.tries:
        texts += [edit.label, edit.old, edit.new]
    found = set()
    for text in texts:
        found.update(python_numbers(text))
        found.update(spanish_numbers(text))
    return found


def close(a: float, b: float) -> bool:
    return abs(a - b) <= REL_TOL * max(abs(a), abs(b)) + 1e-12


@pytest.fixture(scope="module")
def edited(deck):
    """{(slide id, label): what the edited cell showed}."""
    result = run_edits(deck)
    return result[0] if isinstance(result, tuple) else result  # (edited, authored)


def unaccounted(deck, ran, edited):
    """({slide id: [number token, ...]} of the numbers in code slides' notes nobody accounts
    for, {(slide id, allowed number)} of the allowlist entries that were needed)."""
    missing, used = {}, set()  # used: the allowlist entries a number needed
    for slide in deck.slides:
        if not slide.code:
            continue
        shown = ran[slide.id]["stdout"]
        shown += "".join(o["stdout"] for (sid, _), o in edited.items() if sid == slide.id)
        printed = spanish_numbers(shown)
        known = literals(slide)
        allowed = ALLOWED.get(slide.id, {})
        for token, value, percent in note_numbers(slide.notes):
            candidates = [value, -value] + ([value / 100] if percent else [])
            if any(c in known for c in candidates):
                continue
            if any(close(c, p) for c in candidates for p in printed):
                continue
            match = [a for a in allowed if abs(value - a) <= 1e-9 * abs(a)]
            if match:
                used.add((slide.id, match[0]))
                continue
            missing.setdefault(slide.id, []).append(token.strip())
    return missing, used


def test_every_number_in_the_notes_is_accounted_for(deck, ran, edited):
    missing, _ = unaccounted(deck, ran, edited)
    assert not missing, (
        "numbers in the notes that the slide neither writes nor prints "
        f"(fix the note, or allow it in ALLOWED with a reason): {missing}"
    )


def test_the_allowlist_is_needed(deck):
    """An allowed number that the notes no longer quote, or that the slide now writes, leaves
    the list. (Whether a cell happens to print it too is left to chance: noisy outputs.)"""
    by_id = {s.id: s for s in deck.slides}
    stale = []
    for slide_id, allowed in ALLOWED.items():
        slide = by_id.get(slide_id)
        quoted = [v for _, v, _ in note_numbers(slide.notes)] if slide else []
        for value in allowed:
            if not any(abs(q - value) <= 1e-9 * abs(value) for q in quoted) or value in literals(slide):
                stale.append((slide_id, value))
    assert not stale, f"allowlist entries no note needs: {stale}"


def test_the_number_reader_itself():
    notes = (
        "de $1/0{,}1 = 10$ personas, 22.000 veces, a priori 50 %; $\\delta = 10^{-5}$, "
        "$2 \\times 10^{-4}$; cambie `delta = 1e-5` por `1e-10` o `10_000`; unos 5 millones"
    )
    values = {round(v, 12) for _, v, _ in note_numbers(notes)}
    assert values == {1, 0.1, 10, 22000, 50, 1e-5, 2e-4, 1e-10, 10000, 5e6}, values
    assert [p for _, _, p in note_numbers("el 76 %, un 83%")] == [True, True]


WORDS = {
    r"\bslides?\b": "'diapositiva', not 'slide'",
    r"\bprecisi[oó]n\b": "'exactitud' for accuracy ('precisión' is another metric)",
}


def test_notes_say_diapositiva_and_exactitud(deck):
    bad = [(s.id, why) for s in deck.slides for word, why in WORDS.items() if re.search(word, s.notes, re.I)]
    assert not bad, bad


# «…» in a code slide's notes names one of its buttons (a ``try:`` label); these quote instead.
QUOTES = {"$\\varepsilon$ determina la sensibilidad"}  # the seed's title, 'ε determina la dispersión'


def test_live_edits_in_the_notes_are_the_slides_buttons(deck):
    """A note proposes a live edit by its button (tested in test_try_edits.py), not in prose
    the presenter would type and that nobody ran."""
    titles = {s.title for s in deck.slides}
    for slide in deck.slides:
        if not slide.tries:
            continue
        labels = {t.label for t in slide.tries}
        named = set(re.findall(r"«([^»]+)»", slide.notes))
        assert named & labels, f"{slide.id}: the notes name none of its buttons {sorted(labels)}"
        unknown = named - labels - titles - QUOTES
        assert not unknown, f"{slide.id}: «{unknown}» is not a button of the slide"


def test_the_belief_bounds_quoted_on_que_tan_grande():
    """73 % (ε = 1, what the figure draws) and 88 % (an attribute of Karen: 2ε, group privacy)."""
    import math

    def bound(eps, prior=0.5):
        return math.exp(eps) * prior / (math.exp(eps) * prior + 1 - prior)

    assert round(100 * bound(1)) == 73 and round(100 * bound(2 * 1)) == 88


def test_the_belief_bounds_quoted_on_the_poll():
    """«La sala responde»: at ε = ln 3 (the truth 3 times in 4) a «sí» takes a prior of 50 % to at
    most 75 %, and randomized response reaches it; two «sí» of one device (a new round: 2ε) to
    90 %, the bound at 2ε, which is also what an attribute costs on «¿Qué tan grande es e^ε?»."""
    import math

    import dplab

    eps = math.log(3)
    p, q = dplab.rr_probabilities(eps)
    assert p == pytest.approx(3 / 4) and p / q == pytest.approx(math.exp(eps))
    one = 0.5 * p / (0.5 * p + 0.5 * q)  # Bayes after one «sí» sent by randomized response
    two = 0.5 * p**2 / (0.5 * p**2 + 0.5 * q**2)  # after two independent «sí»
    assert one == pytest.approx(dplab.rr_posterior_bound(0.5, eps)) and round(100 * one) == 75
    assert two == pytest.approx(dplab.rr_posterior_bound(0.5, 2 * eps)) and round(100 * two) == 90


def test_the_hall_counts_quoted_on_the_first_exercise(deck):
    """«Ejercicio · La escala de Laplace» says what the hall's exercise counts cost: ε = 0,5 a
    count, from a budget of 4 per hall session (a new session starts at 0, so two cost a student
    twice: issue 47 item 5), with a browser profile as the unit (m counts, m·ε: item 3): the hall
    server's own constants (release.py), as docs/live-polls.md's tables say them (8 counts)."""
    from dpdeck.hall.release import HALL_BUDGET, RELEASE_EPSILON
    from tests.support.paths import ROOT

    notes = next(s.notes for s in deck.slides if s.id == "ejercicio-escala-laplace")
    line = " ".join(next(paragraph for paragraph in notes.split("\n\n") if "✓" in paragraph).split())
    assert "Laplace discreto" in line and "curador de confianza" in line and "cuentan dos veces" in line
    assert (
        "para toda la clase" not in line and "por sesión de la sala: una sesión nueva empieza de cero" in line
    )
    assert "la unidad de privacidad es el perfil del navegador" in line and "paga m veces" in line
    assert [v for _, v, _ in note_numbers(line)] == [RELEASE_EPSILON, HALL_BUDGET]
    docs = " ".join((ROOT / "docs" / "live-polls.md").read_text(encoding="utf-8").split())
    assert "ε = 0,5 each new draw, from a budget of ε = 4" in docs and "8 counts" in docs
    assert HALL_BUDGET / RELEASE_EPSILON == 8  # and a student with two devices counts twice: "2 × 0,5 = 1"
    assert "2 × 0,5 = 1" in docs and 2 * 0.5 == 1


# --- numbers quoted in the precision asides of content slides (no cell prints them) ------------


def test_the_asides_numbers_are_computed():
    """«DP-SGD en la práctica»: amplification ε' = ln(1 + q(e^ε − 1)) at ε = 5, q = 0,01 is 0,91,
    not qε = 0,05. «La definición» (ch. 4): at the analytic σ for (0,5; 10⁻⁵), about 7,03, the
    Gaussian's privacy loss L ~ N(μ, 2μ), μ = 1/(2σ²), exceeds 0,5 with probability 2,9·10⁻⁴,
    29 δ. «La regla práctica»: at n = 50.000, 1/n is twice 10⁻⁵; at 5.000, twenty times."""
    import math

    import dplab

    assert f"{math.log(1 + 0.01 * (math.exp(5) - 1)):.2f}" == "0.91" and 0.01 * 5 == 0.05
    sigma = dplab.analytic_gaussian_sigma(1, 0.5, 1e-5)
    mu = 1 / (2 * sigma**2)
    tail = 0.5 * math.erfc((0.5 - mu) / math.sqrt(2 * mu) / math.sqrt(2))
    assert f"{sigma:.2f}" == "7.03" and f"{tail:.1e}" == "2.9e-04" and round(tail / 1e-5) == 29
    assert (1 / 50_000) / 1e-5 == pytest.approx(2) and (1 / 5_000) / 1e-5 == pytest.approx(20)


def test_rdp_against_pld_for_the_exercise_dpsgd():
    """«Rényi DP: componer sin pérdida»: for the exercise's DP-SGD (q = 0,01, z = 1,1, 300 steps,
    δ = 10⁻⁵) RDP gives 1,150 (dplab and dp_accounting agree) and the PLD accountant 0,858."""
    import dplab

    dpa = pytest.importorskip("dp_accounting")
    from dp_accounting.pld import pld_privacy_accountant

    event = dpa.SelfComposedDpEvent(dpa.PoissonSampledDpEvent(0.01, dpa.GaussianDpEvent(1.1)), 300)
    rdp = dpa.rdp.RdpAccountant()
    rdp.compose(event)
    pld = pld_privacy_accountant.PLDAccountant(value_discretization_interval=1e-4)
    pld.compose(event)
    assert f"{rdp.get_epsilon(1e-5):.3f}" == f"{dplab.dpsgd_epsilon(0.01, 1.1, 300, 1e-5):.3f}" == "1.150"
    assert f"{pld.get_epsilon(1e-5):.3f}" == "0.858"
