"""The hall's targets (issues "A hall full of laptops and phones" and "The page's own main
thread"), across profiles.

Pure functions of the documents ``stats.summarize`` makes, one per profile. Each verdict says
whether the target held and by how much, from medians of the run:

- P1: cold page ready (window.deck set) ≤ 3.0 s under "aula", ≤ 0.8 s under "local";
- P2 (restated by issue 32; was H2b, ≤ 0.5× bare Pyodide's numpy ready, a limit below Pyodide's
  own core start): under "aula", the deck's cold first cell result ≤ its core ready + 0.5 s;
- P3 (was H2a, 0.7×): under "aula", the deck's cold first figure ≤ 0.6× bare Pyodide's;
- P4 (was H3): under "local", the deck's warm first figure ≤ 0.5× its cold one;
- P5: under "aula", the deck's cold visit has every cell done ≤ 12 s (was 15 s before the pool);
- P6: under "aula", cold, the main thread's total blocking time (each long task's excess over
  50 ms) from page ready to all cells done ≤ 200 ms;
- H1: cold bytes on the wire ≤ 15 MiB (what the counting server sent, compressed when the
  browser accepted it, until the last cell's result: the service worker's offline fill that
  follows is shown beside it);
- H4: offline after the visits before it: every cell runs with the network off;
- W1: under "local", warm, the first output on screen (the last visit's, lastrun.js) ≤ 1 s, and
  every cell's last visit's output shown ≤ 1 s (static/js/page/lastvisits.js draws the opening slide's
  at once and the others when the page is idle);
- W0: under "aula", warm, the deck's core ready ≤ bare Pyodide's warm core ready, and its runtime
  ready (prelude and numpy) ≤ bare Pyodide's warm numpy ready. Both sides on their worker's clock:
  bare Pyodide's marks are its worker's, so the deck's are the times its worker stamps on its
  status messages (``at``), not the later moments the page's busy main thread heard them.

The cells' compute against CPython (≤ 2.0× on the sums of medians) is per profile, in
``stats.target_cpython``.

P2 and P4, missed, are marked bounded by the runtime (bench/targets.py, ``RUNTIME_BOUNDS``):
both wait for a Pyodide that snapshots an interpreter with numpy loaded.
"""

from __future__ import annotations

from bench import targets

MIB = 1 << 20
BYTES_LIMIT = 15 * MIB
FIRST_CELL_AFTER_CORE = 0.5  # s: P2, the first cell's result after the deck's own core ready
ALL_DONE_LIMIT = 12.0  # s: P5
TARGETS = {
    "P1": "cold page ready ≤ 3.0 s (aula), ≤ 0.8 s (local)",
    "P2": f"aula: cold first cell result ≤ the deck's core ready + {FIRST_CELL_AFTER_CORE} s",
    "P3": "aula: cold first figure ≤ 0.6× bare Pyodide's",
    "P4": "local: warm first figure ≤ 0.5× cold",
    "P5": f"aula: cold, all cells done ≤ {ALL_DONE_LIMIT:.0f} s",
    "P6": "aula: cold, main thread's total blocking time from page ready to all cells done ≤ 200 ms",
    "H1": "cold bytes on the wire ≤ 15 MiB",
    "H4": "offline after one visit: every cell runs with the network off",
    "W1": "local: warm, first output shown (the last visit's) ≤ 1 s, and every cell's ≤ 1 s",
    "W0": "aula: warm core ready ≤ bare Pyodide's, and runtime ready ≤ bare numpy ready",
}
PAGE_READY_LIMIT = {"aula": 3.0, "local": 0.8}


def verdict(ok: bool | None, detail: str) -> dict:
    return {"ok": ok, "detail": detail}


def median(doc: dict | None, key: str) -> float | None:
    st = (doc or {}).get("summary", {}).get(key)
    return st["median"] if st else None


def ratio_target(num: float | None, den: float | None, limit: float, what: str) -> dict:
    """num ≤ limit × den, with the margin in seconds and as a ratio."""
    if num is None or den is None or not den:
        return verdict(None, f"not measured ({what})")
    bound = limit * den
    return verdict(
        num <= bound,
        f"{what}: {num:.2f} s vs {den:.2f} s = {num / den:.2f}× "
        f"(limit {limit}× = {bound:.2f} s, {num - bound:+.2f} s)",
    )


def target_bytes(docs: dict) -> dict:
    found = [(p, median(d, "bytes.deck.cold.total")) for p, d in docs.items()]
    found = [(p, b) for p, b in found if b is not None]
    if not found:
        return verdict(None, "no cold visit measured")
    worst_profile, worst = max(found, key=lambda pb: pb[1])
    fill = median(docs[worst_profile], "bytes.deck.cold.with_fill")
    return verdict(
        worst <= BYTES_LIMIT,
        f"{worst / MIB:.2f} MiB until the last cell's result ({worst_profile}; limit 15 MiB, "
        f"{(worst - BYTES_LIMIT) / MIB:+.2f} MiB)"
        + ("" if fill is None else f"; with the offline fill begun in the visit {fill / MIB:.2f} MiB"),
    )


