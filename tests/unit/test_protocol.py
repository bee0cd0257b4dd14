"""Every message of the page's wires is declared once (``deckbuild/protocol.py``): the typedefs
and unions of ``static/js/types.js`` and the tables of ``static/js/PROTOCOL.md`` are generated
from it, and stay so."""

from __future__ import annotations

import dataclasses

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
