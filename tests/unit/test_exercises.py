"""Exercises that check themselves (slide kind ``exercise``), under CPython.

Every exercise of the deck: its solution passes its own check, and its starter (the blanks
unfilled) runs without error but does not pass; common wrong answers fail with a message. All
through the real cell runner (pyodide_pkg/cellrunner) and the very program the page appends to
the student's code (dpdeck/build/exercise.py), after the deck's prelude. And the schema refuses a
broken exercise naming file, slide and field.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dpdeck.build import cellcode, exercise
from dpdeck.build.cellrun import new_session
from dpdeck.build.errors import DeckError
from dpdeck.build.schema import load_deck
from tests.support.paths import ROOT

DECK = load_deck(ROOT / "deck" / "deck.yaml")
EXERCISES = [s for s in DECK.slides if s.kind == "exercise"]

# wrong answers a student might give: (exercise id, code replacing the blanks' lines)
WRONG = {
    "ejercicio-escala-laplace": [
        # with Δf = 1, ε and Δf·ε are both 0,5: the feedback says so, without the formula (the
        # second hint gives it)
        ("epsilon = 0.5\nsensibilidad = 1\nescala = epsilon", "el mismo número que ε"),
        ("epsilon = 0.5\nsensibilidad = 1\nescala = sensibilidad * epsilon", "Δf · ε"),
        ("epsilon = 0.5\nsensibilidad = 0.5\nescala = 1", "sensibilidad"),
    ],
    "ejercicio-repartir-presupuesto": [
        (
            "presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b', 'c']\neps_cada = 0.5",
            "rechazaría la última",
        ),
        ("presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b', 'c']\neps_cada = 0.3", "sobra"),
        (
            "presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b', 'c']\neps_cada = 1 / 3",
            "Ahora gaste",
        ),
        (
            "presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b', 'c']\n"
            "eps_cada = 'un tercio'",
            "número positivo",
        ),
    ],
    "ejercicio-suma-recortada": [
        ("b = 100\nepsilon = 1.0\nsensibilidad = 1\nescala = 1", "conteo"),
        # 90 is the census's public bound («Promedios» uses it): the message must not call it
        # data-dependent without saying that this exercise assumes no public bound (issue 47)
        (
            "b = 100\nepsilon = 1.0\nsensibilidad = census['age'].max()\nescala = 90",
            "aquí suponemos que no la",
        ),
        ("b = 100\nepsilon = 1.0\nsensibilidad = b\nescala = epsilon / b", "al revés"),
        ("b = 100\nepsilon = 1.0\nsensibilidad = b\nescala = 1", "la sensibilidad está bien"),
    ],
    "ejercicio-sigma-gaussiano": [
        (
            "epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = np.sqrt(2 * np.log(1.25 / delta))",
            "sin dividir",
        ),
        (
            "epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = np.sqrt(2 * np.log(1.25 / delta)) * epsilon",
            "multiplicó",
        ),
        (
            "epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = np.sqrt(2 * np.log10(1.25 / delta)) / epsilon",
            "base 10",
        ),
        (
            "epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = np.sqrt(2 * np.log(1 / delta)) / epsilon",
            "1,25",
        ),
        ("epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = 2 * np.log(1.25 / delta) / epsilon", "raíz"),
        ("epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = 1.0", "menos ruido"),
    ],
    "ejercicio-epsilon-dpsgd": [
        ("n, lote, z, epocas, delta = 10_000, 100, 1.1, 3, 1e-5\nq = 100\npasos = 300\neps = 1.0", "q = 100"),
        ("n, lote, z, epocas, delta = 10_000, 100, 1.1, 3, 1e-5\nq = 0.01\npasos = 3\neps = 1.0", "época"),
        (
            "n, lote, z, epocas, delta = 10_000, 100, 1.1, 3, 1e-5\nq = 0.01\npasos = 300\n"
            "eps = dpsgd_epsilon(q, z, 30, delta)",
            "dpsgd_epsilon",
        ),
    ],
}


@pytest.fixture(scope="module")
def judge():
    """judge(code, slide) → (run result, verdict or None), in a namespace fresh from the prelude."""
    runner = new_session()
    result = runner.run(DECK.prelude, "__prelude__", lambda k, p: None)
    assert result["ok"], result.get("error")
    after_prelude = dict(runner.namespace)

    def run(code: str, slide) -> tuple[dict, dict | None]:
        runner.namespace.clear()
        runner.namespace.update(after_prelude)
        program = exercise.program(slide.check, slide.blanks)
        return judged(runner, code + "\n" + program, slide.id)

    return run


def test_at_least_five_exercises_one_per_lecture_chapter():
    assert len(EXERCISES) >= 5
    chapters = {Path(s.file).name[:2] for s in EXERCISES}
    assert {"01", "02", "03", "04", "05"} <= chapters
    for slide in EXERCISES:
        assert slide.title.startswith("Ejercicio · "), slide.title
        assert slide.hints and slide.blanks


@pytest.mark.parametrize("slide", EXERCISES, ids=lambda s: s.id)
def test_solution_passes_and_starter_does_not(judge, slide):
    result, verdict = judge(slide.solution, slide)
    assert result["ok"], result.get("error")
    assert verdict and verdict["ok"], verdict
    assert verdict["message"].strip()

    result, verdict = judge(slide.starter, slide)
    assert result["ok"], f"the starter must run as it is (Run all, pre-runs): {result.get('error')}"
    assert verdict and not verdict["ok"], verdict
    assert "Falta completar" in verdict["message"]


@pytest.mark.parametrize("slide", EXERCISES, ids=lambda s: s.id)
def test_solution_passes_every_time(judge, slide):
    """Checks judge a choice, never one noisy draw: the right answer passes run after run."""
    for _ in range(5):
        _, verdict = judge(slide.solution, slide)
        assert verdict["ok"], verdict


@pytest.mark.parametrize(
    "slide_id,code,expected", [(k, c, e) for k, cases in WRONG.items() for c, e in cases]
)
def test_wrong_answers_fail_with_a_message(judge, slide_id, code, expected):
    slide = next(s for s in EXERCISES if s.id == slide_id)
    result, verdict = judge(code, slide)
    assert result["ok"], result.get("error")
    assert verdict and not verdict["ok"], verdict
    assert expected in verdict["message"], verdict["message"]


# The givens edited, and the answer computed right from the edited givens: a check that judged
# against the student's copies of the givens would pass these. One (at least) per exercise.
EDITED_GIVENS = {
    "ejercicio-escala-laplace": [
        ("epsilon = 1.0\nsensibilidad = 1\nescala = sensibilidad / epsilon", "`epsilon = 0.5`"),
    ],
    "ejercicio-repartir-presupuesto": [
        (
            "presupuesto = BudgetAccountant(epsilon=3.0)\nconsultas = ['a', 'b', 'c']\neps_cada = 1.0\n"
            "for c in consultas:\n    presupuesto.spend(eps_cada, label=c)",
            "total ε = 1",
        ),
        (
            "presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b']\neps_cada = 0.5\n"
            "for c in consultas:\n    presupuesto.spend(eps_cada, label=c)",
            "tres consultas",
        ),
    ],
    "ejercicio-suma-recortada": [
        ("b = 50\nepsilon = 1.0\nsensibilidad = b\nescala = sensibilidad / epsilon", "`b = 100`"),
        ("b = 100\nepsilon = 2.0\nsensibilidad = b\nescala = sensibilidad / epsilon", "`epsilon = 1.0`"),
    ],
    "ejercicio-sigma-gaussiano": [
        (
            "epsilon, delta = 0.5, 1e-3\nsensibilidad = 1\n"
            "sigma = sensibilidad * np.sqrt(2 * np.log(1.25 / delta)) / epsilon",
            "`delta = 1e-5`",
        ),
        (
            "epsilon, delta = 0.5, 1e-5\nsensibilidad = 0.5\n"
            "sigma = sensibilidad * np.sqrt(2 * np.log(1.25 / delta)) / epsilon",
            "`sensibilidad = 1`",
        ),
    ],
    "ejercicio-epsilon-dpsgd": [
        (
            "n, lote, z, epocas, delta = 10_000, 100, 1.1, 3, 1e-3\nq = lote / n\n"
            "pasos = epocas * n // lote\neps = dpsgd_epsilon(q, z, pasos, delta)",
            "`delta = 1e-5`",
        ),
        (
            "n, lote, z, epocas, delta = 10_000, 100, 3.0, 3, 1e-5\nq = lote / n\n"
            "pasos = epocas * n // lote\neps = dpsgd_epsilon(q, z, pasos, delta)",
            "`z = 1.1`",
        ),
    ],
}

# Right answers written the way a student writes them: rounded to the precision the slide
# shows, typed as literals, or by another right route. All pass.
FAIR = {
    "ejercicio-escala-laplace": [
        "epsilon = 0.5\nsensibilidad = 1\nescala = 2",
        "epsilon = 0.5\nsensibilidad = 1\nescala = 1 / epsilon",
    ],
    "ejercicio-repartir-presupuesto": [
        "presupuesto = BudgetAccountant(epsilon=1.0)\nconsultas = ['a', 'b', 'c']\neps_cada = 1 / 3\n"
        "for c in consultas:\n    presupuesto.spend(eps_cada, label=c)",
    ],
    "ejercicio-suma-recortada": ["b = 100\nepsilon = 1.0\nsensibilidad = 100\nescala = 100"],
    "ejercicio-sigma-gaussiano": [
        "epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = " + s
        for s in [
            "9.69",
            "9.7",
            "9.689",
            "gaussian_sigma(1, 0.5, 1e-5)",
            "7.03",
            "analytic_gaussian_sigma(1, 0.5, 1e-5)",
        ]
    ],
    "ejercicio-epsilon-dpsgd": [
        "n, lote, z, epocas, delta = 10_000, 100, 1.1, 3, 1e-5\nq = 0.01\npasos = 300\neps = " + e
        for e in ["1.15", "1.1497", "dpsgd_epsilon(0.01, 1.1, 300, 1e-5)"]
    ],
}


def test_every_exercise_has_edited_givens_and_fair_answers():
    ids = {s.id for s in EXERCISES}
    assert set(EDITED_GIVENS) == ids and set(FAIR) == ids


@pytest.mark.parametrize(
    "slide_id,code,expected", [(k, c, e) for k, cases in EDITED_GIVENS.items() for c, e in cases]
)
def test_edited_givens_fail(judge, slide_id, code, expected):
    slide = next(s for s in EXERCISES if s.id == slide_id)
    result, verdict = judge(code, slide)
    assert result["ok"], result.get("error")
    assert verdict and not verdict["ok"], verdict
    assert "enunciado" in verdict["message"] and expected in verdict["message"], verdict["message"]


@pytest.mark.parametrize("slide_id,code", [(k, c) for k, cases in FAIR.items() for c in cases])
def test_fair_answers_pass(judge, slide_id, code):
    slide = next(s for s in EXERCISES if s.id == slide_id)
    result, verdict = judge(code, slide)
    assert result["ok"], result.get("error")
    assert verdict and verdict["ok"], verdict


@pytest.mark.parametrize(
    "sigma,expected,not_said",
    [
        ("8.0", "válido (análisis analítico", "no alcanza"),  # every σ ≥ 7,03 is (0,5; 10⁻⁵)-DP
        ("9.0", "válido (análisis analítico", "menos ruido"),
        ("10", "más ruido", "válido"),
        ("7.0", "menos ruido", "válido"),  # below the analytic σ: no Gaussian with it is enough
        ("5", "menos ruido", "válido"),
    ],
)
def test_sigma_feedback_tells_the_truth(judge, sigma, expected, not_said):
    slide = next(s for s in EXERCISES if s.id == "ejercicio-sigma-gaussiano")
    _, verdict = judge(f"epsilon, delta = 0.5, 1e-5\nsensibilidad = 1\nsigma = {sigma}", slide)
    assert not verdict["ok"] and expected in verdict["message"], verdict
    assert not_said not in verdict["message"], verdict


def test_the_sigma_messages_thresholds_are_the_mechanisms():
    """The check's 9,69 and 7,03 are the classic and the analytic σ of dplab, and 7,03 is the
    smallest σ that is (0,5; 10⁻⁵)-DP: the analytic Gaussian's δ(σ) crosses 10⁻⁵ there."""
    import math

    import dplab

    assert dplab.gaussian_sigma(1, 0.5, 1e-5) == pytest.approx(9.6896, abs=5e-5)
    s = dplab.analytic_gaussian_sigma(1, 0.5, 1e-5)
    assert s == pytest.approx(7.0318, abs=5e-5)

    def delta(sigma, eps=0.5):  # Balle & Wang 2018, Theorem 8 (Δ = 1)
        phi = lambda x: 0.5 * math.erfc(-x / math.sqrt(2))  # noqa: E731
        return phi(1 / (2 * sigma) - eps * sigma) - math.exp(eps) * phi(-1 / (2 * sigma) - eps * sigma)

    assert 0.9999e-5 < delta(s) <= 1e-5  # dplab rounds σ up: never below the exact one
    assert delta(8.0) < 1e-5 < delta(7.0)


