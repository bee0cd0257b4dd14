"""The hall's event loop (dpdeck/hall/eventloop.py): uvloop where installed, asyncio's on
request, a clear error when uvloop is asked for and missing; and a real hall on each loop."""

from __future__ import annotations

import asyncio
import json
import sys
import urllib.request

import pytest

from dpdeck.hall import eventloop
from tests.support.hall_fixtures import DEV, make_dist, on_fresh_thread
from tests.support.hall_process import HallProcess

uvloop = pytest.importorskip("uvloop")


def _loop_of(name: str) -> str:
    async def which() -> str:
        return eventloop.loop_name(asyncio.get_running_loop())

    return on_fresh_thread(lambda: eventloop.run(which(), name))


def test_auto_is_uvloop_where_installed_and_asyncio_is_the_standard_loop():
    assert _loop_of("auto") == "uvloop"
    assert _loop_of("uvloop") == "uvloop"
    assert _loop_of("asyncio") == "asyncio"


def test_without_uvloop_auto_falls_back_and_asking_for_it_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(sys.modules, "uvloop", None)  # import uvloop now raises ImportError
    assert _loop_of("auto") == "asyncio"
    with pytest.raises(SystemExit, match="uvloop is not installed"):
        eventloop.loop_factory("uvloop")
    with pytest.raises(ValueError, match="'trio'"):
        eventloop.loop_factory("trio")


@pytest.mark.parametrize("name", ["asyncio", "uvloop"])
def test_a_hall_on_each_loop_says_which_and_fans_a_move_out(tmp_path, name):
    hall = HallProcess(make_dist(tmp_path), tmp_path / "h.sqlite3", tmp_path / "tok", "--event-loop", name)
    hall.start()
    try:
        assert f"bucle de eventos: {name})" in hall.banner
        with urllib.request.urlopen(f"{hall.audience}_hall/events?device={DEV[1]}", timeout=10) as stream:
            state = {"seq": 1700000000001, "indexh": 3, "indexv": 0, "indexf": -1}
            assert hall.post("_hall/state", state, hall.token)[0] == 204
            while True:  # the greeting, then the move
                line = stream.readline().decode()
                if line.startswith("data: ") and json.loads(line[6:]).get("seq") == state["seq"]:
                    break
    finally:
        hall.stop()
