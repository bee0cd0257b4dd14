"""Randomness: fresh noise by default, reproducible with a seed or a Generator."""

import inspect

import dplab
import numpy as np
import pytest
from dplab._rng import make_rng

X, Y = dplab.census_features(dplab.load_census(n=400, seed=2))
VALUES = np.arange(100.0)

# Each entry: a function of rng that runs one randomized public function.
RANDOMIZED = {
    "laplace_mech": lambda rng: dplab.laplace_mech(10.0, 1, 1, rng=rng),
    "gaussian_mech": lambda rng: dplab.gaussian_mech(np.zeros(3), 1, 0.5, 1e-5, rng=rng),
    "exponential_mech": lambda rng: [dplab.exponential_mech(range(1000), np.zeros(1000), 1, 1, rng=rng)],
    "report_noisy_max": lambda rng: [dplab.report_noisy_max(range(1000), np.zeros(1000), 1, 1, rng=rng)],
    "clipped_sum": lambda rng: dplab.clipped_sum(VALUES, 50, 1, rng=rng),
    "private_mean": lambda rng: dplab.private_mean(VALUES, 100, 1, rng=rng),
    "choose_clipping_bound": lambda rng: dplab.choose_clipping_bound(VALUES, 0.05, rng=rng),
    "noisy_gradient_descent": lambda rng: dplab.noisy_gradient_descent(X, Y, 1.0, 1e-5, steps=3, rng=rng),
    "dpsgd": lambda rng: dplab.dpsgd(X, Y, 1.0, 0.1, 3, rng=rng),
    "sample_people": lambda rng: dplab.sample_people(X, Y, 5, rng=rng)[0],
    "audit_mechanism": lambda rng: [
        (
            r := dplab.audit_mechanism(
                lambda v, g: dplab.laplace_mech(v, 1, 1.0, rng=g), 0, 1, trials=1000, rng=rng
            )
        ).fpr,
        r.fnr,
    ],
    "laplace_mech(accountant)": lambda rng: dplab.laplace_mech(
        1.0, 1, 1, rng=rng, accountant=dplab.BudgetAccountant(10)
    ),
    "discrete_laplace_mech": lambda rng: dplab.discrete_laplace_mech(
        np.zeros(20, dtype=int), 1, 1.0, rng=rng
    ),
    "discrete_gaussian_mech": lambda rng: dplab.discrete_gaussian_mech(
        np.zeros(20, dtype=int), 1, 0.5, 1e-5, rng=rng
    ),
    "randomized_response": lambda rng: dplab.randomized_response(np.arange(40) % 2, 1.0, rng=rng),
    "generalized_randomized_response": lambda rng: dplab.generalized_randomized_response(
        np.arange(40) % 4, 4, 1.0, rng=rng
    ),
    "discrete_gaussian_mech(sigma)": lambda rng: dplab.discrete_gaussian_mech(
        np.zeros(20, dtype=int), 1, sigma=2.0, rng=rng
    ),
}


def test_every_public_function_with_rng_is_listed():
    # A new randomized function must join RANDOMIZED (fresh by default, reproducible with a seed).
    with_rng = set()
    for name in dplab.__all__:
        obj = getattr(dplab, name)
        members = [(name, obj)] if callable(obj) else []
        if inspect.isclass(obj):
            members += [
                (f"{name}.{attr}", m)
                for attr, m in vars(obj).items()
                if not attr.startswith("_") and inspect.isfunction(m)
            ]
        for label, func in members:
            try:
                params = inspect.signature(func).parameters
            except (TypeError, ValueError):  # builtins such as exception classes
                continue
            if "rng" in params:
                with_rng.add(label)
    assert with_rng == {key.split("(")[0] for key in RANDOMIZED}


@pytest.mark.parametrize("name", sorted(RANDOMIZED))
def test_fresh_noise_by_default(name):
    run = RANDOMIZED[name]
    # 16 draws: an output from a small grid (choose_clipping_bound's mode has probability
    # ~0.5) repeats 16 times with probability < 1e-4
    outputs = [np.asarray(run(None), dtype=float) for _ in range(16)]
    assert any(not np.array_equal(outputs[0], o) for o in outputs[1:])


@pytest.mark.parametrize("name", sorted(RANDOMIZED))
def test_reproducible_with_seed_and_generator(name):
    run = RANDOMIZED[name]
    assert np.array_equal(np.asarray(run(42), float), np.asarray(run(42), float))
    a = run(np.random.default_rng(7))
    b = run(np.random.default_rng(7))
    assert np.array_equal(np.asarray(a, float), np.asarray(b, float))


def test_make_rng():
    g = np.random.default_rng(1)
    assert make_rng(g) is g
    assert isinstance(make_rng(None), np.random.Generator)
    assert make_rng(np.int64(3)).random() == np.random.default_rng(3).random()
    assert make_rng(None) is not make_rng(None)
