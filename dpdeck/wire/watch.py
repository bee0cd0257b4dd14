"""The build watcher's stream, ``/_watch/events`` (``dpdeck/serve/watch.py`` → ``watch_client.js``),
declared once: its events."""

from __future__ import annotations

from .hall import Event
from .rules import F, Shape

EVENTS = (
    Event(
        "built",
        "watch",
        Shape("Built", "the deck was rebuilt", (F("reload", "boolean"),)),
        "the deck was rebuilt; `false` when only slide text changed (the page swaps slides in place)",
    ),
    Event(
        "failed",
        "watch",
        Shape("BuildFailed", "the build refused the deck", (F("message", "string"),)),
        "the build refused the deck; the page shows the terminal's message until the next good build",
    ),
)
