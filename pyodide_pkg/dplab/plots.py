"""The deck's figure style: readable from the back of a hall on a 16:9 projector.

Large fonts (ticks 16 pt, labels 20 pt), the Okabe-Ito colour-blind-safe
palette, no top/right spines, a light grid. This is the only module that
imports matplotlib (``import dplab`` does not), because the deck loads
matplotlib after numpy.

Usage::

    from dplab.plots import figure, COLORS
    fig, ax = figure("epsilon", "precisión")
    ax.plot(x, y, color=COLORS["blue"])
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter

__all__ = ["OKABE_ITO", "COLORS", "apply_style", "figure", "decimal_comma"]

#: Okabe & Ito (2008), "Color Universal Design": distinguishable with any colour vision.
COLORS = {
    "blue": "#0072B2",
    "orange": "#E69F00",
    "green": "#009E73",
    "vermillion": "#D55E00",
    "sky": "#56B4E9",
    "purple": "#CC79A7",
    "yellow": "#F0E442",
    "black": "#000000",
}
OKABE_ITO = tuple(COLORS.values())

_STYLE = {
    "font.size": 18,
    "axes.titlesize": 22,
    "axes.labelsize": 20,
    "xtick.labelsize": 16,
    "ytick.labelsize": 16,
    "legend.fontsize": 16,
    "legend.frameon": False,
    "axes.prop_cycle": mpl.cycler(color=list(OKABE_ITO)),
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.color": "#000000",
    "grid.alpha": 0.12,
    "grid.linewidth": 0.8,
    "lines.linewidth": 3.0,
    "lines.markersize": 8,
    "figure.dpi": 100,
    "savefig.bbox": "tight",
}


def apply_style() -> None:
    """Set the house style in matplotlib's rcParams (idempotent)."""
    mpl.rcParams.update(_STYLE)


def decimal_comma(ax, decimals: int = 1, axis: str = "both") -> None:
    """Show tick labels with a Spanish decimal comma (0,5 instead of 0.5)."""
    formatter = FuncFormatter(lambda v, _pos: f"{v:.{decimals}f}".replace(".", ","))
    if axis in ("x", "both"):
        ax.xaxis.set_major_formatter(formatter)
    if axis in ("y", "both"):
        ax.yaxis.set_major_formatter(formatter)


def figure(xlabel: str, ylabel: str, title=None, size=(10, 5.2)):
    """A new figure in the house style, with labelled axes.

    Parameters
    ----------
    xlabel, ylabel : str
        Axis labels.
    title : str, optional
        Figure title (slides usually carry their own title, so default none).
    size : (float, float), default (10, 5.2)
        Width and height in inches (about 16:9 with room for the slide title).

    Returns
    -------
    (fig, ax)
    """
    apply_style()
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title is not None:
        ax.set_title(title)
    return fig, ax
