"""A log axis's minor ticks made only where they can be drawn, while a figure is saved.

matplotlib's ``LogLocator`` gives an axis's minor ticks over whole decades, from one below its
view to two above it, and the axis makes a tick (five artists: two marks, two labels, a grid
line) for each one before it keeps those in its view: 80 minor ticks made on each log axis of
``encontrar-el-codo``, where 43 and 46 are in or near its view. Making ticks was about a fifth
of the deck's cells under CPython's profiler (matplotlib 3.8.4). While a figure is saved,
:func:`minor_ticks_in_view` has each such axis ask only for the minor ticks in its view (with a
margin of 1 % of it, so that every tick matplotlib would draw is kept): the file is the same,
byte for byte (``bench/diagnose/savefig.py``, ``tests/unit/test_cellrunner.py``).

Only a ``LogLocator`` whose axis labels its minor ticks with a ``LogFormatter`` is touched:
that formatter ignores the list of ticks it is given (it labels from the view alone), so fewer
ticks cannot change a label. Imported once matplotlib is (``figures._savefig``).
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np
from matplotlib.ticker import Locator, LogFormatter, LogLocator

MARGIN = 0.01  # of the view's span, in the axis's own (transformed) coordinates


class _InView(Locator):
    """``locator``'s ticks that fall in ``axis``'s view, widened by :data:`MARGIN` each side."""

    def __init__(self, locator, axis):
        self.locator = locator
        self.set_axis(axis)

    def __call__(self):
        locs = np.asarray(self.locator())
        transform = self.axis.get_transform()
        lo, hi = sorted(transform.transform(np.asarray(self.axis.get_view_interval(), dtype=float)))
        pad = (hi - lo) * MARGIN
        with np.errstate(all="ignore"):
            where = transform.transform(locs)
        return locs[(where >= lo - pad) & (where <= hi + pad)]  # NaN (never drawn) is dropped

    def tick_values(self, vmin, vmax):
        return self.locator.tick_values(vmin, vmax)

    def nonsingular(self, v0, v1):
        return self.locator.nonsingular(v0, v1)

    def view_limits(self, vmin, vmax):
        return self.locator.view_limits(vmin, vmax)


@contextmanager
def minor_ticks_in_view(fig):
    """While the block runs, every log axis of ``fig`` makes only the minor ticks in its view;
    then each axis has its own locator again (unless something set another meanwhile)."""
    swapped = []
    for ax in fig.get_axes():
        for axis in (ax.xaxis, ax.yaxis):
            minor = axis.minor
            if isinstance(minor.locator, LogLocator) and isinstance(minor.formatter, LogFormatter):
                wrapper = _InView(minor.locator, axis)
                swapped.append((minor, minor.locator, wrapper))
                minor.locator = wrapper
    try:
        yield
    finally:
        for minor, locator, wrapper in swapped:
            if minor.locator is wrapper:
                minor.locator = locator
