"""deckbuild.hall.release: the noise of a released exercise count, pure (no store, no server)."""

from __future__ import annotations

import math
import re

import pytest

from deckbuild.hall import release


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
