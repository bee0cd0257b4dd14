"""``build.py serve --watch``: an author saves a chapter while the page is open.

A new lecture (``build.py new``) is served by the real command in a subprocess. Saving a
change to a text slide swaps the new text in on the same slide within 3 s, without a reload
(a value the page holds survives, so Python's state does too); a slip in the file shows the
build's message (file, line, slide, field) over the slides; the fix takes it away. A change to
a code slide reloads the page onto the same slide.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time

import pytest

from dpdeck.build.scaffold import new_deck
from tests.support.browser import cell_code, current_slide, open_deck, wait_until
from tests.support.paths import ROOT

TEXT_SLIDE = "el-mecanismo-de-laplace"
CODE_SLIDE = "un-conteo-con-ruido"


@pytest.fixture(scope="module")
def watched(tmp_path_factory):
    folder = tmp_path_factory.mktemp("autor") / "clase"
    new_deck(folder, "Clase en preparación")
    env = dict(os.environ, DPDECK_NO_COMPRESS="1", PYTHONUNBUFFERED="1")
    cmd = [sys.executable, "build.py", "serve", "--watch", "--deck", str(folder / "deck.yaml"), "--port", "0"]
    cmd += ["--hall-db", str(folder.parent / "hall.sqlite3")]
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    url, lines = None, []
    deadline = time.monotonic() + 120
    while url is None and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line)
        found = re.search(r"serving the deck at (http://\S+/)", line)
        url = found and found.group(1)
    assert url, "".join(lines)
    yield folder / "01-introduccion.yaml", url, proc
    proc.terminate()
    proc.wait(10)


def _save(path, text: str) -> None:
    path.write_text(text, encoding="utf-8")


def _rebuild_seconds(proc) -> float:
    """The seconds of the last rebuild, from the server's «rebuilt in 0.71 s (…)» line."""
    while True:
        line = proc.stdout.readline()
        assert line, "the server ended"
        found = re.search(r"rebuilt in ([0-9.]+) s", line)
        if found:
            return float(found.group(1))


def test_a_saved_text_slide_swaps_in_place_and_a_slip_shows_its_message(watched, page):
    chapter, url, proc = watched
    authored = chapter.read_text(encoding="utf-8")
    open_deck(page, url + f"#/{TEXT_SLIDE}")
    page.evaluate("window.__before_save = 'still here'")
    _save(chapter, authored.replace("Para publicar un conteo", "Para publicar un total"))
    saved = time.monotonic()
    wait_until(page, f"document.getElementById('{TEXT_SLIDE}').textContent.includes('un total')", 10)
    took = time.monotonic() - saved
    # 3 s on a quiet machine; on a busy one the rebuild (the server's own measure, in this
    # run) is what slows, and the page's part (noticing, fetching, swapping) keeps its 2 s
    assert took <= max(3.0, _rebuild_seconds(proc) + 2.0), f"the new text took {took:.1f} s"
    assert page.evaluate("window.__before_save") == "still here"  # no reload: Python kept
    assert current_slide(page) == TEXT_SLIDE

    _save(chapter, authored.replace("    notes: Lo que", "    nots: Lo que"))
    wait_until(
        page, "document.getElementById('watch-error') && !document.getElementById('watch-error').hidden", 10
    )
    message = page.locator("#watch-error pre").inner_text()
    assert "01-introduccion.yaml" in message and "nots" in message and "slide 2" in message, message
    page.screenshot(path=str(ROOT / "test-results" / "watch-error.png"))

    _save(chapter, authored)
    wait_until(page, "document.getElementById('watch-error').hidden", 10)
    wait_until(page, f"document.getElementById('{TEXT_SLIDE}').textContent.includes('un conteo')", 10)


def test_a_saved_code_slide_reloads_onto_the_same_slide(watched, page):
    chapter, url, _proc = watched
    authored = chapter.read_text(encoding="utf-8")
    open_deck(page, url + f"#/{CODE_SLIDE}")
    page.evaluate("window.__before_save = 'still here'")
    try:
        _save(chapter, authored.replace("verdad = 120", "verdad = 121"))
        wait_until(page, "!window.__before_save && document.documentElement.dataset.deckReady === 'true'", 20)
        wait_until(page, lambda: "verdad = 121" in cell_code(page, 0), 10)
        assert current_slide(page) == CODE_SLIDE
    finally:
        _save(chapter, authored)
        # the restore's rebuild reloads open pages: it lands here, not under the next test's page
        restored = "(window.deck?.cells?.[0]?.code ?? '').includes('verdad = 120')"
        try:  # wait_until rides over the reload itself
            wait_until(page, restored, 30)
        except TimeoutError:  # not raised from here: it would hide the test's own failure
            pass


def test_an_edited_bullet_on_a_fragment_slide_stays_shown(watched, page):
    """Issue 33: a bullet edited on a fragment slide disappeared after the text was swapped in
    (the new HTML's fragments start hidden; main: fails here). The fragments shown stay shown,
    on the same fragment."""
    chapter, url, _proc = watched
    authored = chapter.read_text(encoding="utf-8")
    open_deck(page, url + f"#/{TEXT_SLIDE}")
    page.evaluate("window.deck.reveal.nextFragment(); window.deck.reveal.nextFragment()")
    shown = page.evaluate("window.deck.reveal.getIndices().f")
    visible = f"[...document.querySelectorAll('#{TEXT_SLIDE} .fragment.visible')].map(e => e.textContent)"
    assert len(page.evaluate(visible)) == 2
    page.evaluate("window.__before_save = 'still here'")
    try:
        _save(chapter, authored.replace("se suma ruido de Laplace", "se añade ruido de Laplace"))
        wait_until(page, f"document.getElementById('{TEXT_SLIDE}').textContent.includes('se añade')", 30)
        assert page.evaluate("window.__before_save") == "still here"  # swapped, not reloaded
        texts = page.evaluate(visible)
        assert len(texts) == 2 and "se añade ruido" in texts[0], texts
        assert page.evaluate("window.deck.reveal.getIndices().f") == shown
        assert current_slide(page) == TEXT_SLIDE
    finally:
        _save(chapter, authored)
