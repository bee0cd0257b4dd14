"""Devices of a real hall, as aiohttp clients on loopback (tests/unit/test_hall_redis.py,
tests/unit/test_hall_redteam.py): a live channel kept as the page keeps it, and a wait."""

from __future__ import annotations

import asyncio
import json
import time

import aiohttp


class Follower:
    """A device's live channel as the page keeps it: on any end or error, open it again after
    250 ms (then 0.5 s, 1 s…); every ``state`` seq it sees, its tickets, the ``tally`` events'
    data, and when each stream opened."""

    def __init__(self, base: str, device: str):
        self.base, self.device = base, device
        self.seqs: list[int] = []
        self.tickets: dict[str, str] = {}  # poll or exercise → this device's admission ticket
        self.tallies: list[dict] = []  # every tally event's data, in order
        self.greeted: list[float] = []  # perf_counter of each stream's first event
        self.ended: list[float] = []

    async def run(self, session: aiohttp.ClientSession) -> None:
        backoff = 0.25
        while True:
            try:
                async with session.get(f"{self.base}_hall/events?device={self.device}") as response:
                    if response.status != 200:
                        raise aiohttp.ClientError(f"HTTP {response.status}")
                    event, first = None, True
                    async for raw in response.content:
                        line = raw.decode().rstrip("\n")
                        if line.startswith("event: "):
                            event = line[7:]
                        elif line.startswith("data: "):
                            if first:
                                self.greeted.append(time.perf_counter())
                                first, backoff = False, 0.25
                            data = json.loads(line[6:])
                            if event == "state":
                                self.seqs.append(data["seq"])
                            elif event == "admit":
                                self.tickets[data["poll"]] = data["ticket"]
                            elif event == "tickets":  # the greeting's: one per exercise
                                self.tickets.update(data["exercises"])
                            elif event == "tally":
                                self.tallies.append(data)
            except (aiohttp.ClientError, TimeoutError, ConnectionError):
                pass
            self.ended.append(time.perf_counter())
            await asyncio.sleep(backoff)
            backoff = min(3.0, backoff * 2)


async def until(predicate, timeout: float, what: str) -> float:
    """Wait (polling every 20 ms) until ``predicate()``; the seconds it took, or AssertionError
    naming ``what`` after ``timeout`` s."""
    t0 = time.perf_counter()
    while not predicate():
        if time.perf_counter() - t0 > timeout:
            raise AssertionError(f"not within {timeout} s: {what}")
        await asyncio.sleep(0.02)
    return time.perf_counter() - t0
