"""The live hall's decisions, as pure code: no clock, no event loop, no SQL, no aiohttp.

``app.Hall`` is the edge that performs them (it reads the store, spawns tasks, arms the restart
timer and sends events); this module only says what to do, as ``static/js/shared/scheduler.js`` does
for the worker, so that tests can drive it through any interleaving (tests/unit/test_hall_state.py).
A time, when a rule needs one, is a number of seconds the edge waits, never a read clock.
The edge awaits what a decision needs (the store's round, the devices count) first, then reads
``Hall.hall_state``, decides and writes it back with no await between: decisions that overlap in
time (two positions reaching a poll's slide at once) then apply one after the other, never both
from the state before either.

The rules:

- **The seq rule** (``keeps``): a posted position is kept only if nothing is kept yet or its
  ``seq`` is greater than the kept one's. It is the one rule of both stores: ``SqliteStore``
  and ``RedisStore`` read the kept ``seq`` and write only when ``keeps`` says so, inside one
  atomic step (SQLite's write transaction, Redis's WATCH/MULTI). So the kept position is always
  the first posted one with the greatest ``seq``, and the kept ``seq`` never goes back.
- **Showing a poll** (``HallState.show``): a poll's round is shown, and this process's devices
  admitted to it, the first time a kept position on the poll's slide reaches this process in
  that round; at most once per process and round (``HallState.shown``). A new round (a reset
  while on the slide) or a restart on the slide (``restart_grace``) shows it again.
- **The devices count** (``HallState.devices``): sent when it changed, or always when asked;
  a new stream's greeting carries, with a shared store, the count last sent
  (``HallState.greeting_devices``) instead of one more round trip per stream.
- **A new stream's greeting** (``greeting``): the device's tickets for the rounds being answered,
  the kept position, the presenter's kept broadcasts, the devices count, every tally, in that order.
- **Events from the store** (``route``): a position on a poll's slide first shows the poll (the
  tickets go out before the state that shows it), a tally is relayed through the channel's
  throttle, anything else goes out as it is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum
from typing import Any, Protocol

RESTART_GRACE = 5.0  # seconds after a start on a poll's slide before its devices are admitted again


class PollSlides(Protocol):
    """Where the polls are (``messages.LiveSpec``): the poll whose slide is at a position."""

    def poll_at(self, indexh: int, indexv: int = 0) -> str | None: ...


def keeps(kept_seq: int | None, seq: int) -> bool:
    """The seq rule: a position posted with ``seq`` is kept over the kept one's ``kept_seq``
    (None: nothing kept yet) only if it is greater. Ties are ignored (a resend)."""
    return kept_seq is None or seq > kept_seq


def kept_after(kept: dict[str, Any] | None, posted: dict[str, Any]) -> dict[str, Any] | None:
    """The position kept once ``posted`` was posted over ``kept`` (``keeps`` applied)."""
    return posted if keeps(None if kept is None else kept["seq"], posted["seq"]) else kept


def poll_on(spec: PollSlides, position: dict[str, Any] | None) -> str | None:
    """The poll whose slide ``position`` is on, if any."""
    return spec.poll_at(position["indexh"], position["indexv"]) if position is not None else None


class Route(Enum):
    """What the edge does with an event any process published through the store."""

    SHOW_THEN_PUBLISH = "show, then publish"  # a state on a poll's slide: admit first, then move
    RELAY_TALLY = "relay tally"  # a tally: the newest per poll, throttled (channel.relay_tally)
    PUBLISH = "publish"  # to every stream of this process as it is


def route(spec: PollSlides, event: str, data: dict[str, Any]) -> Route:
    """How an event from the store reaches this process's streams."""
    if event == "state" and poll_on(spec, data) is not None:
        return Route.SHOW_THEN_PUBLISH
    if event == "tally":
        return Route.RELAY_TALLY
    return Route.PUBLISH


@dataclass(frozen=True)
class Show:
    """A poll's round to show now: admit the devices holding a channel here, send each its ticket
    (``admit_event``), then publish the round's tally."""

    poll: str
    round: int


@dataclass(frozen=True)
class HallState:
    """What one hall process decides from: the poll rounds it has shown (admitted its devices to)
    and the devices count it last sent. A restarted process starts from ``HallState()``."""

    shown: frozenset[tuple[str, int]] = frozenset()
    devices_sent: int | None = None

    def show(self, poll: str | None, round_: int) -> tuple[HallState, Show | None]:
        """The kept position is on ``poll``'s slide (None: on no poll's) in round ``round_``: the
        round to show, once per process, or None."""
        if poll is None or (poll, round_) in self.shown:
            return self, None
        return replace(self, shown=self.shown | {(poll, round_)}), Show(poll, round_)

    def devices(self, n: int, only_changed: bool = False) -> tuple[HallState, bool]:
        """The hall counts ``n`` devices: whether to send the count (always, or only when it
        differs from the last one sent)."""
        if only_changed and n == self.devices_sent:
            return self, False
        return replace(self, devices_sent=n), True

    def greeting_devices(self, shared: bool) -> int | None:
        """The count a new stream's greeting carries as it is: with a shared store, the one last
        sent (read every ``app.DEVICES_CHECK`` s); None: the edge reads it now."""
        return self.devices_sent if shared else None


def admit_event(poll: str, round_: int, ticket: str) -> tuple[str, dict[str, Any]]:
    """The ``admit`` event that gives one device its ticket for a poll's round."""
    return "admit", {"poll": poll, "round": round_, "ticket": ticket}


def greeting(
    tickets: list[tuple[str, int, str | None]],
    position: dict[str, Any] | None,
    devices: int,
    tallies: list[dict[str, Any]],
    exercise_tickets: list[tuple[str, str]] = [],  # noqa: B006 (read only)
    broadcasts: list[tuple[str, dict[str, Any]]] = [],  # noqa: B006 (read only)
) -> list[tuple[str, dict[str, Any]]]:
    """A new stream's first events: an ``admit`` for each ``(poll, round, ticket)`` the device
    holds (a reload or a reconnect gets it again), the kept position (none before any), the
    presenter's kept broadcasts ``(event, data)`` (dpdeck/wire/hall.py: ``kept``), the
    devices count, every poll's tally, then one ``tickets`` with every
    ``(exercise, ticket)`` (a device of the hall's pool; none otherwise)."""
    events = [admit_event(poll, round_, ticket) for poll, round_, ticket in tickets if ticket is not None]
    if position is not None:
        events.append(("state", position))
    events.extend(broadcasts)
    events.append(("devices", {"n": devices}))
    events.extend(("tally", tally) for tally in tallies)
    if exercise_tickets:
        events.append(("tickets", {"exercises": dict(exercise_tickets)}))
    return events


def reshow_after_reset(spec: PollSlides, poll: str, position: dict[str, Any] | None) -> bool:
    """After ``poll``'s reset: whether the kept position is published again (it is on the poll's
    slide, so every process shows the new round at once)."""
    return poll_on(spec, position) == poll


def restart_grace(spec: PollSlides, admission_shared: bool, position: dict[str, Any] | None) -> float | None:
    """A process starting with ``position`` kept: the seconds after which it shows the poll there
    again (its devices reconnect meanwhile), when the tickets were in the old process's memory
    only; None when it is on no poll's slide or the tickets outlive a process (Redis)."""
    if admission_shared or poll_on(spec, position) is None:
        return None
    return RESTART_GRACE
