"""A poll in a real hall (``python -m dpdeck.hall`` over the built deck), end to end.

The test is every student, so it knows every true answer: all «sí». Two student pages (a laptop
and a phone at 390×844) answer 15 times each, each answer as a fresh device (the hall keeps one
answer per poll token, a random id the page draws for that poll alone). What crosses the wire (every POST body to /_hall/answer) and what
the server keeps (its SQLite file) are only the randomized answers: 0 or 1, some of them «no»
(were the truth sent, all 30 would be 1; randomized at ε = ln 3 all stay «sí» with chance
0,75³⁰ ≈ 2·10⁻⁴). The presenter's page shows the 30 answers and dplab's estimate on the
counts the server holds.
"""

from __future__ import annotations

import json
import math
import re
import secrets
import sqlite3
from pathlib import Path

import dplab
import pytest

from tests.support.browser import (
    REFUSE_STORAGE,
    go_to_slide,
    hall_view,
    open_deck,
    wait_runtime_ready,
    wait_until,
)
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


def _answer_yes(page) -> None:
    page.locator(f"{BOARD} .poll-option", has_text="sí").click()
    page.locator(f"{BOARD} .poll-send").click()
    wait_until(page, f"document.querySelector('{BOARD} .poll-status').textContent.startsWith('Enviada')", 60)


def _answer_yes_as_new_devices(page, tickets: list[str]) -> None:
    """Each answer as another device that held a live channel when the poll was shown (the
    test opened those channels itself and hands the page each one's ticket)."""
    for ticket in tickets:
        page.evaluate(
            "([id, ticket]) => { const h = window.deck.hall; h.deviceId = id;"
            " h.tickets.set('encuesta-copiar', {poll: 'encuesta-copiar', round: 1, ticket});"
            " const p = window.deck.polls.get('encuesta-copiar');"
            " p.store.forget(); p.setMode('copy'); p.setMode('student'); }",
            [secrets.token_hex(16), ticket],
        )
        _answer_yes(page)


EXERCISE = "ejercicio-escala-laplace"


def _presenter_tab(browser, hall, slide: str, before: bool = False):
    """A presenter's tab on ``slide`` (``before``: on the slide before it, the poll not shown yet)."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.goto(hall.presenter.replace("#", "?noprerun#", 1))
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 60)
    wait_until(page, lambda: (h := hall_view(page)) and h["present"] and h["presenter"], 30)
    if before:
        _before(page, slide)
    else:
        go_to_slide(page, slide)
    return context, page


def _before(page, slide_id: str) -> None:
    """The presenter moves to the slide before ``slide_id``."""
    page.evaluate(
        "(id) => window.deck.reveal.slide(window.deck.reveal.getIndices(document.getElementById(id)).h - 1)",
        slide_id,
    )


def _presenters_note_and_csv(board, student, admitted: int, counts: list[int]) -> None:
    """The presenter's slide shows its own note (the student's its), and its CSV holds the
    round's counts of randomized answers, nothing else."""
    # the presenter's note, not the students'
    assert board.locator(f"{BOARD} .poll-rule-presenter").is_visible()
    assert board.locator(f"{BOARD} .poll-rule").is_hidden()
    assert student.locator(f"{BOARD} .poll-rule").is_visible()
    assert student.locator(f"{BOARD} .poll-rule-presenter").is_hidden()
    # the CSV: the round's counts of randomized answers, nothing else
    with board.expect_download() as download:
        board.locator(f"{BOARD} .poll-csv").click()
    csv = Path(download.value.path()).read_text(encoding="utf-8-sig").splitlines()
    assert csv == [
        "encuesta;ronda;ε;dispositivos admitidos;opción;respuestas aleatorizadas",
        f'"{POLL}";1;1,0986122886681098;{admitted};"no";{counts[0]}',
        f'"{POLL}";1;1,0986122886681098;{admitted};"sí";{counts[1]}',
    ]
    assert download.value.suggested_filename == f"{POLL}-ronda-1.csv"


