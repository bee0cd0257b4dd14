"""matplotlib for the deck: the Agg backend (never a GUI one), pyplot's import cut into steps the
worker takes one at a time, and ``plt.show()`` routed to the session (its figures go under the
cell that calls it)."""

from __future__ import annotations

import functools
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

    share_mathtext_parser()

    def show_under_the_cell(*args, **kwargs) -> None:
        show()

    plt.show = show_under_the_cell


def share_mathtext_parser() -> None:
    """Let every renderer parse mathtext through one parser, so that each expression (the
    ticks of a log axis, ``$\\varepsilon$`` in a label) is parsed once per session.

    matplotlib keys its cache of parsed mathtext by the parser object, and each renderer makes
    its own (``TextToPath()`` in ``RendererBase.__init__``): saving one figure with a layout
    engine uses two renderers, so every expression was parsed twice per figure, and again for
    the next figure: tens of milliseconds each, in pyparsing. The parse depends only on the
    expression, dpi, font and antialiasing, which the cache keys by value. Without these
    internals (another matplotlib), nothing changes.
    """
    from matplotlib import mathtext, textpath

    parse = getattr(mathtext.MathTextParser, "_parse_cached", None)
    init = textpath.TextToPath.__init__
    if getattr(init, "shares_parser", False) or not hasattr(parse, "__wrapped__"):
        return
    # the cache's 50 entries are one figure's ticks and labels; the deck's figures hold more
    mathtext.MathTextParser._parse_cached = functools.lru_cache(512)(parse.__wrapped__)
    shared = mathtext.MathTextParser("path")

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        if isinstance(getattr(self, "mathtext_parser", None), mathtext.MathTextParser):
            self.mathtext_parser = shared

    __init__.shares_parser = True
    textpath.TextToPath.__init__ = __init__
