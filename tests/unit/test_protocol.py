"""Every message of the page's wires, and every event of the servers' streams, is declared once
(``deckbuild/protocol.py``): the typedefs and unions of ``static/js/shared/types.js``, the tables of
``static/js/shared/PROTOCOL.md`` and of ``docs/live-hall-protocol.md`` are generated from it, and stay
so; the servers encode no event it does not declare."""

from __future__ import annotations

import dataclasses

import pytest

from deckbuild import protocol
from deckbuild.protocol import F, Message


def test_the_generated_typedefs_and_tables_are_current():
    stale = protocol.stale()
    assert not stale, f"stale: {[p.name for p in stale]}; run `python -m deckbuild.protocol`"


def test_a_message_declared_once_is_typed_in_its_union_and_documented_in_its_table(monkeypatch):
    new = Message(
        "WaveMessage",
        "a test message",
        "worker",
        "worker → page",
        ("wave",),
        (F("id", "number"), F("hand?", "string")),
        "a wave from the worker.",
        unions=("FromWorker",),
    )
    monkeypatch.setattr(protocol, "MESSAGES", (*protocol.MESSAGES, new))
    files = protocol.generated()
    types, table = files[protocol.TYPES_JS], files[protocol.PROTOCOL_MD]
    assert '@typedef {{type: "wave", id: number, hand?: string}} WaveMessage  a test message' in types
    union = next(line for line in types.splitlines() if line.endswith("} FromWorker"))
    assert "| WaveMessage}" in union
    assert '| `{type: "wave", id, hand?}` | a wave from the worker. |' in table
    assert protocol.stale() == [protocol.TYPES_JS, protocol.PROTOCOL_MD]


def test_every_message_has_a_summary_a_meaning_and_known_unions():
    names = [m.name for m in protocol.MESSAGES]
    assert len(names) == len(set(names))
    for m in protocol.MESSAGES:
        assert m.summary and "\n" not in m.summary and m.doc.strip(), m.name
        assert set(m.unions) <= set(protocol.UNIONS), m.name
        assert all(protocol.UNIONS[u] == m.direction for u in m.unions if u != "MainToCopies"), m.name
        assert any((m.wire, d) in protocol.TABLES for d in (m.direction, None)), m.name
    assert dataclasses.is_dataclass(Message)


def test_a_servers_event_is_declared_once_typed_by_name_documented_and_checked(monkeypatch):
    from deckbuild.hall.channel import Channel
    from deckbuild.hall_wire import Shape
    from deckbuild.protocol import Event
    from deckbuild.watch import WatchChannel

    new = Event(
        "wave", "hall", Shape("Wave", "a test event", (F("hand", "string"),)), "a wave from the hall."
    )
    monkeypatch.setattr(protocol, "EVENTS", (*protocol.EVENTS, new))
    files = protocol.generated()
    types, table = files[protocol.TYPES_JS], files[protocol.HALL_PROTOCOL_MD]
    assert "@typedef {{hand: string}} Wave  a test event" in types
    hall_events = next(line for line in types.splitlines() if "} HallEvents" in line)
    assert "tally: Tally" in hall_events and "wave: Wave}" in hall_events
    assert '| `wave` | `{"hand"}`: a wave from the hall. |' in table
    assert protocol.HALL_PROTOCOL_MD in protocol.stale()

    channel = Channel(max_streams=4, max_per_device=2)
    assert b'event: wave\ndata: {"hand":"left"}' in channel.encode("wave", {"hand": "left"})
    with pytest.raises(ValueError, match="no event 'wink' is declared for the hall stream"):
        channel.encode("wink", {"hand": "left"})
    with pytest.raises(ValueError, match=r"event 'tally' of the hall stream has fields \['n', 'poll'\]"):
        channel.encode("tally", {"poll": "copia", "n": 3})  # counts, round and admitted left out
    with pytest.raises(ValueError, match="no event 'state' is declared for the watch stream"):
        WatchChannel().publish("state", {"seq": 1, "indexh": 0, "indexv": 0, "indexf": -1})


