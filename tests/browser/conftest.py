"""Browser fixtures: the real deck built once, served on localhost, opened in Chromium.

Chromium: ``$DPDECK_CHROMIUM`` if set, else Debian's ``/usr/bin/chromium``, else the browser of
``playwright install``. Every request of the page and its workers is recorded on ``page.requests``;
the service worker's own (its offline fill, after the pre-run) on ``page.sw_requests``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from dpdeck.build.site import Project, build
from dpdeck.serve.browser import VIEWPORT, launch
from dpdeck.serve.server import serve_in_thread
from tests.support.browser import instrument, open_deck, restore_deck, wait_runtime_ready
from tests.support.paths import ROOT


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


@pytest.fixture
def context(browser):
    ctx = browser.new_context(viewport=VIEWPORT)
    yield ctx
    ctx.close()


@pytest.fixture
def page(context):
    return instrument(context, context.new_page())


@pytest.fixture
def deck_page(page, deck_url):
    """The deck open in Chromium with Python ready."""
    open_deck(page, deck_url)
    wait_runtime_ready(page)
    return page


@pytest.fixture(scope="module")
def booted_page(request, browser, deck_url):
    """One deck page per module, opened once with Python ready (a cold start costs seconds):
    for tests whose subject is not the start-up. Tests take it as ``shared_deck_page``. The
    module's ``SHARED_DECK_QUERY`` (e.g. ``"?noprerun"``), if set, is added to the deck's URL;
    the URL opened is ``page.opened_url``."""
    ctx = browser.new_context(viewport=VIEWPORT)
    page = instrument(ctx, ctx.new_page())
    page.opened_url = deck_url + getattr(request.module, "SHARED_DECK_QUERY", "")
    open_deck(page, page.opened_url)
    wait_runtime_ready(page)
    yield page
    ctx.close()


@pytest.fixture
def shared_deck_page(booted_page):
    """The module's booted page, restored to a known state for this test (``restore_deck``):
    authored code in every cell, nothing running, the first slide, Python ready, no errors.
    Python's names and the recorded requests carry over from the module's earlier tests."""
    restore_deck(booted_page, booted_page.opened_url)
    return booted_page
