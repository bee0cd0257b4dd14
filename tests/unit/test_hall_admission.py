"""Admission for every contribution (issue 46, items 1, 2 and 5), over SQLite and a real Redis.

A solve counts only with the ticket the hall sent its device for that exercise, once per device;
an address brings at most ``max_devices_per_address`` device ids into the hall's pool, and the
presenter is told the largest cluster; a hall of 200 honest devices behind one address counts
them all; a full hall makes room for a new address by ending a stream of the address holding
the most."""

from __future__ import annotations

import asyncio

import aiohttp
import pytest
from aiohttp.test_utils import TestClient, TestServer

from dpdeck.hall.admission import Tickets, exercise_scope
from dpdeck.hall.app import make_app
from dpdeck.hall.channel import Channel, Full
from dpdeck.hall.limits import Limits, Rate
from dpdeck.hall.redis_store import RedisStore
from tests.support.hall_fixtures import (
    DEV,
    admit,
    bearer,
    make_admission,
    make_hall,
    origin_of,
    read_events,
    read_until,
    run_async,
    run_with_client,
    solve_ticket,
    stored,
)

pytestmark = pytest.mark.usefixtures("hall_store")  # every test over SQLite and over a real Redis
OPEN = Rate(burst=10_000, per_second=10_000)  # the rate limits out of the way: admission alone
SHOW = {"seq": 7, "indexh": 20, "indexv": 0, "indexf": -1}  # the poll «copia»'s slide


async def _greeting(stream) -> dict[str, dict]:
    """A new stream's greeting, by event name, exercise tickets included (they come last, and
    only to a device of the pool: read up to the tallies, then briefly for the tickets)."""
    events = dict(await read_events(stream, 3, skip=()))  # devices and two tallies (no state yet)
    try:
        events.update(await read_events(stream, 1, timeout=0.3, skip=("devices",)))
    except TimeoutError:
        pass
    return events


def test_a_solve_counts_only_with_its_devices_ticket_and_once_per_device(tmp_path):
    """Item 1: one address posted 3 002 solves under fresh tokens and the release read 3 002.
    Now one device holds a channel; a script posts 300 solves under fresh tokens: without a
    ticket, with made-up ones, with another exercise's, and with that device's own. Only one is
    counted, the release says the pool holds one device, and a resend is acknowledged."""
    hall = make_hall(tmp_path, limits=Limits(device=OPEN, connection=OPEN, address=OPEN))

    async def scenario(client):
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        own = (await _greeting(stream))["tickets"]["exercises"]["ex-escala"]
        other = Tickets(b"k" * 32).issue(exercise_scope("ex-escala"), DEV[0])  # another hall's
        statuses = []
        for i in range(300):
            ticket = [None, "%032x" % (10_000 + i), other, own][i % 4]
            body = {"token": "%032x" % (20_000 + i), "exercise": "ex-escala"}
            if ticket is not None:
                body["ticket"] = ticket
            statuses.append((await client.post("/_hall/solved", json=body)).status)
        resend = await client.post(
            "/_hall/solved", json={"token": f"{20_003:032x}", "exercise": "ex-escala", "ticket": own}
        )
        released = await client.post("/_hall/release", json={"exercise": "ex-escala"}, headers=bearer())
        stream.close()
        return statuses, (resend.status, await resend.json()), await released.json()

    statuses, resend, released = run_with_client(hall, scenario)
    assert statuses.count(403) == 225 and statuses.count(201) == 1 and statuses.count(200) == 74
    assert resend == (200, {"ok": True, "counted": False})
    assert stored(hall, "solved_count", "ex-escala") == 1
    assert (released["admitted"], released["cluster"]) == (1, 1)


