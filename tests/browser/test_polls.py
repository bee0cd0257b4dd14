"""Poll slides in Chromium: randomized response on the device, the hall's estimate on screen.

Without a hall (a static host) the poll runs a simulated hall and nothing errors; with a hall
object that records what the page hands it (the contract's ``hall.answer``), the page sends
only randomized answers, whatever the true one; the presenter's numbers are dplab's on the
counts the hall holds. tests/browser/test_hall_polls.py runs the same against the real server.
"""

from __future__ import annotations

import json
import math

import dplab
import pytest

from tests.support.browser import REFUSE_STORAGE, open_deck, wait_runtime_ready, wait_until
from tests.support.paths import ROOT

POLL = "encuesta-copiar"
LN3 = math.log(3)
RESULTS = ROOT / "test-results"
BOARD = f"#{POLL} .poll"


def board(page) -> dict:
    return page.evaluate(
        """(sel) => { const p = document.querySelector(sel);
            return {mode: p.dataset.mode, n: Number(p.dataset.n ?? -1),
                    counts: JSON.parse(p.dataset.counts ?? 'null'),
                    estimate: JSON.parse(p.dataset.estimate ?? 'null'),
                    numbers: p.querySelector('.poll-numbers').innerText.replace(/\u00a0/g, ' '),
                    posterior: p.querySelector('.poll-posterior').textContent.replace(/\u00a0/g, ' '),
                    status: p.querySelector('.poll-status').textContent.replace(/\u00a0/g, ' '),
                    figures: p.querySelectorAll('.poll-figure img').length,
                    checked: [...p.querySelectorAll('.poll-option input')].filter(i => i.checked).length}; }""",
        BOARD,
    )


def answer(page, label: str) -> None:
    page.locator(f"{BOARD} .poll-option", has_text=label).click()
    page.locator(f"{BOARD} .poll-send").click()


def expected_numbers(counts: list[int]) -> dplab.local.RREstimate:
    return dplab.rr_estimate(counts[1], sum(counts), LN3)


def test_without_a_hall_the_poll_simulates_one(page, deck_url_plain):
    open_deck(page, deck_url_plain + f"#/{POLL}")
    wait_runtime_ready(page)
    wait_until(page, f"document.querySelector('{BOARD}').dataset.mode === 'simulated'", 10)
    # the simulated hall arrives in batches; each estimate is dplab's on the counts shown
    wait_until(page, f"Number(document.querySelector('{BOARD}').dataset.n) >= 40", 90)
    wait_until(page, f"document.querySelectorAll('{BOARD} .poll-figure img').length === 1", 90)
    # the device's own answer randomized to «no» (0) once reopened the form: force that draw
    page.evaluate(
        """() => { const rt = window.deck.runtime, call = rt.call.bind(rt);
            rt.call = (name, args, ...rest) => name === 'poll.randomize'
                ? Promise.resolve({ok: true, value: 0}) : call(name, args, ...rest); }"""
    )
    answer(page, "sí")
    wait_until(page, f"Number(document.querySelector('{BOARD}').dataset.n) === 41", 60)
    wait_until(
        page,
        f"(() => {{ const p = document.querySelector('{BOARD}'); "
        "return JSON.parse(p.dataset.counts).reduce((a, b) => a + b) === 41 && p.dataset.estimate; })()",
        30,
    )
    b = board(page)
    assert "se sumó a la sala simulada" in b["status"] and b["checked"] == 0
    expected = expected_numbers(b["counts"])
    assert b["estimate"] == pytest.approx([expected.estimate], abs=1e-12)
    assert "Respuestas\n41" in b["numbers"].replace("\t", "\n")
    assert "tras ver «sí» en su respuesta se cree a lo sumo un 75 %" in b["posterior"]
    assert "k encuestas a la misma persona cuestan kε" in b["posterior"]
    assert "," not in b["numbers"] or "IC 95 %" in b["numbers"]
    # one answer per device and poll: the form stays closed
    assert page.locator(f"{BOARD} .poll-send").is_disabled()
    assert page.evaluate(
        f"[...document.querySelectorAll('{BOARD} .poll-option input')].every(i => i.disabled)"
    )
    # nothing left the page, nothing was stored, and nothing errored
    assert not [u for u in page.requests if "/_hall/answer" in u]
    assert page.evaluate("Object.keys(localStorage).filter(k => k.startsWith('dpdeck-poll')).length") == 0
    assert not page.errors, page.errors
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "poll-simulated-1280.png"))


