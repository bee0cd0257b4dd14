"""Browser fixtures: the real deck built once, served on localhost, opened in Chromium.

Chromium: ``$DPDECK_CHROMIUM`` if set, else Debian's ``/usr/bin/chromium``, else the browser of
``playwright install``. Every request of the page and its workers is recorded on ``page.requests``;
the service worker's own (its offline fill, after the pre-run) on ``page.sw_requests``.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlparse

import pytest

from deckbuild.browser import VIEWPORT, launch
from deckbuild.serve import serve_in_thread
from deckbuild.site import Project, build

from .helpers import open_deck, wait_runtime_ready

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items):
    for item in items:
        if "tests/browser" in str(item.fspath):
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def built_deck(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("deck") / "dist"
    build(Project(ROOT), dist=out)
    return out


@pytest.fixture(scope="session")
def deck_url(built_deck) -> str:
    server, url = serve_in_thread(built_deck, isolate=True)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def deck_url_plain(built_deck) -> str:
    """The same deck served without COOP/COEP, as a static host would."""
    server, url = serve_in_thread(built_deck, isolate=False)
    yield url
    server.shutdown()


@pytest.fixture(scope="session")
def playwright_instance():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_instance):
    browser = launch(playwright_instance)
    yield browser
    browser.close()


def _instrument(context, page):
    page.requests, page.sw_requests = [], []
    page.errors = []
    context.on(
        "request",
        lambda r: (page.requests if r.service_worker is None else page.sw_requests).append(r.url),
    )
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport=VIEWPORT)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    return _instrument(context, context.new_page())


@pytest.fixture
def deck_page(page, deck_url):
    """The deck open in Chromium with Python ready."""
    open_deck(page, deck_url)
    wait_runtime_ready(page)
    return page


def foreign_requests(page, base_url: str) -> list[str]:
    origin = urlparse(base_url).netloc
    return [
        u
        for u in page.requests + page.sw_requests
        if urlparse(u).scheme in ("http", "https", "ws", "wss") and urlparse(u).netloc != origin
    ]
