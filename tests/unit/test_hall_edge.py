"""The hall's HTTP edge against a student who thinks (issue 46): the checks a request passes
before the hall's own rules, on the real aiohttp server on 127.0.0.1.

Connections and their bounds are in test_hall_connections.py, hostile static paths in
test_hall_static.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import re
import sqlite3
import stat
import subprocess

from dpdeck.hall import messages, texts
from dpdeck.hall.redis_store import RedisStore
from dpdeck.hall.run import session_name
from dpdeck.hall.store import HallStore, SqliteStore
from dpdeck.hall.token import load_or_create
from tests.support.hall_fixtures import (
    DEV,
    admit,
    bearer,
    make_hall,
    read_events,
    run_async,
    run_with_client,
    solve_body,
    stored,
)
from tests.support.hall_started import hall_options, raw_request, with_started_hall


def test_a_hex_id_with_a_trailing_newline_is_refused_everywhere(tmp_path):
    """``$`` matches before a final ``\\n``: a 33-character token was stored (issue 46, item 10)."""
    hall = make_hall(tmp_path)
    (ticket,) = admit(hall, "copia", [DEV[0]])

    async def scenario(client):
        answer = {"token": DEV[0] + "\n", "poll": "copia", "answer": 1, "ticket": ticket}
        solved = {"token": DEV[1] + "\n", "exercise": "ex-escala"}
        return [
            (await client.post("/_hall/answer", json=answer)).status,
            (await client.post("/_hall/solved", json=solved)).status,
            (await client.get("/_hall/events", params={"device": DEV[2] + "\n"})).status,
        ]

    assert run_with_client(hall, scenario) == [400, 400, 400]
    assert stored(hall, "counts", "copia", 2) == [0, 0]
    assert not messages.ID_RE.fullmatch("copia\n")
    (tmp_path / "kept.token").write_text("a" * 43 + "\n\n", encoding="ascii")  # read with strip()
    assert load_or_create(tmp_path / "kept.token") == "a" * 43
    try:
        session_name("clase\n")
    except SystemExit:
        pass
    else:
        raise AssertionError("a session name with a line break was accepted")


def test_the_hall_file_and_its_wal_and_shm_are_the_owners_alone(tmp_path):
    """The token file was 0600 and the hall's SQLite file beside it 0644 (issue 46, item 13)."""
    old = tmp_path / "old.sqlite3"
    HallStore(old).close()
    os.chmod(old, 0o644)  # a file an older hall left
    for path in (tmp_path / "hall.sqlite3", old):
        store = HallStore(path)
        store.add_solved("ex", DEV[0], DEV[1])  # the -wal and -shm exist while it is open
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob(path.name + "*")}
        store.close()
        assert set(modes) == {path.name, path.name + "-wal", path.name + "-shm"}
        assert set(modes.values()) == {0o600}, modes


def test_the_logs_escape_what_a_client_sent_and_never_name_its_address(tmp_path, caplog):
    """``%0a`` forged an access-log line, ESC reached the terminal, and ``GET *`` logged the
    client's address with a traceback (issue 46, item 8)."""
    requests = [
        b"GET /x%0aPOST%20/_hall/state%20204%200.001s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"GET /%1b[2J%1b]0;owned%07 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        b"POST /_hall/state%0a HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Origin: http://127.0.0.1\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}",
        b"GET *\r\n\r\n",
        b"GET /\x1b[31m HTTP/1.1\r\n\r\n",
    ]

    async def scenario(port, hall, runner):
        loop = asyncio.get_running_loop()
        return [await loop.run_in_executor(None, raw_request, "127.0.0.1", port, r, 3.0) for r in requests]

    with caplog.at_level(logging.DEBUG):
        answers = with_started_hall(hall_options(tmp_path), scenario)
    assert all(a.split(b" ")[1].startswith(b"4") for a in answers), [a[:40] for a in answers]
    lines = [r.getMessage() for r in caplog.records if r.name.startswith(("aiohttp", "dpdeck"))]
    assert any("/x\\x0aPOST" in line for line in lines)
    assert any("\\x1b[2J" in line for line in lines)
    assert any("refused a malformed request (400)" in line for line in lines)
    for record in caplog.records:
        message = record.getMessage()
        assert "\n" not in message and "\x1b" not in message and "\x07" not in message, message
        assert "127.0.0.1" not in message, message
        assert record.exc_info is None or not record.name.startswith("aiohttp"), message


def _answers_over_one_connection(hall, forwarded_for):
    """60 devices' answers over one keep-alive connection, each with its own ``X-Forwarded-For``
    (``forwarded_for(i)``); their statuses."""
    devices = ["%032x" % (1000 + i) for i in range(60)]
    tickets = admit(hall, "copia", devices)

    async def scenario(client):
        client.session.connector._limit = 1  # every request over the same connection
        out = []
        for i, (device, ticket) in enumerate(zip(devices, tickets, strict=True)):
            body = {"token": device, "poll": "copia", "answer": i % 2, "ticket": ticket}
            response = await client.post(
                "/_hall/answer", json=body, headers={"X-Forwarded-For": forwarded_for(i)}
            )
            out.append(response.status)
        return out

    return run_with_client(hall, scenario)


