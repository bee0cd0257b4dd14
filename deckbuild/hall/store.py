"""The hall's memory: SQLite (stdlib ``sqlite3``, WAL), so a server killed mid-poll loses nothing.

Three tables: ``state`` (the presenter's last position, one row), ``answers`` (one randomized
answer per device and poll: the true answer never reaches the server) and ``solved`` (one row per
device and exercise). No address, user agent or time is stored: a device id is 128 random bits
the page made, and rows hold nothing else.

Every write is one committed transaction. In WAL mode with ``synchronous=NORMAL`` a commit is in
the WAL file before the call returns, so it survives the process being killed (``kill -9``); a
power cut may lose the last commits (``synchronous=FULL`` would fsync each one).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

SCHEMA = """
CREATE TABLE IF NOT EXISTS state (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    seq INTEGER NOT NULL, indexh INTEGER NOT NULL, indexv INTEGER NOT NULL, indexf INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS answers (
    poll TEXT NOT NULL, device TEXT NOT NULL, answer INTEGER NOT NULL,
    PRIMARY KEY (poll, device)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS solved (
    exercise TEXT NOT NULL, device TEXT NOT NULL,
    PRIMARY KEY (exercise, device)
) WITHOUT ROWID;
"""


class HallStore:
    """The presenter's state, answers and solved exercises in one SQLite file."""

    def __init__(self, path: Path | str):
        self.path = str(path)
        self.db = sqlite3.connect(self.path, isolation_level=None)  # autocommit: one statement, one commit
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=2000")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    def state(self) -> dict | None:
        """The presenter's last position ``{seq, indexh, indexv, indexf}``, or None before any."""
        row = self.db.execute("SELECT seq, indexh, indexv, indexf FROM state WHERE id = 1").fetchone()
        return dict(zip(("seq", "indexh", "indexv", "indexf"), row, strict=True)) if row else None

    def set_state(self, state: dict) -> bool:
        """Keep ``state`` if its ``seq`` is greater than the kept one; True when kept."""
        cur = self.db.execute(
            "INSERT INTO state (id, seq, indexh, indexv, indexf) VALUES (1, :seq, :indexh, :indexv, :indexf) "
            "ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, indexh = excluded.indexh, "
            "indexv = excluded.indexv, indexf = excluded.indexf WHERE excluded.seq > state.seq",
            state,
        )
        return cur.rowcount == 1

    def add_answer(self, poll: str, device: str, answer: int) -> bool:
        """Record a device's (randomized) answer; False if it had answered this poll already."""
        cur = self.db.execute(
            "INSERT INTO answers (poll, device, answer) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
            (poll, device, answer),
        )
        return cur.rowcount == 1

    def counts(self, poll: str, k: int) -> list[int]:
        """How many answers of each option ``0 … k-1`` the poll holds."""
        out = [0] * k
        for answer, n in self.db.execute(
            "SELECT answer, COUNT(*) FROM answers WHERE poll = ? GROUP BY answer", (poll,)
        ):
            if 0 <= answer < k:
                out[answer] = n
        return out

    def reset_poll(self, poll: str) -> int:
        """Delete a poll's answers (a new round); the number deleted."""
        return self.db.execute("DELETE FROM answers WHERE poll = ?", (poll,)).rowcount

    def add_solved(self, exercise: str, device: str) -> bool:
        """Record that a device solved an exercise; False if it was counted already."""
        cur = self.db.execute(
            "INSERT INTO solved (exercise, device) VALUES (?, ?) ON CONFLICT DO NOTHING", (exercise, device)
        )
        return cur.rowcount == 1

    def solved_counts(self, exercises) -> dict[str, int]:
        """Devices that solved each of ``exercises`` (0 for one nobody solved)."""
        out = dict.fromkeys(exercises, 0)
        for exercise, n in self.db.execute("SELECT exercise, COUNT(*) FROM solved GROUP BY exercise"):
            if exercise in out:
                out[exercise] = n
        return out