def test_made_up_device_ids_from_one_address_are_capped_and_the_cluster_is_said(tmp_path):
    """Item 2: from one address a script opened channels under 64 made-up device ids and had
    each counted. Now an address brings at most ``max_devices_per_address`` (5 here) into the
    pool: the others follow but get no ticket, and their solves are refused; the presenter's
    tally and release say the 5 came from one address."""
    limits = Limits(device=OPEN, connection=OPEN, address=OPEN, max_devices_per_address=5)
    hall = make_hall(tmp_path, limits=limits)

    async def scenario(client):
        streams = [await client.get(f"/_hall/events?device={d}") for d in DEV[:8]]
        greetings = [await _greeting(s) for s in streams]
        solved = []
        for device, greeting in zip(DEV[:8], greetings, strict=True):
            ticket = greeting.get("tickets", {}).get("exercises", {}).get("ex-escala")
            body = {"token": device, "exercise": "ex-escala", **({"ticket": ticket} if ticket else {})}
            solved.append((await client.post("/_hall/solved", json=body)).status)
        await client.post("/_hall/state", json=SHOW, headers=bearer())
        admits = []
        for s in streams:
            events = await read_until(s, ("state",))  # the admit (if any) comes before the state
            admits.append(events.get("admit"))
        tally = await client.get(f"/_hall/events?device={DEV[0]}")
        seen = await read_until(tally, ("admit", "state", "tally"))
        released = await client.post("/_hall/release", json={"exercise": "ex-escala"}, headers=bearer())
        for s in (*streams, tally):
            s.close()
        return greetings, solved, admits, seen, await released.json()

    greetings, solved, admits, seen, released = run_with_client(hall, scenario)
    assert ["tickets" in g for g in greetings] == [True] * 5 + [False] * 3
    assert solved == [201] * 5 + [403] * 3
    assert [a is not None for a in admits] == [True] * 5 + [False] * 3
    assert (seen["tally"]["admitted"], seen["tally"]["cluster"]) == (5, 5)
    assert (released["admitted"], released["cluster"]) == (5, 5)
    assert stored(hall, "solved_count", "ex-escala") == 5


def test_two_hundred_honest_devices_behind_one_address_all_count(tmp_path):
    """Item 2: a campus behind one public address hit the cap of 64 streams per address, and
    honest devices got 429. With the default limits, 200 devices from one address all follow,
    all are admitted to the poll, and every answer and solve of theirs is counted."""
    hall = make_hall(tmp_path)
    n = 200

    async def main():
        server = TestServer(make_app(hall), host="127.0.0.1")
        await server.start_server()
        connector = aiohttp.TCPConnector(limit=0)  # 200 streams held open at once, and the posts
        headers = {"Origin": origin_of(str(server.make_url("/")))}
        async with TestClient(server, connector=connector, headers=headers) as client:
            streams = [await client.get(f"/_hall/events?device={d}") for d in _devices(n)]
            tickets = [(await _greeting(s))["tickets"]["exercises"]["ex-escala"] for s in streams]
            await client.post("/_hall/state", json=SHOW, headers=bearer())
            admits = [(await read_until(s, ("admit",)))["admit"]["ticket"] for s in streams]

            async def contribute(i: int) -> tuple[int, int]:
                answer = {"token": _devices(n)[i], "poll": "copia", "answer": i % 2, "ticket": admits[i]}
                solve = {"token": _devices(n)[i], "exercise": "ex-escala", "ticket": tickets[i]}
                a = await client.post("/_hall/answer", json=answer)
                s = await client.post("/_hall/solved", json=solve)
                return a.status, s.status

            statuses = await asyncio.gather(*(contribute(i) for i in range(n)))
            for s in streams:
                s.close()
            return statuses

    statuses = run_async(main)
    assert statuses == [(201, 201)] * n
    assert sum(stored(hall, "counts", "copia", 2)) == n
    assert stored(hall, "solved_count", "ex-escala") == n


def _devices(n: int) -> list[str]:
    return ["%032x" % (0xD000 + i) for i in range(n)]


def test_the_same_ticket_under_another_token_is_not_counted_again(tmp_path):
    """A device whose storage is refused draws a new solve token on each load: its ticket is the
    same, so its second solve is not counted (the store's own check, both stores)."""
    hall = make_hall(tmp_path)
    ticket = solve_ticket(hall, "ex-escala", DEV[0])

    async def main():
        await hall.store.open(lambda event, data: None)
        try:
            return [
                await hall.store.add_solved("ex-escala", DEV[1], ticket),
                await hall.store.add_solved("ex-escala", DEV[2], ticket),
                await hall.store.add_solved("ex-escala", DEV[1], ticket),
                await hall.store.solved_count("ex-escala"),
            ]
        finally:
            await hall.store.close()

    assert run_async(main) == [True, False, False, 1]


