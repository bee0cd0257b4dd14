#!/usr/bin/env python3
"""What saving the deck's figures costs, the crop of ``bbox_inches="tight"`` beside the cell
runner's way (``cellrunner.figures._savefig``: a figure with a layout engine saved as it is),
under CPython, alternating, in one run.

    python bench/diagnose/savefig.py [--reps 5]

Every cell runs once (prelude and house style as in the deck) and the figures it shows are
kept; then each figure is saved as SVG both ways, ``--reps`` times, alternating which goes
first. Prints the median per figure and per way, the totals and each way's SVG size in points.
The browser's side of the same change is in ``bench/startup.py``'s cells table.
"""

from __future__ import annotations

import argparse
import io
import os
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

    from deckbuild.schema import load_deck

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


def save(fig, way: str) -> tuple[float, str]:
    """Seconds to save ``fig`` as SVG ``way`` ("tight" or "runner"), and the SVG's size."""
    from cellrunner.figures import _savefig

    out = io.StringIO()
    t0 = time.perf_counter()
    if way == "tight":
        fig.savefig(out, format="svg", bbox_inches="tight")
    else:
        _savefig(fig, out, format="svg")
    seconds = time.perf_counter() - t0
    size = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', out.getvalue())
    return seconds, ("×".join(f"{float(v):.0f}" for v in size.groups()) + " pt") if size else "?"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=5, help="saves of each figure each way (default 5)")
    args = ap.parse_args()
    ways = ("tight", "runner")
    totals = dict.fromkeys(ways, 0.0)
    print(f"{'cell':36} {'layout':10} {'tight: ms':>10} {'size':>14} {'runner: ms':>11} {'size':>14}")
    for cell, fig in deck_figures():
        for way in ways:
            save(fig, way)  # once before timing: fonts and caches warm
        times: dict[str, list[float]] = {w: [] for w in ways}
        sizes: dict[str, str] = {}
        for rep in range(args.reps):
            for way in ways if rep % 2 == 0 else ways[::-1]:
                seconds, sizes[way] = save(fig, way)
                times[way].append(seconds)
        med = {w: statistics.median(times[w]) for w in ways}
        for w in ways:
            totals[w] += med[w]
        engine = type(fig.get_layout_engine()).__name__.replace("LayoutEngine", "") or "-"
        print(
            f"{cell[:36]:36} {engine[:10]:10} {med['tight'] * 1000:10.1f} {sizes['tight']:>14} "
            f"{med['runner'] * 1000:11.1f} {sizes['runner']:>14}"
        )
    saved = totals["tight"] - totals["runner"]
    print(
        f"total (sum of medians): tight {totals['tight']:.3f} s, runner {totals['runner']:.3f} s, "
        f"{saved:+.3f} s ({saved / totals['tight']:.0%} of the tight save)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
