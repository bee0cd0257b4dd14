"""Who may contribute to a count: admission for every poll answer and every solved exercise.

**The hall's pool.** A device joins the pool when it opens its live channel (``join``): its
address may bring at most ``max_per_address`` distinct device ids into the pool in one hall
session (``Limits.max_devices_per_address``; a NAT's honest hall of a few hundred devices fits).
A device id beyond that gets its channel (it follows) but no ticket, so it contributes to no
count. The pool's size and its largest **cluster** (the most devices admitted from one address)
are public to the presenter (``pool``): a script that makes up device ids can add at most the
cap per address it controls, and never quietly: the presenter's slide says «N desde una misma
dirección» (docs/live-hall.md, "What admission guarantees").

**Tickets.** A ticket is 128 bits in hex, derived from the hall's secret (``Tickets``): a
device's ticket for a *scope* (a poll's round, or an exercise) is always the same (a reload gets
it again, and no map from device to ticket is kept anywhere), and it carries its own MAC, so the
hall checks it without knowing whose it is. Each ticket counts once: a poll's round spends it
(``redeem``); a solve keeps it beside its token (``store.add_solved``), so one device counts at
most once per exercise. So a count never exceeds the devices admitted for it:
- a poll's round admits the pool's devices holding a channel when the presenter first reaches
  the poll's slide in that round (``admit``; a device that connects later cannot answer that
  round), and ``admitted`` says how many;
- an exercise admits every device of the pool (its tickets go out on its stream's greeting).

**What is kept, and where.** The pool (an HMAC under the secret of each device id and of its
address), each round's admitted devices and its spent tickets. No ticket is ever stored beside
a device: the ticket of a device is recomputed from the device id the device itself sends,
which no store holds; an answer or a solve records its ticket (spent) and its own token, never
the device. So from everything stored (SQLite's file, Redis's memory and append-only file) and
the secret, nobody can tell which device sent which answer or solve. In one process the rounds
live in memory (a restart forgets them: devices rejoin, their tickets are the same) and the
pool in the SQLite file; with Redis (``redis_store.RedisAdmission``) both are shared, so every
bound holds across processes (a round's admission expires after 12 h; the pool lasts as the
solves it bounds do).
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

HALF = 8  # bytes: a ticket is its nonce (8) and its MAC (8), 32 hex digits in all


def secret_from_token(token: str) -> bytes:
    """The tickets' secret, made from the presenter's token: the same in every process of a hall
    and after a restart (a device's tickets stay the same, and a spent one stays spent)."""
    return hashlib.sha256(b"dpdeck-admission:" + token.encode()).digest()


def poll_scope(poll: str, round: int) -> str:
    """The scope of a poll's round's tickets."""
    return f"poll\0{poll}\0{round}"


def exercise_scope(exercise: str) -> str:
    """The scope of an exercise's tickets (one per device for the whole session)."""
    return f"exercise\0{exercise}"


class Tickets:
    """Tickets derived from ``secret`` (bytes, kept by the hall's processes only).

    ``issue(scope, device)`` is a function of the device id: the same device gets the same
    ticket for a scope, every time, in every process that holds the secret. ``valid(scope,
    ticket)`` checks a ticket's MAC alone (no device, no stored table): only the holder of the
    secret can make a valid ticket, and one made for one scope is not valid for another. The
    nonce is an HMAC of the device id, so, without the device id, a ticket says nothing about
    whose it is, even to someone who holds the secret."""

    def __init__(self, secret: bytes):
        if len(secret) < 16:
            raise ValueError(f"secret: at least 16 bytes, got {len(secret)}")
        self._secret = secret

    def _mac(self, *parts: str | bytes) -> bytes:
        message = b"\0".join(p if isinstance(p, bytes) else p.encode() for p in parts)
        return hmac.new(self._secret, message, hashlib.sha256).digest()

    def issue(self, scope: str, device: str) -> str:
        nonce = self._mac("nonce", scope, device)[:HALF]
        return (nonce + self._mac("tag", scope, nonce)[:HALF]).hex()

    def valid(self, scope: str, ticket: str | None) -> bool:
        if ticket is None or len(ticket) != 4 * HALF:
            return False
        try:
            raw = bytes.fromhex(ticket)
        except ValueError:
            return False
        nonce, tag = raw[:HALF], raw[HALF:]
        return hmac.compare_digest(tag, self._mac("tag", scope, nonce)[:HALF])

    def key(self, kind: str, value: str) -> str:
        """An HMAC of ``value`` (a device id, an address) under the secret, as a 32-hex key: what
        a shared store holds instead of the value."""
        return self._mac("key", kind, value)[:16].hex()


@dataclass(frozen=True)
class Pool:
    """The hall's pool: ``devices`` admitted this session, the most of them from one address."""

    devices: int
    cluster: int

    def payload(self) -> dict:
        return {"admitted": self.devices, "cluster": self.cluster}


class Admission(Protocol):
    """The pool and every poll round's admission, behind the calls the hall makes. ``shared``:
    they outlive this process (several processes share them: Redis). ``tickets``: the hall's
    ticket maker (the same secret in every process)."""

    shared: bool
    tickets: Tickets

    async def join(self, device: str, address: str) -> bool:
        """``device`` opened a channel from ``address``: True if it is in the pool (now or
        already); False when its address brought ``max_per_address`` other devices already."""
        ...

    async def pool(self) -> Pool:
        """The pool's size and largest cluster."""
        ...

    async def admit(self, poll: str, round: int, devices: Iterable[str]) -> dict[str, str]:
        """Show ``poll``'s ``round``: admit ``devices`` (the pool's, holding a channel now) and
        return each one's ticket. A round already shown admits no one more (``{}``, or with a
        shared store, within its window, the processes' devices); a greater round forgets the
        older round first."""
        ...

    async def ticket(self, poll: str, round: int, device: str) -> str | None:
        """The ticket ``device`` holds for ``poll``'s ``round``, spent or not; None if it was not
        admitted to that round."""
        ...

    async def redeem(self, poll: str, round: int, ticket: str | None) -> bool:
        """Spend ``ticket`` for ``poll``'s ``round``: True once for a ticket that round admitted."""
        ...

    async def give_back(self, poll: str, round: int, ticket: str) -> None:
        """Unspend ``ticket``: the answer that spent it was not kept (the store failed), so its
        resend may spend it again."""
        ...

    async def admitted(self, poll: str, round: int) -> int | None:
        """How many devices ``poll``'s ``round`` admitted; None while it has not been shown."""
        ...


class PoolStore(Protocol):
    """Where a one-process hall keeps its pool (``store.SqliteStore``), so that its bounds, and
    the release's ``admitted``, outlive a restart. Keys are HMACs, never ids or addresses."""

    async def join_pool(self, device_key: str, address_key: str, cap: int) -> bool: ...

    async def pool_size(self) -> tuple[int, int]: ...


@dataclass
class _Round:
    round: int
    devices: set[str] = field(default_factory=set)
    spent: set[str] = field(default_factory=set)


class MemoryAdmission:
    """``Admission`` for one hall process: the rounds in its memory, the pool in ``store`` (the
    hall's SQLite file, as HMACs), so that its bounds outlive a restart."""

    shared = False

    def __init__(self, store: PoolStore, secret: bytes, max_per_address: int = 300):
        self.tickets = Tickets(secret)
        self.max_per_address = max_per_address
        self.store = store
        self._polls: dict[str, _Round] = {}

    async def join(self, device: str, address: str) -> bool:
        keys = self.tickets.key("device", device), self.tickets.key("address", address)
        return await self.store.join_pool(*keys, self.max_per_address)

    async def pool(self) -> Pool:
        return Pool(*await self.store.pool_size())

    def _current(self, poll: str, round: int) -> _Round | None:
        state = self._polls.get(poll)
        return state if state is not None and state.round == round else None

    async def admit(self, poll: str, round: int, devices: Iterable[str]) -> dict[str, str]:
        state = self._polls.get(poll)
        if state is not None and state.round >= round:
            return {}
        state = self._polls[poll] = _Round(round, set(devices))  # the hall gives the pool's only
        scope = poll_scope(poll, round)
        return {device: self.tickets.issue(scope, device) for device in state.devices}

    async def ticket(self, poll: str, round: int, device: str) -> str | None:
        state = self._current(poll, round)
        if state is None or device not in state.devices:
            return None
        return self.tickets.issue(poll_scope(poll, round), device)

    async def redeem(self, poll: str, round: int, ticket: str | None) -> bool:
        state = self._current(poll, round)
        if state is None or ticket is None or ticket in state.spent:
            return False
        if not self.tickets.valid(poll_scope(poll, round), ticket):
            return False
        state.spent.add(ticket)
        return True

    async def give_back(self, poll: str, round: int, ticket: str) -> None:
        state = self._current(poll, round)
        if state is not None:
            state.spent.discard(ticket)

    async def admitted(self, poll: str, round: int) -> int | None:
        state = self._current(poll, round)
        return len(state.devices) if state else None
