"""The hall's HTTP edge against a student who thinks (issue 46): the checks a request passes
before the hall's own rules, on the real aiohttp server on 127.0.0.1.

Connections and their bounds are in test_hall_connections.py, hostile static paths in
test_hall_static.py.
"""

from __future__ import annotations

import os
import stat

from deckbuild.hall import messages
from deckbuild.hall.run import session_name
from deckbuild.hall.store import HallStore
from deckbuild.hall.token import load_or_create
from tests.support.hall_fixtures import DEV, admit, make_hall, run_with_client, stored


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
        store.add_solved("ex", DEV[0])  # the -wal and -shm exist while it is open
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.glob(path.name + "*")}
        store.close()
        assert set(modes) == {path.name, path.name + "-wal", path.name + "-shm"}
        assert set(modes.values()) == {0o600}, modes
