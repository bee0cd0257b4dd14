"""The live channel's fan-out (dpdeck/hall/channel.py) and a stream's pump (dpdeck/serve/sse.py),
on their own: what several processes' tallies become on one stream, and what a stream writes."""

from __future__ import annotations

import asyncio
import json

from dpdeck.hall import channel as channel_module
from dpdeck.hall.channel import Channel
from dpdeck.serve.sse import pump
from tests.support.hall_fixtures import run_async  # a thread of its own: Playwright may hold the loop


def _tallies(sub) -> list[dict]:
    out = []
    while not sub.queue.empty():
        raw = sub.queue.get_nowait().decode()
        if "event: tally" in raw:
            out.append(json.loads(raw.split("data: ", 1)[1]))
    return out


def _tally(n: int, round_: int = 1) -> dict:
    return {"poll": "p", "n": n, "counts": [n, 0], "round": round_, "admitted": 10, "cluster": 4}


class _Clock:
    """A ``channel.Clock`` whose time moves only when the test says (``advance``): no sleeps."""

    def __init__(self):
        self.t = 1000.0
        self.due: list[list] = []  # [when, fn, cancelled]

    def now(self) -> float:
        return self.t

    def call_later(self, delay, fn):
        entry = [self.t + delay, fn, False]
        self.due.append(entry)
        clock = self

        class _Handle:
            def cancel(self):
                entry[2] = True
                clock.due.remove(entry)

        return _Handle()

    def advance(self, seconds: float) -> None:
        """Move the time on by ``seconds``, making each call that falls due, in time order."""
        end = self.t + seconds
        for _ in range(1000):  # bounded: a call may schedule another
            ready = sorted((e for e in self.due if e[0] <= end), key=lambda e: e[0])
            if not ready:
                break
            entry = ready[0]
            self.due.remove(entry)
            self.t = max(self.t, entry[0])
            entry[1]()
        self.t = end


def test_tallies_from_several_processes_reach_a_stream_once_an_interval_the_newest():
    interval = channel_module.TALLY_INTERVAL
    clock = _Clock()

    async def main():
        ch = Channel(10, 2, clock=clock)
        sub = ch.open("a" * 32)
        ch.relay_tally(_tally(3))
        held = _tallies(sub)  # never within the call itself
        clock.advance(0)  # the first goes out at once
        first = _tallies(sub)
        # four processes announce within one interval, out of order: one tally, the newest
        clock.advance(interval * 0.1)
        for n in (5, 7, 6, 4):
            ch.relay_tally(_tally(n))
        clock.advance(interval * 0.8)  # 0.9 interval since the first
        within = _tallies(sub)
        clock.advance(interval * 0.1)  # one interval since the first
        after = _tallies(sub)
        clock.advance(interval * 0.5)
        ch.relay_tally(_tally(0, round_=2))  # a new round's empty tally is newer than round 1's
        clock.advance(interval * 0.4)  # 0.9 interval since the last one
        before_reset = _tallies(sub)
        clock.advance(interval * 0.1)
        reset = _tallies(sub)
        ch.shutdown()
        return held, first, within, after, before_reset, reset

    held, first, within, after, before_reset, reset = run_async(main)
    assert held == [] and [t["n"] for t in first] == [3]
    assert within == []  # held until the interval since the last one has passed
    assert [t["n"] for t in after] == [7]
    assert before_reset == [] and [(t["round"], t["n"]) for t in reset] == [(2, 0)]


class _Response:
    def __init__(self):
        self.writes: list[bytes] = []

    async def prepare(self, request):
        pass

    async def write(self, data: bytes):
        self.writes.append(data)
        await asyncio.sleep(0)


def test_a_pump_writes_what_is_queued_together_and_stops_at_the_end():
    async def main():
        queue: asyncio.Queue = asyncio.Queue()
        response = _Response()
        for message in (b"a\n\n", b"b\n\n", b"c\n\n", None, b"never\n\n"):
            queue.put_nowait(message)
        await asyncio.wait_for(pump(None, response, queue, b"retry: 1\n\n", 5.0), 2)
        return response.writes

    assert run_async(main) == [b"retry: 1\n\n", b"a\n\nb\n\nc\n\n"]


def test_a_silent_pump_sends_a_ping_after_the_heartbeat():
    async def main():
        queue: asyncio.Queue = asyncio.Queue()
        response = _Response()
        task = asyncio.create_task(pump(None, response, queue, b"", 0.05))
        await asyncio.sleep(0.12)
        queue.put_nowait(None)
        await asyncio.wait_for(task, 2)
        return response.writes

    writes = run_async(main)
    assert writes[0] == b"" and b": ping\n\n" in writes[1:], writes
