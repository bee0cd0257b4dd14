"""Fixtures shared by the unit tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from dpdeck.build.cellrun import new_session
from dpdeck.build.schema import load_deck
from dpdeck.build.site import Project, build
from tests.support.deck_text import run_cells
from tests.support.paths import FIXTURES, LECTURE, ROOT


@pytest.fixture
def runner():
    """A fresh ``cellrunner.Session`` (the cell runner, pyodide_pkg/cellrunner): an empty namespace."""
    return new_session()


@pytest.fixture(scope="module")
def deck():
    """The lecture (deck/deck.yaml), loaded."""
    return load_deck(LECTURE)


@pytest.fixture(scope="module")
def ran(deck):
    """Every cell of the lecture run on its own after the prelude, under CPython:
    {cell id: what it showed} (tests.support.deck_text.run_cells)."""
    return run_cells(deck)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """A real build of the small test deck (tests/fixtures/good), once per module."""
    out = tmp_path_factory.mktemp("site") / "dist"
    build(Project(ROOT), deck_file=FIXTURES / "good" / "deck.yaml", dist=out)
    return out


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory):
    """One real ``redis-server`` for the session (temp dir, free port, append-only file)."""
    from tests.support.redis_server import RedisServer

    if not RedisServer.available():
        pytest.skip("redis-server is not installed (scripts/setup.sh installs it)")
    server = RedisServer(tmp_path_factory.mktemp("redis")).start()
    yield server
    server.stop()


@pytest.fixture(params=["sqlite", "redis"])
def hall_store(request):
    """The hall's tests, once over each store: ``make_hall`` builds a Hall on this one. Redis is
    flushed before each test."""
    from tests.support import hall_fixtures

    if request.param == "redis":
        server = request.getfixturevalue("redis_server")
        server.command("FLUSHALL")
        hall_fixtures.STORE["redis"] = server
    yield request.param
    hall_fixtures.STORE["redis"] = None
