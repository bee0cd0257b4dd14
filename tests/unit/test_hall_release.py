"""deckbuild.hall.release: the noise of a released exercise count, pure (no store, no server)."""

from __future__ import annotations

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
