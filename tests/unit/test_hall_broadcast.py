"""A presenter's broadcast declared once (``dpdeck/wire/hall.py``: a ``kept`` event and a POST
route with ``broadcast=``) works with no handler and no store code of its own: the presenter's
POST is checked by its rules, published to every stream, kept in the store (SQLite and a real
Redis: ``hall_store``), replayed in every new stream's greeting, and kept across a restart.
Issue 48, item 5: a new message touches at most 5 files."""

from __future__ import annotations

import dataclasses

import pytest

from dpdeck import wire
from dpdeck.wire import hall as wire_hall
from dpdeck.wire.hall import Answer, Event, Route
from dpdeck.wire.rules import Body, Field, Int, shape_of
from tests.support.hall_fixtures import (
    DEV,
    bearer,
    make_admission,
    make_hall,
    make_store,
    read_events,
    run_with_client,
    stored,
)

pytestmark = pytest.mark.usefixtures("hall_store")  # over SQLite and over a real Redis

WAVE_FIELDS = (Field("hands", Int(1, 2)), Field("seconds", Int(0, 60), absent=0))
WAVE = Event("wave", "hall", shape_of("Wave", "a test broadcast", WAVE_FIELDS), "a wave.", kept=True)
WAVE_ROUTE = Route(
    "POST",
    "/_hall/wave",
    "presenter",
    Body("WaveBody", "a test broadcast, posted", WAVE_FIELDS),
    "`204`",
    (Answer(204, "ok"), Answer(400, "invalid"), Answer(403, "refused")),
    broadcast="wave",
)
STATE = {"seq": 10, "indexh": 3, "indexv": 0, "indexf": 1}


@pytest.fixture
def waves(monkeypatch):
    monkeypatch.setattr(wire_hall, "ROUTES", (*wire_hall.ROUTES, WAVE_ROUTE))
    monkeypatch.setattr(wire_hall, "EVENTS", (*wire_hall.EVENTS, WAVE))
    monkeypatch.setattr(wire, "EVENTS", (*wire.EVENTS, WAVE))


def test_a_broadcast_reaches_every_stream_and_every_late_joiner_and_survives_a_restart(tmp_path, waves):
    hall = make_hall(tmp_path)

    async def scenario(client):
        await client.post("/_hall/state", json=STATE, headers=bearer())
        early = await client.get(f"/_hall/events?device={DEV[0]}")
        await read_events(early, 4)  # state, devices, 2 tallies: no wave yet
        refused = [
            (await client.post("/_hall/wave", json={"hands": 1})).status,  # no token
            (await client.post("/_hall/wave", json={"hands": 3}, headers=bearer())).status,
            (await client.post("/_hall/wave", json={"seconds": 5}, headers=bearer())).status,
        ]
        assert (await client.post("/_hall/wave", json={"hands": 1}, headers=bearer())).status == 204
        assert (
            await client.post("/_hall/wave", json={"hands": 2, "seconds": 30}, headers=bearer())
        ).status == 204
        pushed = await read_events(early, 2, skip=("devices", "tally", "tickets"))
        late = await client.get(f"/_hall/events?device={DEV[1]}")
        greeting = await read_events(late, 5)
        early.close()
        late.close()
        return refused, pushed, greeting

    refused, pushed, greeting = run_with_client(hall, scenario)
    assert refused == [403, 400, 400]
    assert pushed == [("wave", {"hands": 1, "seconds": 0}), ("wave", {"hands": 2, "seconds": 30})]
    # the late joiner: the position, then the last wave, then the devices and the tallies
    assert [name for name, _ in greeting] == ["state", "wave", "devices", "tally", "tally"]
    assert greeting[1] == ("wave", {"hands": 2, "seconds": 30})
    # kept in the store, as a restarted hall reads it
    assert stored(hall, "kept") == {"wave": {"hands": 2, "seconds": 30}}

    async def after_restart(client):
        stream = await client.get(f"/_hall/events?device={DEV[2]}")
        events = await read_events(stream, 2)
        stream.close()
        return events

    store = make_store(tmp_path)  # a new process on the same SQLite file or Redis prefix
    restarted = dataclasses.replace(hall, store=store, admission=make_admission(store))
    assert run_with_client(restarted, after_restart) == [
        ("state", STATE),
        ("wave", {"hands": 2, "seconds": 30}),
    ]


def test_without_a_broadcast_kept_the_greeting_is_as_before(tmp_path, waves):
    hall = make_hall(tmp_path)

    async def scenario(client):
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        events = await read_events(stream, 3)
        stream.close()
        return events

    assert [name for name, _ in run_with_client(hall, scenario)] == ["devices", "tally", "tally"]
    assert stored(hall, "kept") == {}
