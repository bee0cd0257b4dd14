"""The deck and the live hall on two origins, over HTTPS through Caddy (deploy/Caddyfile), in
Chromium trusting Caddy's own CA (issue 30, items 1 and 2).

One Caddy (its internal CA on loopback, `local_certs`, its storage in a temporary folder) serves
the deck built with ``--hall https://hall.localhost:PORT`` on ``https://deck.localhost:PORT`` and
proxies ``https://hall.localhost:PORT`` to one hall process alone (``--live``, ``--allow-origin``
the deck's origin). Chromium trusts that CA through the NSS database of its profile's
``$HOME/.pki/nssdb`` (certutil), not by ignoring certificate errors, and runs as one persistent
profile: its tabs are one browser's. The page is a secure context, cross-origin isolated, with its
service worker, over HTTP/2; Stop interrupts Python; the presenter moves twelve tabs; a poll is
answered across the origins. Needs ``caddy`` and ``certutil`` (Debian's ``caddy`` and
``libnss3-tools``): without them the test fails, saying so.
"""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path

import pytest

from dpdeck.build.site import Project, build
from dpdeck.serve import rehearse
from dpdeck.serve.browser import LAUNCH_ARGS, VIEWPORT, chromium_path
from tests.support.browser import (
    CELL,
    can_interrupt,
    cell_output,
    go_to_slide,
    hall_view,
    instrument,
    restarts,
    start_run,
    stop_deadline,
    wait_hall,
    wait_idle,
    wait_running,
    wait_runtime_ready,
    wait_until,
)
from tests.support.hall_process import HallProcess
from tests.support.paths import ROOT

RESULTS = ROOT / "test-results"
POLL = "encuesta-copiar"
BOARD = f"#{POLL} .poll"
TABS = 12
# the follower tabs leave Python out (a Worker that never starts): thirteen Pyodides in one
# browser on a 2-core machine would measure the machine, not the hall (as in test_hall.py)
IDLE_WORKER = "globalThis.Worker = class { postMessage() {} terminate() {} addEventListener() {} };"
HERE = "() => { const i = window.deck.reveal.getIndices(); return [i.h, i.v || 0, i.f ?? -1]; }"


def _tool(name: str, package: str) -> str:
    try:
        return rehearse.tool(name, package)
    except rehearse.Missing as exc:
        pytest.fail(f"{exc}; CI installs it")


class Stack:
    """Caddy, the hall and the deck they serve; ``deck`` and ``hall`` are the two origins."""

    def __init__(self, tmp: Path):
        self.caddy_bin = _tool("caddy", "caddy")
        self.certutil = _tool("certutil", "libnss3-tools")
        self.tmp = tmp
        self.port = rehearse.free_port()
        self.deck = f"https://deck.localhost:{self.port}"
        self.hall = f"https://hall.localhost:{self.port}"
        self.dist = tmp / "dist"
        self.caddy: subprocess.Popen | None = None
        self.process: HallProcess | None = None

    def start(self) -> Stack:
        build(Project(ROOT), dist=self.dist, hall=self.hall)
        hall_port = rehearse.free_port()
        self.process = HallProcess.alone(
            self.dist / "live.json",
            self.tmp / "hall.sqlite3",
            self.tmp / "token",
            "--allow-origin",
            self.deck,
            "--audience-url",
            self.deck + "/",
            "--trust-proxy",
            "127.0.0.1",
            port=hall_port,
        ).start()
        self.token = self.process.token
        storage = self.tmp / "caddy"
        top = self.tmp / "Caddyfile"
        top.write_text(
            rehearse.caddy_globals(storage, rehearse.free_port(), self.port)
            + f"import {ROOT / 'deploy' / 'Caddyfile'}\n",
            encoding="utf-8",
        )
        env = {
            **os.environ,
            "HOME": str(self.tmp),  # Caddy's own files, never the user's
            "DECK_HOST": "deck.localhost",
            "HALL_HOST": "hall.localhost",
            "DECK_DIR": str(self.dist),
            "HALL_UPSTREAMS": f"127.0.0.1:{hall_port}",
        }
        self.log = open(self.tmp / "caddy.log", "w")  # noqa: SIM115 - closed in stop()
        self.caddy = subprocess.Popen(
            [self.caddy_bin, "run", "--config", str(top), "--adapter", "caddyfile"],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
        )
        self.ca = rehearse.wait_ca(self.caddy, storage, self.tmp / "caddy.log")
        for host in ("deck.localhost", "hall.localhost"):
            rehearse.wait_tls(self.port, self.ca, host, self.caddy, self.tmp / "caddy.log")
        return self

    def trusting_home(self) -> Path:
        """A HOME whose ``.pki/nssdb`` trusts Caddy's CA: where Chromium looks on Linux."""
        home = self.tmp / "home"
        rehearse.trust_ca(self.ca, home, self.certutil)  # the rehearsal's own recipe
        return home

    def stop(self) -> None:
        if self.caddy is not None:
            self.caddy.terminate()
            try:
                self.caddy.wait(10)
            except subprocess.TimeoutExpired:
                self.caddy.kill()
                self.caddy.wait(10)
            self.log.close()
        if self.process is not None:
            self.process.stop()


