"""The hall server (deckbuild/hall): endpoints, validation, token, limits, bound, the live channel.

Against the aiohttp application on a test server on 127.0.0.1; persistence across a kill -9 and
HTTPS are in test_hall_process.py, hostile static paths in test_hall_static.py.
"""

from __future__ import annotations

import asyncio
import logging
import sqlite3

from deckbuild.hall.limits import Limits, Rate
from tests.support.hall_fixtures import DEV, TOKEN, bearer, make_hall, read_events, run_with_client

STATE = {"seq": 10, "indexh": 3, "indexv": 0, "indexf": 1}


def test_hello_says_a_hall_is_here_with_its_audience_url(tmp_path):
    async def scenario(client):
        response = await client.get("/_hall/hello")
        assert response.status == 200
        assert response.headers["Cross-Origin-Embedder-Policy"] == "require-corp"
        return await response.json()

    assert run_with_client(make_hall(tmp_path), scenario) == {
        "hall": 1,
        "audience": ["http://192.0.2.7:8000/"],
        "devices": 0,
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
        after_refusals = hall.store.state()
        statuses.append((await client.post("/_hall/state", json=STATE, headers=bearer())).status)
        return statuses, after_refusals

    with caplog.at_level(logging.WARNING, logger="deckbuild.hall"):
        statuses, after_refusals = run_with_client(hall, scenario)
    assert statuses == [403, 403, 403, 403, 204]
    assert after_refusals is None and hall.store.state() == STATE
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
        assert {"poll": "color", "n": 0, "counts": [0, 0, 0, 0]} in [data for _, data in events]
    assert all(p == [newer] for p in pushed), pushed
    assert hall.store.state() == newer


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
        out.append((await client.post("/_hall/state", data=b"{nope", headers=bearer())).status)
        out.append((await client.post("/_hall/state", data=b'{"seq": NaN}', headers=bearer())).status)
        return out

    assert run_with_client(make_hall(tmp_path), scenario) == [400] * (len(bad) + 2)


def test_answers_are_recorded_once_per_device_and_validated(tmp_path):
    hall = make_hall(tmp_path)

    async def post(client, body):
        return (await client.post("/_hall/answer", json=body)).status

    async def scenario(client):
        return [
            await post(client, {"device": DEV[0], "poll": "copia", "answer": 1}),
            await post(client, {"device": DEV[0], "poll": "copia", "answer": 0}),  # a second answer
            await post(client, {"device": DEV[1], "poll": "copia", "answer": 0}),
            await post(client, {"device": DEV[1], "poll": "color", "answer": 3}),
            await post(client, {"device": DEV[2], "poll": "nope", "answer": 0}),  # unknown poll
            await post(client, {"device": DEV[2], "poll": "copia", "answer": 2}),  # out of range
            await post(client, {"device": DEV[2], "poll": "copia", "answer": -1}),
            await post(client, {"device": DEV[2], "poll": "copia", "answer": True}),
            await post(client, {"device": DEV[2], "poll": "copia", "answer": "1"}),
            await post(client, {"device": "ABC", "poll": "copia", "answer": 1}),  # bad device id
            await post(client, {"device": "AB" * 16, "poll": "copia", "answer": 1}),
            await post(client, {"poll": "copia", "answer": 1}),
        ]

    assert run_with_client(hall, scenario) == [201, 409, 201, 201] + [400] * 8
    assert hall.store.counts("copia", 2) == [1, 1] and hall.store.counts("color", 4) == [0, 0, 0, 1]
    assert hall.tallies == {"copia": [1, 1], "color": [0, 0, 0, 1]}


def test_bodies_over_one_kib_are_refused_unread(tmp_path):
    hall = make_hall(tmp_path)
    big = b'{"device": "' + b"a" * 2000 + b'"}'

    async def scenario(client):
        a = (await client.post("/_hall/answer", data=big)).status
        s = (await client.post("/_hall/state", data=big, headers=bearer())).status
        return a, s

    assert run_with_client(hall, scenario) == (413, 413)


def test_tallies_reach_the_streams_throttled_and_a_reset_starts_a_new_round(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        stream = await client.get(f"/_hall/events?device={DEV[0]}")
        await read_events(stream, 3)  # devices, 2 tallies (no state yet)
        for i in range(8):
            await client.post("/_hall/answer", json={"device": DEV[i + 1], "poll": "copia", "answer": i % 2})
        events = await read_events(stream, 2)  # throttled: fewer tallies than answers
        tallies = [d for n, d in events if n == "tally"]
        while not tallies or tallies[-1]["n"] < 8:
            tallies += [d for n, d in await read_events(stream, 1) if n == "tally"]
        assert (await client.post("/_hall/reset", json={"poll": "copia"})).status == 403
        assert (await client.post("/_hall/reset", json={"poll": "copia"}, headers=bearer())).status == 204
        after = [d for n, d in await read_events(stream, 1) if n == "tally"]
        again = (
            await client.post("/_hall/answer", json={"device": DEV[1], "poll": "copia", "answer": 1})
        ).status
        stream.close()
        return tallies, after, again

    tallies, after, again = run_with_client(hall, scenario)
    assert tallies[-1] == {"poll": "copia", "n": 8, "counts": [4, 4]}
    assert len(tallies) < 8
    assert after[0] == {"poll": "copia", "n": 0, "counts": [0, 0]}
    assert again == 201


def test_solved_exercises_are_counted_per_device_and_shown_only_to_the_presenter(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        statuses = [
            (await client.post("/_hall/solved", json={"device": d, "exercise": "ex-escala"})).status
            for d in (DEV[0], DEV[0], DEV[1])
        ]
        statuses.append((await client.post("/_hall/solved", json={"device": DEV[2], "exercise": "x"})).status)
        refused = (await client.get("/_hall/exercises")).status
        counts = await (await client.get("/_hall/exercises", headers=bearer())).json()
        return statuses, refused, counts

    assert run_with_client(hall, scenario) == ([201, 200, 201, 400], 403, {"ex-escala": 2})


def test_a_device_that_floods_is_rate_limited_and_others_are_not(tmp_path):
    limits = Limits(device=Rate(burst=3, per_second=0.01), connection=Rate(burst=100, per_second=1))
    hall = make_hall(tmp_path, limits=limits)

    async def scenario(client):
        flood = [
            (await client.post("/_hall/solved", json={"device": DEV[0], "exercise": "ex-escala"})).status
            for _ in range(6)
        ]
        other = (
            await client.post("/_hall/answer", json={"device": DEV[1], "poll": "copia", "answer": 0})
        ).status
        return flood, other

    flood, other = run_with_client(hall, scenario)
    assert flood == [201, 200, 200, 429, 429, 429] and other == 201


def test_one_connection_that_floods_is_rate_limited(tmp_path):
    limits = Limits(connection=Rate(burst=4, per_second=0.01))
    hall = make_hall(tmp_path, limits=limits)

    async def scenario(client):  # the test client keeps one connection alive: one bucket
        return [
            (await client.post("/_hall/answer", json={"device": DEV[i], "poll": "copia", "answer": 0})).status
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


def test_nothing_a_student_sends_comes_back_as_html_or_is_stored_beside_their_address(tmp_path):
    hall = make_hall(tmp_path)
    script = "<script>alert(1)</script>"

    async def scenario(client):
        r1 = await client.post("/_hall/answer", json={"device": DEV[0], "poll": script, "answer": 0})
        r2 = await client.post(
            "/_hall/answer",
            json={"device": DEV[0], "poll": "copia", "answer": 1},
            headers={"User-Agent": "UA-XYZ"},
        )
        return [(r.status, r.headers["Content-Type"], await r.text()) for r in (r1, r2)]

    results = run_with_client(hall, scenario)
    assert all("html" not in ctype and script not in text for _, ctype, text in results)
    hall.store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("hall.sqlite3*"))
    assert DEV[0].encode() in raw  # the answer is there: the file was read
    assert b"127.0.0.1" not in raw and b"UA-XYZ" not in raw and b"<script>" not in raw
    db = sqlite3.connect(tmp_path / "hall.sqlite3")
    columns = {
        row[1]
        for table in ("state", "answers", "solved")
        for row in db.execute(f"PRAGMA table_info({table})")
    }
    assert columns == {"id", "seq", "indexh", "indexv", "indexf", "poll", "device", "answer", "exercise"}


def test_without_live_json_the_hall_runs_with_no_polls(tmp_path):
    hall = make_hall(tmp_path, live=None)

    async def scenario(client):
        hello = (await client.get("/_hall/hello")).status
        answer = (
            await client.post("/_hall/answer", json={"device": DEV[0], "poll": "copia", "answer": 0})
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
    no hall (no indicator, no following): /_hall/hello answers 404 there."""
    hall = make_hall(tmp_path)
    hall.announce = False

    async def scenario(client):
        return (await client.get("/_hall/hello")).status, (await client.get("/")).status

    assert run_with_client(hall, scenario) == (404, 200)
