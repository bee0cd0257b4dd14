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
* :mod:`dplab.local` -- local DP: randomized response, its estimates, what one report reveals;
* :mod:`dplab.audit` -- auditing a mechanism: a lower bound on its epsilon, from a game;
* :mod:`dplab.numfmt` -- numbers as shown to a Spanish-speaking audience (0,5; 5.000);
* :mod:`dplab.plots` -- the house figure style.
"""

# Each module's __all__ is its public API; the package re-exports it, so no name is listed twice.
from . import (
    accountant,
    accounting,
    audit,
    census,
    discrete,
    learning,
    local,
    mechanisms,
    numfmt,
    sensitivity,
)
from .accountant import *  # noqa: F403
from .accounting import *  # noqa: F403
from .audit import *  # noqa: F403
from .census import *  # noqa: F403
from .discrete import *  # noqa: F403
from .learning import *  # noqa: F403
from .local import *  # noqa: F403
from .mechanisms import *  # noqa: F403
from .numfmt import *  # noqa: F403
from .sensitivity import *  # noqa: F403

__version__ = "0.1.0"

#: importable from dplab, but not what ``from dplab import *`` brings: the accountant's observer
#: hooks (the page's budget meter), result records, the learning model's scaling constants and
#: the count's share of a budget (details of one slide)
NOT_STARRED = frozenset(
    {
        "add_observer",
        "remove_observer",
        "AuditResult",
        "RREstimate",
        "AGE_CENTER",
        "AGE_SCALE",
        "EDUCATION_CENTER",
        "EDUCATION_SCALE",
        "COUNT_BUDGET_SHARE",
    }
)
_MODULES = (census, mechanisms, discrete, sensitivity, accounting, accountant, learning, audit, local, numfmt)
__all__ = [name for module in _MODULES for name in module.__all__ if name not in NOT_STARRED]

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
