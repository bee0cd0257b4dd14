"""The printed table, from the document bench/stats.py computes (no computing here)."""

from __future__ import annotations

from bench import hall, stats
from bench import targets as targets_  # ``targets`` is this module's printer of them
from bench.milestones import FILE_TYPES

README_ROWS = (
    ("core ready (in the worker)", "core", "core_ready_worker"),
    ("numpy ready / deck runtime ready (numpy, dplab, prelude; in the worker)", "numpy", "ready_worker"),
    ("first code cell's result", None, "first_cell"),
    ("first figure", "figure", "first_figure"),
    ("all {cells} cells done", None, "all_done"),
)
BASELINE_ROWS = (
    ("core ready (loadPyodide)", "core"),
    ("numpy ready", "numpy"),
    ("matplotlib ready", "matplotlib"),
    ("first figure", "figure"),
)
DECK_ROWS = (
    ("page ready (window.deck set)", "deck_ready"),
    ("core ready (worker's 2nd status, heard)", "core_ready"),
    ("  said by the worker (its own clock)", "core_ready_worker"),
    ("runtime ready (status 'ready', heard)", "ready"),
    ("  said by the worker (its own clock)", "ready_worker"),
    ("first cell's result", "first_cell"),
    ("first output shown (last visit's or live)", "first_output"),
    ("every last visit's output shown", "last_visit_all"),
    ("first (live) figure", "first_figure"),
    ("all cells done", "all_done"),
    ("matplotlib ready (inferred)", "mpl_ready"),
    ("main thread blocking, ready → all done (TBT)", "tbt"),
    ("main thread's longest task, ready → all done", "longest_task"),
)
RATIO_ROWS = (
    ("core ready / core ready (in the workers)", "core_ready_worker"),
    ("runtime ready / numpy ready (in the workers)", "ready_worker"),
    ("first figure / first figure", "first_figure"),
)
TARGETS = {
    1: "cold first figure ≤ baseline's",
    2: "warm first figure ≤ half the cold one",
    3: "loading matplotlib never blocks a numpy-only cell",
    4: "cold load fetches only wheels the deck imports",
    5: f"cells in the browser within {stats.CPU_RATIO_LIMIT:.1f}× of CPython",
}
WIDE = (44, 22, 22, 22, 18)
CELLS = (36, 22, 22, 22, 14)
WHEELS = (58, 12, 14, 18)


def fmt_s(v, digits=2) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def fmt_stat(st, digits=2, unit="s") -> str:
    """median, with [min–max] when there is more than one value."""
    if not st:
        return "—"
    if st["n"] == 1:
        return f"{st['median']:.{digits}f}{'' if unit == '×' else ' '}{unit}"
    return f"{st['median']:.{digits}f} [{st['min']:.{digits}f}–{st['max']:.{digits}f}]"


def fmt_bytes(n) -> str:
    if n is None:
        return "—"
    if n >= 1 << 20:
        return f"{n / (1 << 20):.2f} MiB"
    if n >= 1 << 10:
        return f"{n / (1 << 10):.0f} KiB"
    return f"{n} B"


def yes_no(x) -> str:
    return "?" if x is None else ("yes" if x else "NO")


class Table:
    def __init__(self):
        self.lines: list[str] = []

    def title(self, text: str) -> None:
        self.lines += ["", text, "-" * len(text)]

    def row(self, *cols, widths=(44, 24, 24, 22)) -> None:
        parts = [
            str(c).ljust(widths[0]) if i == 0 else str(c).rjust(widths[i] if i < len(widths) else 14)
            for i, c in enumerate(cols)
        ]
        self.lines.append("  " + "".join(parts).rstrip())

    def text(self, line: str = "") -> None:
        self.lines.append(line)

    def __str__(self) -> str:
        return "\n".join(self.lines)


def median(s: dict, key: str | None) -> str:
    st = s.get(key) if key else None
    return "—" if not st else f"{st['median']:.2f}"


def readme_table(t: Table, doc: dict, meta: dict) -> None:
    """The README's speed table (Markdown, medians in seconds from navigation)."""
    s = doc["summary"]
    t.title(f"Medians, seconds from navigation, profile {meta.get('profile', 'local')} (the README's table)")
    t.text("| | bare Pyodide cold | deck cold | bare Pyodide warm | deck warm |")
    t.text("|---|---|---|---|---|")
    for label, bkey, dkey in README_ROWS:
        cols = [median(s, bkey and f"baseline.{k}.{bkey}") for k in ("cold", "warm")]
        decks = [median(s, f"deck.{k}.{dkey}") for k in ("cold", "warm")]
        label = label.format(cells=meta.get("cells", "?"))
        t.text(f"| {label} | {cols[0]} | {decks[0]} | {cols[1]} | {decks[1]} |")