def test_behind_a_trusted_proxy_each_client_has_its_own_rate(tmp_path):
    """Behind Caddy every POST shared the proxy's upstream connection and its bucket (burst 20):
    60 honest devices got 21 × 429 (issue 46, item 4). From an untrusted peer the header is
    ignored and the per-connection bound still holds."""
    behind = make_hall(tmp_path / "behind")
    behind.trusted_proxies = frozenset({"127.0.0.1"})
    statuses = _answers_over_one_connection(behind, lambda i: f"198.51.100.{i + 1}")
    assert statuses == [201] * 60
    direct = make_hall(tmp_path / "direct")
    statuses = _answers_over_one_connection(direct, lambda i: f"198.51.100.{i + 1}")
    assert statuses.count(201) <= 21 and statuses.count(429) >= 39


def test_ipv6_clients_are_rated_by_their_64(tmp_path):
    """One /64 is one client: 60 addresses of it forwarded by the proxy share its bucket."""
    hall = make_hall(tmp_path)
    hall.trusted_proxies = frozenset({"127.0.0.1"})
    statuses = _answers_over_one_connection(hall, lambda i: f"2001:db8:1:2::{i + 1:x}")
    assert statuses.count(201) <= 21 and statuses.count(429) >= 39


class _FullDisk:
    """A SQLite connection whose every write fails as on a full disk (reads still work)."""

    WRITES = ("INSERT", "UPDATE", "DELETE", "BEGIN", "REPLACE")

    def __init__(self, db):
        self.db = db

    def execute(self, sql, *args):
        if sql.lstrip().upper().startswith(self.WRITES):
            raise sqlite3.OperationalError("database or disk is full")
        return self.db.execute(sql, *args)

    def __getattr__(self, name):
        return getattr(self.db, name)


def test_a_full_disk_answers_503_in_spanish_and_the_position_is_still_relayed(tmp_path):
    """A full disk answered 500 to answers, solves, releases and the presenter's move, and the
    move reached no one (issue 46, item 12)."""
    hall = make_hall(tmp_path)
    (ticket,) = admit(hall, "copia", [DEV[0]])
    position = {"seq": 5, "indexh": 2, "indexv": 0, "indexf": 0}

    async def scenario(client):
        stream = await client.get("/_hall/events", params={"device": DEV[1]})
        await read_events(stream, 3)  # the greeting: devices and the two tallies (no state yet)
        hall.store.sql.db = _FullDisk(hall.store.sql.db)
        posts = [
            ("/_hall/state", position, bearer()),
            ("/_hall/answer", {"token": DEV[0], "poll": "copia", "answer": 1, "ticket": ticket}, {}),
            (
                "/_hall/solved",
                solve_body(hall, DEV[2]),
                {},
            ),
            ("/_hall/release", {"exercise": "ex-escala", "again": False}, bearer()),
            ("/_hall/reset", {"poll": "copia"}, bearer()),
        ]
        out = []
        for path, body, headers in posts:
            response = await client.post(path, json=body, headers=headers)
            out.append((path, response.status, response.headers.get("Retry-After"), await response.text()))
        relayed = []
        for _ in range(4):  # a devices count may come first
            relayed += [e for e in await read_events(stream, 1) if e[0] == "state"]
            if relayed:
                break
        return out, relayed

    answers, relayed = run_with_client(hall, scenario)
    for path, status, retry, text in answers:
        assert (status, retry, text) == (503, "5", texts.STORE_FULL), path
    assert relayed == [("state", position)]


def test_a_host_that_is_not_the_halls_is_refused_under_hall(tmp_path):
    """With Host and Origin both ``rebind.attacker.example:PORT``, ``/solved`` answered 201 and
    ``/events`` 200: the shape of DNS rebinding (issue 46, item 6)."""
    hall = make_hall(tmp_path)
    hall.allow_hosts = frozenset({"aula.example.edu"})

    async def scenario(client):
        port = client.server.port
        out = {}
        for host in (f"rebind.attacker.example:{port}", f"127.0.0.1:{port}", f"localhost:{port}",
                     "192.0.2.7:8000", f"AULA.example.edu.:{port}", f"[::1]:{port}"):  # fmt: skip
            headers = {"Host": host, "Origin": f"http://{host}"}
            solved = await client.post(
                "/_hall/solved",
                json=solve_body(hall, DEV[len(out)]),
                headers=headers,
            )
            events = await client.get("/_hall/events", params={"device": DEV[10 + len(out)]}, headers=headers)
            deck = await client.get("/index.html", headers={"Host": host})
            out[host.split(":")[0]] = (solved.status, events.status, deck.status, await solved.text())
            events.close()
        return out

    statuses = run_with_client(hall, scenario)
    assert statuses.pop("rebind.attacker.example") == (421, 421, 200, texts.HOST_REFUSED)
    assert all(s[:3] == (201, 200, 200) for s in statuses.values()), statuses