def _a_new_round(board, answered, late) -> None:
    """«Nueva ronda» asks first, saying it is a second release; then the round starts afresh,
    and a page that answered round 1 is told that answering again is a second release."""
    board.locator(f"{BOARD} .poll-new-round").click()
    confirm = board.locator(f"{BOARD} .poll-round-confirm")
    assert (
        confirm.is_visible()
        and "(la 2.ª) es otra publicación" in confirm.inner_text()
        and "otro ε" in confirm.inner_text()
        and "rε" in confirm.inner_text()
    )
    board.screenshot(path=str(RESULTS / "hall-poll-new-round-1280.png"))
    # clear of reveal.js's arrows at the bottom right, which stay clickable
    box = confirm.bounding_box()
    for arrow in (".navigate-left", ".navigate-right"):
        a = board.locator(f".reveal .controls {arrow}").bounding_box()
        assert (
            box["y"] + box["height"] <= a["y"]  # above it
            or box["x"] + box["width"] <= a["x"]  # left of it
            or a["x"] + a["width"] <= box["x"]  # right of it
            or a["y"] + a["height"] <= box["y"]  # below it
        ), (arrow, box, a)
    board.locator(f"{BOARD} .poll-round-no").click()
    assert confirm.is_hidden() and board.evaluate(f"document.querySelector('{BOARD}').dataset.n") == "30"
    board.locator(f"{BOARD} .poll-new-round").click()
    board.locator(f"{BOARD} .poll-round-yes").click()
    wait_until(board, f"document.querySelector('{BOARD}').dataset.round === '2'", 30)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.n === '0'", 30)
    # a student connected now may answer the new round, told that it is a second release
    for page in (answered, late):  # the form opens again (a radio enabled), for the new round's ticket
        wait_until(page, f"!document.querySelector('{BOARD} .poll-option input').disabled", 30)
    assert "Nueva ronda" in answered.locator(f"{BOARD} .poll-status").inner_text()  # it answered round 1
    _answer_yes(late)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.n === '1'", 30)