def test_a_check_that_raises_or_misses_a_name_fails_in_spanish(judge):
    slide = EXERCISES[0]
    # the student deleted a name the check reads
    _, verdict = judge("epsilon = 0.5\nescala = 2", slide)
    assert not verdict["ok"] and "Falta definir `sensibilidad`" in verdict["message"]
    # a check that raises something else
    broken = type(slide)(**{**slide.__dict__, "check": "return 1 / 0", "blanks": []})
    _, verdict = judge("x = 1", broken)
    assert not verdict["ok"] and "ZeroDivisionError" in verdict["message"]
    assert verdict["message"].startswith("La comprobación no pudo evaluar")
    # assert with a message; a bare True; None passes
    for check, ok, message in [
        ("assert x == 2, 'x debe valer 2'", False, "x debe valer 2"),
        ("return x == 1", True, "¡Correcto!"),
        ("pass", True, "¡Correcto!"),
        ("return False", False, "Todavía no."),
    ]:
        s = type(slide)(**{**slide.__dict__, "check": check, "blanks": []})
        _, verdict = judge("x = 1", s)
        assert verdict == {"ok": ok, "message": message}, (check, verdict)


def test_student_code_that_raises_gives_no_verdict(judge):
    result, verdict = judge("raise ValueError('mal')", EXERCISES[0])
    assert not result["ok"] and verdict is None


