"""The hall's decisions (dpdeck/hall/state.py), pure and then performed by the real hall.

Three layers: model tests of ``HallState`` and its rules alone (hypothesis, over interleavings of
presenter moves in and out of order and duplicated, resets, streams opening and restarts); each
store (SQLite and a real Redis) against the one seq rule ``state.keeps`` over many seeded random
sequences of posted positions, one at a time and at once; and the real ``Hall`` over both
stores, driven through its HTTP endpoints and restarts, against a reference computed here.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass, field, replace

from hypothesis import given, settings
from hypothesis import strategies as st

from dpdeck.hall import app as hall_app
from dpdeck.hall import state
from dpdeck.hall.messages import LiveSpec
from dpdeck.hall.redis_store import RedisStore
from dpdeck.hall.state import HallState, Route, Show
from dpdeck.hall.store import Store
from tests.support.hall_fixtures import (
    LIVE,
    bearer,
    make_admission,
    make_hall,
    make_store,
    run_async,
    run_with_client,
)

SPEC = LiveSpec(polls={"copia": 2, "color": 4}, slides={"copia": 20, "color": 21})
SLIDES = [19, 20, 21, 22]  # around the two polls' slides (20 and 21)


def position(seq: int, indexh: int, indexv: int = 0, indexf: int = -1) -> dict:
    return {"seq": seq, "indexh": indexh, "indexv": indexv, "indexf": indexf}


def greatest(posted: list[dict]) -> dict | None:
    """The reference for the kept position: the first posted with the greatest seq."""
    if not posted:
        return None
    top = max(p["seq"] for p in posted)
    return next(p for p in posted if p["seq"] == top)


# -- the rules alone ---------------------------------------------------------------------------


def test_the_seq_rule_keeps_only_a_greater_seq():
    assert state.keeps(None, 0) and state.keeps(None, 5)
    assert state.keeps(4, 5)
    assert not state.keeps(5, 5)  # a resend
    assert not state.keeps(6, 5)  # out of order


def test_a_round_is_shown_once_per_process_and_a_new_round_again():
    s0 = HallState()
    s1, show = s0.show("copia", 1)
    assert show == Show("copia", 1) and s0.shown == frozenset()  # frozen: the old state unchanged
    assert s1.show("copia", 1) == (s1, None)
    assert s1.show(None, 1) == (s1, None)
    assert s1.show("copia", 2)[1] == Show("copia", 2)
    assert HallState().show("copia", 1)[1] == Show("copia", 1)  # a restarted process shows it again


def test_the_devices_count_is_sent_when_asked_or_changed():
    s, send = HallState().devices(3, only_changed=True)
    assert send and s.devices_sent == 3
    assert s.devices(3, only_changed=True) == (s, False)
    assert s.devices(3)[1] and s.devices(4, only_changed=True)[0].devices_sent == 4
    assert s.greeting_devices(shared=True) == 3 and s.greeting_devices(shared=False) is None
    assert HallState().greeting_devices(shared=True) is None  # nothing sent yet: read it


def test_events_from_the_store_are_routed_by_where_the_position_is():
    assert state.route(SPEC, "state", position(1, 20)) is Route.SHOW_THEN_PUBLISH
    assert state.route(SPEC, "state", position(1, 20, 1)) is Route.PUBLISH  # below the poll's slide
    assert state.route(SPEC, "state", position(1, 3)) is Route.PUBLISH
    assert state.route(SPEC, "tally", {"poll": "copia"}) is Route.RELAY_TALLY
    assert state.route(SPEC, "devices", {"n": 1}) is Route.PUBLISH


def test_a_restart_on_a_poll_slide_admits_again_after_the_grace_unless_tickets_are_shared():
    assert state.restart_grace(SPEC, False, position(1, 20)) == state.RESTART_GRACE
    assert state.restart_grace(SPEC, True, position(1, 20)) is None
    assert state.restart_grace(SPEC, False, position(1, 19)) is None
    assert state.restart_grace(SPEC, False, None) is None


def test_the_greeting_carries_tickets_then_position_then_devices_then_tallies():
    tallies = [{"poll": "copia"}, {"poll": "color"}]
    events = state.greeting([("copia", 2, "a" * 32), ("color", 1, None)], position(7, 20), 5, tallies)
    assert events == [
        ("admit", {"poll": "copia", "round": 2, "ticket": "a" * 32}),
        ("state", position(7, 20)),
        ("devices", {"n": 5}),
        ("tally", tallies[0]),
        ("tally", tallies[1]),
    ]
    # before any position: the first event after the tickets is devices (the page reads it so)
    assert [e for e, _ in state.greeting([], None, 0, [])] == ["devices"]


# -- a model of one hall over time, the rules performed as app.Hall does -----------------------

steps = st.lists(
    st.one_of(
        st.tuples(
            st.just("post"), st.integers(0, 12), st.sampled_from(SLIDES), st.sampled_from([0, 0, 0, 1])
        ),
        st.tuples(st.just("reset"), st.sampled_from(["copia", "color"])),
        st.tuples(st.just("open")),
        st.tuples(st.just("devices"), st.integers(0, 3), st.booleans()),
        st.tuples(st.just("restart")),
    ),
    max_size=60,
)


@dataclass
class World:
    """The store's memory (the kept position, the rounds) and one process's ``HallState``."""

    kept: dict | None = None
    rounds: dict[str, int] = field(default_factory=lambda: {"copia": 1, "color": 1})
    hall: HallState = field(default_factory=HallState)
    shows: list[tuple[int, str, int]] = field(default_factory=list)  # (life, poll, round)
    deliveries: list[tuple[int, str, int]] = field(default_factory=list)  # kept positions on a poll's slide
    life: int = 0

    def deliver(self, pos: dict) -> None:
        """A kept position reaches the process (``Hall.on_event``), performed as ``_show`` does."""
        if state.route(SPEC, "state", pos) is not Route.SHOW_THEN_PUBLISH:
            return
        poll = state.poll_on(SPEC, pos)
        self.deliveries.append((self.life, poll, self.rounds[poll]))
        self.hall, show = self.hall.show(poll, self.rounds[poll])
        if show is not None:
            self.shows.append((self.life, show.poll, show.round))


@settings(max_examples=400, deadline=None)
@given(steps)
def test_model_seq_never_goes_back_and_each_round_is_shown_once_when_first_reached(script):
    world, posted, kept_seqs = World(), [], []
    for step in script:
        match step:
            case ("post", seq, h, v):
                pos = position(seq, h, v)
                posted.append(pos)
                kept = state.kept_after(world.kept, pos)
                if kept is pos:  # kept: the store publishes it to every process
                    world.kept = pos
                    world.deliver(pos)
                assert world.kept == greatest(posted)
            case ("reset", poll):
                world.rounds[poll] += 1
                if state.reshow_after_reset(SPEC, poll, world.kept):
                    world.deliver(world.kept)
            case ("open",):
                tickets = [
                    (p, r, "b" * 32 if (world.life, p, r) in world.shows else None)
                    for p, r in world.rounds.items()
                ]
                events = state.greeting(tickets, world.kept, 1, [])
                names = [e for e, _ in events]
                assert names.count("state") == (world.kept is not None)
                assert ("state", world.kept) in events or world.kept is None
                admits = [d for e, d in events if e == "admit"]
                assert all((world.life, a["poll"], a["round"]) in world.shows for a in admits)
                assert names[len(admits) :][-1] == "devices"  # tickets first, then state, devices
            case ("devices", n, only_changed):
                before = world.hall.devices_sent
                world.hall, send = world.hall.devices(n, only_changed)
                assert send == (not only_changed or n != before)
                assert world.hall.devices_sent == (n if send else before)
            case ("restart",):
                world.life += 1
                world.hall = HallState()
                if state.restart_grace(SPEC, False, world.kept) is not None:  # the timer fires
                    world.deliver(world.kept)
        if world.kept is not None:
            kept_seqs.append(world.kept["seq"])
    assert kept_seqs == sorted(kept_seqs)  # the kept seq never goes back
    assert len(set(world.shows)) == len(world.shows)  # a round at most once per process life
    # exactly when first reached: the shows are the first delivery of each (life, poll, round)
    first = list(dict.fromkeys(world.deliveries))
    assert world.shows == first
    for _life, poll, round_ in world.shows:
        assert round_ <= world.rounds[poll]


# -- each store against the one seq rule -------------------------------------------------------


def random_positions(rng: random.Random, n: int) -> list[dict]:
    """Posted positions in and out of order, with duplicates (resends) and repeated seqs."""
    out = []
    for _ in range(n):
        if out and rng.random() < 0.15:
            out.append(dict(rng.choice(out)))  # a resend
        else:
            out.append(
                position(rng.randint(0, 30), rng.randint(0, 40), rng.randint(0, 2), rng.randint(-1, 3))
            )
    return out


def fresh_store(tmp_path, name: str) -> Store:
    """A store of its own: a new SQLite file, or keys under a new prefix in the session's Redis."""
    store = make_store(tmp_path / name)
    if isinstance(store, RedisStore):
        store.prefix = f"{name}:"
    else:
        (tmp_path / name).mkdir()
    return store


