"""The live channel's fan-out: every device's Server-Sent Events stream, fed from one place.

Each open stream is a ``Subscriber`` with a bounded queue of encoded events; ``publish`` encodes
an event once and queues it for every subscriber. A subscriber too slow to keep up (its queue
full) is dropped: its page reconnects and starts again from the current state, which is all a
follower needs. ``devices`` events go out at most once a second and each poll's ``tally`` at most
once a second (``Throttle``), whatever the rate of arrivals and however many processes share the
hall (``relay_tally``).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections import Counter
from collections.abc import Callable
from typing import Any, Protocol

from ..wire import check_event

QUEUE_SIZE = 256
DEVICES_INTERVAL = 1.0  # seconds between two ``devices`` events
TALLY_INTERVAL = 1.0  # seconds between two ``tally`` events of one poll (a projector's count, once a second)


class Full(Exception):
    """The hall holds its maximum of streams (503)."""


class TooManyForDevice(Exception):
    """One device id holds its maximum of streams (429)."""


class TooManyForAddress(Exception):
    """One address holds its maximum of streams (429): one client cannot fill the hall."""


class Subscriber:
    __slots__ = ("device", "address", "queue", "pooled")

    def __init__(self, device: str, address: str = "?"):
        self.device = device
        self.address = address
        self.pooled = False  # admitted to the hall's pool (admission.join): it gets tickets
        self.queue: asyncio.Queue[bytes | None] = asyncio.Queue(QUEUE_SIZE)


class Handle(Protocol):
    """A call a ``Clock`` will make, until it is cancelled (``asyncio.TimerHandle`` is one)."""

    def cancel(self) -> None: ...


class Clock(Protocol):
    """What a ``Throttle`` reads the time from and schedules its calls on (seconds)."""

    def now(self) -> float: ...

    def call_later(self, delay: float, fn: Callable[[], object]) -> Handle: ...


class LoopClock:
    """The running event loop's clock (monotonic seconds) and its timers: the hall's."""

    def now(self) -> float:
        return asyncio.get_running_loop().time()

    def call_later(self, delay: float, fn: Callable[[], object]) -> Handle:
        return asyncio.get_running_loop().call_later(delay, fn)


class Throttle:
    """Call ``fn`` soon (never within the poke), and at most once per ``interval`` s of ``clock``
    (the event loop's by default; a test's own clock moves the time without sleeping)."""

    def __init__(self, interval: float, fn: Callable[[], object], clock: Clock | None = None):
        self.interval = interval
        self.fn = fn
        self.clock: Clock = clock or LoopClock()
        self.last = -1e9
        self.timer: Handle | None = None

    def poke(self) -> None:
        if self.timer is not None:
            return
        wait = max(0.0, self.last + self.interval - self.clock.now())
        self.timer = self.clock.call_later(wait, self._fire)

    def _fire(self) -> None:
        self.timer = None
        self.last = self.clock.now()
        self.fn()

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class Channel:
    """The set of open streams and the events they receive."""

    def __init__(
        self,
        max_streams: int,
        max_per_device: int,
        max_per_address: int | None = None,
        clock: Clock | None = None,
    ):
        self.clock = clock  # the throttles' (None: the event loop's)
        self.max_streams = max_streams
        self.max_per_device = max_per_device
        self.max_per_address = max_per_address if max_per_address is not None else max_streams
        self.subscribers: dict[Subscriber, None] = {}  # an ordered set: oldest first
        self.per_device: Counter[str] = Counter()
        self.per_address: Counter[str] = Counter()  # in memory only, never logged
        # event ids keep growing across restarts (milliseconds at start, then +1 per event)
        self.next_id = int(time.time() * 1000)
        self.devices_throttle = Throttle(DEVICES_INTERVAL, self._send_devices, clock)
        self.on_devices: Callable[[], object] | None = (
            None  # set by the hall: the count to send may be more than this process's
        )
        self.tally_throttles: dict[str, Throttle] = {}
        self.relay_throttles: dict[str, Throttle] = {}
        self.newest_tally: dict[str, dict[str, Any]] = {}
        self.dropped = 0
        self.evicted = 0  # streams ended to make room for another address (``_make_room``)

    @property
    def devices(self) -> int:
        """Distinct device ids with a stream open now."""
        return len(self.per_device)

    def encode(self, event: str, data: dict[str, Any]) -> bytes:
        """One event as the stream writes it; only an event ``dpdeck/wire`` declares,
        with its fields (``ValueError`` otherwise)."""
        check_event("hall", event, data)
        self.next_id += 1
        payload = json.dumps(data, separators=(",", ":"))
        return f"id: {self.next_id}\nevent: {event}\ndata: {payload}\n\n".encode()

    def open(self, device: str, address: str = "?") -> Subscriber:
        """A new stream for ``device`` from ``address``. At the hall's maximum, the fair-share
        rule (``_make_room``) may end another address's oldest stream to let it in; otherwise
        ``Full``. ``TooManyForAddress``, ``TooManyForDevice``: their own maxima."""
        if self.per_address[address] >= self.max_per_address:
            raise TooManyForAddress
        if self.per_device[device] >= self.max_per_device:
            raise TooManyForDevice
        if len(self.subscribers) >= self.max_streams and not self._make_room(address):
            raise Full
        sub = Subscriber(device, address)
        self.subscribers[sub] = None
        self.per_address[address] += 1
        self.per_device[device] += 1
        if self.per_device[device] == 1:
            self.devices_throttle.poke()
        return sub

    def _make_room(self, address: str) -> bool:
        """The hall is full and ``address`` asks for one more stream: end the oldest stream of
        the address holding the most, if that address would still hold more than ``address``
        once it has its new one (so no address is ever pushed below another's share, and a few
        addresses holding every stream cannot shut a new one out: max-min fairness). False: no
        address holds more than ``address`` would (the hall is full and fair)."""
        most = max(self.per_address, key=self.per_address.__getitem__, default=None)
        if most is None or most == address or self.per_address[most] <= self.per_address[address] + 1:
            return False
        oldest = next(sub for sub in self.subscribers if sub.address == most)  # insertion order
        self.evicted += 1
        self._end(oldest)
        return True

    def close(self, sub: Subscriber) -> None:
        if sub not in self.subscribers:
            return
        del self.subscribers[sub]
        self.per_address[sub.address] -= 1
        if self.per_address[sub.address] <= 0:
            del self.per_address[sub.address]
        self.per_device[sub.device] -= 1
        if self.per_device[sub.device] <= 0:
            del self.per_device[sub.device]
            self.devices_throttle.poke()

    def publish(self, event: str, data: dict[str, Any]) -> None:
        """Queue one event for every stream; a stream whose queue is full is ended."""
        message = self.encode(event, data)
        for sub in list(self.subscribers):
            try:
                sub.queue.put_nowait(message)
            except asyncio.QueueFull:
                self.dropped += 1
                self._end(sub)

    def send(self, sub: Subscriber, event: str, data: dict[str, Any]) -> None:
        """Queue one event for one stream (a device's own admission ticket); a full queue ends it."""
        try:
            sub.queue.put_nowait(self.encode(event, data))
        except asyncio.QueueFull:
            self.dropped += 1
            self._end(sub)

    def tally_changed(self, poll: str, announce: Callable[[], object]) -> None:
        """A poll's tally changed: ``announce()`` soon, at most once per ``TALLY_INTERVAL`` per poll."""
        throttle = self.tally_throttles.get(poll)
        if throttle is None:
            throttle = self.tally_throttles[poll] = Throttle(TALLY_INTERVAL, announce, self.clock)
        throttle.poke()

    def relay_tally(self, data: dict[str, Any]) -> None:
        """A ``tally`` event from any process: this process's streams get the newest tally of its
        poll (the greatest round, then the most answers), soon and at most once per
        ``TALLY_INTERVAL``. With several processes announcing, each stream still gets one tally
        per interval, not one per process (bench/live_load.py measures the fan-out)."""
        poll = data["poll"]
        kept = self.newest_tally.get(poll)
        if kept is None or (data["round"], data["n"]) >= (kept["round"], kept["n"]):
            self.newest_tally[poll] = data
        throttle = self.relay_throttles.get(poll)
        if throttle is None:
            throttle = Throttle(
                TALLY_INTERVAL, lambda: self.publish("tally", self.newest_tally[poll]), self.clock
            )
            self.relay_throttles[poll] = throttle
        throttle.poke()

    def _send_devices(self) -> None:
        if self.on_devices is not None:
            self.on_devices()
        else:
            self.publish("devices", {"n": self.devices})

    def _end(self, sub: Subscriber) -> None:
        """Make a stream's handler return (a ``None`` in its queue) and forget it now."""
        self.close(sub)
        while True:
            try:
                sub.queue.put_nowait(None)
                return
            except asyncio.QueueFull:
                sub.queue.get_nowait()

    def shutdown(self) -> None:
        for throttle in (
            self.devices_throttle,
            *self.tally_throttles.values(),
            *self.relay_throttles.values(),
        ):
            throttle.cancel()
        for sub in list(self.subscribers):
            self._end(sub)
