"""A poll in a real hall (``python -m deckbuild.hall`` over the built deck), end to end.

The test is every student, so it knows every true answer: all «sí». Two student pages (a laptop
and a phone at 390×844) answer 15 times each, each answer from a fresh device id (the hall
keeps one answer per device). What crosses the wire (every POST body to /_hall/answer) and what
the server keeps (its SQLite file) are only the randomized answers: 0 or 1, some of them «no»
(were the truth sent, all 30 would be 1; randomized at ε = ln 3 all stay «sí» with chance
0,75³⁰ ≈ 2·10⁻⁴). The presenter's page shows the 30 answers and dplab's estimate on the
counts the server holds.
"""

from __future__ import annotations

import json
import math
import secrets
import sqlite3

import dplab
import pytest

from tests.support.browser import go_to_slide, hall_view, open_deck, wait_runtime_ready, wait_until
from tests.support.hall_process import HallProcess
from tests.support.paths import ROOT

POLL = "encuesta-copiar"
BOARD = f"#{POLL} .poll"
RESULTS = ROOT / "test-results"
PER_PAGE = 15


@pytest.fixture
def hall(built_deck, tmp_path):
    process = HallProcess(built_deck, tmp_path / "hall.sqlite3", tmp_path / "token").start()
    yield process
    process.stop()


def _student(browser, url: str, viewport: dict, wire: list, **options):
    context = browser.new_context(viewport=viewport, **options)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("request", lambda r: wire.append(r.post_data) if r.url.endswith("/_hall/answer") else None)
    open_deck(page, url + f"?noprerun#/{POLL}", 60)
    wait_runtime_ready(page, 180)
    wait_until(page, f"document.querySelector('{BOARD}').dataset.mode === 'student'", 30)
    return context, page


def _answer_yes_as_new_devices(page, times: int) -> None:
    for _ in range(times):
        page.evaluate(
            "(id) => { localStorage.removeItem(Object.keys(localStorage).find(k => k.startsWith('dpdeck-poll')));"
            " window.deck.hall.deviceId = id; const p = window.deck.polls.get('encuesta-copiar');"
            " p.setMode('copy'); p.setMode('student'); }",
            secrets.token_hex(16),
        )
        page.locator(f"{BOARD} .poll-option", has_text="sí").click()
        page.locator(f"{BOARD} .poll-send").click()
        wait_until(
            page, f"document.querySelector('{BOARD} .poll-status').textContent.startsWith('Enviada')", 60
        )


def test_a_hall_poll_carries_and_keeps_only_randomized_answers(browser, hall, tmp_path):
    presenter = browser.new_context(viewport={"width": 1280, "height": 720})
    board = presenter.new_page()
    board.errors = []
    board.on("pageerror", lambda e: board.errors.append(str(e)))
    board.goto(hall.presenter.replace("#", "?noprerun#", 1))
    wait_until(board, "document.documentElement.dataset.deckReady === 'true'", 60)
    wait_runtime_ready(board, 180)
    wait_until(board, lambda: (h := hall_view(board)) and h["present"] and h["presenter"], 30)
    go_to_slide(board, POLL)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.mode === 'presenter'", 30)

    wire: list[str] = []
    laptop, one = _student(browser, hall.audience, {"width": 1280, "height": 720}, wire)
    phone, two = _student(
        browser, hall.audience, {"width": 390, "height": 844}, wire, is_mobile=True, has_touch=True
    )
    _answer_yes_as_new_devices(one, PER_PAGE)
    _answer_yes_as_new_devices(two, PER_PAGE)

    # on the wire: only {device, poll, answer}, the answer 0 or 1, and not always the truth
    bodies = [json.loads(b) for b in wire]
    assert len(bodies) == 2 * PER_PAGE
    assert all(set(b) == {"device", "poll", "answer"} and b["poll"] == POLL for b in bodies)
    sent = [b["answer"] for b in bodies]
    assert set(sent) <= {0, 1} and 0 in sent, sent
    # in the server's SQLite file: the same randomized answers, one per device, nothing else
    with sqlite3.connect(tmp_path / "hall.sqlite3") as db:
        rows = db.execute("SELECT device, answer FROM answers WHERE poll = ?", (POLL,)).fetchall()
        columns = [c[1] for c in db.execute("PRAGMA table_info(answers)")]
    assert sorted(rows) == sorted((b["device"], b["answer"]) for b in bodies)
    assert columns == ["poll", "device", "answer"], columns
    # the presenter's numbers are dplab's on the counts the server holds
    counts = [sent.count(0), sent.count(1)]
    wait_until(
        board,
        f"document.querySelector('{BOARD}').dataset.counts === '{json.dumps(counts).replace(' ', '')}'",
        60,
    )
    wait_until(board, f"document.querySelector('{BOARD}').dataset.estimate", 60)
    wait_until(board, f"document.querySelectorAll('{BOARD} .poll-figure img').length === 1", 180)
    shown = json.loads(board.evaluate(f"document.querySelector('{BOARD}').dataset.estimate"))
    expected = dplab.rr_estimate(counts[1], sum(counts), math.log(3))
    assert shown == pytest.approx([expected.estimate], abs=1e-12)
    numbers = board.evaluate(f"document.querySelector('{BOARD} .poll-numbers').innerText")
    assert "30" in numbers and "tras ver «sí»" in board.evaluate(
        f"document.querySelector('{BOARD} .poll-posterior').textContent"
    )
    RESULTS.mkdir(exist_ok=True)
    wait_until(board, f"!document.querySelector('{BOARD} .poll-figure').classList.contains('is-stale')", 120)
    board.screenshot(path=str(RESULTS / "hall-poll-presenter-1280.png"))
    one.screenshot(path=str(RESULTS / "hall-poll-student-1280.png"))
    two.screenshot(path=str(RESULTS / "hall-poll-student-390.png"))
    for page in (board, one, two):
        assert not page.errors, page.errors
    for context in (presenter, laptop, phone):
        context.close()