def test_each_store_keeps_exactly_what_the_seq_rule_keeps(tmp_path, hall_store):
    rng = random.Random(2926)

    async def one_sequence(i: int, posted: list[dict]) -> None:
        store = fresh_store(tmp_path, f"seq-{i}")
        await store.open(lambda event, data: None)
        try:
            kept = None
            for n, pos in enumerate(posted, 1):
                expected = state.keeps(None if kept is None else kept["seq"], pos["seq"])
                assert await store.set_state(pos) == expected, (i, kept, pos)
                kept = state.kept_after(kept, pos)
                assert await store.state() == kept == greatest(posted[:n])
        finally:
            await store.close()

    async def main():
        for i in range(40):
            await one_sequence(i, random_positions(rng, rng.randint(1, 30)))

    run_async(main)


def test_positions_posted_at_once_keep_the_greatest_seq_in_each_store(tmp_path, hall_store):
    """Many posts racing (a pool of connections to Redis; SQLite's transactions): one position
    with the greatest seq is kept, and exactly one post of that seq says it was kept."""
    rng = random.Random(29)

    async def main():
        for i in range(10):
            store = fresh_store(tmp_path, f"race-{i}")
            await store.open(lambda event, data: None)
            try:
                posted = random_positions(rng, 40)
                kept = await asyncio.gather(*(store.set_state(p) for p in posted))
                top = max(p["seq"] for p in posted)
                final = await store.state()
                assert final["seq"] == top and final in posted
                assert sum(k for k, p in zip(kept, posted, strict=True) if p["seq"] == top) == 1
            finally:
                await store.close()

    run_async(main)