@pytest.fixture(scope="module")
def stack(tmp_path_factory):
    """The stack, started again on other ports (up to three times) when another program took
    Caddy's between ``free_port`` and Caddy's start: the build in between takes seconds, and a
    browser's outgoing connections draw from the same ports."""
    for attempt in range(3):
        s = Stack(tmp_path_factory.mktemp("proxy"))
        try:
            s.start()
            break
        except RuntimeError as e:
            s.stop()
            if "address already in use" not in str(e) or attempt == 2:
                raise
    try:
        yield s
    finally:
        s.stop()


@pytest.fixture(scope="module")
def profile(stack, playwright_instance):
    """One Chromium (a persistent profile, so its HOME's NSS database is read) for the module."""
    context = playwright_instance.chromium.launch_persistent_context(
        str(stack.tmp / "profile"),
        executable_path=chromium_path(),
        args=LAUNCH_ARGS,
        env={**os.environ, "HOME": str(stack.trusting_home())},
        viewport=VIEWPORT,
    )
    yield context
    context.close()


def _tab(profile, url: str, idle: bool = False):
    """A new tab of the one browser at ``url``; ``page.protocols`` records the protocol of every
    response it gets (Chromium's own record, through CDP: Resource Timing hides it across origins)."""
    page = instrument(profile, profile.new_page())
    page.protocols = {}
    cdp = profile.new_cdp_session(page)
    cdp.on(
        "Network.responseReceived",
        lambda e: page.protocols.setdefault(
            e["response"]["url"].split("?")[0], e["response"].get("protocol")
        ),
    )
    cdp.send("Network.enable")
    if idle:
        page.add_init_script(IDLE_WORKER)
    page.goto(url)
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 60)
    return page


@pytest.fixture(scope="module")
def student(stack, profile):
    """A student's tab on the deck's origin, Python ready."""
    page = _tab(profile, stack.deck + "/?noprerun")
    wait_runtime_ready(page, 180)
    wait_hall(page, "live", 30)
    return page


def test_a_secure_isolated_page_with_its_worker_over_http2_and_the_hall_on_the_other_origin(stack, student):
    page = student
    assert page.evaluate("isSecureContext") is True
    assert page.evaluate("crossOriginIsolated") is True
    assert page.evaluate("typeof SharedArrayBuffer") == "function"
    assert page.evaluate("location.origin") == stack.deck
    # served over HTTP/2 (the first load: later ones come from the service worker)
    assert page.evaluate("performance.getEntriesByType('navigation')[0].nextHopProtocol") == "h2"
    # the service worker registers and controls the page from the next load
    wait_until(page, "navigator.serviceWorker.getRegistration().then(r => Boolean(r?.active))", 60)
    page.reload()
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 60)
    wait_until(page, "Boolean(navigator.serviceWorker.controller)", 30)
    wait_runtime_ready(page, 180)
    wait_hall(page, "live", 30)
    # the page asked the hall's origin, not its own, and both over HTTP/2
    hall_requests = [u for u in page.requests if u.startswith(stack.hall + "/_hall/")]
    assert any(u.endswith("/_hall/hello") for u in hall_requests), page.requests
    assert not any(u.startswith(stack.deck + "/_hall/") for u in page.requests)
    assert page.protocols[stack.hall + "/_hall/hello"] == "h2"
    assert page.evaluate("window.deck.hall.audience") == [stack.deck + "/"]
    # the QR code comes from the hall (CORS, under the deck's COEP) and is drawn
    go_to_slide(page, page.evaluate("document.querySelector('.reveal .slides section').id"))
    wait_until(
        page, "[...document.querySelectorAll('img.hall-qr')].some(i => i.complete && i.naturalWidth > 0)", 20
    )
    # the service worker keeps the deck's files and never a hall's answer
    wait_until(
        page,
        "caches.keys().then(async ks => (await Promise.all(ks.map(async k => (await (await caches.open(k)).keys()).length))).reduce((a, b) => a + b, 0) > 10)",
        60,
    )
    kept = page.evaluate(
        "caches.keys().then(async ks => (await Promise.all(ks.map(async k => (await (await caches.open(k)).keys()).map(r => r.url)))).flat())"
    )
    assert any(u.startswith(stack.deck + "/") for u in kept)
    assert not any("_hall/" in u or u.startswith(stack.hall) for u in kept), kept
    assert page.errors == []


