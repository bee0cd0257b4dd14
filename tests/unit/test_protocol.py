"""Every message of the page's wires, every event of the servers' streams and every route of the
hall is declared once (``dpdeck/wire``): the typedefs and unions of ``static/js/shared/types.js``, the
page's client ``static/js/page/wire.js``, the tables of ``static/js/shared/PROTOCOL.md`` and of
``docs/live-hall-protocol.md`` and the retry-safe routes of ``deploy/hall.caddy`` are generated
from it (``dpdeck/wire/generate.py``), and stay so; the servers encode no event it does not
declare, the hall registers no route it does not declare, and no hand-written copy of a route,
a status's meaning or the hex-id pattern appears beside the generated ones."""

from __future__ import annotations

import dataclasses
import re

import pytest

from dpdeck import wire
from dpdeck.wire import generate, hall, page
from dpdeck.wire.page import Message
from dpdeck.wire.rules import F


def test_the_generated_files_are_current():
    stale = generate.stale()
    assert not stale, f"stale: {[p.name for p in stale]}; run `python -m dpdeck.wire.generate`"


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
    monkeypatch.setattr(page, "MESSAGES", (*page.MESSAGES, new))
    files = generate.generated()
    types, table = files[generate.TYPES_JS], files[generate.PROTOCOL_MD]
    assert '@typedef {{type: "wave", id: number, hand?: string}} WaveMessage  a test message' in types
    union = next(line for line in types.splitlines() if line.endswith("} FromWorker"))
    assert "| WaveMessage}" in union
    assert '| `{type: "wave", id, hand?}` | a wave from the worker. |' in table
    assert generate.stale() == [generate.TYPES_JS, generate.PROTOCOL_MD]


def test_every_message_has_a_summary_a_meaning_and_known_unions():
    names = [m.name for m in page.MESSAGES]
    assert len(names) == len(set(names))
    for m in page.MESSAGES:
        assert m.summary and "\n" not in m.summary and m.doc.strip(), m.name
        assert set(m.unions) <= set(page.UNIONS), m.name
        assert all(page.UNIONS[u] == m.direction for u in m.unions if u != "MainToCopies"), m.name
        assert any((m.wire, d) in page.TABLES for d in (m.direction, None)), m.name
    assert dataclasses.is_dataclass(Message)


def test_a_servers_event_is_declared_once_typed_by_name_documented_and_checked(monkeypatch):
    from dpdeck.hall.channel import Channel
    from dpdeck.serve.watch import WatchChannel
    from dpdeck.wire.hall import Event
    from dpdeck.wire.rules import Shape

    new = Event(
        "wave", "hall", Shape("Wave", "a test event", (F("hand", "string"),)), "a wave from the hall."
    )
    monkeypatch.setattr(wire, "EVENTS", (*wire.EVENTS, new))
    files = generate.generated()
    types, table = files[generate.TYPES_JS], files[generate.HALL_PROTOCOL_MD]
    assert "@typedef {{hand: string}} Wave  a test event" in types
    hall_events = next(line for line in types.splitlines() if "} HallEvents" in line)
    assert "tally: Tally" in hall_events and "wave: Wave}" in hall_events
    assert '| `wave` | `{"hand"}`: a wave from the hall. |' in table
    assert generate.HALL_PROTOCOL_MD in generate.stale()

    channel = Channel(max_streams=4, max_per_device=2)
    assert b'event: wave\ndata: {"hand":"left"}' in channel.encode("wave", {"hand": "left"})
    with pytest.raises(ValueError, match="no event 'wink' is declared for the hall stream"):
        channel.encode("wink", {"hand": "left"})
    with pytest.raises(ValueError, match=r"event 'tally' of the hall stream has fields \['n', 'poll'\]"):
        channel.encode("tally", {"poll": "copia", "n": 3})  # counts, round and admitted left out
    with pytest.raises(ValueError, match="no event 'state' is declared for the watch stream"):
        WatchChannel().publish("state", {"seq": 1, "indexh": 0, "indexv": 0, "indexf": -1})


