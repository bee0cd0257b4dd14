"""Case 3 of docs/deploy.md (several processes on one Redis): one process killed and started
again with the same arguments rejoins the hall (issue 46, item 17). It binds its port again,
greets a device with the presenter's position moved while it was down, and a move posted to it
reaches a device on another process. The arguments are the guide's: ``--live``, ``--hall-redis``,
``--hall-session`` (so that a restart after midnight joins the same hall, not the next day's),
``--hall-token-file`` and no ``--hall-db``."""

from __future__ import annotations

import json

from tests.support.hall_fixtures import DEV, make_dist
from tests.support.hall_process import HallProcess
from tests.support.paths import ROOT
from tests.support.redis_server import RedisServer, free_port


def _process(live, token_file, redis_url: str, port: int) -> HallProcess:
    """A hall process as the guide starts it (HallProcess adds --hall-db: taken out again)."""
    process = HallProcess.alone(
        live, live.parent / "unused.sqlite3", token_file, "--hall-redis", redis_url, "--hall-session", "clase",
        port=port,
    )  # fmt: skip
    where = process.args.index("--hall-db")
    del process.args[where : where + 2]
    return process


def _next_state(stream, limit: int = 60) -> dict:
    """The next ``state`` event on an open live channel (at most ``limit`` lines read; each
    read waits at most the stream's 30 s timeout)."""
    event = None
    for _ in range(limit):
        line = stream.readline().decode().strip()
        if line.startswith("event: "):
            event = line[7:]
        elif line.startswith("data: ") and event == "state":
            return json.loads(line[6:])
    raise AssertionError("no state event")


def test_the_guides_restart_one_process_with_its_own_arguments():
    for guide in ("deploy.md", "despliegue.md"):
        text = (ROOT / "docs" / guide).read_text(encoding="utf-8")
        case3 = text[text.index("## 3.") :]
        assert "hall 8103 &" in case3 and "--hall-session" in case3, guide


def test_a_process_killed_and_started_again_with_the_same_arguments_rejoins(tmp_path):
    redis = RedisServer(tmp_path / "redis").start()
    live = make_dist(tmp_path) / "live.json"
    token_file = tmp_path / "hall-token"
    ports = [free_port(), free_port()]
    halls = [_process(live, token_file, redis.url, p) for p in ports]
    again = None
    try:
        for hall in halls:
            hall.start(timeout=60)
        first, second = halls
        assert first.token == second.token  # one token file for all
        (follower,) = first.open_streams([DEV[0]])  # a fresh hall greets with no position
        state = {"seq": 1700000000001, "indexh": 3, "indexv": 0, "indexf": -1}
        assert second.post("_hall/state", state, second.token)[0] == 204
        assert _next_state(follower) == state  # the fan-out between them works

        second.kill9()
        moved = {**state, "seq": 1700000000002, "indexh": 4}
        assert first.post("_hall/state", moved, first.token)[0] == 204  # moved while it was down
        assert _next_state(follower) == moved

        again = _process(live, token_file, redis.url, ports[1])
        assert again.args == second.args  # the same command line
        again.start(timeout=60)
        assert again.token == first.token and again.audience == second.audience
        (newcomer,) = again.open_streams([DEV[1]])
        assert _next_state(newcomer) == moved  # it rejoined the hall, not a new one
        last = {**state, "seq": 1700000000003, "indexh": 5}
        assert again.post("_hall/state", last, again.token)[0] == 204
        assert _next_state(follower) == last  # and its moves reach the other process's devices
        assert _next_state(newcomer) == last
        follower.close()
        newcomer.close()
    finally:
        for hall in [*halls, again]:
            if hall is not None:
                hall.stop()
        redis.stop()
