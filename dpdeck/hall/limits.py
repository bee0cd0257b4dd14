"""Rate limits, in memory only: token buckets per device id, per TCP connection and per address.

Nothing here is written anywhere: an address (IPv6 by /64, ``addresses.group``) is a key of a bounded in-memory map (the oldest
keys are forgotten first) and is never logged. A request passes when every bucket it draws
from has a token.
"""

from __future__ import annotations

import time
import weakref
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass

from .addresses import group


@dataclass(frozen=True)
class Rate:
    """``burst`` requests at once, then ``per_second`` on average."""

    burst: float
    per_second: float


@dataclass(frozen=True)
class Limits:
    """The hall's limits. Defaults fit a hall of a few hundred devices (bench/live_load.py)."""

    device: Rate = Rate(burst=10, per_second=2)  # answers + solved, one device
    connection: Rate = Rate(burst=20, per_second=5)  # POSTs on one keep-alive connection
    address: Rate = Rate(burst=600, per_second=100)  # one address (a NAT may hold a whole hall)
    max_streams: int = 4000  # live channels open at once; beyond, the fairest: channel.Channel.open
    max_streams_per_device: int = 16  # tabs of one browser share the device id (issue 30: twelve tabs follow)
    max_streams_per_address: int = (
        400  # one address (a hall behind one NAT: 200 devices and their tabs); beyond: 429
    )
    # distinct device ids one address brings into the hall's pool in a session (admission.py):
    # beyond, a device follows but its answers and solves are not counted
    max_devices_per_address: int = 300
    # TCP connections (connections.py): seconds, and counts of open connections
    header_timeout: float = 10.0  # a new connection's first complete request head, else closed
    idle_timeout: float = 15.0  # between requests: the next complete head after an answer, else closed
    max_connections: int | None = None  # open at once; None: the fd limit less connections.FD_RESERVE
    max_connections_per_address: int | None = None  # None: 2 per stream allowed an address, plus 64

    def connections_per_address(self) -> int:
        """Open TCP connections one address may hold: ``max_connections_per_address``, or by
        default room for a live channel and a keep-alive connection for each of the address's
        streams, plus 64 for pages loading (a hall behind one NAT raises both together)."""
        if self.max_connections_per_address is not None:
            return self.max_connections_per_address
        return 2 * self.max_streams_per_address + 64


class _Bucket:
    __slots__ = ("tokens", "stamp")

    def __init__(self, burst: float, now: float):
        self.tokens = burst
        self.stamp = now

    def take(self, rate: Rate, now: float) -> bool:
        self.tokens = min(rate.burst, self.tokens + (now - self.stamp) * rate.per_second)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False


class KeyedBuckets:
    """One bucket per key, at most ``max_keys`` kept (least recently used forgotten first)."""

    def __init__(self, rate: Rate, max_keys: int = 20_000, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.max_keys = max_keys
        self.clock = clock
        self._buckets: OrderedDict[Hashable, _Bucket] = OrderedDict()

    def allow(self, key: Hashable) -> bool:
        now = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = _Bucket(self.rate.burst, now)
            if len(self._buckets) > self.max_keys:
                self._buckets.popitem(last=False)
        else:
            self._buckets.move_to_end(key)
        return bucket.take(self.rate, now)


class ConnectionBuckets:
    """One bucket per live TCP connection object, gone with the connection (weak keys)."""

    def __init__(self, rate: Rate, clock: Callable[[], float] = time.monotonic):
        self.rate = rate
        self.clock = clock
        self._buckets: weakref.WeakKeyDictionary[object, _Bucket] = weakref.WeakKeyDictionary()

    def allow(self, connection: object) -> bool:
        now = self.clock()
        bucket = self._buckets.get(connection)
        if bucket is None:
            bucket = self._buckets[connection] = _Bucket(self.rate.burst, now)
        return bucket.take(self.rate, now)


class RateLimiter:
    """The limits a device's POST passes: its connection and address first, then its device id.

    Addresses are keyed by ``addresses.group`` (IPv6 by /64). A request a trusted proxy
    forwarded (``forwarded``) draws its ``connection`` bucket by the client the proxy names, not
    by the proxy's connection: a proxy sends every client's requests over a few upstream
    connections, and one bucket for all of them refused honest answers (issue 46, item 4)."""

    def __init__(self, limits: Limits, clock: Callable[[], float] = time.monotonic):
        self.devices = KeyedBuckets(limits.device, clock=clock)
        self.addresses = KeyedBuckets(limits.address, clock=clock)
        self.connections = ConnectionBuckets(limits.connection, clock=clock)
        self.forwarded = KeyedBuckets(limits.connection, clock=clock)  # per client behind a proxy

    def allow_request(self, address: str | None, connection: object, forwarded: bool = False) -> bool:
        key = group(address)
        if forwarded:
            ok = self.forwarded.allow(key)
        else:
            ok = self.connections.allow(connection) if connection is not None else True
        return self.addresses.allow(key) and ok

    def allow_device(self, device: str) -> bool:
        return self.devices.allow(device)
