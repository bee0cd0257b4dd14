"""The wire, declared once and imported at run time: every message between the page's parts,
every event of the servers' streams, every route of the live hall with its body or query, its
rules and its answers, and every JSON object one side writes and another reads. It reads no file
and computes no path; ``generate`` (``python -m dpdeck.wire.generate``) writes the generated
files from it, apart.

- ``rules``: the words of the declarations (a field's JS type, a body field's rule, a body, a shape);
- ``hall``: the live hall's events, routes and replies (``dpdeck/hall`` → ``live.js``);
- ``watch``: the build watcher's events (``dpdeck/serve/watch.py`` → ``watch_client.js``);
- ``page``: the page's own wires (worker, mirror, service worker) and the build's JSON for it;
- ``generate``: ``types.js``, ``wire.js``, ``PROTOCOL.md``, ``live-hall-protocol.md``'s tables
  and ``deploy/hall.caddy``'s retry-safe routes, and whether they are stale.

The servers call :func:`check_event` on every event they encode, the hall and the build
:func:`check_shape` on the JSON they write.
"""

from __future__ import annotations

from . import hall, page, watch
from .hall import Event
from .rules import Shape

# stream → (its URL, the typedef of its map event name → data)
STREAMS = {"hall": ("/_hall/events", "HallEvents"), "watch": ("/_watch/events", "WatchEvents")}
EVENTS: tuple[Event, ...] = (*hall.EVENTS, *watch.EVENTS)
SHAPES: tuple[Shape, ...] = (*hall.SHAPES, *page.SHAPES)


def event(stream: str, name: str) -> Event | None:
    """The event ``name`` of ``stream``, if declared."""
    return next((e for e in EVENTS if e.stream == stream and e.name == name), None)


def event_fields(stream: str, name: str) -> tuple[str, ...]:
    """The field names of event ``name`` of ``stream``, in their declared order."""
    found = event(stream, name)
    return tuple(f.name for f in found.fields) if found else ()


def check_event(stream: str, name: str, data: dict) -> None:
    """Raise ``ValueError`` unless ``name`` is an event of ``stream`` declared here and ``data``
    has exactly its fields (the servers call it on every event they encode)."""
    found = event(stream, name)
    if found is None:
        raise ValueError(f"no event {name!r} is declared for the {stream} stream (dpdeck/wire)")
    if set(data) != {f.name for f in found.fields}:
        raise ValueError(
            f"event {name!r} of the {stream} stream has fields {sorted(data)}, "
            f"declared {[f.name for f in found.fields]} (dpdeck/wire)"
        )


def check_shape(name: str, data: dict) -> dict:
    """``data`` unchanged, or ``ValueError`` unless it has every required field of the shape
    ``name`` of :data:`SHAPES` and no other (the hall calls it on its replies, the build on
    ``live.json`` and ``data-poll``)."""
    shape = next((s for s in SHAPES if s.name == name), None)
    if shape is None:
        raise ValueError(f"no shape {name!r} is declared (dpdeck/wire)")
    names = {f.name.rstrip("?") for f in shape.fields}
    required = {f.name for f in shape.fields if not f.name.endswith("?")}
    if not required <= set(data) <= names:
        raise ValueError(f"{name} has fields {sorted(data)}, declared {sorted(names)} (dpdeck/wire)")
    return data
