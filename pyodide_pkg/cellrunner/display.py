"""What the page shows of a cell's last value: its repr, capped; nothing for what a watcher
shows in its own way (a matplotlib object: its figure; an exercise's :class:`.Verdict`)."""

from __future__ import annotations

from .verdict import Verdict

MAX_REPR_CHARS = 20_000


def shown(value) -> str | None:
    """The text of ``value`` for the page, or None (nothing to show as a value)."""
    if value is None or isinstance(value, Verdict):
        return None
    module = type(value).__module__ or ""
    if module.startswith("matplotlib"):
        return None  # a Figure, Axes or artist: the figure itself is shown
    text = repr(value)
    if len(text) > MAX_REPR_CHARS:
        text = text[:MAX_REPR_CHARS] + f"\n… (recortado: {len(text):,} caracteres en total)"
    return text
