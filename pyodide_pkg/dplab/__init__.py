"""dplab: the differential-privacy package of the deck "Privacidad Diferencial".

After Near & Abuah, *Programming Differential Privacy*. Pure Python on numpy;
``dplab.plots`` (matplotlib) is imported only when first used.

Modules, one job each:

* :mod:`dplab.census` -- the synthetic Adult-like census;
* :mod:`dplab.mechanisms` -- Laplace, Gaussian (classic, analytic), exponential;
* :mod:`dplab.discrete` -- exact discrete Laplace and discrete Gaussian for integer queries;
* :mod:`dplab.sensitivity` -- clipping, clipped sums, private means, choosing b;
* :mod:`dplab.accounting` -- composition and RDP/zCDP conversions (pure math);
* :mod:`dplab.accountant` -- :class:`BudgetAccountant` (the only state);
* :mod:`dplab.learning` -- logistic regression, noisy gradient descent, DP-SGD;
* :mod:`dplab.audit` -- auditing a mechanism: a lower bound on its epsilon, from a game;
* :mod:`dplab.numfmt` -- numbers as shown to a Spanish-speaking audience (0,5; 5.000);
* :mod:`dplab.plots` -- the house figure style.
"""

from .accountant import BudgetAccountant, BudgetError, Release
from .accounting import (
    DEFAULT_RDP_ORDERS,
    advanced_composition,
    advanced_composition_max_epsilon,
    advanced_gaussian_epsilon,
    dpsgd_epsilon,
    gaussian_epsilon,
    gaussian_rdp,
    gaussian_zcdp,
    rdp_gaussian_epsilon,
    rdp_to_epsilon,
    sequential_composition,
    sequential_gaussian_epsilon,
    subsampled_gaussian_rdp,
    zcdp_to_dp,
)
from .census import EDUCATION_LEVELS, KAREN, KAREN_ROW, OCCUPATIONS, Census, load_census
from .discrete import (
    discrete_gaussian_epsilon,
    discrete_gaussian_mech,
    discrete_gaussian_sigma,
    discrete_laplace_mech,
)
from .learning import (
    accuracy,
    census_features,
    dpsgd,
    gradient,
    logistic_loss,
    majority_baseline,
    noisy_gradient_descent,
    per_person_gradients,
    predict,
    sample_people,
    sigmoid,
    threshold_epsilon,
    train_logistic,
)
from .mechanisms import (
    analytic_gaussian_sigma,
    exponential_mech,
    gaussian_mech,
    gaussian_sigma,
    laplace_gauss_crossover,
    laplace_mech,
    laplace_vs_gauss_std,
    report_noisy_max,
)
from .numfmt import fmt, pct
from .sensitivity import (
    DEFAULT_CLIP_BOUNDS,
    choose_clipping_bound,
    clip,
    clip_rows_l2,
    clipped_sum,
    clipped_sum_error,
    private_mean,
)

__version__ = "0.1.0"

__all__ = [
    # data
    "load_census",
    "Census",
    "EDUCATION_LEVELS",
    "OCCUPATIONS",
    "KAREN",
    "KAREN_ROW",
    # mechanisms
    "laplace_mech",
    "gaussian_mech",
    "gaussian_sigma",
    "analytic_gaussian_sigma",
    "exponential_mech",
    "report_noisy_max",
    "laplace_vs_gauss_std",
    "laplace_gauss_crossover",
    # exact discrete mechanisms (integer-valued queries)
    "discrete_laplace_mech",
    "discrete_gaussian_mech",
    "discrete_gaussian_sigma",
    "discrete_gaussian_epsilon",
    # sensitivity
    "clip",
    "clip_rows_l2",
    "clipped_sum",
    "private_mean",
    "clipped_sum_error",
    "choose_clipping_bound",
    "DEFAULT_CLIP_BOUNDS",
    # accounting
    "sequential_composition",
    "advanced_composition",
    "advanced_composition_max_epsilon",
    "gaussian_epsilon",
    "gaussian_rdp",
    "rdp_to_epsilon",
    "gaussian_zcdp",
    "zcdp_to_dp",
    "sequential_gaussian_epsilon",
    "advanced_gaussian_epsilon",
    "rdp_gaussian_epsilon",
    "subsampled_gaussian_rdp",
    "dpsgd_epsilon",
    "DEFAULT_RDP_ORDERS",
    "BudgetAccountant",
    "BudgetError",
    "Release",
    # learning
    "census_features",
    "sigmoid",
    "logistic_loss",
    "per_person_gradients",
    "gradient",
    "predict",
    "accuracy",
    "majority_baseline",
    "train_logistic",
    "noisy_gradient_descent",
    "dpsgd",
    "sample_people",
    "threshold_epsilon",
    # numbers for the audience: decimal comma, '.' between thousands
    "fmt",
    "pct",
]

