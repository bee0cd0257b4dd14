"""``--hall-db`` and ``--hall-session`` both name the hall's file (issue 46, item 16): given
together to a SQLite hall they are refused, saying which to keep, and the restart hint suggests
what works with the options in use (another file with ``--hall-db``, another session without)."""

from __future__ import annotations

import subprocess
import sys

from deckbuild.hall.run import HallOptions, start
from tests.support.hall_fixtures import DEV, make_dist, run_async
from tests.support.paths import ROOT


def _note(dist, root, **options) -> str:
    """The session lines of a hall started with ``options`` (one answer added when it is empty)."""

    async def main():
        runner, hall, _ = await start(HallOptions(dist, port=0, **options), root)
        try:
            if await hall.store.counts("copia", 2) == [0, 0]:
                await hall.store.add_answer("copia", DEV[0], 1)
            return "\n".join(hall.session_note)
        finally:
            await runner.cleanup()

    return run_async(main)


def test_hall_db_and_hall_session_together_are_refused_before_anything_starts(tmp_path):
    dist = make_dist(tmp_path)
    db = tmp_path / "hall.sqlite3"
    done = subprocess.run(
        [sys.executable, "-m", "deckbuild.hall", "--live", str(dist / "live.json"), "--port", "0",
         "--hall-db", str(db), "--hall-session", "clase"],
        cwd=ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode != 0
    assert "--hall-session clase" in done.stderr and "--hall-db" in done.stderr, done.stderr
    assert str(tmp_path / "hall-clase.sqlite3") in done.stderr  # what to give instead
    assert not db.exists() and not (tmp_path / "hall.token").exists()  # nothing was made


def test_the_restart_hint_with_hall_db_names_another_file_and_that_file_starts_clean(tmp_path):
    dist = make_dist(tmp_path)
    db = tmp_path / "hall.sqlite3"
    _note(dist, tmp_path, db=db)  # a rehearsal: one answer kept in hall.sqlite3
    again = _note(dist, tmp_path, db=db)  # the rehearsal's answer is there
    hint = f"--hall-db {tmp_path / 'hall-clase.sqlite3'}"
    assert hint in again and "--hall-session" not in again, again
    fresh = _note(dist, tmp_path, db=tmp_path / "hall-clase.sqlite3")
    assert (tmp_path / "hall-clase.sqlite3").exists()
    assert "CONTINUES" not in fresh and "CONTINÚA" not in fresh, fresh


def test_the_restart_hint_of_a_session_still_names_a_session(tmp_path):
    dist = make_dist(tmp_path)
    _note(dist, tmp_path, session="ensayo")
    again = _note(dist, tmp_path, session="ensayo")
    assert "--hall-session clase" in again and "--hall-db" not in again, again
