#!/usr/bin/env python3
"""What saving the deck's figures costs, three ways, under CPython, alternating, in one run:

- ``tight``: ``savefig`` with the house style's crop (``bbox_inches="tight"``);
- ``savefig``: ``savefig`` without the crop, for a figure whose layout engine fits it, with it
  for one without (the cell runner's way until the one-draw save): matplotlib draws a fitted
  figure twice, once with drawing disabled so that its layout runs, then again to write it;
- ``runner``: the cell runner's way now (``cellrunner.figures._savefig``): such a figure drawn
  once, its layout run inside that draw.

    python bench/diagnose/savefig.py [--reps 5]

Every cell runs once (prelude and house style as in the deck) and the figures it shows are
kept; then each figure is saved as SVG each way, ``--reps`` times, rotating which goes first,
each time a fresh copy of the figure as the cell made it (unpickled before the clock starts), so
that every save pays what the deck's one save pays: the first layout, the ticks made.
Prints the median per figure and per way, the totals, each way's SVG size in points, and
whether the runner's file is byte for byte ``savefig``'s (two copies of the figure, each saved
once, with the file's date and ids fixed). The browser's side is in ``bench/startup.py``'s
cells table.
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path[:] = [str(ROOT), str(ROOT / "static" / "py"), str(ROOT / "pyodide_pkg")] + sys.path[1:]


def deck_figures() -> list[tuple[str, object]]:
    """(cell id, figure) for every figure the deck's cells show, in deck order."""
    os.environ["MPLBACKEND"] = "agg"
    import cellrunner
    from cellrunner import figures

    from dpdeck.build.schema import load_deck

    deck = load_deck(ROOT / "deck" / "deck.yaml")
    session = cellrunner.Session()
    session.run(deck.prelude, "__prelude__", lambda kind, payload: None)
    session.prepare_matplotlib()
    kept: list[tuple[str, object]] = []
    current = [""]

    def keep(self, run) -> None:
        import matplotlib.pyplot as plt

        kept.extend((current[0], plt.figure(n)) for n in plt.get_fignums())
        plt.close("all")

    figures.FigureWatcher.show = keep
    for slide in deck.slides:
        if slide.code is not None:
            current[0] = slide.id
            session.run(slide.code, slide.id, lambda kind, payload: None)
    return kept


WAYS = ("tight", "savefig", "runner")


def save(fig, way: str) -> tuple[float, str, str]:
    """Seconds to save ``fig`` as SVG ``way`` (one of :data:`WAYS`), the SVG's size, the SVG."""
    import matplotlib as mpl
    from cellrunner.figures import _savefig

    out = io.StringIO()
    t0 = time.perf_counter()
    if way == "runner":
        _savefig(fig, out, format="svg")
    else:
        crop = way == "tight" or fig.get_layout_engine() is None
        with mpl.rc_context({"savefig.bbox": "tight" if crop else "standard"}):
            fig.savefig(out, format="svg")
    seconds = time.perf_counter() - t0
    size = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', out.getvalue())
    return (
        seconds,
        ("×".join(f"{float(v):.0f}" for v in size.groups()) + " pt") if size else "?",
        out.getvalue(),
    )


def same_file(made: bytes) -> bool:
    """Whether the runner's SVG of a figure (``made``: pickled as the cell made it) is
    ``savefig``'s (the ``savefig`` way), byte for byte: two copies, each saved once (a figure's
    first draw may settle state that a second save sees), with the file's date and ids fixed."""
    import matplotlib as mpl

    before = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = "0"
    try:
        with mpl.rc_context({"svg.hashsalt": "savefig.py"}):
            return save(pickle.loads(made), "savefig")[2] == save(pickle.loads(made), "runner")[2]
    finally:
        if before is None:
            del os.environ["SOURCE_DATE_EPOCH"]
        else:
            os.environ["SOURCE_DATE_EPOCH"] = before


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5, help="saves of each figure each way (default 5)")
    args = ap.parse_args()
    totals = dict.fromkeys(WAYS, 0.0)
    differ = []
    print(f"{'cell':34} {'layout':11}" + "".join(f" {w + ': ms':>12}" for w in WAYS) + f" {'size':>12} same")
    for cell, fig in deck_figures():
        made = pickle.dumps(fig)
        same = same_file(made)
        for way in WAYS:
            save(pickle.loads(made), way)  # once before timing: fonts and caches warm
        times: dict[str, list[float]] = {w: [] for w in WAYS}
        sizes: dict[str, str] = {}
        for rep in range(args.reps):
            for way in WAYS[rep % len(WAYS) :] + WAYS[: rep % len(WAYS)]:
                seconds, sizes[way], _ = save(pickle.loads(made), way)
                times[way].append(seconds)
        med = {w: statistics.median(times[w]) for w in WAYS}
        for w in WAYS:
            totals[w] += med[w]
        if not same:
            differ.append(cell)
        engine = type(fig.get_layout_engine()).__name__.replace("LayoutEngine", "") or "-"
        print(
            f"{cell[:34]:34} {engine[:11]:11}"
            + "".join(f" {med[w] * 1000:12.1f}" for w in WAYS)
            + f" {sizes['runner']:>12} {'yes' if same else 'NO'}"
        )
    print("total (sum of medians): " + ", ".join(f"{w} {totals[w]:.3f} s" for w in WAYS))
    for a, b in (("tight", "savefig"), ("savefig", "runner")):
        saved = totals[a] - totals[b]
        print(f"  {a} -> {b}: {-saved:+.3f} s ({-saved / totals[a]:+.0%})")
    print(
        "the runner's files are savefig's, byte for byte: "
        + ("all" if not differ else "NOT " + ", ".join(differ))
    )
    return 0 if not differ else 1


if __name__ == "__main__":
    raise SystemExit(main())
