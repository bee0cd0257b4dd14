"""dpdeck.hall.release: the noise of a released exercise count, pure (no store, no server)."""

from __future__ import annotations

import math
import re

import pytest

from dpdeck.hall import release


def test_released_counts_are_discrete_laplace_around_the_true_count():
    """The hall's release is dplab's exact discrete Laplace at ε = 0,5 (scale 2): over many
    fresh releases (``release.decide``, the one code both stores run atomically, each with no
    release before it), the mean is the true count and every value an integer. The stores'
    side, what they keep and refuse, is in test_hall_server.py, against both stores."""
    draws = [release.decide([], 5, "ex-escala", again=True) for _ in range(2000)]
    values = [answer.value for answer, _row in draws]
    assert all(isinstance(v, int) for v in values)
    assert all(row == {**row, "value": answer.value, "epsilon": 0.5} for answer, row in draws)
    mean = sum(values) / len(values)
    assert abs(mean - 5) < 4 * release.discrete_laplace_sd(0.5) / len(values) ** 0.5
    var = sum((v - mean) ** 2 for v in values) / (len(values) - 1)
    assert abs(var**0.5 - release.discrete_laplace_sd(0.5)) < 0.25


def _law(epsilon: float, reach: int = 400):
    """Discrete Laplace of sensitivity 1 at ``epsilon``: P(k) = (1 - a)/(1 + a) a^|k|, a = e^-ε
    (the law ``dplab.discrete_laplace_mech`` draws exactly), over |k| <= ``reach``."""
    a = math.exp(-epsilon)
    return {k: (1 - a) / (1 + a) * a ** abs(k) for k in range(-reach, reach + 1)}


def _said(label: str) -> float:
    """The number the module's docstring states right after ``label``."""
    match = re.search(re.escape(label) + r"\s*([\d.]+)", " ".join(release.__doc__.split()))
    assert match, f"release.py's docstring no longer says {label!r}"
    return float(match.group(1))


def test_the_docstring_s_repeat_figures_recompute_from_the_noise_s_law():
    """release.py says why a new draw is only made when asked for: a cache keyed on an
    unchanged count would make a repeat certain, while a fresh draw repeats a value with
    probability at most P(0) = tanh(ε/2), so the repeat carries a loss of *at least*
    ln(1/tanh(ε/2)); with fresh draws a repeat has probability Σ P(k)² (count unchanged) or
    Σ P(k) P(k-1) (one more solve). Each figure, recomputed at RELEASE_EPSILON, is the one the
    docstring states (to its printed digits), and the mode matches dplab's own draws."""
    eps = release.RELEASE_EPSILON
    law = _law(eps)
    mode = max(law.values())
    assert mode == pytest.approx(math.tanh(eps / 2), rel=1e-12)
    assert _said("at most tanh(ε/2) =") == round(mode, 4)
    assert _said("a loss of at least ln(1/0.2449) ≈") == round(math.log(1 / mode), 2)
    assert math.log(1 / mode) > eps
    same = sum(p * p for p in law.values())
    one_more = sum(p * law.get(k - 1, 0.0) for k, p in law.items())
    assert _said("the chance of a repeat is") == round(same, 3) == 0.130
    assert _said("when the count is unchanged and") == round(one_more, 3) == 0.115
    assert math.log(same / one_more) <= eps  # a repeat of a fresh draw tells no more than ε
    draws = [release.decide([], 0, "ex-moda", again=True)[0].value for _ in range(4000)]
    zero = draws.count(0) / len(draws)
    assert abs(zero - mode) < 4 * math.sqrt(mode * (1 - mode) / len(draws))


def test_the_docstring_states_the_unit_of_privacy_and_the_session():
    """The unit counted once is a browser profile's stored token, and a student counted m times
    pays mε; the budget is per hall session (issue 47, items 3 and 5)."""
    doc = " ".join(release.__doc__.split())
    assert "The unit of privacy is therefore a browser profile" in doc
    assert "counted m times in one count is protected at mε" in doc
    assert "*per hall session*" in doc and "2 × ``HALL_BUDGET``" in doc


def _doc(name: str) -> str:
    from tests.support.paths import ROOT

    return " ".join((ROOT / "docs" / name).read_text(encoding="utf-8").split())


def _es(x: float, digits: int) -> str:
    return f"{x:.{digits}f}".replace(".", ",")


def test_live_polls_states_the_unit_the_costs_and_the_durability():
    """docs/live-polls.md (issue 47): the unit of privacy (a browser profile, m counts cost mε),
    the per-round and per-session costs, and what the budget's durability rests on; every number
    it gives is recomputed here from release.py's constants and the noise's law."""
    doc = _doc("live-polls.md")
    eps, budget = release.RELEASE_EPSILON, release.HALL_BUDGET
    assert "What the hall counts once is not a person, nor a device, but a **browser profile**" in doc
    assert "is protected at mε by it, not ε" in doc and f"2 × {_es(eps, 1)} = {_es(2 * eps, 0)}" in doc
    assert "| a poll answered in r rounds | rε for that question" in doc
    assert f"| at most ε = {budget:g} ({budget / eps:g} counts;" in doc
    assert f"| two hall sessions | up to 2 × {budget:g} = {2 * budget:g}:" in doc
    assert "`synchronous=FULL`" in doc and "`WAITAOF 1 0`" in doc and "## The budget's durability" in doc
    assert "2ε en total" not in doc and "for the whole lecture" not in doc
    law = _law(eps)
    mode = max(law.values())
    assert f"at most tanh(ε/2) = {_es(mode, 4)}" in doc
    assert f"loss of at least ln(1/{_es(mode, 4)}) ≈ {_es(math.log(1 / mode), 2)}" in doc
    same, one_more = sum(p * p for p in law.values()), sum(p * law.get(k - 1, 0.0) for k, p in law.items())
    assert f"probability {_es(same, 3)} when nothing changed and {_es(one_more, 3)} when one" in doc
    cover = sum(p for k, p in law.items() if abs(k) <= 6)
    assert f"= {_es(cover, 3)};" in doc and f"±6 in {100 * cover:.0f} % of draws" in doc


def test_the_professors_guide_says_the_budget_is_per_session():
    """docs/guia-profesor.md (issue 47 item 5): where the professor starts a session, the budget
    is per session, a new one starts at 0, and two cost a student twice."""
    guide = _doc("guia-profesor.md")
    eps, budget = release.RELEASE_EPSILON, release.HALL_BUDGET
    assert "**El presupuesto es por sesión, no por clase ni por estudiante**" in guide
    assert (
        f"gastan ε = {_es(eps, 1)} cada uno de un presupuesto de ε = {budget:g} ({budget / eps:g} conteos)"
        in guide
    )
    assert f"(dos sesiones, hasta ε = {2 * budget:g} sobre sus ✓)" in guide
    assert "--hall-session clase" in guide and "quien responde en r rondas de una pregunta gasta rε" in guide
