"""A property-based fuzz of every route of the hall (issue 46: "a fuzz of every route and query
finds no 500").

Every route ``dpdeck/wire/hall.py`` declares, a deck file's path, and paths of no route, under
any method, with random queries (the ``device`` field among them), headers (``Content-Type``,
``Origin``, ``Authorization``, ``Host``) and bodies (JSON objects shaped like the route's body
with values of any type, other JSON, raw bytes), against the hall's real application on an
in-process aiohttp server (loopback), once over each store (SQLite, the session's real Redis:
``hall_store``). Some bodies carry real admission tickets and the presenter's
token, so the handlers past the checks run too. The rate limits are lifted for the fuzz, so every
request reaches the code under them.

The property: no answer is a 5xx other than 503 (the store unreachable, the hall full), and no
answer's body holds any text the request sent (every free text the fuzz sends carries the
marker ``ECHO``, which nothing of the hall writes). Deterministic (``derandomize``), 300 examples.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import secrets
import string
import threading
from urllib.parse import quote

from aiohttp import ClientSession, ClientTimeout
from aiohttp.test_utils import TestServer
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from yarl import URL

from dpdeck.hall.app import make_app
from dpdeck.hall.limits import Limits, Rate
from dpdeck.wire.hall import ROUTES
from tests.support.hall_fixtures import DEV, LIVE, TOKEN, admit, make_hall, origin_of, solve_ticket

MARK = "ECHO"
OPEN = Rate(burst=1e9, per_second=1e9)
PATHS = [r.path for r in ROUTES] + [
    "/",
    "/index.html",
    "/app.js",
    "/vendor/pkg-1/x.wasm",
    "/_hall/",
    "/_hall/x",
]
METHODS = ["GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE"]
PRINTABLE = string.ascii_letters + string.digits + string.punctuation + " "


def marked(alphabet=PRINTABLE, max_size=40):
    """A free text the hall must never send back: the marker, then anything."""
    return st.text(alphabet=alphabet, max_size=max_size).map(lambda t: MARK + t)


class Fuzzed:
    """The hall's application on a test server, on a loop of its own thread for the whole test
    (hypothesis calls the test synchronously): ``request`` runs one request there."""

    def __init__(self, tmp_path):
        self.hall = make_hall(
            tmp_path,
            limits=Limits(device=OPEN, connection=OPEN, address=OPEN, max_streams_per_address=10_000),
        )
        # real tickets, for the bodies: the answers' (a poll round's) and the solves' (an exercise's)
        polls = admit(self.hall, "copia", DEV[:40])
        solves = [solve_ticket(self.hall, "ex-escala", d) for d in DEV[:40]]
        self.tickets = [t for pair in zip(polls, solves, strict=True) for t in pair]
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, name="fuzz-loop", daemon=True)
        self.thread.start()
        self.server = TestServer(make_app(self.hall), host="127.0.0.1")
        self.call(self.server.start_server())
        self.session = self.call(self._session())
        self.base = str(self.server.make_url("/")).rstrip("/")
        self.origin = origin_of(self.base)

    async def _session(self) -> ClientSession:
        return ClientSession(timeout=ClientTimeout(total=10), auto_decompress=False)

    def call(self, coro, timeout: float = 20):
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout)

    async def _request(self, method, target, headers, data) -> tuple[int, bytes]:
        url = URL(self.base + target, encoded=True)
        async with self.session.request(method, url, headers=headers, data=data) as r:
            try:  # a live channel never ends: its first bytes are enough
                body = await asyncio.wait_for(r.content.read(4096), 0.3)
            except TimeoutError:
                body = b""
            return r.status, body

    def request(self, method, target, headers, data) -> tuple[int, bytes]:
        return self.call(self._request(method, target, headers, data))

    def close(self) -> None:
        self.call(self.session.close())
        self.call(self.server.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)
        self.loop.close()


def json_values(fuzzed_tokens):
    """Any JSON value, the fields' valid values among them."""
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(2**70), max_value=2**70),
        st.floats(allow_nan=False, allow_infinity=False),
        marked(st.characters(), 30),
        st.sampled_from([*LIVE["polls"], *LIVE["exercises"], *DEV[:3], DEV[0] + "\n", DEV[0].upper()]),
        fuzzed_tokens,
    )
    return st.recursive(
        leaves, lambda c: st.lists(c, max_size=3) | st.dictionaries(marked(), c, max_size=3), max_leaves=6
    )


def valid(field, tickets: list[str]):
    """Values that meet ``field``'s rule (wire.rules.Rule), so that bodies get past the checks."""
    rule = field.rule
    if rule.kind == "int":
        return st.integers(rule.low, rule.high if isinstance(rule.high, int) else 3)
    if rule.kind == "hex128":  # "@fresh": a new random token, "@ticket": the next ticket not sent yet
        fresh = st.sampled_from(["@ticket" if field.name == "ticket" else "@fresh"])
        return st.one_of(
            fresh, st.sampled_from(tickets), st.text(alphabet="0123456789abcdef", min_size=32, max_size=32)
        )
    if rule.kind == "listed":
        return st.sampled_from(sorted(LIVE[rule.table]))
    return st.booleans()


def field_value(draw, field, tickets: list[str]):
    """Mostly a value that meets the field's rule, sometimes any JSON value."""
    if draw(st.integers(0, 7)) < 6:  # hypothesis's simplest draw (0) is the valid one
        return draw(valid(field, tickets))
    return draw(json_values(st.sampled_from(tickets)))


