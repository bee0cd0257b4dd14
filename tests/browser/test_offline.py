"""The deck without a network, after one visit: the Service Worker (static/js/serviceworker/sw.js) keeps every
file of offline.json (dpdeck/build/offline.py), and with the browser offline the reloaded deck runs
every cell, draws its figures, and loads a wheel on demand; a new deploy replaces the cache.

Opened without ``?nosw`` so the Service Worker runs; the server is the isolated one, so the page
registers it once Python is ready and the cells pre-ran (static/js/page/isolation.js, keepOffline) and
asks it for the rest. The worker's logic alone, without a browser: tests/js/sw.test.mjs.
"""

from __future__ import annotations

import json
import time

from dpdeck.build.schema import load_deck
from tests.support.browser import open_deck, run_cell, wait_runtime_ready, wait_until
from tests.support.deck_text import DRAWS
from tests.support.paths import LECTURE, ROOT

CODE_SLIDES = [s for s in load_deck(LECTURE).slides if s.code]
STATUS = "#runtime-status"
CONTOUR = (
    "import matplotlib.pyplot as plt\n"
    "x = np.linspace(-2, 2, 30)\nz = np.exp(-x[:, None]**2 - x[None, :]**2)\n"
    "plt.contour(x, x, z)\nplt.show()"
)


def _cached(page) -> dict:
    """Cache Storage as the page sees it: cache name → the URL paths it holds."""
    return page.evaluate(
        """async () => {
        const out = {};
        for (const name of await caches.keys()) {
            const keys = await (await caches.open(name)).keys();
            out[name] = keys.map((r) => new URL(r.url).pathname.slice(1));
        }
        return out;
    }"""
    )


def test_whole_deck_runs_offline_after_one_visit(context, page, deck_url, built_deck):
    manifest = json.loads((built_deck / "offline.json").read_text(encoding="utf-8"))
    open_deck(page, deck_url)
    wait_runtime_ready(page)
    # the Service Worker says every file is kept (a tooltip on the status, in Spanish)
    wait_until(page, f"document.querySelector('{STATUS}').dataset.offline === 'ready'", 240)
    status = page.locator(STATUS)
    assert status.get_attribute("data-offline-version") == manifest["version"]
    assert "sin conexión" in (status.get_attribute("title") or "")
    cached = _cached(page)
    assert list(cached) == [f"dpdeck-{manifest['version']}"], list(cached)
    missing = set(manifest["files"]) - set(next(iter(cached.values())))
    assert not missing, sorted(missing)

    context.set_offline(True)
    page.errors.clear()
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 30)
    wait_runtime_ready(page, 120)
    assert page.evaluate("navigator.onLine") is False
    failures = []
    for slide in CODE_SLIDES:
        out = run_cell(page, slide.id)
        if out["state"] != "done" or out["error"]:
            failures.append(f"{slide.id}: {out['error'][-600:]}")
        elif DRAWS.search(slide.code) and out["figures"] < 1:
            failures.append(f"{slide.id}: drew no figure")
    assert not failures, "cells failed offline:\n" + "\n".join(failures)
    # a wheel left out of the cold load (contour plots need contourpy), loaded on demand offline
    out = run_cell(page, CODE_SLIDES[0].id, code=CONTOUR)
    assert out["state"] == "done" and out["figures"] == 1, out
    assert "contourpy" in out["stderr"], out
    # offline too, once the cells pre-ran, the tooltip says the deck is all here
    wait_until(page, f"document.querySelector('{STATUS}').dataset.offline === 'ready'", 180)
    assert not page.errors, page.errors


def test_manifest_lists_what_the_deck_fetches_and_versions_every_byte(tmp_path):
    """offline.json: index.html, vendor/, static-<hash>/, assets/; no .br/.gz siblings, no bench
    files, not itself nor sw.js; the version changes with any listed file; sw.js is stamped."""
    from dpdeck.build.offline import VERSION_PLACEHOLDER, write_offline_manifest

    for rel in (
        "index.html",
        "index.html.br",
        "vendor/pyodide-1/pyodide.asm.wasm",
        "vendor/pyodide-1/pyodide.asm.wasm.gz",
        "static-abc/js/deck.js",
        "assets/img/a.svg",
        "bench-baseline/index.html",
        "stray.txt",
    ):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(rel, encoding="utf-8")
    source = tmp_path.parent / f"{tmp_path.name}-sw.js"
    source.write_text(f'const VERSION = "{VERSION_PLACEHOLDER}";', encoding="utf-8")
    first = write_offline_manifest(tmp_path, "abc", source)
    manifest = json.loads((tmp_path / "offline.json").read_text(encoding="utf-8"))
    assert manifest == {
        "version": first,
        "files": [
            "assets/img/a.svg",
            "index.html",
            "static-abc/js/deck.js",
            "vendor/pyodide-1/pyodide.asm.wasm",
        ],
    }
    assert first.startswith("abc-") and first in (tmp_path / "sw.js").read_text(encoding="utf-8")
    (tmp_path / "index.html").write_text("a new slide", encoding="utf-8")  # same config version
    assert write_offline_manifest(tmp_path, "abc", source) != first


def test_a_new_deploy_replaces_the_cache(context, page, built_deck, tmp_path):
    """Deploy, visit until everything is kept; deploy a change (a new offline.json version, so a
    new sw.js); the next online visit installs the new worker, which keeps the new version's
    files and deletes the old version's cache."""
    import shutil

    from dpdeck.build.offline import write_offline_manifest
    from dpdeck.serve.server import serve_in_thread

    site = tmp_path / "site"
    shutil.copytree(built_deck, site)
    old = json.loads((site / "offline.json").read_text(encoding="utf-8"))["version"]
    server, url = serve_in_thread(site)
    try:
        begun = time.monotonic()
        open_deck(page, url)
        wait_runtime_ready(page)
        wait_until(page, f"document.querySelector('{STATUS}').dataset.offline === 'ready'", 240)
        # the reference for the new worker's install, measured here: this visit kept every file
        kept = time.monotonic() - begun
        assert list(_cached(page)) == [f"dpdeck-{old}"]
        # the new deploy: a changed page, its manifest and a freshly stamped sw.js
        index = site / "index.html"
        index.write_text(index.read_text(encoding="utf-8").replace("</body>", "<!-- v2 --></body>"), "utf-8")
        for stale in [*site.glob("*.br"), *site.glob("*.gz")]:  # the compressed copies of the old
            stale.unlink()
        new = write_offline_manifest(
            site, old.split("-")[0], ROOT / "static" / "js" / "serviceworker" / "sw.js"
        )
        assert new != old
        page.reload()
        wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 30)
        # its install copies the kept files into the new cache, less work than keeping them was:
        # the deadline is twice what that took here (a busy machine slows both), and 30 s more
        replaced = "(v) => caches.keys().then((k) => k.length === 1 && k[0] === 'dpdeck-' + v)"
        wait_until(page, replaced, 30 + 2 * kept, arg=new)
        wait_runtime_ready(page)
        wait_until(page, f"document.querySelector('{STATUS}').dataset.offlineVersion === '{new}'", 240)
        wait_until(page, f"document.querySelector('{STATUS}').dataset.offline === 'ready'", 240)
        assert list(_cached(page)) == [f"dpdeck-{new}"]
        assert "<!-- v2 -->" in page.content()
    finally:
        server.shutdown()