# A hall object as live.js makes it (docs/live-hall-protocol.md), recording what the page hands
# it; the test owns it, so it knows every true answer the page was given.
FAKE_HALL = """([presenter, tally]) => {
    const hall = new EventTarget();
    hall.present = true; hall.presenter = presenter; hall.deviceId = 'f'.repeat(32);
    hall.sent = [];
    hall.tally = (id) => tally;
    hall.ticket = (id) => ({poll: id, round: 1, ticket: 'a'.repeat(32)});   // admitted to round 1
    hall.answer = async (poll, value, token) => { hall.sent.push([poll, value, token]); return 'ok'; };
    window.deck.context.hall.set(hall);
    hall.dispatchEvent(new CustomEvent('status', {detail: {state: 'live', devices: 1, following: true}}));
}"""


def test_unbound_polls_no_longer_follow_the_hall(page, deck_url):
    """The polls follow the hall held in the page's context (context.js) until unbound: a hall
    set after ``unbind()`` moves no poll out of its mode, while a bound poll follows at once."""
    open_deck(page, deck_url + f"?noprerun#/{POLL}")
    wait_runtime_ready(page)
    mode = f"document.querySelector('{BOARD}').dataset.mode"
    page.evaluate(FAKE_HALL, [False, None])
    assert page.evaluate(mode) == "student"  # bound: set() tells the polls at once
    page.evaluate("window.deck.unbind()")
    page.evaluate(FAKE_HALL, [True, None])
    assert page.evaluate("window.deck.hall.presenter") is True
    assert page.evaluate(mode) == "student"  # unbound: the presenter's hall changes nothing
    page.evaluate(
        "window.deck.hall.dispatchEvent(new CustomEvent('tally', {detail: {poll: 'encuesta-copiar', n: 12, counts: [6, 6], round: 1, admitted: 20}}))"
    )
    # nor do its tallies: a bound poll takes one at once (onTally), this one keeps none
    assert page.evaluate("window.deck.polls.get('encuesta-copiar').tally.n") == 0
    assert not page.errors, page.errors


def test_a_student_sends_only_randomized_answers(page, deck_url):
    """40 answers of «sí» (the truth, which the test chose): each handed to the hall is 0 or 1,
    and some are «no» (the chance that 40 randomized «sí» all stay «sí» is 0,75⁴⁰ ≈ 10⁻⁵)."""
    open_deck(page, deck_url + f"?noprerun#/{POLL}")
    wait_runtime_ready(page)
    page.evaluate(FAKE_HALL, [False, None])
    wait_until(page, f"document.querySelector('{BOARD}').dataset.mode === 'student'", 10)
    for i in range(40):
        answer(page, "sí")
        wait_until(page, "(n) => window.deck.hall.sent.length === n", 30, arg=i + 1)
        stored = page.evaluate("Object.entries(localStorage).filter(([k]) => k.startsWith('dpdeck-poll'))")
        sent = page.evaluate("window.deck.hall.sent.at(-1)")
        # what the device keeps is what it sent, the randomized answer, and the poll's token
        assert len(stored) == 1 and json.loads(stored[0][1]) == {
            "randomized": sent[1],
            "sent": True,
            "token": sent[2],
            "round": 1,
            "ticket": "a" * 32,
        }
        assert board(page)["checked"] == 0 and page.locator(f"{BOARD} .poll-send").is_disabled()
        # a new device for the next answer (the same page: forget this one's answer)
        page.evaluate(
            "() => { const p = window.deck.polls.get('encuesta-copiar'); p.store.forget();"
            " p.setMode('copy'); p.setMode('student'); }"
        )
    sent = page.evaluate("window.deck.hall.sent")
    values = [v for _, v, _ in sent]
    assert set(values) <= {0, 1} and 0 in values and sum(values) >= 20
    # each answer's token is fresh, and none is the device id of the live channel
    tokens = {t for _, _, t in sent}
    assert len(tokens) == 40 and all(len(t) == 32 for t in tokens) and "f" * 32 not in tokens