def test_a_hall_route_declared_once_is_typed_documented_and_its_body_checked(monkeypatch):
    from dpdeck.hall import messages
    from dpdeck.wire.hall import Answer, Route
    from dpdeck.wire.rules import EXERCISE, HEX128, Body, Field, Int

    wave = Body(
        "WaveBody",
        "a test body",
        (
            Field("exercise", EXERCISE),
            Field("hands", Int(1, 2), absent=1),
            Field("glove", HEX128, absent=None),
        ),
    )
    new = Route(
        "POST", "/_hall/wave", "device", wave, "`204` a wave.", (Answer(204, "ok"), Answer(409, "late"))
    )
    monkeypatch.setattr(hall, "ROUTES", (*hall.ROUTES, new))
    files = generate.generated()
    types, doc, client = files[generate.TYPES_JS], files[generate.HALL_PROTOCOL_MD], files[generate.WIRE_JS]
    assert (
        "@typedef {{exercise: string, hands?: number, glove?: string | null}} WaveBody  a test body: POST /_hall/wave"
        in types
    )
    assert (
        '| `POST /_hall/wave` `{"exercise", "hands"?, "glove"?}` | a device | `204` a wave. | `204` ok, `409` late |'
        in doc
    )
    assert '"wave": {204: "ok", 409: "late"}' in client and '"wave": "_hall/wave"' in client
    assert '"wave": "ok" | "late"' in types and "wave: WaveBody}" in types  # HallResults, HallPosts
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
    from dpdeck.hall import app

    declared = {r.path: r.who == "presenter" for r in hall.ROUTES if r.method == "POST"}
    assert {path: post.presenter for path, post in app.posts().items()} == declared


def test_the_json_the_page_reads_has_the_declared_shapes(deck):
    """The hall's replies, the meter's payload (computed by cellrunner under CPython), a
    release, live.json and a poll slide's data-poll: each has exactly its declared fields."""
    import json

    from cellrunner.meter import budget_entry
    from dplab import BudgetAccountant

    from dpdeck.build.live import live_manifest, poll_view
    from dpdeck.hall.release import Released
    from dpdeck.wire import check_shape

    accountant = BudgetAccountant(1.0)
    accountant.spend(0.25, label="conteo")
    entry = check_shape("AccountantState", budget_entry(accountant, "prueba"))
    assert entry["epsilon_spent"] == 0.25
    payload = {"accountants": [entry], "more": 0}
    from dpdeck.hall.admission import Pool

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


def test_the_state_event_and_the_state_post_share_one_declaration_of_their_fields():
    """Issue 48, item 3: ``STATE_BODY`` repeated the state event's four fields."""
    state_event = wire.event("hall", "state")
    assert state_event is not None
    assert hall.STATE_BODY.fields is hall.STATE_FIELDS
    assert [(f.name, f.js) for f in state_event.fields] == [(f.name, f.rule.js) for f in hall.STATE_FIELDS]
    assert hall.route("state").body is hall.STATE_BODY


def _imports(path) -> set[str]:
    import ast

    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            found.add("." * node.level + (node.module or ""))
    return found


def test_the_declaration_reads_no_file_and_the_hall_imports_no_generator():
    """Issue 48, item 3: the hall imported the 730-line generator, which computes repository
    paths at import. The declaration imports only dataclasses and itself; no module of the hall
    (or the build's servers) imports the generator."""
    folder = generate.ROOT / "dpdeck" / "wire"
    for path in folder.glob("*.py"):
        if path.name != "generate.py":
            outside = {m for m in _imports(path) if not m.startswith(".")} - {"__future__", "dataclasses"}
            assert not outside, f"{path.name} imports {outside}"
    users = [
        *(generate.ROOT / "dpdeck" / "hall").glob("*.py"),
        generate.ROOT / "dpdeck" / "serve" / "watch.py",
    ]
    assert all(not any("generate" in m for m in _imports(p)) for p in users)


def test_the_hall_registers_every_declared_route_and_no_other():
    """Issue 48, item 4: the GET routes were registered by literal path."""
    import tempfile
    from pathlib import Path

    from dpdeck.hall.app import make_app
    from tests.support.hall_fixtures import make_hall

    with tempfile.TemporaryDirectory() as folder:
        routes = make_app(make_hall(Path(folder))).router.routes()
        registered = {(r.method, r.resource.canonical) for r in routes if r.resource is not None}
    hall_routes = {(m, p) for m, p in registered if p.startswith(hall.PREFIX)}
    declared = {(r.method, r.path) for r in hall.ROUTES}
    declared |= {("HEAD", r.path) for r in hall.ROUTES if r.method == "GET" and r.head}
    assert hall_routes == declared


