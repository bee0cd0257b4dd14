"""``--hall-db`` and ``--hall-session`` both name the hall's file (issue 46, item 16): given
together to a SQLite hall they are refused, saying which to keep, and the restart hint suggests
what works with the options in use (another file with ``--hall-db``, another session without)."""

from __future__ import annotations

import subprocess
import sys

from dpdeck.hall.options import HallOptions
from dpdeck.hall.run import start
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
        [sys.executable, "-m", "dpdeck.hall", "--live", str(dist / "live.json"), "--port", "0",
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


ENGLISH = ("The hall is open", "audience (", "presenter (", "kept in", "CONTINUES", "a clean start",
           "only this machine", "the deck is served", "Note:", "rehearsal")  # fmt: skip


def test_the_lines_a_professor_reads_in_the_terminal_are_spanish(tmp_path):
    """Issue 47, item 23: the professor's path is Spanish (docs/guia-profesor.md,
    docs/despliegue.md), so are the hall's start-up lines, every variant: on this machine, on
    the hall's network, behind a proxy with the deck elsewhere, a session continued."""
    from dpdeck.hall.net import INSECURE_NOTE
    from dpdeck.hall.run import banner

    dist = make_dist(tmp_path)
    _note(dist, tmp_path, session="ensayo")
    continued = _note(dist, tmp_path, session="ensayo").splitlines()
    texts = []
    for opts in (
        HallOptions(dist, host="127.0.0.1"),
        HallOptions(dist, host="0.0.0.0"),
        HallOptions(None, audience_url="https://deck.example.edu/", live=dist / "live.json"),
    ):
        texts.append(
            banner(
                ["http://192.0.2.7:8000/"], "T" * 43, opts, "x.sqlite3", tmp_path / "t",
                ["http://127.0.0.1:8100/"], continued, event_loop="uvloop",
            )
        )  # fmt: skip
    text = "\n".join(texts)
    assert "La sala está abierta (Ctrl+C la detiene; bucle de eventos: uvloop)." in text
    assert "público (" in text and "presentador (" in text and "CONTINÚA" in text
    assert "solo este equipo puede abrirla" in text and INSECURE_NOTE in text
    assert "esta sala escucha en http://127.0.0.1:8100/" in text
    assert not [w for w in ENGLISH if w in text], [w for w in ENGLISH if w in text]


def test_a_redis_hall_names_its_session_in_spanish(tmp_path):
    from tests.support.redis_server import RedisServer

    redis = RedisServer(tmp_path / "redis").start()
    try:

        async def main():
            opts = HallOptions(make_dist(tmp_path), port=0, redis=redis.url, session="clase-dp")
            runner, hall, _ = await start(opts, tmp_path)
            try:
                return "\n".join(hall.session_note)
            finally:
                await runner.cleanup()

        note = run_async(main)
    finally:
        redis.stop()
    assert "sesión «clase-dp»: en Redis" in note and "hall-clase-dp:*" in note, note
    assert "keys" not in note