def test_a_hall_poll_carries_and_keeps_only_randomized_answers(browser, hall, tmp_path):
    """The students' pages and 28 more devices hold a channel when the presenter shows the poll:
    admitted. A reload keeps a page's ticket; a page opened after the poll was shown is told it
    cannot answer this round (issue 30). The presenter's slide shows answers beside devices, its
    own note, the CSV of the counts and «Nueva ronda», which asks first (issue 33, 16)."""
    presenter, board = _presenter_tab(browser, hall, POLL, before=True)
    wait_runtime_ready(board, 180)

    wire: list[str] = []
    laptop, one = _student(browser, hall.audience, {"width": 1280, "height": 720}, wire)
    phone, two = _student(
        browser, hall.audience, {"width": 390, "height": 844}, wire, is_mobile=True, has_touch=True
    )
    others = hall.open_streams([secrets.token_hex(16) for _ in range(2 * (PER_PAGE - 1))])
    wait_until(board, "window.deck.hall.devices >= 31", 30)
    go_to_slide(board, POLL)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.mode === 'presenter'", 30)
    tickets = hall.tickets(others)
    for page in (one, two):
        wait_until(page, "window.deck.hall.ticket('encuesta-copiar') !== null", 30)
    one.reload()  # a reload keeps the right to answer: the hall sends the ticket again
    wait_until(one, "document.documentElement.dataset.deckReady === 'true'", 180)
    wait_runtime_ready(one, 180)
    wait_until(one, f"document.querySelector('{BOARD}').dataset.mode === 'student'", 30)
    wait_until(one, f"document.querySelector('{BOARD} .poll-status').textContent.startsWith('Elija')", 30)
    late_context, late = _student(browser, hall.audience, {"width": 1280, "height": 720}, wire)
    wait_until(late, f"document.querySelector('{BOARD} .poll-status').textContent.includes('después')", 30)
    assert late.locator(f"{BOARD} .poll-send").is_disabled()
    assert "nueva ronda" in late.locator(f"{BOARD} .poll-status").inner_text()
    for page, mine in ((one, tickets[: PER_PAGE - 1]), (two, tickets[PER_PAGE - 1 :])):
        _answer_yes(page)  # as itself
        _answer_yes_as_new_devices(page, mine)

    # on the wire: only {token, poll, answer}, the answer 0 or 1, and not always the truth; the
    # token is the poll's own, never the device id of the live channel
    bodies = [json.loads(b) for b in wire]
    assert len(bodies) == 2 * PER_PAGE
    assert all(set(b) == {"token", "poll", "answer", "ticket"} and b["poll"] == POLL for b in bodies)
    assert set(tickets) < {b["ticket"] for b in bodies}  # and the students' own two
    sent = [b["answer"] for b in bodies]
    assert set(sent) <= {0, 1} and 0 in sent, sent
    devices = {p.evaluate("window.deck.hall.deviceId") for p in (one, two)}
    assert not devices & {b["token"] for b in bodies}
    # in the server's SQLite file: the same randomized answers, one per token, nothing else
    with sqlite3.connect(tmp_path / "hall.sqlite3") as db:
        rows = db.execute("SELECT token, answer FROM poll_answers WHERE poll = ?", (POLL,)).fetchall()
        columns = [c[1] for c in db.execute("PRAGMA table_info(poll_answers)")]
    assert sorted(rows) == sorted((b["token"], b["answer"]) for b in bodies)
    assert columns == ["poll", "token", "answer"], columns
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("hall.sqlite3*"))
    assert not any(b["ticket"].encode() in raw for b in bodies)  # tickets: in memory only
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
    admitted = int(board.evaluate(f"document.querySelector('{BOARD}').dataset.admitted"))
    # 2 students and 28 more devices held a channel, and the presenter's page, which leaves itself out
    assert admitted == 30
    assert f"30 de {admitted} dispositivos" in numbers and "tras ver «sí»" in board.evaluate(
        f"document.querySelector('{BOARD} .poll-posterior').textContent"
    )
    RESULTS.mkdir(exist_ok=True)
    wait_until(board, f"!document.querySelector('{BOARD} .poll-figure').classList.contains('is-stale')", 120)
    board.screenshot(path=str(RESULTS / "hall-poll-presenter-1280.png"))
    one.screenshot(path=str(RESULTS / "hall-poll-student-1280.png"))
    two.screenshot(path=str(RESULTS / "hall-poll-student-390.png"))
    late.screenshot(path=str(RESULTS / "hall-poll-late-student-1280.png"))
    _presenters_note_and_csv(board, one, admitted, counts)
    _a_new_round(board, two, late)
    with sqlite3.connect(tmp_path / "hall.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM poll_answers WHERE poll = ?", (POLL,)).fetchone() == (1,)
    for page in (board, one, two, late):
        assert not page.errors, page.errors
    for context in (presenter, laptop, phone, late_context):
        context.close()


