"""The page's plugins (static/js/page/plugins.js) in real Chromium: a feature module that does not
load and one whose ``init`` throws are reported by their ids, and the deck still starts, with
every other plugin."""

from __future__ import annotations

from tests.support.browser import open_deck, wait_until

BROKEN_ZOOM = 'export const plugin = { id: "zoom", init() { throw new Error("zoom broke"); } };\n'


def test_a_missing_and_a_failing_plugin_are_named_and_the_rest_start(page, deck_url):
    page.route("**/js/page/help.js", lambda route: route.fulfill(status=404, body="not found"))
    page.route(
        "**/js/page/zoom.js",
        lambda route: route.fulfill(status=200, content_type="text/javascript", body=BROKEN_ZOOM),
    )
    open_deck(page, deck_url)
    plugins = page.evaluate(
        "({started: window.deck.plugins.started,"
        " failed: Object.fromEntries(Object.entries(window.deck.plugins.failed)"
        "   .map(([id, e]) => [id, String(e && e.message)]))})"
    )
    assert plugins["started"] == ["prerun", "polls", "hallcounts"], plugins
    assert set(plugins["failed"]) == {"help", "zoom"}, plugins
    assert '"help" is missing' in plugins["failed"]["help"], plugins
    assert plugins["failed"]["zoom"] == "zoom broke", plugins
    assert page.evaluate("document.documentElement.dataset.pluginsFailed") == "help zoom"
    # the rest of the page works: the polls are there, and Python comes up
    assert page.evaluate("window.deck.polls.size") > 0
    wait_until(page, "['ready','running'].includes(window.deck.runtime.state)", 90)


def test_every_plugin_starts_on_the_plain_page(page, deck_url):
    open_deck(page, deck_url)
    assert page.evaluate("window.deck.plugins") == {
        "started": ["help", "zoom", "prerun", "polls", "hallcounts"],
        "failed": {},
    }
    assert page.evaluate("document.documentElement.dataset.pluginsFailed") is None