def times(t: Table, doc: dict) -> None:
    s = doc["summary"]
    t.title("Times from navigation, seconds: median [min–max]")
    t.row("", "cold", "warm (2nd visit)", "3rd visit", "warm/cold", widths=WIDE)
    for who, rows, kinds in (
        ("baseline", BASELINE_ROWS, ("cold", "warm")),
        ("deck", DECK_ROWS, ("cold", "warm", "third")),
    ):
        t.text(
            "  Baseline: bare Pyodide in a module worker (bench/baseline.html)"
            if who == "baseline"
            else "  Deck (Run pressed on each cell once the page is ready)"
        )
        for label, key in rows:
            cols = [fmt_stat(s.get(f"{who}.{k}.{key}")) for k in kinds]
            cols += ["—"] * (3 - len(cols))
            t.row(
                "    " + label,
                *cols,
                fmt_stat(doc["warm_over_cold"].get(f"{who}.{key}"), unit="×"),
                widths=WIDE,
            )
    if doc["first_figure_cells"]:
        t.text(f"    (first figure from cell {', '.join(doc['first_figure_cells'])})")
    t.title("Deck / baseline, same visit kind (median of per-repetition ratios)")
    t.row("", "cold", "warm")
    for label, key in RATIO_ROWS:
        t.row("  " + label, *(fmt_stat(s.get(f"ratio.{k}.{key}"), unit="×") for k in ("cold", "warm")))


def transfers(t: Table, doc: dict) -> None:
    s = doc["summary"]
    t.title("Bytes sent by the server (as sent: compressed where the browser accepts it)")
    t.text("  (the deck's up to its last cell's result; its offline fill, which follows, apart)")
    t.row("", "baseline cold", "deck cold")
    for kind in FILE_TYPES:
        cols = [s.get(f"bytes.{who}.cold.{kind}") for who in ("baseline", "deck")]
        t.row("  " + kind, *(fmt_bytes(c and c["median"]) for c in cols))
    for kind in ("cold", "warm"):
        cols = [s.get(f"bytes.{who}.{kind}.total") for who in ("baseline", "deck")]
        t.row(f"  total {kind}", *(fmt_bytes(c and c["median"]) for c in cols))
        req = [doc["requests"].get(f"{who}_{kind}") for who in ("baseline", "deck")]
        t.row(f"  requests {kind} (304s)", *("—" if r is None else f"{r[0]} ({r[1]})" for r in req))
    fill = s.get("bytes.deck.cold.with_fill")
    t.row("  deck cold with the offline fill so far", "", fmt_bytes(fill and fill["median"]))
    t.text("  Wheels on the deck's cold load (imported: a module of the wheel is in the deck's")
    t.text("  sys.modules after every cell ran; baseline: after its figure):")
    t.row("    wheel", "bytes", "deck imports", "baseline imports", widths=WHEELS)
    for w in doc["wheels"]:
        t.row(
            "    " + w["wheel"],
            fmt_bytes(w["bytes"]),
            yes_no(w["imported"]),
            yes_no(w["baseline_imported"]),
            widths=WHEELS,
        )


def _sum_rows(t: Table, sums: dict, medians: str, minima: str) -> None:
    """The sums of the cells' medians and minima (cold, warm, CPython) and cold/CPython."""
    for label, agg in ((medians, "median"), (minima, "min")):
        r = sums[f"ratio_{agg}.cold"]
        t.row(
            "  " + label,
            *(f"{sums[f'{agg}.{k}']:.3f}" for k in ("cold", "warm", "cpython")),
            "—" if r is None else f"{r:.1f}×",
            widths=CELLS,
        )