# auditing a mechanism: an empirical lower bound on its epsilon (the deck's appendix)
from .audit import AuditResult, audit_mechanism, beta_quantile, clopper_pearson  # noqa: E402,F401

__all__ += ["audit_mechanism", "clopper_pearson", "beta_quantile"]  # AuditResult: a record


# Old names, kept one release (each warns when called, naming its replacement); in __all__ so
# that ``from dplab import *`` still finds them, marked ``__deprecated__`` for the registries.
from .accounting import advanced_composition_tight, rdp_to_dp  # noqa: E402
from .mechanisms import laplace_vs_gauss_error  # noqa: E402
from .sensitivity import DEFAULT_BOUNDS  # noqa: E402

__all__ += ["laplace_vs_gauss_error", "advanced_composition_tight", "rdp_to_dp", "DEFAULT_BOUNDS"]

#: Deprecated name -> what replaces it (tests/unit/test_dplab_deprecated.py checks each).
DEPRECATED = {
    "laplace_vs_gauss_error": "laplace_vs_gauss_std",
    "advanced_composition_tight": "advanced_composition(..., simplified=False)",
    "rdp_to_dp": "rdp_to_epsilon(orders=..., rdp=..., delta=...)",
    "DEFAULT_BOUNDS": "DEFAULT_CLIP_BOUNDS",
    "BudgetAccountant.can_spend": "BudgetAccountant.check_spend",
    "BudgetAccountant.spent": "BudgetAccountant.total_spent",
    "BudgetAccountant.remaining": "BudgetAccountant.remaining_budget",
    "BudgetAccountant.laplace_mech": "laplace_mech(..., accountant=acc)",
    "advanced_composition(no simplified=)": "advanced_composition(..., simplified=True)",
    "gaussian_rdp(alpha=)": "gaussian_rdp(orders=)",
    "subsampled_gaussian_rdp(alphas=)": "subsampled_gaussian_rdp(orders=)",
    "train_logistic(iterations=)": "train_logistic(steps=)",
    "noisy_gradient_descent(iterations=)": "noisy_gradient_descent(steps=)",
    "clip_rows_l2(bound=)": "clip_rows_l2(clip_bound=)",
    "clipped_sum(bound=)": "clipped_sum(clip_bound=)",
    "clipped_sum_error(bounds=)": "clipped_sum_error(clip_bounds=)",
    "choose_clipping_bound(bounds=)": "choose_clipping_bound(clip_bounds=)",
    "gaussian_epsilon(sensitivity by position)": "gaussian_epsilon(sigma, delta, sensitivity=...)",
    "sequential_gaussian_epsilon(sensitivity by position)": "...(sigma, k, delta, sensitivity=...)",
    "advanced_gaussian_epsilon(sensitivity by position)": "...(sigma, k, delta, sensitivity=..., simplified=...)",
    "rdp_gaussian_epsilon(sensitivity by position)": "...(sigma, k, delta, sensitivity=...)",
    "discrete_gaussian_epsilon(sensitivity by position)": "...(sigma, delta, sensitivity=...)",
    "choose_clipping_bound(clip_bounds by position)": "choose_clipping_bound(values, epsilon, clip_bounds=...)",
    "noisy_gradient_descent(steps by position)": "noisy_gradient_descent(X, y, epsilon, delta, steps=...)",
    "dpsgd(delta=)": "dpsgd returns theta; dpsgd_epsilon(sample_rate, noise_multiplier, steps, delta)",
}


def __getattr__(name):
    # PEP 562: ``dplab.plots`` imports matplotlib only when first touched.
    if name == "plots":
        import importlib

        return importlib.import_module(".plots", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