# -- the real hall, over each store: posts, resets and restarts against the reference ----------


class CountedAdmission:
    """A hall's admission (``inner``), recording each round it is asked to admit devices to."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.admits: list[tuple[str, int]] = []

    def __getattr__(self, name):  # everything else is the inner admission's
        return getattr(self.inner, name)

    async def admit(self, poll, round, devices):
        self.admits.append((poll, round))
        return await self.inner.admit(poll, round, devices)


async def settle(hall, expected: set) -> None:
    """Wait until the hall's spawned work is done (but the shared store's loop that reads the
    devices count, ``Hall._check_devices``) and its shown rounds are ``expected`` (with Redis,
    events come back through pub/sub), at most 3 s; then they must be exactly that."""
    for _ in range(300):
        if len(hall.tasks) <= hall.store.shared and set(hall.admission.admits) == expected:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.02)
    assert set(hall.hall_state.shown) == set(hall.admission.admits) == expected
    assert len(set(hall.admission.admits)) == len(hall.admission.admits)  # each round admitted once


def test_positions_that_reach_a_poll_at_once_show_its_round_once(tmp_path, hall_store):
    """Two kept positions on a poll's slide whose shows overlap (each awaits the store for the
    poll's round, and the store answers late): the round is shown, and its devices admitted,
    once; the same for the devices count read at once by two callers. Fails where a decision
    reads the process's state before its await and writes it after (a lost update)."""
    hall = make_hall(tmp_path)
    hall = replace(hall, admission=CountedAdmission(hall.admission))
    store_round, store_devices = hall.store.round, hall.store.devices

    async def late_round(poll):
        await asyncio.sleep(0.02)
        return await store_round(poll)

    async def late_devices(local):
        await asyncio.sleep(0.02)
        return await store_devices(local)

    async def main():
        await hall.store.open(lambda event, data: None)
        try:
            hall.store.round, hall.store.devices = late_round, late_devices
            slide = hall.spec.slides["copia"]
            await asyncio.gather(*(hall_app._show(hall, position(seq, slide)) for seq in (1, 2)))
            assert hall.admission.admits == [("copia", 1)]
            assert hall.hall_state.shown == {("copia", 1)}
            sent = []
            hall.channel.publish = lambda event, data: sent.append((event, data))
            await asyncio.gather(hall.send_devices(only_changed=True), hall.send_devices(only_changed=True))
            assert sent == [("devices", {"n": 0})]
        finally:
            await hall.store.close()

    run_async(main)


