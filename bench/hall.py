"""The hall's targets (issue "A hall full of laptops and phones"), across profiles.

Pure functions of the documents ``stats.summarize`` makes, one per profile. Each verdict says
whether the target held and by how much, from medians of the run:

- H1: cold bytes on the wire ≤ 15 MiB (what the counting server sent, compressed when the
  browser accepted it, until the last cell's result: the service worker's offline fill that
  follows is shown beside it);
- H2a: under "aula", the deck's cold first figure ≤ 0.7× bare Pyodide's;
- H2b: under "aula", the deck's cold first cell result ≤ 0.5× bare Pyodide's numpy ready;
- H3: under "local", the deck's warm first figure ≤ 0.5× its cold one;
- H4: offline after the visits before it: every cell runs with the network off.
"""

from __future__ import annotations

MIB = 1 << 20
BYTES_LIMIT = 15 * MIB
TARGETS = {
    "H1": "cold bytes on the wire ≤ 15 MiB",
    "H2a": "aula: cold first figure ≤ 0.7× bare Pyodide's",
    "H2b": "aula: cold first cell result ≤ 0.5× bare Pyodide's numpy ready",
    "H3": "local: warm first figure ≤ 0.5× cold",
    "H4": "offline after one visit: every cell runs with the network off",
}


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


def verdicts(docs: dict) -> dict:
    """The hall's targets from the per-profile documents (a missing profile: n/a)."""
    aula, local = docs.get("aula"), docs.get("local")
    return {
        "H1": target_bytes(docs),
        "H2a": ratio_target(
            median(aula, "deck.cold.first_figure"),
            median(aula, "baseline.cold.figure"),
            0.7,
            "deck first figure vs bare first figure",
        ),
        "H2b": ratio_target(
            median(aula, "deck.cold.first_cell"),
            median(aula, "baseline.cold.numpy"),
            0.5,
            "deck first cell vs bare numpy ready",
        ),
        "H3": ratio_target(
            median(local, "deck.warm.first_figure"),
            median(local, "deck.cold.first_figure"),
            0.5,
            "warm vs cold first figure",
        ),
        "H4": target_offline(docs),
    }