def judged(runner, code: str, cell_id: str) -> tuple[dict, dict | None]:
    """Run ``code``: (its result, the verdict it sent, or None); a second verdict fails."""
    verdicts = []
    result = runner.run(code, cell_id, lambda k, p: verdicts.append(p) if k == "verdict" else None)
    assert len(verdicts) <= 1, verdicts
    return result, (verdicts[0] if verdicts else None)


def test_the_program_leaves_no_names_behind(runner):
    result, verdict = judged(runner, "x = 1\n" + exercise.program("return True", []), "t")
    assert result["ok"] and verdict == {"ok": True, "message": "¡Correcto!"}
    assert result["value"] is None  # the verdict is a message, never a value
    assert "__dpdeck_exercise__" not in runner.namespace


def test_blanks_are_the_names_assigned_ellipsis():
    assert cellcode.blanks("a = 1\nb = ...  # complete\nc: float = ...\nd, e = ..., 2") == ["b", "c"]


# --- the schema: a broken exercise names file, slide and field -----------------------------

GOOD = {
    "kind": "exercise",
    "title": "Ejercicio · Prueba",
    "body": "Complete `b`.",
    "starter": "b = ...  # complete\n",
    "check": "return b == 2, 'b vale 2'\n",
    "hints": ["Piense."],
    "solution": "b = 2\n",
}


