"""The hall's memory: one store interface (``Store``), SQLite in one process or Redis across many.

``Store`` is what the application asks of its memory, every method async: the presenter's
position (kept under the seq rule, ``state.keeps``, the one rule both stores enforce), the
fan-out of events to every process's streams, the poll answers and tallies, the solves, the
released counts with their budget, the devices count and the shared rate limits. ``SqliteStore`` (this module) is the embedded default, one process; ``RedisStore``
(``redis_store.py``) lets several hall processes behind a proxy share one hall. What follows is
the SQLite file's (``HallStore``, the synchronous SQL under ``SqliteStore``).

SQLite (stdlib ``sqlite3``, WAL), so a server killed mid-poll loses nothing.

Nine tables: ``state`` (the presenter's last position, one row), ``kept`` (the presenter's last
broadcast of each kept event, JSON by event name: dpdeck/wire/hall.py), ``poll_answers`` (one randomized
answer per poll and answer token: the true answer never reaches the server), ``poll_rounds``
(each poll's round number, once a new round was started: a number, nothing about anyone),
``solves`` (one row per exercise and solve token), ``pool`` (the hall's pool:
an HMAC of each admitted device id and of its address, under the hall's secret; ``admission.py``),
``solve_tickets`` (the admission tickets
the solves spent, one per device and exercise: ``admission.py``; a ticket names no device) and ``meta`` (the file's own random session id, for the pages) and ``releases`` (the hall's noised exercise
counts and what each cost: the hall's privacy budget). No address, user agent, time or device id is stored (the pool holds their HMACs): a poll
answer carries a token the page drew for that poll alone, and a solve one drawn for that exercise
alone (128 random bits each), so no stored id links two polls, two exercises, or a poll to an
exercise.

Every write is one committed transaction. In WAL mode with ``synchronous=NORMAL`` a commit is in
the WAL file before the call returns, so it survives the process being killed (``kill -9``); a
power cut may lose the last commits. A release (the budget spent) is committed with
``synchronous=FULL`` (``HallStore.durable``): fsynced before the count is answered.

A file written by an older hall (tables ``answers`` and ``solved`` keyed by one device id for
every poll and exercise) is migrated when opened: each row keeps its poll or exercise and its
answer under a fresh random token, the old tables are dropped and the file is vacuumed, so the
device ids are gone from it and the tallies and counts are unchanged.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import secrets
import sqlite3
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Concatenate, ParamSpec, Protocol, TypeVar

from ..wire.hall import STATE_FIELDS as STATE
from .limits import KeyedBuckets, Rate
from .state import keeps

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL, indexh INTEGER NOT NULL, indexv INTEGER NOT NULL, indexf INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS poll_answers (
    poll TEXT NOT NULL, token TEXT NOT NULL, answer INTEGER NOT NULL,
    PRIMARY KEY (poll, token)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS poll_rounds (
    poll TEXT PRIMARY KEY, round INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS solves (
    exercise TEXT NOT NULL, token TEXT NOT NULL,
    PRIMARY KEY (exercise, token)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS solve_tickets (
    exercise TEXT NOT NULL, ticket TEXT NOT NULL,
    PRIMARY KEY (exercise, ticket)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS pool (
    device TEXT PRIMARY KEY, address TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY, value TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS kept (
    event TEXT PRIMARY KEY, data TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS releases (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    exercise TEXT NOT NULL, value INTEGER NOT NULL, epsilon REAL NOT NULL, label TEXT NOT NULL
);
"""
log = logging.getLogger("dpdeck.hall")
STATE_FIELDS = tuple(f.name for f in STATE)  # ("seq", "indexh", "indexv", "indexf")
T = TypeVar("T")
P = ParamSpec("P")

OnEvent = Callable[[str, dict[str, Any]], None]  # an event for this process's streams
# release.py's decision: (the releases so far, the true count) -> (its answer, the row to keep or None)
Decide = Callable[[list[dict[str, Any]], int], tuple[T, dict[str, Any] | None]]