def test_behind_a_trusted_proxy_the_host_is_the_proxys_to_check(tmp_path):
    """Caddy forwards the public Host (``hall.example.edu``), which the hall's flags need not name."""
    hall = make_hall(tmp_path)
    hall.trusted_proxies = frozenset({"127.0.0.1"})

    async def scenario(client):
        headers = {
            "Host": "hall.example.edu",
            "Origin": "https://hall.example.edu",
            "X-Forwarded-Proto": "https",
        }
        headers["X-Forwarded-For"] = "198.51.100.9"
        solved = await client.post(
            "/_hall/solved",
            json=solve_body(hall, DEV[0]),
            headers=headers,
        )
        headers["X-Forwarded-Proto"] = "http"  # the page was https, the proxy says http: not its own origin
        refused = await client.post(
            "/_hall/solved",
            json=solve_body(hall, DEV[1]),
            headers=headers,
        )
        return solved.status, refused.status

    assert run_with_client(hall, scenario) == (201, 403)


def test_an_http_hall_refuses_an_https_origin_of_its_own_host(tmp_path):
    hall = make_hall(tmp_path)

    async def scenario(client):
        origin = f"127.0.0.1:{client.server.port}"
        out = []
        for scheme in ("https", "http"):
            headers = {"Origin": f"{scheme}://{origin}"}
            body = solve_body(hall, DEV[len(out)])
            out.append((await client.post("/_hall/solved", json=body, headers=headers)).status)
            out.append((await client.get("/_hall/qr.svg", headers=headers)).status)
        return out

    assert run_with_client(hall, scenario) == [403, 403, 201, 200]


def test_a_release_is_fsynced_before_it_is_answered(tmp_path):
    """``synchronous=NORMAL`` could lose a release already shown to a power cut, and its 0.5 be
    spent again (issue 47, item 4): the release's own transaction runs with ``synchronous=FULL``."""
    store = SqliteStore(tmp_path / "hall.sqlite3")
    seen = []

    def decide(releases, count):
        seen.append(store.sql.db.execute("PRAGMA synchronous").fetchone()[0])
        return "ok", {"exercise": "ex", "value": count, "epsilon": 0.5, "label": "x"}

    async def main():
        await store.open(lambda event, data: None)
        try:
            answer = await store.release("ex", decide)
            return answer, store.sql.db.execute("PRAGMA synchronous").fetchone()[0]
        finally:
            await store.close()

    answer, after = run_async(main)
    assert answer == "ok" and seen == [2] and after == 1  # FULL inside, NORMAL again after


def test_a_write_waiting_for_the_sqlite_lock_leaves_the_event_loop_running(tmp_path):
    """SqliteStore called sqlite3 on the event loop (issue 48, item 8): a write waiting for the
    file's lock (busy_timeout, 2 s) froze every stream and request, here even the task that would
    free the lock, so the write failed with "database is locked". On the store's own thread the
    loop keeps running while it waits: the other connection commits, and the write goes through."""
    path = tmp_path / "hall.sqlite3"
    store = SqliteStore(path)

    async def main():
        await store.open(lambda event, data: None)
        other = sqlite3.connect(path, isolation_level=None)
        try:
            other.execute("BEGIN IMMEDIATE")  # another writer holds the file's lock
            ticks = 0

            async def free_the_lock():
                nonlocal ticks
                for _ in range(10):  # ~0.2 s of loop turns, then commit
                    await asyncio.sleep(0.02)
                    ticks += 1
                other.execute("COMMIT")

            freeing = asyncio.ensure_future(free_the_lock())
            kept = await store.add_answer("copia", DEV[0], 1)
            await freeing
            return kept, ticks, await store.counts("copia", 2)
        finally:
            other.close()
            await store.close()

    assert run_async(main) == (True, 10, [0, 1])


def test_redis_without_waitaof_says_what_a_release_rests_on(redis_server, caplog):
    """Redis before 7.2 has no WAITAOF: the terminal says so at start, and a release still works."""
    redis_server.command("FLUSHALL")
    store = RedisStore(redis_server.url, prefix="edge:")

    async def main():
        await store.open(lambda event, data: None)
        try:
            row = {"exercise": "ex", "value": 1, "epsilon": 0.5, "label": "x"}
            return await store.release("ex", lambda releases, count: ("ok", row)), store.waitaof
        finally:
            await store.close()

    version = subprocess.run(["redis-server", "--version"], capture_output=True, text=True).stdout
    major, minor = (int(x) for x in re.search(r"v=(\d+)\.(\d+)", version).groups())
    with caplog.at_level(logging.WARNING, logger="dpdeck.hall"):
        answer, waitaof = run_async(main)
    assert answer == "ok"
    if (major, minor) >= (7, 2):
        assert waitaof
    else:
        assert not waitaof and any("WAITAOF" in m and "everysec" in m for m in caplog.messages)