COUNT_DRAWS = """() => { const rt = window.deck.runtime, evaluate = rt.evaluate.bind(rt); window.draws = 0;
    rt.evaluate = (expression, ...rest) => {
        if (String(expression).includes('poll.randomize')) window.draws += 1;
        return evaluate(expression, ...rest); }; }"""
FORCE_SEND = """() => { const p = window.deck.polls.get('encuesta-copiar');
    p.radios[1].checked = true; p.radios[1].disabled = false; return p.send(); }"""


def test_a_second_tab_never_sends_a_second_draw(browser, deck_url):
    """Issue 31, leak 4: two tabs of one browser on the poll. Once one answers, the other's form
    closes at once (a ``storage`` event), and even a send forced past the closed form draws
    nothing and sends nothing: the page checks, under a lock, before randomizing."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    tabs = [context.new_page() for _ in range(2)]
    for tab in tabs:
        tab.errors = []
        tab.on("pageerror", lambda e, tab=tab: tab.errors.append(str(e)))
        open_deck(tab, deck_url + f"?noprerun#/{POLL}")
        wait_runtime_ready(tab)
        tab.evaluate(FAKE_HALL, [False, None])
        wait_until(tab, f"document.querySelector('{BOARD}').dataset.mode === 'student'", 10)
    first, second = tabs
    second.locator(f"{BOARD} .poll-option", has_text="sí").click()  # chosen, not yet sent
    answer(first, "sí")
    wait_until(first, "window.deck.hall.sent.length === 1", 30)
    wait_until(second, f"document.querySelector('{BOARD} .poll-send').disabled", 10)
    assert "Otra pestaña de este navegador ya respondió" in board(second)["status"]
    second.evaluate(COUNT_DRAWS)
    second.evaluate(FORCE_SEND)
    second.wait_for_timeout(500)
    assert second.evaluate("window.deck.hall.sent.length") == 0
    assert second.evaluate("window.draws") == 0
    assert not first.errors and not second.errors, (first.errors, second.errors)
    context.close()


def test_with_storage_refused_the_form_never_reopens(browser, deck_url):
    """Issue 31, leak 4: a browser that refuses storage. After the answer is sent the form stays
    closed, also after the hall reconnects (the mode entered again) and against a forced send."""
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    context.add_init_script(REFUSE_STORAGE)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    open_deck(page, deck_url + f"?noprerun#/{POLL}")
    wait_runtime_ready(page)
    page.evaluate(FAKE_HALL, [False, None])
    wait_until(page, f"document.querySelector('{BOARD}').dataset.mode === 'student'", 10)
    answer(page, "sí")
    wait_until(page, "window.deck.hall.sent.length === 1", 30)
    assert page.locator(f"{BOARD} .poll-send").is_disabled()
    page.evaluate(
        "() => { const p = window.deck.polls.get('encuesta-copiar'); p.setMode('copy'); p.setMode('student'); }"
    )
    assert page.locator(f"{BOARD} .poll-send").is_disabled()
    page.evaluate(COUNT_DRAWS)
    page.evaluate(FORCE_SEND)
    page.wait_for_timeout(500)
    assert page.evaluate("window.deck.hall.sent.length") == 1 and page.evaluate("window.draws") == 0
    assert not page.errors, page.errors
    context.close()
    assert not page.errors, page.errors


GATE_SUMMARIES = """() => {
    const runtime = window.deck.runtime, call = runtime.call.bind(runtime);
    window.heldSummaries = [];   // each: the poll.summary call, made when the test lets it go
    runtime.call = (name, ...rest) => name !== 'poll.summary' ? call(name, ...rest)
        : new Promise((resolve) => window.heldSummaries.push(() => call(name, ...rest).then(resolve)));
}"""


def test_a_hall_that_joins_mid_computation_never_shows_the_simulated_halls_numbers(page, deck_url):
    """A presenter's hall joins while the simulated hall's numbers are being computed (a busy
    laptop: CI caught it). That computation ends after the switch and draws nothing; the
    numbers shown are the hall's, once computed, and none before."""
    open_deck(page, deck_url + f"?noprerun#/{POLL}")
    wait_runtime_ready(page)
    page.evaluate(GATE_SUMMARIES)
    wait_until(page, f"document.querySelector('{BOARD}').dataset.mode === 'simulated'", 10)
    wait_until(page, "window.heldSummaries.length >= 1", 60)  # the simulated hall's, held
    page.evaluate(FAKE_HALL, [True, {"poll": POLL, "n": 12, "counts": [7, 5]}])
    assert board(page)["mode"] == "presenter"
    assert board(page)["estimate"] is None
    page.evaluate("window.heldSummaries.shift()()")  # the simulated computation ends now
    wait_until(page, "window.heldSummaries.length >= 1", 30)  # the hall's, asked after it
    shown = board(page)
    assert shown["estimate"] is None and shown["n"] != 12, shown  # nothing of another hall
    page.evaluate("window.heldSummaries.shift()()")
    wait_until(page, f"document.querySelector('{BOARD}').dataset.estimate", 30)
    shown = board(page)
    assert (shown["n"], shown["counts"]) == (12, [7, 5]), shown
    assert shown["estimate"] == pytest.approx([expected_numbers([7, 5]).estimate], abs=1e-12)
    assert not page.errors, page.errors


