"""A target's verdict and how it is printed, for every bench that prints targets.

A verdict is ``{"ok": True | False | None, "detail": str}``: held, missed, or not measured
(n/a), the detail saying by how much. A missed target whose limit the runtime sets, not the
deck, is marked **bounded by the runtime**: ``"bounded": <reason>`` beside ``ok`` False. It
stays missed in the numbers (its margin is printed as measured, and ``ok`` is not True), but it
is printed BOUNDED with the reason, apart from what the deck's own code could still win. A
target that holds is never bounded: the mark is dropped as soon as the runtime lets it hold.
"""

from __future__ import annotations

WORDS = {True: "HOLDS", False: "MISSES", None: "n/a  "}
PYODIDE = "0.27.7"  # the Pyodide the deck ships (package.json); the bounds below are this one's
# What bounds a target the deck's own code cannot reach, and what upstream work would lift it
# (docs/benchmark.md, "What the runtime bounds"). A test checks PYODIDE against package.json.
RUNTIME_BOUNDS = {
    "snapshot": f"Pyodide {PYODIDE} cannot snapshot an interpreter after loadPackage («Unexpected "
    "hiwire entry»: pyodide/pyodide#5195), and a snapshot holds no side module, so a restored "
    "numpy fails (docs/startup-main-thread.md); every start imports numpy, dplab and pyplot again. "
    "Lifted by a Pyodide that snapshots loaded packages (pyodide/pyodide#6418)",
    "simd": f"numpy in Pyodide {PYODIDE} is wasm built without SIMD (numpy/numpy#25894 builds its "
    "wasm wheel so): single numpy calls take 3–11× CPython's native SIMD code. Lifted by numpy "
    "built with wasm SIMD (pyodide/pyodide#3646, #5855)",
}
BOUNDED = "BOUNDED"


def bounded(v: dict, reason: str, by: str = "the runtime") -> dict:
    """``v`` marked bounded by the runtime (or ``by`` another limit the deck cannot move, such
    as the profile's network) for ``reason`` if it missed; as it is otherwise (held, or not
    measured)."""
    if v["ok"] is not False:
        return dict(v)
    return {**v, "bounded": reason} | ({} if by == "the runtime" else {"bounded_by": by})


def status(v: dict) -> str:
    """held, missed, bounded (missed, the runtime's bound) or n/a."""
    if v["ok"] is False and v.get("bounded"):
        return "bounded"
    return {True: "held", False: "missed"}.get(v["ok"], "n/a")


def word(v: dict) -> str:
    """The word the benches print: HOLDS, MISSES, BOUNDED or n/a."""
    return BOUNDED if status(v) == "bounded" else WORDS[v["ok"]]


def line(key: str, v: dict, what: str) -> str:
    """``  (key) WORD  what: detail``, and for a bounded target the reason on the next line."""
    text = f"  ({key}) {word(v)}  {what}: {v['detail']}"
    if status(v) == "bounded":
        text += f"\n        bounded by {v.get('bounded_by', 'the runtime')}: {v['bounded']}"
    return text