def test_the_hall_shows_each_round_once_per_process_when_first_reached(tmp_path, hall_store):
    """A seeded random script of presenter posts (in and out of order, resends), resets and
    restarts (a fresh process over the store that kept the position), performed by the real
    hall: after each step the kept position is the greatest seq posted, and the rounds the
    process has shown are those its kept positions reached on a poll's slide."""
    first = make_hall(tmp_path)
    spec = first.spec
    assert spec.slides == {p: LIVE["polls"][p]["slide"] for p in LIVE["polls"]}
    rng = random.Random(3029)
    posted: list[dict] = []
    rounds = {poll: 1 for poll in spec.polls}
    kept: list[dict | None] = [None]

    def reached(expected: set, pos: dict | None) -> None:
        poll = state.poll_on(spec, pos)
        if poll is not None:
            expected.add((poll, rounds[poll]))

    async def life(client, hall, steps: int, restarted: bool) -> None:
        expected: set = set()
        if restarted and kept[0] is not None:
            grace = state.restart_grace(spec, hall.admission.shared, kept[0])
            assert (hall._regrace is not None) == (grace is not None)
            if hall._regrace is not None:  # the timer fires now
                hall._regrace.cancel()
                await hall_app._show(hall, await hall.store.state())
            if hall._regrace is not None or hall.store.shared:  # Redis: the listener's first state
                reached(expected, kept[0])
        await settle(hall, expected)
        for _ in range(steps):
            if rng.random() < 0.8:
                pos = posted[rng.randrange(len(posted))] if posted and rng.random() < 0.15 else None
                seq = max(0, (kept[0]["seq"] if kept[0] else 0) + rng.randint(-2, 3))  # in or out of order
                pos = pos or position(seq, rng.choice([19, 20, 21, 22]), rng.choice([0, 0, 1]))
                posted.append(pos)
                response = await client.post("/_hall/state", json=pos, headers=bearer())
                assert response.status == 204
                if state.keeps(None if kept[0] is None else kept[0]["seq"], pos["seq"]):
                    kept[0] = pos
                    reached(expected, pos)
            else:
                poll = rng.choice(sorted(spec.polls))
                response = await client.post("/_hall/reset", json={"poll": poll}, headers=bearer())
                assert response.status == 204
                rounds[poll] += 1
                if state.reshow_after_reset(spec, poll, kept[0]):
                    reached(expected, kept[0])
            await settle(hall, expected)
            assert await hall.store.state() == kept[0] == greatest(posted)

    for n in range(4):  # a first process, then three restarts over the same store (new memory)
        store = make_store(tmp_path)
        hall = replace(first, store=store, admission=CountedAdmission(make_admission(store)))

        async def scenario(client, hall=hall, restarted=n > 0):
            await life(client, hall, 25, restarted)

        run_with_client(hall, scenario)
