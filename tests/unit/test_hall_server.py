"""The hall server (dpdeck/hall): endpoints, validation, token, limits, bound, the live channel.

Against the aiohttp application on a test server on 127.0.0.1; persistence across a kill -9 and
HTTPS are in test_hall_process.py, hostile static paths in test_hall_static.py.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sqlite3

import pytest

from dpdeck.hall.limits import Limits, Rate
from tests.support.hall_fixtures import (
    DEV,
    STORE,
    TOKEN,
    admit,
    bearer,
    make_hall,
    read_events,
    run_with_client,
    solve_body,
    stored,
)

pytestmark = pytest.mark.usefixtures("hall_store")  # every test over SQLite and over a real Redis

STATE = {"seq": 10, "indexh": 3, "indexv": 0, "indexf": 1}


def test_hello_says_a_hall_is_here_with_its_audience_url(tmp_path):
    async def scenario(client):
        response = await client.get("/_hall/hello")
        assert response.status == 200
        assert response.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
        return await response.json()

    hello = run_with_client(make_hall(tmp_path), scenario)
    assert re.fullmatch("[0-9a-f]{16}", hello.pop("session"))  # the store's own id: see test_hall_admission
    assert hello == {
        "hall": 1,
        "audience": ["http://192.0.2.7:8000/"],
        "devices": 0,
        "counts": {"epsilon": 0.5, "budget": 4.0},
    }


def test_only_the_token_moves_the_hall_and_a_refusal_is_logged_without_it(tmp_path, caplog):
    hall = make_hall(tmp_path)
    wrong = "x" * 43

    async def scenario(client):
        statuses = [
            (await client.post("/_hall/state", json=STATE)).status,
            (await client.post("/_hall/state", json=STATE, headers=bearer(wrong))).status,
            (await client.post("/_hall/state", json=STATE, headers={"Authorization": TOKEN})).status,
            (await client.post("/_hall/state", json=STATE, headers=bearer(TOKEN[:-1]))).status,
        ]
        after_refusals = await hall.store.state()
        statuses.append((await client.post("/_hall/state", json=STATE, headers=bearer())).status)
        return statuses, after_refusals

    with caplog.at_level(logging.WARNING, logger="dpdeck.hall"):
        statuses, after_refusals = run_with_client(hall, scenario)
    assert statuses == [403, 403, 403, 403, 204]
    assert after_refusals is None and stored(hall, "state") == STATE
    refusals = [r.getMessage() for r in caplog.records if "refused" in r.getMessage()]
    assert len(refusals) == 4 and all("/_hall/state" in m for m in refusals)
    assert not any(wrong in m or TOKEN in m or "127.0.0.1" in m for m in caplog.messages)


def test_state_keeps_only_a_growing_seq_and_pushes_it_to_every_stream(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        await client.post("/_hall/state", json=STATE, headers=bearer())
        streams = [await client.get(f"/_hall/events?device={d}") for d in DEV[:3]]
        greetings = [await read_events(s, 4) for s in streams]  # state, devices, 2 tallies
        older = {**STATE, "seq": 9, "indexh": 0}
        assert (await client.post("/_hall/state", json=older, headers=bearer())).status == 204
        newer = {**STATE, "seq": 11, "indexh": 4, "indexf": -1}
        await client.post("/_hall/state", json=newer, headers=bearer())
        pushed = []
        for s in streams:  # the older state was never pushed: the next state event is the newer
            events = await read_events(s, 2)
            pushed.append([data for name, data in events if name == "state"])
            s.close()
        return greetings, pushed, newer

    greetings, pushed, newer = run_with_client(hall, scenario)
    for events in greetings:
        assert events[0] == ("state", STATE)
        assert [name for name, _ in events] == ["state", "devices", "tally", "tally"]
        assert {
            "poll": "color",
            "n": 0,
            "counts": [],
            "round": 1,
            "admitted": None,
            "cluster": None,
        } in [data for _, data in events]
    assert all(p == [newer] for p in pushed), pushed
    assert stored(hall, "state") == newer


def test_state_bodies_are_validated(tmp_path):
    bad = [
        {"seq": "1", "indexh": 0, "indexv": 0, "indexf": 0},
        {"seq": True, "indexh": 0, "indexv": 0, "indexf": 0},
        {"seq": 1, "indexh": -1, "indexv": 0, "indexf": 0},
        {"seq": 1, "indexh": 0, "indexv": 0, "indexf": 1.5},
        {"seq": 1, "indexh": 0, "indexv": 0},
        [1, 2, 3],
    ]

    async def scenario(client):
        out = [(await client.post("/_hall/state", json=b, headers=bearer())).status for b in bad]
        as_json = {**bearer(), "Content-Type": "application/json"}
        out.append((await client.post("/_hall/state", data=b"{nope", headers=as_json)).status)
        out.append((await client.post("/_hall/state", data=b'{"seq": NaN}', headers=as_json)).status)
        return out

    assert run_with_client(make_hall(tmp_path), scenario) == [400] * (len(bad) + 2)


def test_answers_are_recorded_once_per_device_and_validated(tmp_path):
    hall = make_hall(tmp_path)
    copia, color = admit(hall, "copia", DEV[:3]), admit(hall, "color", DEV[:3])

    async def post(client, body):
        return (await client.post("/_hall/answer", json=body)).status

    async def scenario(client):
        return [
            await post(client, {"token": DEV[0], "poll": "copia", "answer": 1, "ticket": copia[0]}),
            # a second answer of the same token, with another ticket or with none
            await post(client, {"token": DEV[0], "poll": "copia", "answer": 0, "ticket": copia[2]}),
            await post(client, {"token": DEV[1], "poll": "copia", "answer": 0, "ticket": copia[1]}),
            await post(client, {"token": DEV[1], "poll": "color", "answer": 3, "ticket": color[1]}),
            await post(client, {"token": DEV[2], "poll": "nope", "answer": 0}),  # unknown poll
            await post(client, {"token": DEV[2], "poll": "copia", "answer": 2}),  # out of range
            await post(client, {"token": DEV[2], "poll": "copia", "answer": -1}),
            await post(client, {"token": DEV[2], "poll": "copia", "answer": True}),
            await post(client, {"token": DEV[2], "poll": "copia", "answer": "1"}),
            await post(client, {"token": "ABC", "poll": "copia", "answer": 1}),  # bad device id
            await post(client, {"token": "AB" * 16, "poll": "copia", "answer": 1}),
            await post(client, {"poll": "copia", "answer": 1}),
        ]

    assert run_with_client(hall, scenario) == [201, 409, 201, 201] + [400] * 8
    assert stored(hall, "counts", "copia", 2) == [1, 1]
    assert stored(hall, "counts", "color", 4) == [0, 0, 0, 1]


def test_bodies_over_one_kib_are_refused_unread(tmp_path):
    hall = make_hall(tmp_path)
    big = b'{"device": "' + b"a" * 2000 + b'"}'

    async def scenario(client):
        as_json = {"Content-Type": "application/json"}
        a = (await client.post("/_hall/answer", data=big, headers=as_json)).status
        s = (await client.post("/_hall/state", data=big, headers={**bearer(), **as_json})).status
        return a, s

    assert run_with_client(hall, scenario) == (413, 413)


def test_tallies_reach_the_streams_throttled_and_a_reset_starts_a_new_round(tmp_path):
    hall = make_hall(tmp_path)
    tickets = admit(hall, "copia", DEV[1:9])

    async def scenario(client):
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        await read_events(stream, 3)  # devices, 2 tallies (no state yet)
        for i in range(8):
            body = {"token": DEV[i + 1], "poll": "copia", "answer": i % 2, "ticket": tickets[i]}
            await client.post("/_hall/answer", json=body)
        events = await read_events(stream, 2)  # throttled: fewer tallies than answers
        tallies = [d for n, d in events if n == "tally"]
        while not tallies or tallies[-1]["n"] < 8:
            tallies += [d for n, d in await read_events(stream, 1) if n == "tally"]
        assert (await client.post("/_hall/reset", json={"poll": "copia"})).status == 403
        assert (await client.post("/_hall/reset", json={"poll": "copia"}, headers=bearer())).status == 204
        after = [d for n, d in await read_events(stream, 1) if n == "tally"]
        # the old round's tickets are void; the new round is shown when the presenter reaches it
        old = {"token": DEV[1], "poll": "copia", "answer": 1, "ticket": tickets[1]}
        refused = (await client.post("/_hall/answer", json=old)).status
        state = {"seq": 5, "indexh": 20, "indexv": 0, "indexf": -1}
        assert (await client.post("/_hall/state", json=state, headers=bearer())).status == 204
        admitted = await read_events(stream, 3)  # its ticket first; the tally and the state, in either order
        ticket = admitted[0][1]["ticket"]
        again = await client.post("/_hall/answer", json={**old, "token": DEV[0], "ticket": ticket})
        stream.close()
        return tallies, after, refused, admitted, again.status

    tallies, after, refused, admitted, again = run_with_client(hall, scenario)
    assert tallies[-1] == {"poll": "copia", "n": 8, "counts": [], "round": 1, "admitted": 8, "cluster": 9}
    assert len(tallies) < 8
    assert after[0] == {
        "poll": "copia",
        "n": 0,
        "counts": [],
        "round": 2,
        "admitted": None,
        "cluster": None,
    }
    assert refused == 403
    assert admitted[0] == ("admit", {"poll": "copia", "round": 2, "ticket": admitted[0][1]["ticket"]})
    assert (
        "tally",
        {"poll": "copia", "n": 0, "counts": [], "round": 2, "admitted": 1, "cluster": 9},
    ) in admitted[1:]
    assert "state" in [name for name, _ in admitted[1:]]
    assert again == 201


def test_solves_are_counted_once_per_token_and_their_true_count_reaches_no_one(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        statuses = [
            (
                await client.post(
                    "/_hall/solved",
                    json=solve_body(hall, d),
                )
            ).status
            for d in (DEV[0], DEV[0], DEV[1])
        ]
        statuses.append((await client.post("/_hall/solved", json={"token": DEV[2], "exercise": "x"})).status)
        old = (await client.get("/_hall/exercises", headers=bearer())).status  # true counts: gone
        refused = (await client.post("/_hall/release", json={"exercise": "ex-escala"})).status
        return statuses, old, refused

    assert run_with_client(hall, scenario) == ([201, 200, 201, 400], 404, 403)
    assert stored(hall, "solved_count", "ex-escala") == 2


def test_a_stream_without_the_token_learns_nothing_of_solves(tmp_path):
    """Issue 31, leak 1: a stream opened with a made-up device id and no token used to get one
    ``solved`` event per first solve (the presenter's true counts, and their timing). Now ten
    first solves send nothing on any stream."""
    hall = make_hall(tmp_path)

    async def scenario(client):
        spy = await client.get(f"/_hall/events?device={DEV[40]}")
        greeting = await read_events(spy, 3)  # devices, 2 tallies
        greeting += await read_events(spy, 1)  # the devices count, now with the spy in it
        for i in range(10):
            status = (
                await client.post(
                    "/_hall/solved",
                    json=solve_body(hall, DEV[i]),
                )
            ).status
            assert status == 201
        try:
            after = await read_events(spy, 1, timeout=2.0)
        except TimeoutError:
            after = []
        spy.close()
        return greeting, after

    greeting, after = run_with_client(hall, scenario)
    assert [name for name, _ in greeting] == ["devices", "tally", "tally", "devices"]
    assert after == []


def test_the_server_keeps_the_halls_budget_across_tabs_and_restarts(tmp_path):
    """Issue 31, leak 2: the budget lives on the server. A count asked again is the same release
    (free); a new draw is spent; past the budget (4 = 8 × 0,5) every presenter tab is refused,
    and so is a restarted server on the same file. Each release is discrete Laplace noise."""
    hall = make_hall(tmp_path)

    async def release(client, again):
        r = await client.post(
            "/_hall/release", json={"exercise": "ex-escala", "again": again}, headers=bearer()
        )
        return r.status, await r.json()

    async def scenario(client):
        for i in range(3):
            await client.post(
                "/_hall/solved",
                json=solve_body(hall, DEV[i]),
            )
        first = await release(client, False)
        same = await release(client, False)  # another tab asking: the same release, nothing spent
        fresh = [await release(client, True) for _ in range(7)]
        past = await release(client, True)
        cached = await release(client, False)
        bad = (
            await client.post("/_hall/release", json={"exercise": "ex-escala", "again": 1}, headers=bearer())
        ).status
        return first, same, fresh, past, cached, bad

    first, same, fresh, past, cached, bad = run_with_client(hall, scenario)
    assert first[0] == 200 and first[1]["new"] and isinstance(first[1]["value"], int)
    assert same == (200, {**first[1], "new": False})
    assert all(status == 200 and body["new"] for status, body in fresh)
    meter = fresh[-1][1]["budget"]["accountants"][0]
    assert meter["epsilon_spent"] == 4.0 and meter["epsilon_total"] == 4.0 and meter["releases"] == 8
    assert meter["name"] == "presupuesto de la sala" and meter["epsilon_text"] == "4 de 4"
    assert past[0] == 409 and past[1]["value"] is None and "presupuesto" in past[1]["refused"].lower()
    assert cached[0] == 200 and cached[1]["value"] == fresh[-1][1]["value"] and not cached[1]["new"]
    assert bad == 400
    assert first[1]["epsilon"] == 0.5 and abs(first[1]["sd"] - 2.80) < 0.01
    kept = stored(hall, "releases")
    assert len(kept) == 8 and {r["epsilon"] for r in kept} == {0.5}

    async def after_restart(client):  # run_with_client reopened the file: a restarted server
        return await release(client, True)

    assert run_with_client(hall, after_restart)[0] == 409
    assert len(stored(hall, "releases")) == 8


def test_a_device_that_floods_is_rate_limited_and_others_are_not(tmp_path):
    limits = Limits(device=Rate(burst=3, per_second=0.01), connection=Rate(burst=100, per_second=1))
    hall = make_hall(tmp_path, limits=limits)
    (ticket,) = admit(hall, "copia", DEV[1:2])

    async def scenario(client):
        flood = [
            (
                await client.post(
                    "/_hall/solved",
                    json=solve_body(hall, DEV[0]),
                )
            ).status
            for _ in range(6)
        ]
        body = {"token": DEV[1], "poll": "copia", "answer": 0, "ticket": ticket}
        other = (await client.post("/_hall/answer", json=body)).status
        return flood, other

    flood, other = run_with_client(hall, scenario)
    assert flood == [201, 200, 200, 429, 429, 429] and other == 201


def test_one_connection_that_floods_is_rate_limited(tmp_path):
    limits = Limits(connection=Rate(burst=4, per_second=0.01))
    hall = make_hall(tmp_path, limits=limits)
    tickets = admit(hall, "copia", DEV[:6])

    async def scenario(client):  # the test client keeps one connection alive: one bucket
        return [
            (
                await client.post(
                    "/_hall/answer",
                    json={"token": DEV[i], "poll": "copia", "answer": 0, "ticket": tickets[i]},
                )
            ).status
            for i in range(6)
        ]

    assert run_with_client(hall, scenario) == [201] * 4 + [429] * 2


def test_streams_beyond_the_bound_get_a_clear_503_and_a_freed_slot_is_reused(tmp_path):
    hall = make_hall(tmp_path, limits=Limits(max_streams=3, max_streams_per_device=2))

    async def scenario(client):
        open_ = [await client.get(f"/_hall/events?device={d}") for d in DEV[:3]]
        for s in open_:
            await read_events(s, 1)
        busy = await client.get(f"/_hall/events?device={DEV[3]}")
        text = await busy.text()
        open_[0].close()
        await asyncio.sleep(0.2)
        again = await client.get(f"/_hall/events?device={DEV[3]}")
        bad = await client.get("/_hall/events?device=<script>")
        statuses = (busy.status, again.status, bad.status)
        again.close()
        for s in open_[1:]:
            s.close()
        return statuses, text, busy.headers["Content-Type"]

    statuses, text, ctype = run_with_client(hall, scenario)
    assert statuses == (503, 200, 400)
    assert "La sala está llena" in text and ctype.startswith("text/plain")


def test_the_devices_count_is_of_distinct_devices(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        a = await client.get(f"/_hall/events?device={DEV[0]}")
        b = await client.get(f"/_hall/events?device={DEV[0]}")  # a second tab of one browser
        c = await client.get(f"/_hall/events?device={DEV[1]}")
        for s in (a, b, c):
            await read_events(s, 1)
        n = (await (await client.get("/_hall/hello")).json())["devices"]
        for s in (a, b, c):
            s.close()
        return n

    assert run_with_client(hall, scenario) == 2


def test_nothing_a_student_sends_comes_back_as_html_or_is_stored_beside_their_address(tmp_path, hall_store):
    hall = make_hall(tmp_path)
    script = "<script>alert(1)</script>"
    (ticket,) = admit(hall, "copia", DEV[:1])

    async def scenario(client):
        r1 = await client.post("/_hall/answer", json={"token": DEV[0], "poll": script, "answer": 0})
        r2 = await client.post(
            "/_hall/answer",
            json={"token": DEV[0], "poll": "copia", "answer": 1, "ticket": ticket},
            headers={"User-Agent": "UA-XYZ"},
        )
        return [(r.status, r.headers["Content-Type"], await r.text()) for r in (r1, r2)]

    results = run_with_client(hall, scenario)
    assert all("html" not in ctype and script not in text for _, ctype, text in results)
    if hall_store == "redis":  # the append-only file is Redis's storage: the same claim holds there
        raw = STORE["redis"].stored_bytes()
        assert DEV[0].encode() in raw  # the answer is there: the file was read
        assert b"127.0.0.1" not in raw and b"UA-XYZ" not in raw and b"<script>" not in raw
        return
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("hall.sqlite3*"))
    assert DEV[0].encode() in raw  # the answer is there: the file was read
    assert b"127.0.0.1" not in raw and b"UA-XYZ" not in raw and b"<script>" not in raw
    assert ticket.encode() not in raw  # admission tickets live in memory only
    db = sqlite3.connect(tmp_path / "hall.sqlite3")
    columns = {
        row[1]
        for table in ("state", "poll_answers", "solves", "releases")
        for row in db.execute(f"PRAGMA table_info({table})")
    }
    assert "device" not in columns
    assert columns == {"id", "seq", "indexh", "indexv", "indexf", "poll", "token", "answer", "exercise"} | {
        "value",
        "epsilon",
        "label",
    }


def test_answers_carry_a_token_per_poll_and_no_device_id(tmp_path):
    """Issue 31, leak 3: an answer names no device; a body with only a device id is refused."""
    hall = make_hall(tmp_path)
    (ticket,) = admit(hall, "copia", DEV[:1])

    async def scenario(client):
        return [
            (
                await client.post("/_hall/answer", json={"device": DEV[0], "poll": "copia", "answer": 1})
            ).status,
            (
                await client.post(
                    "/_hall/answer", json={"token": DEV[0], "poll": "copia", "answer": 1, "ticket": ticket}
                )
            ).status,
            (await client.post("/_hall/solved", json={"device": DEV[1], "exercise": "ex-escala"})).status,
        ]

    assert run_with_client(hall, scenario) == [400, 201, 400]


def test_an_older_hall_file_is_migrated_without_its_device_ids(tmp_path):
    """A file of the hall before per-poll tokens (one device id across polls and exercises):
    opened now, its tallies and counts are the same and no device id is left in it."""
    from dpdeck.hall.store import HallStore

    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript(
        "CREATE TABLE answers (poll TEXT NOT NULL, device TEXT NOT NULL, answer INTEGER NOT NULL,"
        " PRIMARY KEY (poll, device)) WITHOUT ROWID;"
        "CREATE TABLE solved (exercise TEXT NOT NULL, device TEXT NOT NULL,"
        " PRIMARY KEY (exercise, device)) WITHOUT ROWID;"
    )
    old.executemany("INSERT INTO answers VALUES (?, ?, ?)", [("copia", DEV[i], i % 2) for i in range(5)])
    old.executemany("INSERT INTO answers VALUES (?, ?, ?)", [("color", DEV[i], 3) for i in range(2)])
    old.executemany("INSERT INTO solved VALUES (?, ?)", [("ex-escala", DEV[i]) for i in range(4)])
    old.commit()
    old.close()
    store = HallStore(path)
    assert store.counts("copia", 2) == [3, 2] and store.counts("color", 4) == [0, 0, 0, 2]
    assert store.solved_count("ex-escala") == 4
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("old.sqlite3*"))
    assert not any(d.encode() in raw for d in DEV[:5])


def test_without_live_json_the_hall_runs_with_no_polls(tmp_path):
    hall = make_hall(tmp_path, live=None)

    async def scenario(client):
        hello = (await client.get("/_hall/hello")).status
        answer = (
            await client.post("/_hall/answer", json={"token": DEV[0], "poll": "copia", "answer": 0})
        ).status
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        events = await read_events(stream, 1)
        stream.close()
        return hello, answer, events

    assert run_with_client(hall, scenario) == (200, 400, [("devices", {"n": 1})])


def test_the_qr_code_is_an_svg_of_the_audience_url(tmp_path):
    async def scenario(client):
        response = await client.get("/_hall/qr.svg")
        return response.status, response.headers["Content-Type"], await response.text()

    status, ctype, svg = run_with_client(make_hall(tmp_path), scenario)
    assert status == 200 and ctype == "image/svg+xml"
    assert svg.startswith("<svg") and 'xmlns="http://www.w3.org/2000/svg"' in svg and "viewBox" in svg


def test_a_watch_only_server_announces_no_hall(tmp_path):
    """``serve --watch`` alone runs the hall's server for its channel, but the page must find
    no hall (no indicator, no following): /_hall/hello answers 204 there (no 404 in the log and
    the console, issue 33 item 20)."""
    hall = make_hall(tmp_path)
    hall.announce = False

    async def scenario(client):
        return (await client.get("/_hall/hello")).status, (await client.get("/")).status

    assert run_with_client(hall, scenario) == (204, 200)


def test_one_address_cannot_take_every_live_channel(tmp_path):
    """Issue 30, a hostile student: one client opening stream after stream under fresh device
    ids used to fill the hall (the next device got 503). Now an address holds at most
    ``max_streams_per_address`` (429 beyond, a Spanish text); the hall still has room."""
    hall = make_hall(tmp_path, limits=Limits(max_streams=10, max_streams_per_address=3))

    async def scenario(client):
        held = [await client.get(f"/_hall/events?device={d}") for d in DEV[:3]]
        for s in held:
            await read_events(s, 1)
        refused = await client.get(f"/_hall/events?device={DEV[3]}")
        text = await refused.text()
        held[0].close()
        await asyncio.sleep(0.2)
        again = await client.get(f"/_hall/events?device={DEV[3]}")
        status = again.status
        again.close()
        for s in held[1:]:
            s.close()
        return refused.status, text, status, len(hall.channel.subscribers) <= 3

    status, text, again, bounded = run_with_client(hall, scenario)
    assert status == 429 and "desde esta dirección" in text and again == 200 and bounded


def test_every_post_needs_json_and_an_allowed_origin(tmp_path):
    """Issue 30, a hostile student: a page on another site could post answers with a plain-text
    cross-site request (no preflight). Now every POST needs ``Content-Type: application/json``
    (415) and the hall's own ``Origin`` or one it was told (403), checked before the body."""
    hall = make_hall(tmp_path)
    hall.allow_origins = frozenset({"https://deck.example.edu"})
    body = '{"token": "%s", "poll": "copia", "answer": 1}'
    tickets = admit(hall, "copia", DEV[:5])

    async def scenario(client):
        plain = await client.post(
            "/_hall/answer",
            data=body % DEV[0],
            headers={"Content-Type": "text/plain", "Origin": "https://evil.example"},
        )
        foreign = await client.post(
            "/_hall/answer",
            json={"token": DEV[1], "poll": "copia", "answer": 1},
            headers={"Origin": "https://evil.example"},
        )
        null = await client.post(
            "/_hall/answer", json={"token": DEV[2], "poll": "copia", "answer": 1}, headers={"Origin": "null"}
        )
        told = await client.post(
            "/_hall/answer",
            json={"token": DEV[3], "poll": "copia", "answer": 1, "ticket": tickets[3]},
            headers={"Origin": "https://deck.example.edu"},
        )
        own = await client.post(
            "/_hall/answer", json={"token": DEV[4], "poll": "copia", "answer": 0, "ticket": tickets[4]}
        )
        state = await client.post(
            "/_hall/state",
            json={"seq": 5, "indexh": 1, "indexv": 0, "indexf": -1},
            headers={**bearer(), "Origin": "https://evil.example"},
        )
        return [r.status for r in (plain, foreign, null, told, own, state)]

    assert run_with_client(hall, scenario) == [415, 403, 403, 201, 201, 403]
    assert stored(hall, "counts", "copia", 2) == [1, 1] and stored(hall, "state") is None


def test_a_post_without_an_origin_is_refused():
    from dpdeck.hall.cors import origin_allowed

    assert not origin_allowed(None, "hall:8000", frozenset())
    assert origin_allowed("http://hall:8000", "hall:8000", frozenset())
    assert origin_allowed("https://HALL:8000", "hall:8000", frozenset())
    assert not origin_allowed("http://hall:8001", "hall:8000", frozenset())
    assert not origin_allowed("ftp://hall:8000", "hall:8000", frozenset())
    assert origin_allowed("https://deck.example.edu", "hall:8000", frozenset({"https://deck.example.edu"}))


async def _next(stream, name: str) -> dict:
    """The data of the next ``name`` event of a stream."""
    while True:
        (got, data), *_ = await read_events(stream, 1)
        if got == name:
            return data


def test_a_hostile_script_counts_at_most_the_devices_admitted(tmp_path):
    """Issue 30, a hostile student (fails on main: every fresh token counted): three devices hold
    a channel when the poll is shown; then one client posts 300 answers from one address under
    fresh answer tokens, with made-up tickets, with none, and with the tickets it was sent
    reused. The poll counts at most the 3 admitted devices, and the slide's tally says 3."""
    hall = make_hall(tmp_path, limits=Limits(device=Rate(1000, 1000), connection=Rate(1000, 1000)))
    show = {"seq": 7, "indexh": 20, "indexv": 0, "indexf": -1}

    async def scenario(client):
        streams = [await client.get(f"/_hall/events?device={d}") for d in DEV[:3]]
        for s in streams:
            await read_events(s, 3)  # devices, 2 tallies
        await client.post("/_hall/state", json=show, headers=bearer())
        tickets = [(await _next(s, "admit"))["ticket"] for s in streams]
        statuses = []
        for i in range(300):
            ticket = [None, "%032x" % (10_000 + i), tickets[i % 3]][i % 3]
            body = {"token": "%032x" % (20_000 + i), "poll": "copia", "answer": 1}
            if ticket is not None:
                body["ticket"] = ticket
            statuses.append((await client.post("/_hall/answer", json=body)).status)
        late = await client.get(f"/_hall/events?device={DEV[9]}")
        greeting = await read_events(late, 4)
        for s in (*streams, late):
            s.close()
        return statuses, greeting

    statuses, greeting = run_with_client(hall, scenario)
    assert statuses.count(201) == 1 and statuses.count(403) == 299  # one admitted ticket in 3 was used
    assert sum(stored(hall, "counts", "copia", 2)) == 1 <= 3
    assert (
        "tally",
        {"poll": "copia", "n": 1, "counts": [], "round": 1, "admitted": 3, "cluster": 4},
    ) in greeting
    assert "admit" not in [name for name, _ in greeting]  # a device that came later: no ticket


def test_a_device_connected_after_the_poll_was_shown_is_refused_and_a_reload_keeps_its_ticket(tmp_path):
    """Admission (issue 30): a device that opens its channel after the presenter reached the
    poll gets no ticket and its answer is refused with a Spanish 403; a device admitted then,
    which reloads (a new stream, the same device id), gets the same ticket again and answers."""
    hall = make_hall(tmp_path)
    show = {"seq": 7, "indexh": 21, "indexv": 0, "indexf": -1}

    async def scenario(client):
        early = await client.get(f"/_hall/events?device={DEV[0]}")
        await read_events(early, 3)
        await client.post("/_hall/state", json=show, headers=bearer())
        first = await _next(early, "admit")
        early.close()  # the page reloads
        reloaded = await client.get(f"/_hall/events?device={DEV[0]}")
        again = (await read_events(reloaded, 1))[0]
        late = await client.get(f"/_hall/events?device={DEV[1]}")
        late_greeting = await read_events(late, 4)
        refused = await client.post(
            "/_hall/answer",
            json={"token": DEV[30], "poll": "color", "answer": 2, "ticket": first["ticket"][::-1]},
        )
        ok = await client.post(
            "/_hall/answer",
            json={"token": DEV[31], "poll": "color", "answer": 2, "ticket": again[1]["ticket"]},
        )
        spent = await client.post(
            "/_hall/answer", json={"token": DEV[32], "poll": "color", "answer": 2, "ticket": first["ticket"]}
        )
        for s in (reloaded, late):
            s.close()
        return (
            "admit",
            first,
            again,
            late_greeting,
            refused.status,
            await refused.text(),
            ok.status,
            spent.status,
        )

    name, first, again, late_greeting, refused, text, ok, spent = run_with_client(hall, scenario)
    assert name == "admit" and first["poll"] == "color" and first["round"] == 1
    assert again == ("admit", first)
    assert [n for n, _ in late_greeting] == ["state", "devices", "tally", "tally"]
    assert refused == 403 and "Sin admisión en esta ronda" in text
    assert ok == 201 and spent == 403


def test_every_refusal_is_one_shape_plain_spanish_text_never_cached(tmp_path, monkeypatch):
    """Whatever refuses (the origin guard, the access table, a handler, the body's check, the
    store unreachable), the answer is plain text, ``no-store``, with a Spanish reason; the
    unreachable store's 503 says when to retry."""
    from dpdeck.hall.store import Unavailable

    limits = Limits(device=Rate(burst=1, per_second=0.01), connection=Rate(burst=100, per_second=1))
    hall = make_hall(tmp_path, limits=limits)
    as_json = {"Content-Type": "application/json"}

    async def unreachable(*args):
        raise Unavailable("redis restarting")

    async def scenario(client):
        solve = solve_body(hall, DEV[1])
        answers = [
            await client.post("/_hall/state", data="{}", headers=bearer()),  # 415: not JSON
            await client.post("/_hall/state", json=STATE),  # 403: no token
            await client.post("/_hall/state", json={"seq": "x"}, headers=bearer()),  # 400
            await client.post("/_hall/answer", json={"token": DEV[0], "poll": "copia", "answer": 0}),  # 403
            await client.post("/_hall/solved", json=solve),  # 201
            await client.post("/_hall/solved", json=solve),  # 429: the same token, rate limited
            await client.post("/_hall/answer", data=b"{" + b" " * 2000 + b"}", headers=as_json),  # 413
            await client.get("/_hall/events?device=no"),  # 400
        ]
        monkeypatch.setattr(hall.store, "add_solved", unreachable)
        answers.append(
            await client.post(
                "/_hall/solved",
                json=solve_body(hall, DEV[2]),
            )
        )
        return [
            (
                r.status,
                r.content_type,
                r.headers.get("Cache-Control"),
                r.headers.get("Retry-After"),
                await r.text(),
            )
            for r in answers
        ]

    got = run_with_client(hall, scenario)
    assert [g[0] for g in got] == [415, 403, 400, 403, 201, 429, 413, 400, 503]
    for status, content_type, cache, retry, text in got:
        if status == 201:
            continue
        assert (content_type, cache) == ("text/plain", "no-store"), (status, content_type, cache)
        assert " " in text.strip(), (status, text)  # a sentence, not a bare code
        assert retry == ("1" if status == 503 else None), (status, retry)


def test_an_event_another_process_sent_that_this_one_cannot_relay_is_dropped_and_relaying_goes_on(
    tmp_path, hall_store, caplog
):
    """Over Redis, a process relays what every process publishes. An event it cannot read, or one
    ``dpdeck/wire`` does not declare (another version's, mid-deploy), is logged and
    dropped; the next event still reaches the streams."""
    if hall_store == "sqlite":
        pytest.skip("one process: nothing is relayed from another")
    hall = make_hall(tmp_path)

    async def scenario(client):
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        await read_events(stream, 3)  # the greeting: devices, 2 tallies
        channel = hall.store.key("events")
        for raw in ("not json", '{"event": "wink", "data": {}}', '{"event": "state", "data": {"seq": 1}}'):
            await hall.store.redis.publish(channel, raw)
        await hall.store.publish("state", STATE)
        for _ in range(5):  # the devices count may come first
            (event,) = await read_events(stream, 1)
            if event[0] == "state":
                return event

    with caplog.at_level(logging.WARNING, logger="dpdeck.hall"):
        assert run_with_client(hall, scenario) == ("state", STATE)
    dropped = [m for m in caplog.messages if m.startswith("dropped an event")]
    assert len(dropped) == 3, caplog.messages
