"""matplotlib for the deck: the Agg backend (never a GUI one), pyplot's import cut into steps the
worker takes one at a time, and ``plt.show()`` routed to the session (its figures go under the
cell that calls it)."""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable

# pyplot's import, cut into steps the worker takes one at a time, so that a cell the presenter
# runs meanwhile waits for one step, never for all (bench/README.md, "matplotlib's import in steps").
MATPLOTLIB_STEPS = (
    "pyparsing",
    "PIL.Image",
    "matplotlib",
    "matplotlib.colors",
    "matplotlib.font_manager",
    "matplotlib.ticker",
    "matplotlib.transforms",
    "matplotlib.path",
    "matplotlib.artist",
    "matplotlib.lines",
    "matplotlib.patches",
    "matplotlib.text",
    "matplotlib.collections",
    "matplotlib.image",
    "matplotlib.axis",
    "matplotlib.axes",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    "matplotlib.pyplot",
)

# matplotlib's backend, set once for the whole interpreter when the runner is imported (the
# worker imports it before anything can import matplotlib). A value already set wins.
MPL_BACKEND = "agg"
os.environ.setdefault("MPLBACKEND", MPL_BACKEND)


def import_step(name: str) -> None:
    """One step of :data:`MATPLOTLIB_STEPS` (with the Agg backend, never a GUI one)."""
    importlib.import_module(name)


def prepare(show: Callable[[], None]) -> None:
    """Import pyplot with the Agg backend and the deck's style; ``plt.show()`` calls ``show``."""
    import matplotlib

    matplotlib.use(MPL_BACKEND)
    import matplotlib.pyplot as plt

    try:
        from dplab import plots

        plots.apply_style()
    except ImportError:
        pass

    def show_under_the_cell(*args, **kwargs) -> None:
        show()

    plt.show = show_under_the_cell
