"""The page's named Python calls (cellrunner.calls → dplab.polls) under CPython: what a poll
slide computes, with the arguments the page sends as JSON."""

from __future__ import annotations

import json
import math

import dplab
import numpy as np
import pytest
from cellrunner.calls import CALLS, call

LN3 = math.log(3)


def page_call(name, **args):
    """As the page calls it: the arguments through a JSON text."""
    return call(name, json.dumps(args))


def test_every_listed_call_exists():
    import importlib

    for module, function in CALLS.values():
        assert callable(getattr(importlib.import_module(module), function))


def test_the_summary_is_dplabs_estimate_and_posterior():
    out = page_call("poll.summary", counts=[40, 45], epsilon=LN3, prior=0.5)
    expected = dplab.rr_estimate(45, 85, LN3)
    assert out["estimate"] == [[float(x)] for x in expected[:5]]
    assert out["posterior"] == pytest.approx(0.75)
    k4 = page_call("poll.summary", counts=[5, 7, 9, 11], epsilon=1.0, prior=0.25)
    grr = dplab.grr_estimate([5, 7, 9, 11], 1.0)
    assert k4["estimate"][0] == pytest.approx(np.asarray(grr.estimate).tolist())
    assert len(k4["estimate"]) == 5 and all(len(field) == 4 for field in k4["estimate"])
    json.dumps(out), json.dumps(k4)  # what the page gets back is JSON


def test_randomize_keeps_the_truth_with_probability_e_eps_over_1_plus_e_eps():
    draws = [page_call("poll.randomize", truth=1, k=2, epsilon=LN3) for _ in range(4000)]
    assert set(draws) == {0, 1}
    kept = draws.count(1) / len(draws)
    assert abs(kept - 0.75) < 4 * math.sqrt(0.75 * 0.25 / len(draws))
    k4 = [page_call("poll.randomize", truth=2, k=4, epsilon=1.0) for _ in range(4000)]
    p = math.e / (math.e + 3)
    assert set(k4) == {0, 1, 2, 3} and abs(k4.count(2) / 4000 - p) < 4 * math.sqrt(p * (1 - p) / 4000)


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match="truth"):
        page_call("poll.randomize", truth=2, k=2, epsilon=LN3)
    with pytest.raises(ValueError, match="epsilon"):
        page_call("poll.randomize", truth=0, k=2, epsilon=-1)
    with pytest.raises((TypeError, ValueError), match="counts"):
        page_call("poll.summary", counts=["__import__('os')", 1], epsilon=LN3, prior=0.5)
    with pytest.raises(ValueError, match="counts"):
        page_call("poll.summary", counts=[-1, 5], epsilon=LN3, prior=0.5)
    with pytest.raises(KeyError):
        page_call("os.system", command="true")
    with pytest.raises(TypeError, match="JSON object"):
        call("poll.summary", "[1, 2]")


def test_a_simulated_hall_is_n_randomized_answers():
    answers = page_call("poll.simulate", n=400, k=2, epsilon=LN3, shares=[0.7, 0.3])
    assert len(answers) == 400 and set(answers) <= {0, 1}
    share = sum(answers) / 400  # E = 0,3·0,75 + 0,7·0,25 = 0,4
    assert abs(share - 0.4) < 4 * math.sqrt(0.4 * 0.6 / 400)


def test_the_figure_is_left_open_for_the_runner():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    before = len(plt.get_fignums())
    page_call("poll.figure", counts=[40, 45], epsilon=LN3, labels=["sí"])
    assert len(plt.get_fignums()) == before + 1
    plt.close("all")