def test_stop_interrupts_a_running_cell_without_restarting_python(student):
    page = student
    assert can_interrupt(page) is True
    cells = page.evaluate("window.deck.cells.filter(c => c.slide.dataset.kind === 'code').map(c => c.id)")
    first, second = cells[0], cells[1]
    before = restarts(page)
    deadline = stop_deadline(page, second)
    go_to_slide(page, page.evaluate("(id) => window.deck.cells.find(c => c.id === id).slide.id", first))
    i = page.evaluate("(id) => window.deck.cells.findIndex(c => c.id === id)", first)
    wait_idle(page, i, 60)
    start_run(page, i, "i = 0\nwhile True:\n    i += 1")
    wait_running(page, i, 60)
    time.sleep(0.5)
    t0 = time.monotonic()
    page.locator(CELL.format(first) + " button.stop").click()
    wait_idle(page, i, deadline + 3)
    assert time.monotonic() - t0 < deadline
    assert "KeyboardInterrupt" in cell_output(page, first)["error"]
    assert restarts(page) == before  # interrupted in place: the same Python goes on


def test_twelve_tabs_of_one_browser_follow_the_presenter(stack, profile, student):
    presenter = _tab(profile, f"{stack.deck}/?noprerun&nosw#presenter={stack.token}", idle=True)
    wait_hall(presenter, "live", 30)
    assert hall_view(presenter)["presenter"] is True
    tabs = [_tab(profile, stack.deck + "/?noprerun&nosw", idle=True) for _ in range(TABS)]
    for tab in tabs:
        wait_hall(tab, "live", 30)
    for key, times in (("ArrowRight", 3), ("ArrowLeft", 1), ("ArrowRight", 2)):
        for _ in range(times):
            presenter.keyboard.press(key)
            time.sleep(0.15)
        want = presenter.evaluate(HERE)
        for tab in [*tabs, student]:
            wait_until(tab, f"({HERE})().every((x, k) => x === {want}[k])", 10)
    # one HTTP/2 connection carries every tab's stream: no six-per-host limit of HTTP/1.1
    assert {tab.protocols.get(stack.hall + "/_hall/events") for tab in tabs} == {"h2"}
    assert all(hall_view(tab)["following"] for tab in tabs)
    # back to the title slide: a follower shows the hall's QR code, drawn from the other origin
    presenter.keyboard.press("Home")
    for tab in [*tabs, student]:
        wait_until(tab, "window.deck.reveal.getIndices().h === 0", 10)
    wait_until(
        student,
        "[...document.querySelectorAll('img.hall-qr')].some(i => i.complete && i.naturalWidth > 0)",
        20,
    )
    RESULTS.mkdir(exist_ok=True)
    student.screenshot(path=str(RESULTS / "hall-https-follower.png"))
    assert all(not t.errors for t in [presenter, *tabs]), [t.errors for t in [presenter, *tabs]]
    for tab in tabs:
        tab.close()
    presenter.close()


def test_a_poll_is_answered_across_the_two_origins(stack, profile, student):
    board = _tab(profile, f"{stack.deck}/?noprerun&nosw#presenter={stack.token}")
    wait_hall(board, "live", 30)
    go_to_slide(board, POLL)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.mode === 'presenter'", 30)
    go_to_slide(student, POLL)
    wait_until(student, f"document.querySelector('{BOARD}').dataset.mode === 'student'", 30)
    student.locator(f"{BOARD} .poll-option", has_text="sí").click()
    student.locator(f"{BOARD} .poll-send").click()
    wait_until(
        student, f"document.querySelector('{BOARD} .poll-status').textContent.startsWith('Enviada')", 60
    )
    # the presenter's board hears the tally through the hall's stream: one answer, its counts
    # held (the hall sends none below 10 answers)
    wait_until(board, f"document.querySelector('{BOARD}').dataset.n === '1'", 30)
    assert board.evaluate(f"document.querySelector('{BOARD}').dataset.counts") == "[]"
    RESULTS.mkdir(exist_ok=True)
    student.screenshot(path=str(RESULTS / "hall-https-poll.png"))
    assert not board.errors and not student.errors, (board.errors, student.errors)
    board.close()
