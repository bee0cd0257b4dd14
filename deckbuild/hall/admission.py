"""Who may answer a poll: the devices that held a live channel when the poll was shown.

A poll's round is *shown* the first time the presenter's position reaches its slide in that
round. At that moment the hall admits every device holding a live channel and gives each a
random **admission ticket** (128 bits, hex) for that poll and round, sent on that device's own
stream. An answer must carry an unused ticket: ``redeem`` spends it once. So a poll never counts
more answers in a round than the devices admitted to it, whatever a client posts under fresh
answer tokens or device ids, and a device that connects after the poll was shown cannot answer
in that round.

What is kept, and where: everything here is in memory, for the current round of each poll only
(a new round forgets the last one's tickets); nothing is written to SQLite. A ticket maps to
the device id it was sent to, so that a device that reconnects (a reload) gets the same ticket
again while the round lasts; no answer token is ever seen here, and ``redeem`` keeps no record
of which answer spent a ticket, so nothing links a device id to its answer, in memory or on disk.

The interface is small and asynchronous so that a store shared by several hall processes (Redis)
can implement it too: ``admit``, ``ticket``, ``redeem``, ``admitted``. When a round is shown is
decided by ``state.HallState.show`` (once per process and round). The round numbers themselves
are the store's (``HallStore.round``): a restarted hall keeps the round, not its tickets
(docs/live-hall.md, "Admission").
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol


def new_ticket() -> str:
    """128 random bits in hex, the shape of every id the hall accepts."""
    return secrets.token_hex(16)


class Admission(Protocol):
    """The admission state of every poll, behind the calls the hall makes. ``shared``: the
    tickets outlive this process (several processes share them: Redis)."""

    shared: bool

    async def admit(self, poll: str, round: int, devices: Iterable[str]) -> dict[str, str]:
        """Show ``poll``'s ``round``: admit ``devices`` (those holding a channel now) and return
        each one's new ticket. A round already shown admits no one more (``{}``); a greater
        round forgets the older round's tickets first."""
        ...

    async def ticket(self, poll: str, round: int, device: str) -> str | None:
        """The ticket ``device`` was given for ``poll``'s ``round``, spent or not; None if it was
        not admitted to that round."""
        ...

    async def redeem(self, poll: str, round: int, ticket: str) -> bool:
        """Spend ``ticket`` for ``poll``'s ``round``: True once for a ticket that round issued."""
        ...

    async def admitted(self, poll: str, round: int) -> int | None:
        """How many devices ``poll``'s ``round`` admitted; None while it has not been shown."""
        ...


@dataclass
class _Round:
    round: int
    tickets: dict[str, str] = field(default_factory=dict)  # device id → ticket
    unspent: set[str] = field(default_factory=set)


class MemoryAdmission:
    """``Admission`` in this process's memory (one hall process: the default)."""

    shared = False

    def __init__(self) -> None:
        self._polls: dict[str, _Round] = {}

    def _current(self, poll: str, round: int) -> _Round | None:
        state = self._polls.get(poll)
        return state if state is not None and state.round == round else None

    async def admit(self, poll: str, round: int, devices: Iterable[str]) -> dict[str, str]:
        state = self._polls.get(poll)
        if state is not None and state.round >= round:
            return {}
        state = self._polls[poll] = _Round(round)
        for device in devices:
            ticket = new_ticket()
            state.tickets[device] = ticket
            state.unspent.add(ticket)
        return dict(state.tickets)

    async def ticket(self, poll: str, round: int, device: str) -> str | None:
        state = self._current(poll, round)
        return state.tickets.get(device) if state else None

    async def redeem(self, poll: str, round: int, ticket: str) -> bool:
        state = self._current(poll, round)
        if state is None or ticket not in state.unspent:
            return False
        state.unspent.discard(ticket)
        return True

    async def admitted(self, poll: str, round: int) -> int | None:
        state = self._current(poll, round)
        return len(state.tickets) if state else None