def test_a_full_hall_makes_room_for_a_new_address_but_never_below_a_fair_share():
    """Item 5: 16 addresses filled the hall's 1 000 streams and an honest device got 503. When
    the hall is full, a stream from an address holding fewer ends the oldest stream of the
    address holding the most (that page reconnects), down to equal shares; then it is full."""

    async def main():
        ch = Channel(max_streams=10, max_per_device=16, max_per_address=10)
        hog = [ch.open(f"{i:032x}", "203.0.113.9") for i in range(10)]
        newcomers = [ch.open(f"{100 + i:032x}", "198.51.100.4") for i in range(5)]
        try:
            ch.open(f"{200:032x}", "198.51.100.4")  # 5 against 5: no one holds more
            full = False
        except Full:
            full = True
        ended = [s for s in hog if s.queue.qsize() and s.queue.get_nowait() is None]
        ch.shutdown()
        return newcomers, ended, full, ch.evicted

    newcomers, ended, full, evicted = run_async(main)
    assert len(newcomers) == 5 and full and evicted == 5
    assert len(ended) == 5  # the hog's five oldest streams were ended


def test_the_pool_caps_each_address_and_keeps_a_device_in(tmp_path):
    hall = make_hall(tmp_path, limits=Limits(max_devices_per_address=2))

    async def main():
        await hall.store.open(lambda event, data: None)
        try:
            pool = hall.admission
            joined = [await pool.join(d, "203.0.113.9") for d in DEV[:3]]
            return joined, await pool.join(DEV[0], "198.51.100.4"), await pool.pool()
        finally:
            await hall.store.close()

    joined, moved, pool = run_async(main)
    assert joined == [True, True, False] and moved  # a device already in stays in from anywhere
    assert (pool.devices, pool.cluster) == (2, 2)


def test_an_answer_the_store_could_not_keep_gives_its_ticket_back(tmp_path, monkeypatch):
    """An answer whose write failed (Redis restarting: 503) spent its ticket first; its resend,
    same token and ticket, used to get 403 and the answer was lost. Now the ticket is given
    back, and the resend is counted."""
    from dpdeck.hall.store import Unavailable

    hall = make_hall(tmp_path)
    (ticket,) = admit(hall, "copia", DEV[:1])
    real = hall.store.add_answer
    calls = []

    async def fails_once(*args):
        calls.append(args)
        if len(calls) == 1:
            raise Unavailable("restarting")
        return await real(*args)

    monkeypatch.setattr(hall.store, "add_answer", fails_once)

    async def scenario(client):
        body = {"token": DEV[0], "poll": "copia", "answer": 1, "ticket": ticket}
        return [(await client.post("/_hall/answer", json=body)).status for _ in range(3)]

    assert run_with_client(hall, scenario) == [503, 201, 409]


def test_the_addresses_of_one_ipv6_64_share_one_cap_behind_a_trusted_proxy(tmp_path):
    """An IPv6 network gives one client a whole /64: counted address by address, it would bring
    2⁶⁴ device ids. Behind a trusted proxy, eight made-up ids from eight addresses of one /64
    are one cluster, capped at 5, and a ninth from another /64 is admitted."""
    limits = Limits(device=OPEN, connection=OPEN, address=OPEN, max_devices_per_address=5)
    hall = make_hall(tmp_path, limits=limits)
    hall.trusted_proxies = frozenset({"127.0.0.1"})

    async def scenario(client):
        streams = []
        for i in range(9):
            forwarded = f"2001:db8:0:1::{i + 1}" if i < 8 else "2001:db8:0:2::1"
            headers = {"X-Forwarded-For": forwarded}
            streams.append(await client.get(f"/_hall/events?device={DEV[i]}", headers=headers))
        greetings = [await _greeting(s) for s in streams]
        for s in streams:
            s.close()
        return ["tickets" in g for g in greetings]

    assert run_with_client(hall, scenario) == [True] * 5 + [False] * 3 + [True]


