"""The live channel's fan-out (deckbuild/hall/channel.py) and a stream's pump (deckbuild/sse.py),
on their own: what several processes' tallies become on one stream, and what a stream writes."""

from __future__ import annotations

import asyncio
import json

from deckbuild.hall import channel as channel_module
from deckbuild.hall.channel import Channel
from deckbuild.sse import pump
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


def test_tallies_from_several_processes_reach_a_stream_once_an_interval_the_newest(monkeypatch):
    monkeypatch.setattr(channel_module, "TALLY_INTERVAL", 0.5)

    async def main():
        ch = Channel(10, 2)
        sub = ch.open("a" * 32)
        ch.relay_tally(_tally(3))  # the first goes out at once
        await asyncio.sleep(0.02)
        first = _tallies(sub)
        # four processes announce within one interval, out of order: one tally, the newest
        for n in (5, 7, 6, 4):
            ch.relay_tally(_tally(n))
        await asyncio.sleep(0.05)
        within = _tallies(sub)
        await asyncio.sleep(0.6)
        after = _tallies(sub)
        ch.relay_tally(_tally(0, round_=2))  # a new round's empty tally is newer than round 1's
        await asyncio.sleep(0.6)
        reset = _tallies(sub)
        ch.shutdown()
        return first, within, after, reset

    first, within, after, reset = run_async(main)
    assert [t["n"] for t in first] == [3]
    assert within == []  # held until the interval since the last one has passed
    assert [t["n"] for t in after] == [7]
    assert [(t["round"], t["n"]) for t in reset] == [(2, 0)]


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