def _deck_with(tmp_path, slide: dict) -> Path:
    import yaml

    (tmp_path / "deck.yaml").write_text(
        yaml.safe_dump({"title": "T", "chapters": ["cap.yaml"]}, allow_unicode=True), encoding="utf-8"
    )
    (tmp_path / "cap.yaml").write_text(
        yaml.safe_dump({"slides": [slide]}, allow_unicode=True), encoding="utf-8"
    )
    return tmp_path / "deck.yaml"


def test_a_good_exercise_loads(tmp_path):
    deck = load_deck(_deck_with(tmp_path, GOOD))
    slide = deck.slides[0]
    assert slide.kind == "exercise" and slide.blanks == ["b"] and slide.hints == ["Piense."]
    assert slide.code is None  # not a lecture code slide: CODE_SLIDES-style loops skip it


@pytest.mark.parametrize(
    "change,field,words",
    [
        ({"starter": None}, "starter", "needs this field"),
        ({"check": None}, "check", "needs this field"),
        ({"solution": None}, "solution", "needs this field"),
        ({"body": None}, "body", "needs this field"),
        ({"starter": "b = (\n"}, "starter", "invalid Python syntax at line 1"),
        ({"solution": "b = = 2\n"}, "solution", "invalid Python syntax"),
        ({"check": "x = 1\nreturn b ==\n"}, "check", "at line 2 of the check"),
        ({"starter": "b = 1\n"}, "starter", "no blank to fill"),
        ({"solution": "b = ...\n"}, "solution", "leaves 'b' blank"),
        ({"hints": "una pista"}, "hints", "must be list"),
        ({"hints": ["", "otra"]}, "hints[1]", "non-empty"),
        ({"hints": [{"a": "b"}]}, "hints[1]", "non-empty"),
        ({"code": "x = 1\n"}, "code", "only slides of kind code"),
        ({"kind": "content", "body": "x"}, "starter", "only slides of kind exercise"),
    ],
)
def test_a_broken_exercise_is_refused_with_its_place(tmp_path, change, field, words):
    raw = {k: v for k, v in {**GOOD, **change}.items() if v is not None}
    if change.get("kind") == "content":
        raw = {"kind": "content", "title": "Ejercicio · Prueba", "body": "x", "starter": "b = ...\n"}
    with pytest.raises(DeckError) as info:
        load_deck(_deck_with(tmp_path, raw))
    err = info.value
    assert err.field == field, str(err)
    assert err.slide == 1 and err.file and err.file.endswith("cap.yaml"), str(err)
    assert "Ejercicio · Prueba" in str(err) and words in str(err), str(err)


