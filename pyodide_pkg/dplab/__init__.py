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

# the deck's cell runner (pyodide_pkg/cellrunner) opens one noise session per cell run: public
# here, so that no package reaches into the private ``dplab._rng``; not starred (not for cells)
from ._rng import noise_session as noise_session
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
#: hooks (the page's budget meter), result records, the learning model's scaling constants,
#: the count's share of a budget (details of one slide), randomized response's largest epsilon
#: (the build's check of a poll slide reads it) and the cell runner's noise session
NOT_STARRED = frozenset(
    {
        "noise_session",
        "add_observer",
        "remove_observer",
        "AuditResult",
        "RREstimate",
        "AGE_CENTER",
        "AGE_SCALE",
        "EDUCATION_CENTER",
        "EDUCATION_SCALE",
        "COUNT_BUDGET_SHARE",
        "MAX_LOCAL_EPSILON",
    }
)
_MODULES = (census, mechanisms, discrete, sensitivity, accounting, accountant, learning, audit, local, numfmt)
__all__ = [name for module in _MODULES for name in module.__all__ if name not in NOT_STARRED]


def __getattr__(name):
    # PEP 562: ``dplab.plots`` imports matplotlib only when first touched.
    if name == "plots":
        import importlib

        return importlib.import_module(".plots", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