def test_the_presenter_sees_dplabs_estimate_of_the_hall(page, deck_url):
    open_deck(page, deck_url + f"?noprerun#/{POLL}")
    wait_runtime_ready(page)
    page.evaluate(FAKE_HALL, [True, {"poll": POLL, "n": 12, "counts": [7, 5]}])
    wait_until(page, f"document.querySelector('{BOARD}').dataset.mode === 'presenter'", 10)
    wait_until(page, f"document.querySelector('{BOARD}').dataset.estimate", 60)
    assert board(page)["estimate"] == pytest.approx([expected_numbers([7, 5]).estimate], abs=1e-12)
    for counts in ([20, 18], [31, 29], [40, 45]):  # tallies as the hall sends them
        page.evaluate(
            "(c) => window.deck.hall.dispatchEvent(new CustomEvent('tally', {detail: "
            "{poll: 'encuesta-copiar', n: c[0] + c[1], counts: c}}))",
            counts,
        )
    wait_until(page, f"document.querySelector('{BOARD}').dataset.n === '85'", 30)
    wait_until(page, f"document.querySelectorAll('{BOARD} .poll-figure img').length === 1", 120)
    wait_until(page, f"JSON.parse(document.querySelector('{BOARD}').dataset.counts)[1] === 45", 30)
    b = board(page)
    expected = expected_numbers([40, 45])
    assert b["estimate"] == pytest.approx([expected.estimate], abs=1e-12)
    numbers = b["numbers"]
    assert "85" in numbers and "53 %" in numbers  # 45 of 85 «sí» received
    assert 0 < expected.low < expected.high < 1  # nothing clipped: the plain interval
    shown = f"IC 95 % aproximado: {round(100 * expected.low)} %–{round(100 * expected.high)} %"
    assert shown in numbers, numbers
    assert page.locator(f"{BOARD} .poll-form").is_hidden()
    # a tally that is not k non-negative integers never reaches Python (its counts would be code)
    for bad in (["__import__('os')", 1], [1, 2, 3], [-1, 5], [1.5, 2]):
        page.evaluate(
            "(c) => window.deck.hall.dispatchEvent(new CustomEvent('tally', {detail: "
            "{poll: 'encuesta-copiar', n: 9, counts: c}}))",
            bad,
        )
    assert page.evaluate(f"document.querySelector('{BOARD}').dataset.counts") == "[40,45]"
    assert not page.errors, page.errors
    RESULTS.mkdir(exist_ok=True)
    page.screenshot(path=str(RESULTS / "poll-presenter-1280.png"))


def fmt_half(releases: int) -> str:
    """ε spent after ``releases`` counts of 0,5, as the meter says it ("1,5")."""
    return dplab.fmt(releases * 0.5)