@st.composite
def proper(draw, tickets: list[str]):
    """A request as the hall's own page or presenter sends it, its values mostly valid: the fuzz
    reaches the handlers (admission, the store, the release) past the checks."""
    route = draw(st.sampled_from(ROUTES))
    headers = {"Origin": "@own"}
    if draw(st.integers(0, 5)) < 5:
        headers["Authorization"] = f"Bearer {TOKEN}"
    target, data = route.path, None
    if route.method == "POST":
        headers["Content-Type"] = "application/json"
        fields = {
            f.name: field_value(draw, f, tickets) for f in route.body.fields if draw(st.integers(0, 9)) < 9
        }
        if not draw(st.integers(0, 4)):
            fields[draw(marked())] = draw(json_values(st.sampled_from(tickets)))
        data = json.dumps(fields).encode()
    elif route.body is not None:  # the live channel's query
        fields = {f.name: field_value(draw, f, tickets) for f in route.body.fields}
        target += "?" + "&".join(f"{k}={quote(str(v), safe='')}" for k, v in fields.items())
    if draw(st.integers(0, 3)) == 3:  # a field of no route, in the query
        target += ("&" if "?" in target else "?") + MARK + "=" + quote(draw(marked()), safe="")
    return route.method, target, headers, data


@st.composite
def wild(draw, tickets: list[str]):
    """Any method, path, query, headers and body, free texts marked."""
    route_path = draw(st.sampled_from(PATHS))
    suffix = draw(
        st.text(alphabet=string.ascii_letters + string.digits + "%./-_~!$&'()*+,;=:@", max_size=20).map(
            lambda t: MARK + t
        )
    )
    path = route_path + (suffix if draw(st.booleans()) else "")
    query = draw(
        st.lists(
            st.tuples(
                st.sampled_from(["device", "poll", "token", MARK + "k"]),
                st.one_of(st.sampled_from([DEV[0], DEV[0] + "%0A", DEV[0].upper(), ""]), marked()),
            ),
            max_size=3,
        )
    )
    qs = "&".join(f"{k}={v}" for k, v in query)
    target = path  # sent as it is (yarl's encoded=True): a stray % or %zz is the hall's to refuse
    if qs:
        target += "?" + "".join(c if c in PRINTABLE and c not in " #" else f"%{ord(c):02X}" for c in qs)
    headers = {}
    for name, choices in (
        (
            "Content-Type",
            ["application/json", "text/plain", "application/json; charset=utf-8", "multipart/form-data"],
        ),
        ("Origin", ["@own", "@own-https", "null", "https://evil.example", ""]),
        ("Authorization", [f"Bearer {TOKEN}", "Bearer " + "x" * 43, f"bearer {TOKEN}", "Basic " + TOKEN]),
        ("Host", ["@own", "rebind.attacker.example", "127.0.0.1"]),
    ):
        if draw(st.booleans()):
            headers[name] = draw(st.one_of(st.sampled_from(choices), marked()))
    route = next((r for r in ROUTES if r.path == route_path), None)
    if route is not None and route.body is not None and draw(st.booleans()):
        fields = {f.name: field_value(draw, f, tickets) for f in route.body.fields if draw(st.booleans())}
        fields.update(draw(st.dictionaries(marked(), json_values(st.sampled_from(tickets)), max_size=2)))
        data = json.dumps(fields).encode()
    else:
        data = draw(
            st.one_of(
                st.none(),
                st.binary(max_size=1200).map(lambda b: MARK.encode() + b),
                json_values(st.sampled_from(tickets)).map(lambda v: json.dumps(v).encode()),
            )
        )
    method = draw(st.sampled_from(METHODS))
    return method, target, headers, data


def test_no_route_answers_500_nor_echoes_what_it_was_sent(tmp_path, hall_store):
    fuzzed = Fuzzed(tmp_path)
    own = fuzzed.origin.removeprefix("http://")
    seen: dict[int, int] = {}
    unsent = itertools.cycle(fuzzed.tickets)

    post = {"Origin": "@own", "Content-Type": "application/json"}
    solve = {"token": "@fresh", "exercise": "ex-escala", "ticket": fuzzed.tickets[1]}  # a solve's ticket
    answer = {"token": "@fresh", "poll": "copia", "answer": 1, "ticket": fuzzed.tickets[0]}  # a round's

    @settings(
        max_examples=300,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
    )
    @given(st.one_of(proper(fuzzed.tickets), wild(fuzzed.tickets)))
    # a well-formed answer and solve, each with its own kind of ticket, whatever the draws reach
    @example(("POST", "/_hall/solved", post, json.dumps(solve).encode()))
    @example(("POST", "/_hall/answer", post, json.dumps(answer).encode()))
    @example(("HEAD", f"/_hall/events?device={DEV[0]}", {}, None))  # found: a stream's body after a HEAD
    def check(req):
        method, target, headers, data = req
        headers = {
            k: {"@own": own if k == "Host" else fuzzed.origin, "@own-https": "https://" + own}.get(v, v)
            for k, v in headers.items()
        }
        if method in ("GET", "HEAD", "OPTIONS") and data is not None:
            data = None  # a body on a GET is not what a client sends; aiohttp's client refuses some
        for placeholder, fill in (
            ("@fresh", lambda: secrets.token_hex(16)),
            ("@ticket", lambda: next(unsent)),
        ):
            while data and placeholder.encode() in data:
                data = data.replace(placeholder.encode(), fill().encode(), 1)
            while placeholder in target:
                target = target.replace(placeholder, fill(), 1)
        status, body = fuzzed.request(method, target, headers, data)
        seen[status] = seen.get(status, 0) + 1
        assert status < 500 or status == 503, (status, method, target, headers, data, body[:200])
        assert MARK.encode() not in body, (status, method, target, body[:300])

    try:
        check()
    finally:
        fuzzed.close()
    # the fuzz reached the handlers, not only the refusals in front of them
    assert {200, 201, 204, 400, 403, 404, 415} <= set(seen), seen