class Unavailable(Exception):
    """The store cannot be reached now (Redis restarting): the request gets a 503, and may retry."""


class StoreFull(Unavailable):
    """The store refused a write for want of space (a full disk; Redis unable to write its
    append-only file, or at its memory limit): nothing was kept; the request gets a 503 with
    ``Retry-After``, and the presenter's position is relayed all the same (``app.post_state``)."""


# SQLite's result codes for "cannot write": no room (FULL), the write failed (IOERR, e.g. ENOSPC
# on the WAL), the file cannot be written (READONLY, CANTOPEN)
_CANNOT_WRITE = {sqlite3.SQLITE_FULL, sqlite3.SQLITE_IOERR, sqlite3.SQLITE_READONLY, sqlite3.SQLITE_CANTOPEN}
_FULL_LOGGED_EVERY = 60.0  # seconds between two warnings in the terminal


def _cannot_write(exc: sqlite3.Error) -> bool:
    code = getattr(exc, "sqlite_errorcode", None)
    if code is not None:
        return (code & 0xFF) in _CANNOT_WRITE  # an extended code's low byte is its primary code
    return "disk is full" in str(exc) or "disk I/O error" in str(exc)


def _kept(
    method: Callable[Concatenate[SqliteStore, P], Awaitable[T]],
) -> Callable[Concatenate[SqliteStore, P], Coroutine[Any, Any, T]]:
    """A ``SqliteStore`` method whose SQLite error for want of room or a failed write is a
    ``StoreFull`` (503, never a 500), with a warning in the terminal at most once a minute."""

    async def call(self: SqliteStore, /, *args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await method(self, *args, **kwargs)
        except sqlite3.OperationalError as exc:
            if not _cannot_write(exc):
                raise
            now = time.monotonic()
            if now - self.full_logged >= _FULL_LOGGED_EVERY:
                self.full_logged = now
                log.warning("the hall cannot write %s (%s): nothing is kept until it can", self.path, exc)
            raise StoreFull(str(exc)) from None

    functools.update_wrapper(call, method)
    return call


class Store(Protocol):
    """The hall's memory, as the application uses it (SQLite or Redis behind it)."""

    description: str  # for the banner: where answers and position are kept
    shared: bool  # other processes may share it (their devices come and go)

    async def open(self, on_event: OnEvent) -> None:
        """Connect; from now on every ``publish`` of any process sharing the store reaches ``on_event``."""

    async def close(self) -> None: ...

    async def state(self) -> dict[str, Any] | None:
        """The presenter's last position ``{seq, indexh, indexv, indexf}``, or None before any."""

    async def set_state(self, state: dict[str, Any]) -> bool:
        """Keep ``state`` if the seq rule ``state.keeps`` says so over the kept one's ``seq``, read
        and written as one atomic step; True when kept."""

    async def keep(self, event: str, data: dict[str, Any]) -> None:
        """Keep ``data`` as the last of the presenter's broadcast ``event`` (dpdeck/wire/hall.py:
        a ``kept`` event), over the one kept before, for every new stream's greeting."""

    async def kept(self) -> dict[str, dict[str, Any]]:
        """The last data of each broadcast event kept (``keep``), by event name."""
        ...

    async def publish(self, event: str, data: dict[str, Any]) -> None:
        """Send an event to the streams of every process that shares the store."""

    async def add_answer(self, poll: str, token: str, answer: int) -> bool:
        """Record a randomized answer and count it; False if that poll's token answered already."""

    async def counts(self, poll: str, k: int) -> list[int]:
        """How many answers of each option ``0 … k-1`` the poll holds."""

    async def reset_poll(self, poll: str) -> int:
        """A new round: the poll's answers deleted and its round grown, atomically; the new round."""

    async def round(self, poll: str) -> int:
        """The poll's round: 1 until a new round is started, then 2, 3, …"""

    async def has_answer(self, poll: str, token: str) -> bool:
        """Whether ``token`` answered ``poll`` in its current round."""

    async def session_id(self) -> str:
        """The hall session's own random id, made once and kept (``hello``'s ``session``)."""
        ...

    async def add_solved(self, exercise: str, token: str, ticket: str) -> bool:
        """Record a solve under its exercise's token, spending its admission ``ticket``: False
        if that token was counted already (a resend) or the ticket was spent (the same device)."""

    async def solved_count(self, exercise: str) -> int:
        """The true number of solve tokens of ``exercise`` (never sent anywhere)."""

    async def releases(self) -> list[dict[str, Any]]:
        """Every released count, oldest first: ``{exercise, value, epsilon, label}``."""

    async def release(self, exercise: str, decide: Decide[T]) -> T:
        """Run ``decide(releases, true count of exercise)`` and keep the row it returns, as one
        atomic step against every other process: the budget is spent once."""

    async def devices(self, local: int) -> int:
        """The hall's devices: this process's ``local`` count plus every other live process's."""

    async def take(self, key: str, rate: Rate) -> bool:
        """One request from the token bucket ``key`` (an answer or solve token), shared by processes."""


class SqliteStore:
    """``Store`` over one SQLite file (``HallStore``), for a hall of one process: its events go
    straight to this process's streams, the rate limits and the devices count are in memory.

    Every SQLite call runs on one thread of its own (``hall-sqlite``), never on the event loop:
    a write that waits for the file's lock (``busy_timeout``, up to 2 s) or an fsync (a release)
    holds up only the requests that need the file, not every stream and every other request.
    One thread, fed in the order the calls are made (a FIFO queue), keeps the writes serialized
    and in that order, as on the loop before; each call is still one committed transaction, so the
    durability above is unchanged: a method returns only after its commit (fsynced for a release).
    A request cancelled while its call waits or runs does not undo it: once handed to the thread,
    the call completes (and commits), as a commit that came just before a client went away."""

    def __init__(self, path: Path | str):
        self.path = Path(path)
        self.description = str(path)
        self.shared = False
        self.sql: HallStore | None = None
        self.on_event: OnEvent = lambda event, data: None
        self.buckets: dict[Rate, KeyedBuckets] = {}
        self.full_logged = -_FULL_LOGGED_EVERY  # when the terminal last heard the file cannot be written
        self.thread: ThreadPoolExecutor | None = None

    async def _run(self, call: Callable[[HallStore], T]) -> T:
        """``call(the open HallStore)`` on the store's thread, after every call handed to it before."""
        sql, thread = self.sql, self.thread
        if sql is None or thread is None:
            raise RuntimeError("the hall's SQLite store is not open")
        return await asyncio.get_running_loop().run_in_executor(thread, call, sql)

    async def open(self, on_event: OnEvent) -> None:
        self.thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="hall-sqlite")
        # made on the thread that uses it (opening may migrate and vacuum an older file)
        self.sql = await asyncio.get_running_loop().run_in_executor(self.thread, HallStore, self.path)
        self.on_event = on_event

    async def close(self) -> None:
        sql, thread = self.sql, self.thread
        self.sql = self.thread = None
        if thread is not None:
            if sql is not None:
                await asyncio.get_running_loop().run_in_executor(thread, sql.close)
            thread.shutdown(wait=True)

    @_kept
    async def state(self) -> dict[str, Any] | None:
        return await self._run(HallStore.state)

    @_kept
    async def set_state(self, state: dict[str, Any]) -> bool:
        return await self._run(lambda sql: sql.set_state(state))

    @_kept
    async def keep(self, event: str, data: dict[str, Any]) -> None:
        await self._run(lambda sql: sql.keep(event, data))

    @_kept
    async def kept(self) -> dict[str, dict[str, Any]]:
        return await self._run(HallStore.kept)

    async def publish(self, event: str, data: dict[str, Any]) -> None:
        self.on_event(event, data)

    @_kept
    async def add_answer(self, poll: str, token: str, answer: int) -> bool:
        return await self._run(lambda sql: sql.add_answer(poll, token, answer))

    @_kept
    async def counts(self, poll: str, k: int) -> list[int]:
        return await self._run(lambda sql: sql.counts(poll, k))

    @_kept
    async def reset_poll(self, poll: str) -> int:
        return await self._run(lambda sql: sql.reset_poll(poll))

    @_kept
    async def round(self, poll: str) -> int:
        return await self._run(lambda sql: sql.round(poll))

    @_kept
    async def has_answer(self, poll: str, token: str) -> bool:
        return await self._run(lambda sql: sql.has_answer(poll, token))

    @_kept
    async def add_solved(self, exercise: str, token: str, ticket: str) -> bool:
        def call(sql: HallStore) -> bool:
            with sql.transaction():
                return sql.add_solved(exercise, token, ticket)

        return await self._run(call)

    @_kept
    async def session_id(self) -> str:
        def call(sql: HallStore) -> str:
            with sql.transaction():
                return sql.session_id()

        return await self._run(call)

    @_kept
    async def join_pool(self, device_key: str, address_key: str, cap: int) -> bool:
        def call(sql: HallStore) -> bool:
            with sql.transaction():
                return sql.join_pool(device_key, address_key, cap)

        return await self._run(call)

    @_kept
    async def pool_size(self) -> tuple[int, int]:
        return await self._run(HallStore.pool_size)

    @_kept
    async def solved_count(self, exercise: str) -> int:
        return await self._run(lambda sql: sql.solved_count(exercise))

    @_kept
    async def releases(self) -> list[dict[str, Any]]:
        return await self._run(HallStore.releases)

    @_kept
    async def release(self, exercise: str, decide: Decide[T]) -> T:
        # synchronous=FULL: the commit is fsynced before the count is answered (a power cut
        # cannot lose a release the presenter saw); BEGIN IMMEDIATE: also against another
        # process. ``decide`` runs on the store's thread, inside the transaction.
        def call(sql: HallStore) -> T:
            with sql.durable(), sql.transaction():
                answer, row = decide(sql.releases(), sql.solved_count(exercise))
                if row is not None:
                    sql.add_release(**row)
                return answer

        return await self._run(call)

    async def devices(self, local: int) -> int:
        return local

    async def take(self, key: str, rate: Rate) -> bool:
        buckets = self.buckets.get(rate)
        if buckets is None:
            buckets = self.buckets[rate] = KeyedBuckets(rate)
        return buckets.allow(key)