def test_the_pool_outlives_a_restart_so_the_count_keeps_its_bound(tmp_path):
    """The release clips its interval at the pool's size, which must stay at least the true
    count: a one-process hall that forgot its pool at a restart (its solves kept in SQLite)
    would have said fewer. The pool is the store's: a restarted hall keeps its size, its cap
    per address and its cluster."""
    hall = make_hall(tmp_path, limits=Limits(max_devices_per_address=5))

    async def run(devices):
        await hall.store.open(lambda event, data: None)
        try:
            joined = [await hall.admission.join(d, "203.0.113.9") for d in devices]
            return joined, await hall.admission.pool()
        finally:
            await hall.store.close()

    first = run_async(lambda: run(DEV[:5]))
    hall.admission = make_admission(hall.store, 5)  # a new process: a new admission, as after a kill -9
    after = run_async(lambda: run(DEV[5:7]))
    assert first[0] == [True] * 5 and after[0] == [False, False]
    assert (after[1].devices, after[1].cluster) == (5, 5)


def test_the_hall_holds_a_polls_counts_until_ten_answers(tmp_path, monkeypatch):
    """Issue 46, item 9: every stream got each tally change live (n = 1, 2, … right after each
    answer) while the slide held the result until 10 answers; a student watching the stream
    learnt each classmate's randomized answer as it came. The hall now sends only ``n`` below
    ``HOLD_UNTIL``, and the counts from then on."""
    from dpdeck.hall import channel
    from dpdeck.wire.rules import HOLD_UNTIL

    monkeypatch.setattr(channel, "TALLY_INTERVAL", 0.02)
    hall = make_hall(tmp_path, limits=Limits(device=OPEN, connection=OPEN, address=OPEN))
    tickets = admit(hall, "copia", DEV[1:12])

    async def scenario(client):
        spy = await client.get(f"/_hall/events?device={DEV[0]}")
        await read_events(spy, 3)
        seen = []
        for i in range(11):
            body = {"token": DEV[i + 1], "poll": "copia", "answer": i % 2, "ticket": tickets[i]}
            assert (await client.post("/_hall/answer", json=body)).status == 201
            while True:  # the throttled tally that says this answer
                (name, data), *_ = await read_events(spy, 1)
                if name == "tally" and data["poll"] == "copia" and data["n"] == i + 1:
                    seen.append(data["counts"])
                    break
        spy.close()
        return seen

    seen = run_with_client(hall, scenario)
    assert seen[: HOLD_UNTIL - 1] == [[]] * (HOLD_UNTIL - 1)
    assert seen[HOLD_UNTIL - 1 :] == [[5, 5], [6, 5]]


def test_hello_names_the_hall_session_the_same_after_a_restart_new_for_a_new_hall(tmp_path):
    """Issue 46, item 18: a device that answered in an earlier hall still showed «Enviada» in a
    fresh one. The page keys what it kept by ``hello``'s ``session``: the store's own random
    id, the same when the hall restarts on the same store, another for a fresh store."""
    hall = make_hall(tmp_path / "a")

    async def hello(client):
        return (await (await client.get("/_hall/hello")).json())["session"]

    first = run_with_client(hall, hello)
    again = run_with_client(hall, hello)  # the same store opened anew: a restart
    if isinstance(hall.store, RedisStore):  # a fresh hall: another prefix
        hall.store = RedisStore(hall.store.url, prefix="hall-other:")
        hall.admission = make_admission(hall.store)
        hall._session = None  # a new Hall would read it anew
        fresh = run_with_client(hall, hello)
    else:
        fresh = run_with_client(make_hall(tmp_path / "b"), hello)
    assert first == again and len(first) == 16 and fresh != first


def test_a_device_that_joins_while_the_disk_is_full_still_follows(tmp_path, monkeypatch):
    """The pool is written as a device joins (one process: SQLite). A full disk must not cost a
    device the lecture (issue 46, item 12): its channel opens, it follows, without tickets."""
    from dpdeck.hall.store import StoreFull

    hall = make_hall(tmp_path)

    async def full(*args):
        raise StoreFull("database or disk is full")

    monkeypatch.setattr(hall.admission, "join", full)

    async def scenario(client):
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        greeting = await _greeting(stream)
        stream.close()
        return stream.status, greeting

    status, greeting = run_with_client(hall, scenario)
    assert status == 200 and "devices" in greeting and "tickets" not in greeting
