"""Every bad parameter of every public function raises the stated error.

Rule (dplab/_validate.py): TypeError for a wrong type (bool and str included),
ValueError for a bad range (NaN and +-inf included); the message names the
parameter and the value. numpy scalars are accepted like Python numbers.
"""

import dataclasses
import inspect
import math
import warnings

import dplab
import numpy as np
import pytest
from dplab import _validate as v

NAN, INF = float("nan"), float("inf")
NP_NAN = np.float64("nan")  # numpy scalars are refused like Python numbers

POSITIVE_BAD = [
    (0, ValueError),
    (-1.0, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    (np.bool_(True), TypeError),
    ("1", TypeError),
    (None, TypeError),
]
# randomized response's epsilon: also at most dplab.local.MAX_LOCAL_EPSILON = 20 (the float coin)
LOCAL_EPSILON_BAD = POSITIVE_BAD + [(20.000000000000004, ValueError), (36.7, ValueError), (1e308, ValueError)]
DELTA_BAD = [
    (0, ValueError),
    (1, ValueError),
    (-1e-5, ValueError),
    (1.5, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("1e-5", TypeError),
    (None, TypeError),
]
INT_BAD = [
    (0, ValueError),
    (-1, ValueError),
    (2.5, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("3", TypeError),
    (None, TypeError),
]
REAL_BAD = [
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("1", TypeError),
    (None, TypeError),
]
RATE_BAD = [
    (0, ValueError),
    (-0.1, ValueError),
    (1.5, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("0.1", TypeError),
    (None, TypeError),
]
NONNEG_BAD = [
    (-1.0, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("1", TypeError),
    (None, TypeError),
]
TOTAL_DELTA_BAD = [
    (-0.1, ValueError),
    (1, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("0", TypeError),
    (None, TypeError),
]
ORDER_BAD = [
    (1.0, ValueError),
    (0.5, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("2", TypeError),
]
# The integer data of the discrete mechanisms (not a privacy parameter, but checked alike).
INT_VALUES_BAD = [
    (2.5, ValueError),
    (NAN, ValueError),
    (NP_NAN, ValueError),
    (INF, ValueError),
    (-INF, ValueError),
    (True, TypeError),
    ("3", TypeError),
    (None, TypeError),
]


def non_finite_after(good):
    """[good, x] for each non-finite x (nan, numpy nan, +-inf): each a ValueError."""
    return [([good, bad], ValueError) for bad in (NAN, NP_NAN, INF, -INF)]


# Array parameters: the last entry of each list is the bad one, and the message must show it.
ARRAY_POSITIVE_BAD = [
    ([1.0, 0.0], ValueError),
    ([1.0, -2.0], ValueError),
    *non_finite_after(1.0),
    ([True, True], TypeError),
    (["1", "2"], TypeError),
]
ARRAY_NONNEG_BAD = [
    ([0.1, -0.5], ValueError),
    *non_finite_after(0.1),
    ([True, True], TypeError),
    (["1", "2"], TypeError),
]
ARRAY_ORDER_BAD = [
    ([2.0, 1.0], ValueError),
    ([2.0, 0.5], ValueError),
    *non_finite_after(2.0),
    ([True, True], TypeError),
    (["2", "3"], TypeError),
]
EPSILONS_BAD = [
    ([0.5, -1.0], ValueError),
    *non_finite_after(0.5),
    ([0.5, True], TypeError),
    ([0.5, "1"], TypeError),
    ([(0.5, 1e-6), (0.5, NAN)], ValueError),
    ([(0.5, 1e-6), (0.5, -INF)], ValueError),
]


def _data():
    X, y = dplab.census_features(dplab.load_census(n=300, seed=1))
    return X, y


X_SMALL, Y_SMALL = _data()
CENSUS_SMALL = dplab.load_census(n=20)
VALUES = np.array([1.0, 5.0, 20.0])


# (label, function, valid keyword arguments, [(parameter, bad values), ...])
CASES = [
    (
        "laplace_mech",
        dplab.laplace_mech,
        dict(v=3.0, sensitivity=1, epsilon=1),
        [("sensitivity", POSITIVE_BAD), ("epsilon", POSITIVE_BAD), ("v", REAL_BAD)],
    ),
    (
        "gaussian_mech",
        dplab.gaussian_mech,
        dict(v=3.0, sensitivity=1, epsilon=0.5, delta=1e-5),
        [
            ("sensitivity", POSITIVE_BAD),
            ("epsilon", POSITIVE_BAD + [(1.5, ValueError)]),
            ("delta", DELTA_BAD),
            ("v", REAL_BAD),
        ],
    ),
    (
        "gaussian_sigma",
        dplab.gaussian_sigma,
        dict(sensitivity=1, epsilon=0.5, delta=1e-5),
        [
            ("sensitivity", POSITIVE_BAD),
            ("epsilon", POSITIVE_BAD + [(1.0, ValueError)]),
            ("delta", DELTA_BAD),
        ],
    ),
    (
        "analytic_gaussian_sigma",
        dplab.analytic_gaussian_sigma,
        dict(sensitivity=1, epsilon=2.0, delta=1e-5),
        [("sensitivity", POSITIVE_BAD), ("epsilon", POSITIVE_BAD), ("delta", DELTA_BAD)],
    ),
    (
        "exponential_mech",
        dplab.exponential_mech,
        dict(candidates=["a", "b"], scores=[1.0, 2.0], sensitivity=1, epsilon=1),
        [("sensitivity", POSITIVE_BAD), ("epsilon", POSITIVE_BAD)],
    ),
    (
        "report_noisy_max",
        dplab.report_noisy_max,
        dict(candidates=["a", "b"], scores=[1.0, 2.0], sensitivity=1, epsilon=1),
        [("sensitivity", POSITIVE_BAD), ("epsilon", POSITIVE_BAD)],
    ),
    (
        "laplace_vs_gauss_std",
        dplab.laplace_vs_gauss_std,
        dict(k=10, epsilon=0.5, delta=1e-5),
        [("k", INT_BAD), ("epsilon", POSITIVE_BAD), ("delta", DELTA_BAD)],
    ),
    ("laplace_gauss_crossover", dplab.laplace_gauss_crossover, dict(delta=1e-5), [("delta", DELTA_BAD)]),
    (
        "discrete_laplace_mech",
        dplab.discrete_laplace_mech,
        dict(v=3, sensitivity=1, epsilon=1.0),
        [("sensitivity", INT_BAD + [(1.5, ValueError)]), ("epsilon", POSITIVE_BAD), ("v", INT_VALUES_BAD)],
    ),
    (
        "discrete_gaussian_mech",
        dplab.discrete_gaussian_mech,
        dict(v=3, sensitivity=1, epsilon=0.5, delta=1e-5),
        [
            ("sensitivity", POSITIVE_BAD),
            ("epsilon", POSITIVE_BAD),
            ("delta", DELTA_BAD),
            ("v", INT_VALUES_BAD),
        ],
    ),
    (
        "discrete_gaussian_mech[sigma]",
        dplab.discrete_gaussian_mech,
        dict(v=3, sensitivity=1, sigma=2.0),
        [("sensitivity", POSITIVE_BAD), ("sigma", POSITIVE_BAD), ("v", INT_VALUES_BAD)],
    ),
    (
        "discrete_gaussian_sigma",
        dplab.discrete_gaussian_sigma,
        dict(sensitivity=1, epsilon=0.5, delta=1e-5),
        [("sensitivity", POSITIVE_BAD), ("epsilon", POSITIVE_BAD), ("delta", DELTA_BAD)],
    ),
    (
        "discrete_gaussian_epsilon",
        dplab.discrete_gaussian_epsilon,
        dict(sigma=10.0, delta=1e-5, sensitivity=1),
        [("sigma", POSITIVE_BAD), ("delta", DELTA_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "clip",
        dplab.clip,
        dict(values=VALUES, lower=0, upper=10),
        [("lower", REAL_BAD), ("upper", REAL_BAD + [(0, ValueError), (-5, ValueError)])],
    ),
    ("clip_rows_l2", dplab.clip_rows_l2, dict(rows=X_SMALL, clip_bound=1.0), [("clip_bound", POSITIVE_BAD)]),
    (
        "clipped_sum",
        dplab.clipped_sum,
        dict(values=VALUES, clip_bound=10, epsilon=1),
        [("clip_bound", POSITIVE_BAD), ("epsilon", POSITIVE_BAD)],
    ),
    (
        "private_mean",
        dplab.private_mean,
        dict(values=VALUES, upper=90, epsilon=1),
        [("upper", POSITIVE_BAD), ("epsilon", POSITIVE_BAD)],
    ),
    (
        "clipped_sum_error",
        dplab.clipped_sum_error,
        dict(values=VALUES, clip_bounds=[1.0, 10.0], epsilon=1),
        [("epsilon", POSITIVE_BAD), ("clip_bounds", ARRAY_POSITIVE_BAD)],
    ),
    (
        "choose_clipping_bound",
        dplab.choose_clipping_bound,
        dict(values=VALUES, epsilon=1, clip_bounds=[1.0, 10.0]),
        [("epsilon", POSITIVE_BAD), ("clip_bounds", ARRAY_POSITIVE_BAD)],
    ),
    (
        "sequential_composition",
        dplab.sequential_composition,
        dict(epsilons=[0.5, 0.25]),
        [("epsilons", EPSILONS_BAD)],
    ),
    (
        "advanced_composition",
        dplab.advanced_composition,
        dict(epsilon=0.01, k=10, delta_prime=1e-5, simplified=True),
        [("epsilon", POSITIVE_BAD), ("k", INT_BAD), ("delta_prime", DELTA_BAD)],
    ),
    (
        "advanced_composition[tight]",
        dplab.advanced_composition,
        dict(epsilon=0.01, k=10, delta_prime=1e-5, simplified=False),
        [("epsilon", POSITIVE_BAD), ("k", INT_BAD), ("delta_prime", DELTA_BAD)],
    ),
    (
        "advanced_composition_max_epsilon",
        dplab.advanced_composition_max_epsilon,
        dict(k=10, delta_prime=1e-5),
        [("k", INT_BAD), ("delta_prime", DELTA_BAD)],
    ),
    (
        "gaussian_epsilon",
        dplab.gaussian_epsilon,
        dict(sigma=20, delta=1e-5, sensitivity=1),
        [("sigma", POSITIVE_BAD), ("delta", DELTA_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "gaussian_rdp",
        dplab.gaussian_rdp,
        dict(orders=2.0, sigma=1.0, sensitivity=1),
        [("orders", ORDER_BAD), ("sigma", POSITIVE_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "rdp_to_epsilon",
        dplab.rdp_to_epsilon,
        dict(orders=[2.0, 3.0], rdp=[0.1, 0.2], delta=1e-5),
        [("orders", ARRAY_ORDER_BAD), ("rdp", ARRAY_NONNEG_BAD), ("delta", DELTA_BAD)],
    ),
    (
        "gaussian_zcdp",
        dplab.gaussian_zcdp,
        dict(sigma=1.0, sensitivity=1),
        [("sigma", POSITIVE_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "zcdp_to_dp",
        dplab.zcdp_to_dp,
        dict(rho=0.1, delta=1e-5),
        [("rho", POSITIVE_BAD), ("delta", DELTA_BAD)],
    ),
    (
        "sequential_gaussian_epsilon",
        dplab.sequential_gaussian_epsilon,
        dict(sigma=20, k=100, delta=1e-5, sensitivity=1),
        [("sigma", POSITIVE_BAD), ("k", INT_BAD), ("delta", DELTA_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "advanced_gaussian_epsilon",
        dplab.advanced_gaussian_epsilon,
        dict(sigma=20, k=100, delta=1e-5, sensitivity=1),
        [("sigma", POSITIVE_BAD), ("k", INT_BAD), ("delta", DELTA_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "rdp_gaussian_epsilon",
        dplab.rdp_gaussian_epsilon,
        dict(sigma=20, k=100, delta=1e-5, sensitivity=1),
        [("sigma", POSITIVE_BAD), ("k", INT_BAD), ("delta", DELTA_BAD), ("sensitivity", POSITIVE_BAD)],
    ),
    (
        "subsampled_gaussian_rdp",
        dplab.subsampled_gaussian_rdp,
        dict(sample_rate=0.01, noise_multiplier=1.0, orders=[2.0, 3.5]),
        [("sample_rate", RATE_BAD), ("noise_multiplier", POSITIVE_BAD), ("orders", ARRAY_ORDER_BAD)],
    ),
    (
        "dpsgd_epsilon",
        dplab.dpsgd_epsilon,
        dict(sample_rate=0.01, noise_multiplier=1.1, steps=100, delta=1e-5),
        [
            ("sample_rate", RATE_BAD),
            ("noise_multiplier", POSITIVE_BAD),
            ("steps", INT_BAD),
            ("delta", DELTA_BAD),
        ],
    ),
    (
        "BudgetAccountant",
        dplab.BudgetAccountant,
        dict(epsilon=1.0, delta=1e-6),
        [("epsilon", POSITIVE_BAD), ("delta", TOTAL_DELTA_BAD)],
    ),
    (
        "BudgetAccountant.spend",
        lambda **kw: dplab.BudgetAccountant(10.0, 1e-3).spend(**kw),
        dict(epsilon=0.5, delta=1e-6),
        [("epsilon", NONNEG_BAD), ("delta", TOTAL_DELTA_BAD)],
    ),
    (
        "BudgetAccountant.check_spend",
        lambda **kw: dplab.BudgetAccountant(10.0, 1e-3).check_spend(**kw),
        dict(epsilon=0.5, delta=1e-6),
        [("epsilon", NONNEG_BAD), ("delta", TOTAL_DELTA_BAD)],
    ),
    (
        "laplace_mech[accountant]",
        lambda **kw: dplab.laplace_mech(accountant=dplab.BudgetAccountant(10.0), **kw),
        dict(v=3.0, sensitivity=1, epsilon=0.5),
        [("sensitivity", POSITIVE_BAD), ("epsilon", POSITIVE_BAD), ("v", REAL_BAD)],
    ),
    (
        "Census.head",
        lambda **kw: CENSUS_SMALL.head(**kw),
        dict(k=3),
        [
            (
                "k",
                INT_BAD[1:],  # k = 0 is allowed
            )
        ],
    ),
    (
        "load_census",
        dplab.load_census,
        dict(n=50, seed=0),
        [
            ("n", INT_BAD),
            ("seed", [(-1, ValueError), (1.5, ValueError), (True, TypeError), ("0", TypeError)]),
        ],
    ),
    (
        "train_logistic",
        dplab.train_logistic,
        dict(X=X_SMALL, y=Y_SMALL, steps=2, learning_rate=1.0),
        [("steps", INT_BAD), ("learning_rate", POSITIVE_BAD)],
    ),
    (
        "noisy_gradient_descent",
        dplab.noisy_gradient_descent,
        dict(X=X_SMALL, y=Y_SMALL, epsilon=1.0, delta=1e-5, steps=2, clip_bound=1.0, learning_rate=1.0),
        [
            ("epsilon", POSITIVE_BAD),
            ("delta", DELTA_BAD),
            ("steps", INT_BAD),
            ("clip_bound", POSITIVE_BAD),
            ("learning_rate", POSITIVE_BAD),
        ],
    ),
    (
        "threshold_epsilon",
        dplab.threshold_epsilon,
        dict(epsilons=[0.1, 1.0], scores=[0.5, 0.6], level=0.55),
        [("epsilons", ARRAY_POSITIVE_BAD)],
    ),
    (
        "audit_mechanism",
        dplab.audit_mechanism,
        dict(mechanism=lambda v, rng: dplab.laplace_mech(v, 1, 1.0, rng=rng), d=0.0, d_prime=1.0, trials=10),
        [
            ("delta", TOTAL_DELTA_BAD),
            ("trials", INT_BAD),
            ("confidence", RATE_BAD),
            ("d", REAL_BAD),
            ("d_prime", REAL_BAD),
            ("threshold", REAL_BAD[:-1]),
        ],
    ),  # None: the default
    (
        "dpsgd",
        dplab.dpsgd,
        dict(
            X=X_SMALL,
            y=Y_SMALL,
            noise_multiplier=1.0,
            sample_rate=0.1,
            steps=2,
            clip_bound=1.0,
            learning_rate=1.0,
        ),
        [
            ("noise_multiplier", POSITIVE_BAD),
            ("sample_rate", RATE_BAD),
            ("steps", INT_BAD),
            ("clip_bound", POSITIVE_BAD),
            ("learning_rate", POSITIVE_BAD),
        ],
    ),
    (
        "randomized_response",
        dplab.randomized_response,
        dict(answer=1, epsilon=1.0),
        [("epsilon", LOCAL_EPSILON_BAD)],
    ),
    (
        "generalized_randomized_response",
        dplab.generalized_randomized_response,
        dict(answer=1, k=3, epsilon=1.0),
        [("epsilon", LOCAL_EPSILON_BAD), ("k", INT_BAD + [(1, ValueError), (2**26 + 1, ValueError)])],
    ),
    (
        "rr_probabilities",
        dplab.rr_probabilities,
        dict(epsilon=1.0, k=3),
        [("epsilon", POSITIVE_BAD), ("k", INT_BAD)],
    ),
    ("rr_estimate", dplab.rr_estimate, dict(yes=10, n=30, epsilon=1.0), [("epsilon", LOCAL_EPSILON_BAD)]),
    (
        "grr_estimate",
        dplab.grr_estimate,
        dict(counts=[10, 20, 5], epsilon=1.0),
        [("epsilon", LOCAL_EPSILON_BAD)],
    ),
    (
        "rr_posterior_bound",
        dplab.rr_posterior_bound,
        dict(prior=0.1, epsilon=1.0),
        [("epsilon", POSITIVE_BAD)],
    ),
]


# --- Coverage: no public function with a privacy parameter escapes the table ----------

#: Parameter names that carry a privacy parameter: epsilon, delta, a sensitivity,
#: a clipping bound, a count of steps, a noise scale, a sample rate, an RDP order.
PRIVACY_PARAMETERS = {
    "epsilon",
    "epsilons",
    "delta",
    "delta_prime",
    "rdp",
    "rho",
    "sensitivity",
    "clip_bound",
    "clip_bounds",
    "lower",
    "upper",
    "k",
    "steps",
    "sigma",
    "noise_multiplier",
    "sample_rate",
    "orders",
}

#: Public callables deliberately left out of the table, with the reason.
EXEMPT = {
    "Release": "a frozen record that only BudgetAccountant.spend creates, after validating the cost",
}


def _public_callables():
    """(label, callable) for every function, class and public method in dplab.__all__."""
    for name in dplab.__all__:
        obj = getattr(dplab, name)
        if inspect.isclass(obj):
            if issubclass(obj, BaseException):
                continue
            yield name, obj
            for attr, member in vars(obj).items():
                if not attr.startswith("_") and inspect.isfunction(member):
                    yield f"{name}.{attr}", member
        elif callable(obj):
            yield name, obj


def _covered():
    # "discrete_gaussian_mech[sigma]" covers discrete_gaussian_mech's other call form.
    return {(label.split("[")[0], param) for label, _, _, params in CASES for param, _ in params}


def test_every_privacy_parameter_of_every_public_function_is_in_the_table():
    covered = _covered()
    missing, checked = [], 0
    for label, func in _public_callables():
        if label in EXEMPT:
            continue
        for param in inspect.signature(func).parameters:
            if param in PRIVACY_PARAMETERS:
                checked += 1
                if (label, param) not in covered:
                    missing.append(f"{label}({param})")
    assert not missing, f"add these to CASES in {__name__}: {missing}"
    assert checked >= 80  # the enumeration really ran over the package


def test_table_and_exemptions_name_real_functions():
    public = dict(_public_callables())
    for label, _, _, params in CASES:
        func = public[label.split("[")[0]]
        names = inspect.signature(func).parameters
        for param, _ in params:
            assert param in names, f"{label} has no parameter {param!r}"
    assert set(EXEMPT) <= set(public)


def _kinds(bads):
    """Which kinds of bad value a list holds (for arrays: in its last entries)."""
    kinds = set()
    for bad, _ in bads:
        x = bad[-1] if isinstance(bad, list) else bad
        if isinstance(x, tuple):
            x = x[-1]
        if isinstance(x, (bool, np.bool_)):
            kinds.add("bool")
        elif isinstance(x, str):
            kinds.add("str")
        elif isinstance(x, float) and math.isnan(x):
            kinds.add("numpy nan" if type(x) is np.float64 else "nan")
        elif isinstance(x, float) and math.isinf(x):
            kinds.add("+inf" if x > 0 else "-inf")
    return kinds


@pytest.mark.parametrize(
    "label, param, bads",
    [pytest.param(c[0], p, b, id=f"{c[0]}-{p}") for c in CASES for p, b in c[3] if p in PRIVACY_PARAMETERS],
)
def test_every_privacy_parameter_is_tried_with_nan_infinities_bool_and_str(label, param, bads):
    required = {"nan", "numpy nan", "+inf", "-inf", "bool", "str"}
    assert required <= _kinds(bads), f"{label}({param}) lacks {sorted(required - _kinds(bads))}"


def _expand():
    for label, func, valid, params in CASES:
        for param, bads in params:
            for bad, exc in bads:
                yield pytest.param(func, valid, param, bad, exc, id=f"{label}-{param}={bad!r}")


def _value_texts(value):
    if isinstance(value, list):  # an array parameter: its last entry is the bad one
        return _value_texts(value[-1])
    if isinstance(value, tuple):  # an (epsilon, delta) pair: its bad member is the one shown
        return set().union(*(_value_texts(x) for x in value))
    texts = {repr(value)}
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        texts.add(repr(float(value)))
    return texts


@pytest.mark.parametrize("func, valid, param, bad, exc", list(_expand()))
def test_bad_parameter_raises_named_error(func, valid, param, bad, exc):
    kwargs = dict(valid)
    kwargs[param] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. delta >= 1/n warnings on the way
        with pytest.raises(exc) as info:
            func(**kwargs)
    message = str(info.value)
    assert param in message, f"message does not name {param!r}: {message}"
    assert any(t in message for t in _value_texts(bad)), f"message does not show {bad!r}: {message}"


def _same(a, b) -> bool:
    """``a`` and ``b`` hold the same values of the same kinds (arrays by shape and value, NaN
    equal to NaN; a Python number and a numpy scalar of one value are the same)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind in "fc")
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return type(b) is dict and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (bool, np.bool_)) or isinstance(b, (bool, np.bool_)):
        return isinstance(a, (bool, np.bool_)) and isinstance(b, (bool, np.bool_)) and bool(a) == bool(b)
    if isinstance(a, (int, float, np.number)):
        return isinstance(b, (int, float, np.number)) and (a == b or (math.isnan(a) and math.isnan(b)))
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(
            _same(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a)
        )
    return type(a) is type(b) and repr(a) == repr(b)


def _seeded(func, kwargs: dict):
    """``func(**kwargs)``, with a fixed seed where it draws its noise from an ``rng`` argument."""
    if "rng" in inspect.signature(func).parameters and "rng" not in kwargs:
        kwargs = {**kwargs, "rng": 20240611}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(**kwargs)


# the cases whose noise no ``rng`` argument fixes: the same call twice differs (they are still
# checked to take numpy scalars, and to answer the same kind of result)
UNSEEDED = {"laplace_mech[accountant]"}


@pytest.mark.parametrize("label, func, valid", [pytest.param(c[0], c[1], c[2], id=c[0]) for c in CASES])
def test_valid_call_and_numpy_scalars_accepted(label, func, valid):
    # The valid call works; replacing every Python number by a numpy scalar changes nothing.
    def to_numpy(x):
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            return x
        return np.int64(x) if isinstance(x, int) else np.float64(x)

    plain, again = _seeded(func, valid), _seeded(func, valid)
    with_numpy = _seeded(func, {k: to_numpy(x) for k, x in valid.items()})
    assert _same(plain, again) == (label not in UNSEEDED), f"{label}: seeded, yet {plain!r} then {again!r}"
    if label in UNSEEDED:
        assert type(with_numpy) is type(plain)
    else:
        assert _same(plain, with_numpy), (
            f"{label}: {plain!r} with Python numbers, {with_numpy!r} with numpy's"
        )


def test_message_format_names_parameter_constraint_and_value():
    with pytest.raises(ValueError, match=r"^epsilon must be > 0 and finite, got -1\.0$"):
        v.check_epsilon(-1)
    with pytest.raises(TypeError, match=r"epsilon must be a real number .* got True of type bool"):
        v.check_epsilon(True)
    with pytest.raises(ValueError, match=r"^delta must be in \(0, 1\), got 1\.0$"):
        v.check_delta(1)
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1, got 0$"):
        v.check_integer(0, "k")
    with pytest.raises(v.ParameterError, match=r"^epsilon must be in \(0, 20\] \(why\), got 25\.0$") as info:
        v.check_epsilon(25, maximum=20.0, why=" (why)")
    assert (info.value.constraint, info.value.detail) == ("interval", {"interval": "(0, 20]"})
    assert v.check_epsilon(20, maximum=20.0) == 20.0


def test_numpy_scalars_and_zero_d_arrays_become_python_numbers():
    assert v.check_epsilon(np.float32(0.5)) == 0.5
    assert type(v.check_epsilon(np.float64(2))) is float
    assert v.check_integer(np.int32(7), "k") == 7
    assert type(v.check_integer(np.int64(7), "k")) is int
    assert v.check_integer(1e4, "k") == 10_000  # an integral float is a count
    assert v.check_epsilon(np.array(0.25)) == 0.25
    with pytest.raises(TypeError):
        v.check_epsilon(np.bool_(True))
    with pytest.raises(TypeError):
        v.check_epsilon(1 + 2j)


def test_delta_warns_when_not_much_smaller_than_one_over_n():
    with pytest.warns(UserWarning, match="1/n"):
        v.check_delta(0.01, n=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        v.check_delta(1e-5, n=1000)  # no warning
    X, y = dplab.census_features(dplab.load_census(n=200))
    with pytest.warns(UserWarning, match="1/n"):
        dplab.noisy_gradient_descent(X, y, epsilon=1.0, delta=0.01, steps=1, rng=0)


def test_arrays_refuse_bool_strings_and_non_finite():
    with pytest.raises(TypeError):
        v.check_array([True, False], "values")
    with pytest.raises(TypeError):
        v.check_array(["a", "b"], "values")
    with pytest.raises(TypeError):
        v.check_array("12", "values")
    with pytest.raises(ValueError, match="values must contain only finite numbers, got nan"):
        v.check_array([1.0, math.nan], "values")
    with pytest.raises(ValueError, match="values must contain only finite numbers, got inf"):
        v.check_array([1.0, math.inf], "values")


def test_sequential_composition_entries_validated():
    with pytest.raises(ValueError, match=r"epsilons\[1\] must be >= 0 and finite, got -1\.0"):
        dplab.sequential_composition([0.5, -1])
    with pytest.raises(ValueError, match="nan"):
        dplab.sequential_composition([0.5, NAN])
    with pytest.raises(TypeError, match="True"):
        dplab.sequential_composition([True])
    with pytest.raises(TypeError, match="'1'"):
        dplab.sequential_composition(["1"])
    with pytest.raises(ValueError, match="empty"):
        dplab.sequential_composition([])
    with pytest.raises(ValueError, match=r"delta.*1\.5"):
        dplab.sequential_composition([(0.5, 1.5)])


def test_rng_argument_validated():
    for bad, exc in [(True, TypeError), ("1", TypeError), (1.5, TypeError), (-1, ValueError)]:
        with pytest.raises(exc, match="rng"):
            dplab.laplace_mech(1.0, 1, 1, rng=bad)


@pytest.mark.parametrize("positive", [False, True])
@pytest.mark.parametrize(
    "value",
    [1.0, 0.25, -3.0, 0.0, -0.0, 5e-324, 2.2e-308, v.NORMAL_MIN, 1e308, math.inf, -math.inf, math.nan],
)
def test_finite_result_of_a_float_is_the_one_of_its_array(value, positive):
    """A Python float takes a shortcut past numpy: it must end exactly as the 0-d array does (the
    same float back, or the same error)."""

    def outcome(x):
        try:
            return ("ok", v.finite_result(x, "the scale", positive=positive, epsilon=1.0))
        except ValueError as exc:
            return ("error", str(exc))

    got, expected = outcome(value), outcome(np.array(value))
    assert repr(got) == repr(expected)
    assert got[0] == "error" or type(got[1]) is float