FILE_MODE = 0o600  # the hall's file and its -wal and -shm: the owner's alone, as the token file


def _owner_only(path: str) -> None:
    """Make ``path`` (created empty when absent) and its ``-wal``/``-shm`` files readable by
    their owner only. SQLite creates the ``-wal`` and ``-shm`` with the database file's mode, so
    a new hall's three files are 0600; an older hall's 0644 files are narrowed here."""
    if path == ":memory:":
        return
    os.close(os.open(path, os.O_RDWR | os.O_CREAT, FILE_MODE))
    for name in (path, path + "-wal", path + "-shm"):
        try:
            os.chmod(name, FILE_MODE)
        except FileNotFoundError:
            pass


class HallStore:
    """The presenter's state, answers, solves and released counts in one SQLite file."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        _owner_only(self.path)
        # autocommit: one statement, one commit. Made on SqliteStore's thread, which alone uses it
        # (a test may read it from another thread while that one is idle: check_same_thread off)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=2000")
        self.db.executescript(SCHEMA)
        self._migrate_device_ids()

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """One write transaction (``BEGIN IMMEDIATE``): what is read inside stays true until it
        commits, even with another process on the same file; an exception rolls it back."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    @contextmanager
    def durable(self) -> Iterator[None]:
        """The transactions inside are fsynced at their commit (``synchronous=FULL``); the
        connection is back to ``synchronous=NORMAL`` after."""
        self.db.execute("PRAGMA synchronous=FULL")
        try:
            yield
        finally:
            self.db.execute("PRAGMA synchronous=NORMAL")

    def _migrate_device_ids(self) -> None:
        """Move an older file's rows keyed by device id to per-row random tokens (see the module)."""
        tables = {row[0] for row in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        old = [t for t in ("answers", "solved") if t in tables]
        if not old:
            return
        self.db.execute("BEGIN IMMEDIATE")
        if "answers" in old:
            rows = self.db.execute("SELECT poll, answer FROM answers").fetchall()
            self.db.executemany(
                "INSERT INTO poll_answers (poll, token, answer) VALUES (?, ?, ?)",
                [(poll, secrets.token_hex(16), answer) for poll, answer in rows],
            )
            self.db.execute("DROP TABLE answers")
        if "solved" in old:
            rows = self.db.execute("SELECT exercise FROM solved").fetchall()
            self.db.executemany(
                "INSERT INTO solves (exercise, token) VALUES (?, ?)",
                [(exercise, secrets.token_hex(16)) for (exercise,) in rows],
            )
            self.db.execute("DROP TABLE solved")
        self.db.execute("COMMIT")
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        self.db.execute("VACUUM")  # the dropped pages held the device ids
        self.db.execute("PRAGMA wal_checkpoint(TRUNCATE)")

    def state(self) -> dict[str, Any] | None:
        """The presenter's last position ``{seq, indexh, indexv, indexf}``, or None before any."""
        row = self.db.execute("SELECT seq, indexh, indexv, indexf FROM state WHERE id = 1").fetchone()
        return dict(zip(STATE_FIELDS, row, strict=True)) if row else None

    def set_state(self, state: dict[str, Any]) -> bool:
        """Keep ``state`` if the seq rule (``state.keeps``) says so over the kept one, read and
        written in one write transaction (also against another process on the file); True when kept."""
        with self.transaction():
            row = self.db.execute("SELECT seq FROM state WHERE id = 1").fetchone()
            if not keeps(row[0] if row else None, state["seq"]):
                return False
            self.db.execute(
                "INSERT OR REPLACE INTO state (id, seq, indexh, indexv, indexf) "
                "VALUES (1, :seq, :indexh, :indexv, :indexf)",
                state,
            )
            return True

    def keep(self, event: str, data: dict[str, Any]) -> None:
        """Keep ``data`` (JSON) as the last of the broadcast ``event``, over the one kept before."""
        self.db.execute(
            "INSERT INTO kept (event, data) VALUES (?, ?) ON CONFLICT (event) DO UPDATE SET data = excluded.data",
            (event, json.dumps(data)),
        )

    def kept(self) -> dict[str, dict[str, Any]]:
        """The last data of each broadcast event kept, by event name."""
        return {event: json.loads(data) for event, data in self.db.execute("SELECT event, data FROM kept")}

    def add_answer(self, poll: str, token: str, answer: int) -> bool:
        """Record a (randomized) answer under its poll's token; False if that token answered already."""
        cur = self.db.execute(
            "INSERT INTO poll_answers (poll, token, answer) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (poll, token, answer),
        )
        return cur.rowcount == 1

    def counts(self, poll: str, k: int) -> list[int]:
        """How many answers of each option ``0 … k-1`` the poll holds."""
        out = [0] * k
        for answer, n in self.db.execute(
            "SELECT answer, COUNT(*) FROM poll_answers WHERE poll = ? GROUP BY answer", (poll,)
        ):
            if 0 <= answer < k:
                out[answer] = n
        return out

    def has_answer(self, poll: str, token: str) -> bool:
        """Whether ``token`` answered ``poll`` in this round."""
        row = self.db.execute("SELECT 1 FROM poll_answers WHERE poll = ? AND token = ?", (poll, token))
        return row.fetchone() is not None

    def round(self, poll: str) -> int:
        """The poll's round: 1 until a new round is started, then 2, 3, …"""
        row = self.db.execute("SELECT round FROM poll_rounds WHERE poll = ?", (poll,)).fetchone()
        return row[0] if row else 1

    def reset_poll(self, poll: str) -> int:
        """A new round: the poll's answers deleted and its round number grown, in one
        transaction; the new round's number."""
        with self.transaction():
            self.db.execute("DELETE FROM poll_answers WHERE poll = ?", (poll,))
            self.db.execute(
                "INSERT INTO poll_rounds (poll, round) VALUES (?, 2) "
                "ON CONFLICT (poll) DO UPDATE SET round = round + 1",
                (poll,),
            )
            return self.round(poll)

    def add_solved(self, exercise: str, token: str, ticket: str) -> bool:
        """Record a solve under its exercise's token, spending its admission ``ticket`` (one per
        device and exercise: admission.py); False, and nothing written, if that token was counted
        already (a resend) or the ticket was spent already (this device counted already). Call
        it inside ``transaction``."""
        known = "SELECT 1 FROM solves WHERE exercise = ? AND token = ?"
        if self.db.execute(known, (exercise, token)).fetchone() is not None:
            return False
        spend = "INSERT INTO solve_tickets (exercise, ticket) VALUES (?, ?) ON CONFLICT DO NOTHING"
        if self.db.execute(spend, (exercise, ticket)).rowcount != 1:
            return False
        self.db.execute("INSERT INTO solves (exercise, token) VALUES (?, ?)", (exercise, token))
        return True

    def session_id(self) -> str:
        """This hall file's own random id (made once, then kept): what a page keys what it kept
        for this hall by. Call it inside ``transaction``."""
        row = self.db.execute("SELECT value FROM meta WHERE key = 'session'").fetchone()
        if row is not None:
            return str(row[0])
        made = secrets.token_hex(8)
        self.db.execute("INSERT INTO meta (key, value) VALUES ('session', ?)", (made,))
        return made

    def join_pool(self, device_key: str, address_key: str, cap: int) -> bool:
        """The hall's pool (admission.py), kept so that a restart keeps its bound: True if the
        device (its key: an HMAC of its id) is in it, now or already; False when its address's
        key has ``cap`` devices. Call it inside ``transaction``."""
        if self.db.execute("SELECT 1 FROM pool WHERE device = ?", (device_key,)).fetchone() is not None:
            return True
        held = self.db.execute("SELECT COUNT(*) FROM pool WHERE address = ?", (address_key,)).fetchone()[0]
        if held >= cap:
            return False
        self.db.execute("INSERT INTO pool (device, address) VALUES (?, ?)", (device_key, address_key))
        return True

    def pool_size(self) -> tuple[int, int]:
        """The pool's devices, and the most of them from one address."""
        devices = self.db.execute("SELECT COUNT(*) FROM pool").fetchone()[0]
        most = self.db.execute("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM pool GROUP BY address)")
        return devices, most.fetchone()[0] or 0

    def solved_count(self, exercise: str) -> int:
        """The true number of solve tokens of ``exercise`` (the server's alone: released noised)."""
        return int(
            self.db.execute("SELECT COUNT(*) FROM solves WHERE exercise = ?", (exercise,)).fetchone()[0]
        )

    def totals(self) -> dict[str, int]:
        """How many answers, solves and released counts the file holds (what a start reports)."""
        return {
            table: self.db.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]
            for table, name in (("answers", "poll_answers"), ("solves", "solves"), ("releases", "releases"))
        }

    def releases(self) -> list[dict[str, Any]]:
        """Every released count, oldest first: ``{exercise, value, epsilon, label}``."""
        rows = self.db.execute("SELECT exercise, value, epsilon, label FROM releases ORDER BY id")
        return [dict(zip(("exercise", "value", "epsilon", "label"), row, strict=True)) for row in rows]

    def add_release(self, exercise: str, value: int, epsilon: float, label: str) -> None:
        """Record a released noised count and its cost (committed before the count is answered)."""
        self.db.execute(
            "INSERT INTO releases (exercise, value, epsilon, label) VALUES (?, ?, ?, ?)",
            (exercise, value, epsilon, label),
        )