def target_offline(docs: dict) -> dict:
    runs = [(p, r) for p, d in docs.items() for r in d.get("offline", [])]
    if not runs:
        return verdict(None, "no offline visit (--no-offline, or an earlier benchmark)")
    bad = [(p, r) for p, r in runs if r["ok"] < r["cells"] or not r["cells"] or r["error"]]
    text = "; ".join(f"{p}: {r['ok']}/{r['cells']} cells ok" for p, r in runs)
    if bad:
        p, r = bad[0]
        text += f" — {p}: failed {', '.join(r['failed']) or '-'} {r['error'] or ''}".rstrip()
    return verdict(not bad, text)


def limit_target(value: float | None, limit: float, what: str, unit: str = "s") -> dict:
    """value ≤ limit, with the margin."""
    if value is None:
        return verdict(None, f"not measured ({what})")
    return verdict(
        value <= limit, f"{what}: {value:.2f} {unit} (limit {limit:.2f} {unit}, {value - limit:+.2f} {unit})"
    )


def after_target(value: float | None, start: float | None, within: float, what: str) -> dict:
    """value ≤ start + within (seconds), with the margin."""
    if value is None or start is None:
        return verdict(None, f"not measured ({what})")
    bound = start + within
    return verdict(
        value <= bound,
        f"{what}: {value:.2f} s vs {start:.2f} s + {within:.2f} s = {bound:.2f} s ({value - bound:+.2f} s)",
    )


def both(*parts: dict) -> dict:
    """Several verdicts as one: held only if each holds, n/a if any is n/a."""
    oks = [v["ok"] for v in parts]
    return verdict(None if None in oks else all(oks), "; ".join(v["detail"] for v in parts))


def target_page_ready(docs: dict) -> dict:
    """P1 in every profile measured that has a limit; held only if it holds in each."""
    parts = [
        limit_target(median(docs[p], "deck.cold.deck_ready"), limit, f"{p} cold page ready")
        for p, limit in PAGE_READY_LIMIT.items()
        if p in docs
    ]
    if not parts:
        return verdict(None, "no profile with a limit measured")
    return both(*parts)


def verdicts(docs: dict) -> dict:
    """The targets from the per-profile documents (a missing profile: n/a)."""
    aula, local = docs.get("aula"), docs.get("local")
    tbt = median(aula, "deck.cold.tbt")
    longest = median(aula, "deck.cold.longest_task")
    p6 = limit_target(None if tbt is None else tbt * 1000, 200, "total blocking time", "ms")
    if longest is not None:
        p6["detail"] += f"; longest task {longest * 1000:.0f} ms"
    return {
        "P1": target_page_ready(docs),
        "P2": targets.bounded(
            after_target(
                median(aula, "deck.cold.first_cell"),
                median(aula, "deck.cold.core_ready"),
                FIRST_CELL_AFTER_CORE,
                "first cell result after core ready",
            ),
            targets.RUNTIME_BOUNDS["snapshot"],
        ),
        "P3": ratio_target(
            median(aula, "deck.cold.first_figure"),
            median(aula, "baseline.cold.figure"),
            0.6,
            "deck first figure vs bare first figure",
        ),
        "P4": targets.bounded(
            ratio_target(
                median(local, "deck.warm.first_figure"),
                median(local, "deck.cold.first_figure"),
                0.5,
                "warm vs cold first figure",
            ),
            targets.RUNTIME_BOUNDS["snapshot"],
        ),
        "P5": limit_target(median(aula, "deck.cold.all_done"), ALL_DONE_LIMIT, "all cells done"),
        "P6": p6,
        "H1": target_bytes(docs),
        "H4": target_offline(docs),
        "W1": both(
            limit_target(median(local, "deck.warm.first_output"), 1.0, "warm first output shown"),
            limit_target(median(local, "deck.warm.last_visit_all"), 1.0, "every last visit's output shown"),
        ),
        "W0": both(
            ratio_target(
                median(aula, "deck.warm.core_ready_worker"),
                median(aula, "baseline.warm.core"),
                1.0,
                "warm core ready vs bare",
            ),
            ratio_target(
                median(aula, "deck.warm.ready_worker"),
                median(aula, "baseline.warm.numpy"),
                1.0,
                "warm runtime ready vs bare numpy ready",
            ),
        ),
    }


def next_pyodide(docs: dict, version: str | None) -> list[str]:
    """A newer bare Pyodide's core ready beside the one the deck is built on, per profile."""
    lines = []
    for p, d in docs.items():
        for kind in ("cold", "warm"):
            new, old = median(d, f"next.{kind}.core"), median(d, f"baseline.{kind}.core")
            if new is None or old is None:
                continue
            lines.append(
                f"{p} {kind}: core ready {new:.2f} s (Pyodide {version}) vs {old:.2f} s (0.27.7), "
                f"{new / old:.2f}×"
            )
    return lines