# hand-written copies of the wire: a route's path, a 32-hex pattern, a status compared by hand
JS_COPY = re.compile(r"_hall/|\{32\}|\.status\s*[=!]==?\s*\d{3}|\bstatus\s*===?\s*\d{3}")
PY_COPY = re.compile(r"_hall/(?!\s)")  # a route or the prefix itself, not prose naming it


def _js_code(text: str) -> str:
    """JS without its comments (a comment may name a route)."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    return re.sub(r"(^|[^:\\])//.*", r"\1", text)


def _py_strings(text: str) -> list[str]:
    """A Python module's string constants, its docstrings left out (they may name a route)."""
    import ast

    tree = ast.parse(text)
    docs = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        n.value
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
    ]


# Not the hall's client: retry.js holds HTTP's own rule, the same for every route (which statuses
# are worth a retry: 408, 429, 5xx); the service worker keeps only the deck's own files, the 200s
# of GETs, and nothing under the hall's mount point ``_hall/`` (a prefix, not a route).
JS_ALLOWED = {"retry.js", "sw.js"}


def hand_written_copies(root) -> list[str]:
    """Where a copy of the wire is written by hand: in the page's modules (static/js, its
    generated wire.js and types.js aside) a ``_hall/`` path, a ``{32}`` pattern or a status
    compared with a number; in the hall's modules, the build's servers and the benches a
    ``_hall/`` string."""
    found = []
    generated = {generate.WIRE_JS, generate.TYPES_JS}
    for path in sorted((root / "static" / "js").rglob("*.js")):
        if path not in generated and path.name not in JS_ALLOWED:
            found += [
                f"{path.name}: {m.group(0)}" for m in JS_COPY.finditer(_js_code(path.read_text("utf-8")))
            ]
    py = [
        *(root / "dpdeck" / "hall").glob("*.py"),
        *(root / "bench").glob("*.py"),
        root / "dpdeck" / "serve" / "server.py",
    ]
    for path in sorted(py):
        found += [f"{path.name}: {s!r}" for s in _py_strings(path.read_text("utf-8")) if PY_COPY.search(s)]
    return found


def test_no_hand_written_copy_of_the_wire_appears(tmp_path):
    """Issue 48, item 4: live.js built URLs, mapped statuses and wrote the hex-id regex by hand;
    the Caddyfile and the load bench repeated the routes. Each now comes from the declaration
    (wire.js, hall.caddy's generated block, bench/live_load.py's imports); a copy fails here."""
    assert hand_written_copies(generate.ROOT) == []
    # the check sees each kind of copy (in a copy of the tree's layout)
    (tmp_path / "static" / "js").mkdir(parents=True)
    (tmp_path / "dpdeck" / "hall").mkdir(parents=True)
    (tmp_path / "dpdeck" / "serve").mkdir()
    (tmp_path / "bench").mkdir()
    (tmp_path / "dpdeck" / "serve" / "server.py").write_text('"""GET /_hall/hello is fine here."""\n')
    (tmp_path / "static" / "js" / "x.js").write_text(
        "// `_hall/hello` in a comment is fine\n"
        'fetch(new URL("_hall/answer", base));\nconst ID = /^[0-9a-f]{32}$/;\n'
        "if (response.status === 409) {}\nconst ok = status === 201;\n",
        encoding="utf-8",
    )
    (tmp_path / "dpdeck" / "hall" / "app.py").write_text(
        '"""Serves /_hall/hello."""\nPATH = "/_hall/hello"\n', encoding="utf-8"
    )
    (tmp_path / "bench" / "load.py").write_text('URL = f"{base}_hall/state"\n', encoding="utf-8")
    assert hand_written_copies(tmp_path) == [
        "x.js: _hall/",
        "x.js: {32}",
        "x.js: .status === 409",
        "x.js: status === 201",
        "load.py: '_hall/state'",
        "app.py: '/_hall/hello'",
    ]
