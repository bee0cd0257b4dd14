"""Every message of the page's wires, and every event of the servers' streams, is declared once
(``deckbuild/protocol.py``): the typedefs and unions of ``static/js/types.js``, the tables of
``static/js/PROTOCOL.md`` and of ``docs/live-hall-protocol.md`` are generated from it, and stay
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
    from deckbuild.protocol import Event
    from deckbuild.watch import WatchChannel

    new = Event("wave", "Wave", "a test event", "hall", (F("hand", "string"),), "a wave from the hall.")
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