def cells(t: Table, doc: dict, cpython: dict) -> None:
    t.title("Cells' own run time (runner's `seconds`): browser vs CPython")
    t.text(
        f"  CPython {cpython.get('python')} numpy {cpython.get('numpy')} matplotlib "
        f"{cpython.get('matplotlib')} (a fresh process per repetition; pyplot imported before "
        f"the cells, as the deck does)"
    )
    t.row("  cell", "browser cold", "browser warm", "CPython", "cold/CPython", widths=CELLS)
    for r in doc["cells"]:
        ratio = (
            r["cold"]["median"] / r["cpython"]["median"]
            if r["cold"] and r["cpython"] and r["cpython"]["median"]
            else None
        )
        t.row(
            "  " + r["id"][:34],
            *(fmt_stat(r[k], 3) for k in ("cold", "warm", "cpython")),
            "—" if ratio is None else f"{ratio:.1f}×",
            widths=CELLS,
        )
    sums = doc["sums"]
    _sum_rows(t, sums, "sum of medians (cells ok everywhere)", "sum of minima (least disturbed)")
    same, libs = doc.get("sums_pyodide_libs"), doc.get("cpython_pyodide_libs")
    if same and libs:
        t.text(
            f"  like for like, CPython {libs.get('python')} with Pyodide's numpy {libs.get('numpy')} "
            f"and matplotlib {libs.get('matplotlib')}:"
        )
        _sum_rows(t, same, "sum of medians", "sum of minima")
    if sums["excluded"]:
        t.text(f"  not in the sums (failed or no result somewhere): {', '.join(sums['excluded'])}")
    for f in doc["failures"][:12]:
        t.text(f"  ! {f[:150]}")


def targets(t: Table, doc: dict) -> None:
    t.title("Targets")
    for key, v in doc["verdicts"].items():
        t.text(targets_.line(str(key), v, TARGETS[int(key)]))
    for e in doc["errors"][:6]:
        t.text(f"  ! {e[:200]}")


def hall_targets(t: Table, verdicts: dict) -> None:
    t.title("The hall's targets (both profiles)")
    before = verdicts.get("before", {})
    for key, v in verdicts.items():
        if key not in hall.TARGETS:
            continue
        t.text(targets_.line(key, v, hall.TARGETS[key]))
        if key in before:
            t.text(f"        before: {targets_.status(before[key])}: {before[key]['detail']}")
    for line in verdicts.get("next_pyodide", []):
        t.text(f"  bare Pyodide, newer release: {line}")


def render_profiles(runs: dict, verdicts: dict) -> str:
    """Several profiles' tables (``runs``: profile → (doc, meta, cpython)), then the hall's
    targets across them."""
    parts = [render(doc, meta, cpython) for doc, meta, cpython in runs.values()]
    t = Table()
    hall_targets(t, verdicts)
    return "\n\n".join(parts + [str(t).lstrip("\n")])


def header(t: Table, meta: dict, load: dict | None) -> None:
    t.text(
        f"Start-up benchmark  {meta['date']}  reps={meta['reps']}  profile {meta['profile']}  "
        f"{meta['chromium']}  Pyodide {meta['pyodide']}  {meta['cores']} cores"
    )
    t.text(
        f"deck {meta['deck_title']!r}: {meta['cells']} code cells, static {meta['static']}, "
        f"git {meta['git']}, niceness {meta.get('niceness', 0)}"
    )
    if load:
        noisy = load["max"] > 0.3
        t.text(
            f"other processes' CPU during the visits: median {load['median']:.2f} cores, max "
            f"{load['max']:.2f}"
            + (
                "  ← NOISY: other processes took CPU during the visits"
                + ("" if meta.get("niceness", 0) < 0 else " (try --nice -5)")
                if noisy
                else ""
            )
        )


def render(doc: dict, meta: dict, cpython: dict) -> str:
    t = Table()
    header(t, meta, doc["summary"].get("foreign_cores"))
    readme_table(t, doc, meta)
    times(t, doc)
    transfers(t, doc)
    cells(t, doc, cpython)
    targets(t, doc)
    return str(t)


def comparison(new: dict, old: dict, name: str) -> str:
    """Metric by metric, the medians of an earlier run's summary against this one's."""
    t = Table()
    t.title(f"Compared with {name}")
    t.row("metric", "old median", "new median", "change", widths=(44, 14, 14, 16))
    for key, st in new.items():
        if not old.get(key) or not st:
            continue
        a, b = old[key]["median"], st["median"]
        t.row(
            key,
            f"{a:.3g}",
            f"{b:.3g}",
            "—" if not a else f"{(b - a) / a * 100:+.0f}%",
            widths=(44, 14, 14, 16),
        )
    return str(t)