def test_the_halls_budget_is_the_servers_and_no_tab_gets_past_it(browser, hall, tmp_path):
    """Issue 31, leak 2: the exercise counts are drawn by the server, spent from one budget of
    ε = 4 (8 counts of 0,5) that the server keeps. A presenter tab spends it; a fresh tab (a new
    browser context: no storage shared) sees the same last count for free, and is refused a new
    one. No page ever holds the true count; students see the line on what a ✓ tells."""
    for i in range(3):
        device = "%032x" % (i + 1)
        ticket = hall.solve_ticket(EXERCISE, device)
        status, _ = hall.post("_hall/solved", {"token": device, "exercise": EXERCISE, "ticket": ticket})
        assert status == 201
    box = f"#{EXERCISE} .hall-count"
    first_context, first = _presenter_tab(browser, hall, EXERCISE)
    wait_until(first, f"!document.querySelector('{box}').hidden", 30)
    assert "Privacidad central" in first.locator(f"{box} .hall-count-central").inner_text()
    values = []
    for i in range(8):
        first.locator(f"{box} .hall-count-btn").click()
        meter = f"ε: {dplab.fmt(0.5 * (i + 1))} de 4"
        wait_until(
            first, f"(m) => document.querySelector('{box} .budget-text')?.textContent === m", 60, arg=meter
        )
        wait_until(first, f"!document.querySelector('{box} .hall-count-btn').disabled", 10)
        values.append(int(first.evaluate(f"document.querySelector('{box}').dataset.noisy")))
        text = first.locator(f"{box} .hall-count-text").inner_text()
        # the count shown is the noisy one clipped to what is public and true (0 …)
        shown = int(re.search(r"≈ (\d+) dispositivos? lo resolvi", text).group(1))
        assert shown == max(0, values[-1]) or (shown < values[-1] and "recortado" in text), text
        assert "discreto" in text, text
    assert "Contar de nuevo" in first.locator(f"{box} .hall-count-btn").inner_text()

    fresh_context, fresh = _presenter_tab(browser, hall, EXERCISE)
    wait_until(fresh, f"!document.querySelector('{box}').hidden", 30)
    fresh.locator(f"{box} .hall-count-btn").click()  # the last count again: free
    wait_until(fresh, f"document.querySelector('{box}').dataset.noisy === '{values[-1]}'", 30)
    assert "no gastó presupuesto" in fresh.locator(f"{box} .hall-count-text").inner_text()
    fresh.locator(f"{box} .hall-count-btn").click()  # a new draw: past the budget
    wait_until(
        fresh, f"document.querySelector('{box} .hall-count-text').textContent.includes('se agotó')", 30
    )
    assert "rechazada" in fresh.locator(f"{box} .budget-refused").inner_text()
    with sqlite3.connect(tmp_path / "hall.sqlite3") as db:
        kept = db.execute("SELECT value, epsilon FROM releases").fetchall()
    assert [v for v, _ in kept] == values and {e for _, e in kept} == {0.5}
    # a student on the exercise slide: the line on what a ✓ tells, no count, no button
    student_context = browser.new_context(viewport={"width": 1280, "height": 720})
    student = student_context.new_page()
    open_deck(student, hall.audience + f"?noprerun#/{EXERCISE}", 60)
    wait_until(student, f"!document.querySelector('#{EXERCISE} .hall-count-note').hidden", 30)
    assert student.locator(box).is_hidden()
    assert "privacidad central" in student.locator(f"#{EXERCISE} .hall-count-note").inner_text()
    RESULTS.mkdir(exist_ok=True)
    first.screenshot(path=str(RESULTS / "hall-count-presenter-1280.png"))
    student.screenshot(path=str(RESULTS / "hall-count-student-1280.png"))
    for page in (first, fresh):
        assert not page.errors, page.errors
    for context in (first_context, fresh_context, student_context):
        context.close()


def test_a_page_that_refuses_storage_counts_a_solve_once(browser, hall, tmp_path):
    """A browser refusing storage keeps its solve tokens in the page: a second ✓ of the same
    exercise on that page is the same solve (201, then 200), not a second device."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(REFUSE_STORAGE)
    page = context.new_page()
    open_deck(page, hall.audience + f"?noprerun#/{EXERCISE}", 60)
    wait_until(page, lambda: (h := hall_view(page)) and h["present"], 30)
    outcomes = [page.evaluate("(id) => window.deck.hall.solved(id)", EXERCISE) for _ in range(3)]
    assert outcomes == ["ok"] * 3
    with sqlite3.connect(tmp_path / "hall.sqlite3") as db:
        assert db.execute("SELECT COUNT(*) FROM solves WHERE exercise = ?", (EXERCISE,)).fetchone() == (1,)
    context.close()