def test_givens_names_the_edited_value_and_a_missing_one(judge):
    slide = EXERCISES[0]
    s = type(slide)(**{**slide.__dict__, "check": "givens(delta=1e-5, n=10_000)\nreturn True", "blanks": []})
    _, verdict = judge("delta = 0.001\nn = 10_000", s)
    assert verdict == {
        "ok": False,
        "message": "El enunciado da `delta = 1e-5` y su código tiene `delta = 0.001`: vuelva al valor "
        "dado (la comprobación juzga con los datos del enunciado).",
    }
    _, verdict = judge("delta = 1e-5", s)
    assert not verdict["ok"] and "Falta definir `n`" in verdict["message"]
    _, verdict = judge("delta = 1e-5\nn = 10000.0", s)
    assert verdict["ok"], verdict


def test_the_readmes_exercise_judges_as_it_says(judge):
    """The example exercise of docs/writing-slides.md: its solution passes, ε edited fails, the mistake is named."""
    import re

    import yaml

    text = (ROOT / "docs" / "writing-slides.md").read_text(encoding="utf-8")
    block = re.search(r"```yaml\n(  - kind: exercise\n.*?)```", text, re.S).group(1)
    raw = yaml.safe_load(block)[0]
    slide = type(EXERCISES[0])(
        **{**EXERCISES[0].__dict__, "check": raw["check"], "blanks": cellcode.blanks(raw["starter"])}
    )
    assert judge(raw["solution"], slide)[1]["ok"]
    assert not judge("epsilon = 1.0\nescala = 1 / epsilon", slide)[1]["ok"]
    _, verdict = judge("epsilon = 0.5\nescala = epsilon", slide)
    assert not verdict["ok"] and "ε mismo" in verdict["message"]