def test_a_hall_route_declared_once_is_typed_documented_and_its_body_checked(monkeypatch):
    from deckbuild import hall_wire
    from deckbuild.hall import messages
    from deckbuild.hall_wire import EXERCISE, HEX128, Body, Field, Int, Route

    wave = Body(
        "WaveBody",
        "a test body",
        (
            Field("exercise", EXERCISE),
            Field("hands", Int(1, 2), absent=1),
            Field("glove", HEX128, absent=None),
        ),
    )
    new = Route("POST", "/_hall/wave", "device", wave, "`204` a wave.")
    monkeypatch.setattr(hall_wire, "ROUTES", (*hall_wire.ROUTES, new))
    files = protocol.generated()
    types, doc = files[protocol.TYPES_JS], files[protocol.HALL_PROTOCOL_MD]
    assert (
        "@typedef {{exercise: string, hands?: number, glove?: string | null}} WaveBody  a test body: POST /_hall/wave"
        in types
    )
    assert '| `POST /_hall/wave` `{"exercise", "hands"?, "glove"?}` | a device | `204` a wave. |' in doc
    assert "| `WaveBody` (POST `/_hall/wave`) | `hands` | an integer 1…2 (absent or `null`: `1`) |" in doc

    spec = messages.LiveSpec(exercises=frozenset({"ex-escala"}))
    assert messages.parse(wave, b'{"exercise": "ex-escala", "x": 1}', spec) == {
        "exercise": "ex-escala",
        "hands": 1,
        "glove": None,
    }
    for body, reason in [
        # a 32-hex field no other body has: its reason names it (a 400, never a KeyError's 500)
        (b'{"exercise": "ex-escala", "glove": "AB"}', "«glove» debe tener 32 cifras hexadecimales"),
        (b'{"exercise": "ex-escala", "glove": 7}', "«glove» debe tener 32 cifras hexadecimales"),
        (b'{"exercise": "otro"}', "ejercicio desconocido"),
        (b'{"exercise": "ex-escala", "hands": 3}', "«hands» debe ser un entero entre 1 y 2"),
        (b'{"exercise": "ex-escala", "hands": true}', "«hands» debe ser un entero entre 1 y 2"),
        (b"[1]", "se esperaba un objeto JSON"),
    ]:
        with pytest.raises(messages.Invalid, match=reason):
            messages.parse(wave, body, spec)


def test_every_post_route_has_its_handler_and_its_declared_caller():
    from deckbuild.hall import app
    from deckbuild.hall_wire import ROUTES

    declared = {r.path: r.who == "presenter" for r in ROUTES if r.method == "POST"}
    assert {path: post.presenter for path, post in app.POSTS.items()} == declared


def test_the_json_the_page_reads_has_the_declared_shapes(deck):
    """The hall's replies, the meter's payload (computed by cellrunner under CPython), a
    release, live.json and a poll slide's data-poll: each has exactly its declared fields."""
    import json

    from cellrunner.meter import budget_entry
    from dplab import BudgetAccountant

    from deckbuild.hall.release import Released
    from deckbuild.hall_wire import check_shape
    from deckbuild.live import live_manifest, poll_view

    accountant = BudgetAccountant(1.0)
    accountant.spend(0.25, label="conteo")
    entry = check_shape("AccountantState", budget_entry(accountant, "prueba"))
    assert entry["epsilon_spent"] == 0.25
    payload = {"accountants": [entry], "more": 0}
    from deckbuild.hall.admission import Pool

    released = Released("ex", 3, True, check_shape("BudgetPayload", payload)).payload()
    check_shape("Released", {**released, **Pool(12, 3).payload()})  # as app.post_release answers
    manifest = live_manifest(deck)
    assert manifest["polls"] and all(check_shape("LivePoll", p) for p in manifest["polls"].values())
    polls = [s for s in deck.slides if s.poll is not None]
    assert all(check_shape("PollData", json.loads(poll_view(s)["data"])) for s in polls)
    with pytest.raises(ValueError, match=r"Released has fields .*'value'"):
        check_shape("Released", {"exercise": "ex", "value": 3})
    with pytest.raises(ValueError, match="no shape 'Nope' is declared"):
        check_shape("Nope", {})
