"""The deck's figure style: readable from the back of a hall on a 16:9 projector.

Large fonts (ticks 16 pt, labels 20 pt), the Okabe-Ito colour-blind-safe
palette, no top/right spines, a light grid, and tick labels as a Spanish-speaking
audience reads numbers (0,5 and 5.000; see :mod:`dplab.numfmt`). This is the only module that
imports matplotlib (``import dplab`` does not), because the deck loads
matplotlib after numpy.

Usage::

    from dplab.plots import figure, COLORS
    fig, ax = figure("epsilon", "precisión")
    ax.plot(x, y, color=COLORS["blue"])
"""

from __future__ import annotations

import re

import matplotlib as mpl
import matplotlib.pyplot as plt
from matplotlib.ticker import FuncFormatter, ScalarFormatter

from .numfmt import fmt

__all__ = [
    "OKABE_ITO",
    "COLORS",
    "apply_style",
    "figure",
    "decimal_comma",
    "SpanishFormatter",
    "spanish_ticks",
    "poll_figure",
]

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


_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _spanish(text: str) -> str:
    """Every plain number in ``text`` in the Spanish way: '5000' -> '5.000', '0.5' -> '0,5'."""

    def one(match):
        whole, _, frac = match.group(0).partition(".")
        return fmt(int(whole)) + ("," + frac if frac else "")

    return _NUMBER.sub(one, text)


class SpanishFormatter(ScalarFormatter):
    """matplotlib's usual tick labels, with a decimal comma and '.' between thousands."""

    def __call__(self, x, pos=None):
        return _spanish(super().__call__(x, pos))

    def get_offset(self):
        return _spanish(super().get_offset())


def spanish_ticks(ax, axis: str = "both") -> None:
    """Spanish tick labels on the linear axes of ``ax`` (:func:`figure` does it for you).

    Call it again after ``ax.set_xscale("linear")``; log axes keep their powers of ten.
    """
    for name in ("x", "y"):
        which = getattr(ax, f"{name}axis")
        if axis in (name, "both") and which.get_scale() == "linear":
            which.set_major_formatter(SpanishFormatter())


def decimal_comma(ax, decimals: int = 1, axis: str = "both") -> None:
    """Tick labels with a fixed number of decimals and a Spanish decimal comma (0,5)."""
    formatter = FuncFormatter(lambda v, _pos: fmt(v, decimals))
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
        Linear axes label their ticks the Spanish way (0,5; 5.000).
    """
    apply_style()
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    spanish_ticks(ax)
    if title is not None:
        ax.set_title(title)
    return fig, ax


def poll_figure(result, options, size=(10, 3.6)):
    """A poll under randomized response at a glance: per option, the share of the reports
    (what the server sees) and the estimate of the true share with its interval.

    Parameters
    ----------
    result : dplab.local.RREstimate
        From :func:`dplab.rr_estimate` (one option) or :func:`dplab.grr_estimate` (arrays).
    options : list of str
        One label per entry of ``result`` (e.g. ``["sí"]``, or the k options).
    size : (float, float)
        Width and height in inches.

    Returns
    -------
    (fig, ax)
        Shares on a 0-100 % axis. The estimate and its interval are drawn clipped to [0, 1]
        (a true share cannot leave it); an estimate that was clipped is marked «(recortada)».
    """
    import numpy as np

    from .numfmt import pct

    estimate, share = np.atleast_1d(result.estimate), np.atleast_1d(result.share)
    low, high = np.atleast_1d(result.low), np.atleast_1d(result.high)
    fig, ax = figure("proporción", "", size=(size[0], max(size[1], 1.2 + 0.9 * len(options))))
    y = np.arange(len(options))[::-1]
    shown = np.clip(estimate, 0, 1)
    ax.barh(y + 0.2, share, height=0.36, color=COLORS["sky"], label="respuestas recibidas")
    ax.barh(y - 0.2, shown, height=0.36, color=COLORS["blue"], label="estimación de la verdad")
    ax.errorbar(
        shown,
        y - 0.2,
        xerr=[shown - np.clip(low, 0, 1), np.clip(high, 0, 1) - shown],
        fmt="none",
        ecolor=COLORS["black"],
        capsize=6,
        linewidth=2,
    )
    for yi, value, clipped in zip(y, shown, shown != estimate, strict=True):
        label = pct(value) + ("\n(recortada)" if clipped else "")
        ax.text(1.02, yi - 0.2, label, va="center", fontsize=15, transform=ax.get_yaxis_transform())
    ax.set_xlim(0, 1)
    ax.set_yticks(y, options)
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: pct(v)))
    ax.grid(axis="y", visible=False)
    ax.legend(loc="lower right", ncols=2, bbox_to_anchor=(1, 1.0))
    return fig, ax
