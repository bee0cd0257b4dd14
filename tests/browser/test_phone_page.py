"""A student's page in the live hall, on a phone as good as on a laptop (issue 50, items 3–6).

One in-page scenario (engines/phonepage.js: its steps say what each checks) runs in a student's
page of a live hall whose presenter it plays, at a laptop's 1366×768 (touch: a touch laptop,
`pointer: coarse`) and at a phone's 390×844 (touch, DPR 3) in Chromium, and at a phone's width in
WebKit (WebKitGTK's MiniBrowser, which has no touch emulation: its targets are checked in the
scroll view, which phone.css sizes for a finger). Items:

3. a fragment the presenter revealed and hid again by stepping back is hidden on the follower;
4. reading a slide longer than the phone's screen to its end and on does not leave the lecture
   (a real swipe, Chromium), and «Volver con el profesor» covers nothing of a slide;
5. the census table, wider than a phone's output, says «desliza →», and only where it is cut;
6. every target a finger can hit is at least 44 × 44 CSS px.

Screenshots for a person to look at: test-results/phone-page-*.png.
"""

from __future__ import annotations

import json
import time

import pytest

from tests.browser.engines import drivers
from tests.support.browser import hall_view, open_deck, wait_hall, wait_until
from tests.support.hall_process import HallProcess
from tests.support.layout import SLIDE_OVERFLOW, SLIDES_BY_LENGTH
from tests.support.paths import ROOT
from tests.support.redis_server import free_port

RESULTS = ROOT / "test-results"
SCENARIO = drivers.HERE / "phonepage.js"
SIZES = {
    "laptop": {"viewport": {"width": 1366, "height": 768}, "has_touch": True},
    "phone": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    },
}
STEPS = {
    "laptop": ["live", "fragments", "way-back", "targets", "wide-output"],
    "phone": ["live", "fragments", "long-slide", "way-back", "targets", "wide-output"],
}
# a student's page of the hall: the service worker's offline fill and the background pre-run
# left out (they measure the machine, not the page); the census cell is run by the scenario
QUERY = "?noprerun&nosw"


@pytest.fixture
def hall(built_deck, tmp_path):
    server = HallProcess(built_deck, tmp_path / "hall.sqlite3", tmp_path / "token", port=free_port()).start()
    yield server
    server.stop()


def _check(report: dict, size: str, engine: str) -> None:
    steps = {s["name"]: s for s in report.get("steps", [])}
    assert list(steps) == STEPS[size], f"{engine} {size} ran {list(steps)}: {report}"
    failed = {name: s.get("error") for name, s in steps.items() if not s["ok"]}
    assert not failed, f"{engine} {size}:\n" + json.dumps(failed, indent=1, ensure_ascii=False)
    assert steps["targets"]["details"]["touch"] and steps["targets"]["details"]["measured"] > 100, steps[
        "targets"
    ]


@pytest.mark.parametrize("size", list(SIZES))
def test_a_students_page_in_chromium(size, browser, hall):
    result = drivers.run_chromium(
        browser,
        hall.audience + QUERY,
        {"token": hall.token, "driverTimeout": 400},
        scenario=SCENARIO,
        context_options=SIZES[size],
        after=lambda page: _screenshot(page, size),
    )
    report = result.get("report") or {}
    assert report.get("view", {}).get("scroll") is (size == "phone"), report.get("view")
    _check(report, size, "chromium")
    assert not result["driver"]["pageErrors"], result["driver"]["pageErrors"]


def _screenshot(page, size: str) -> None:
    """The census table as the scenario left it (run, on its slide), for a person to look at."""
    RESULTS.mkdir(exist_ok=True)
    page.evaluate("document.getElementById('el-dato-de-partida').scrollIntoView()")
    page.wait_for_timeout(500)
    page.screenshot(path=str(RESULTS / f"phone-page-{size}-census.png"))


def test_a_students_phone_page_in_webkit(hall):
    drivers.require("webkit")
    # MiniBrowser keeps its window at least 447 px wide here: still reveal.js's scroll view, the
    # phone's layout (phone.css keys every phone rule to it, not to a width)
    RESULTS.mkdir(exist_ok=True)
    shot = str(RESULTS / "phone-page-webkit-census.png")
    options = {"token": hall.token, "driverTimeout": 500, "window": [390, 844], "screenshot": shot}
    result = drivers.run_webkit(hall.audience + QUERY, options, 560.0, scenario=SCENARIO)
    driver, report = result["driver"], result.get("report") or {}
    assert "fatal" not in driver and report, (
        f"the WebKit driver failed: {driver.get('fatal')} {driver.get('stderr')}"
    )
    assert not report.get("fatal"), report["fatal"]
    assert report["view"]["scroll"] and report["view"]["width"] < 500, report["view"]
    _check(report, "phone", "webkit")


# ---- item 4 with a finger: Chromium's touch events through CDP ---------------------------------

IDLE_WORKER = "globalThis.Worker = class { postMessage() {} terminate() {} addEventListener() {} };"
HERE = "() => { const i = window.deck.reveal.getIndices(); return [i.h, i.v || 0, i.f ?? -1]; }"


def _swipe(page, x: float, y: float, dy: float, steps: int = 10) -> None:
    """A finger: down at (x, y), up the screen by ``dy`` in steps, up."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, steps + 1):
        cdp.send(
            "Input.dispatchTouchEvent",
            {"type": "touchMove", "touchPoints": [{"x": x, "y": y + dy * i / steps}]},
        )
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def test_reading_a_long_slide_to_its_end_on_a_phone_keeps_following(browser, hall):
    """The presenter's slide is longer than the phone's screen: the student swipes through it and
    on, four times; the phone stays on the presenter's slide, following. On a slide that fits the
    screen a swipe still reads ahead (following pauses), and the way back covers nothing."""
    context = browser.new_context(**SIZES["phone"])
    context.add_init_script(IDLE_WORKER)  # Python left out: this is about scrolling
    try:
        phone = context.new_page()
        phone.errors = []
        phone.on("pageerror", lambda e: phone.errors.append(str(e)))
        open_deck(phone, hall.audience + QUERY, timeout=60)
        wait_hall(phone, "live", 30)
        longest = phone.evaluate(SLIDES_BY_LENGTH)[0]
        assert longest["tall"] > 100, longest  # longer than the screen by more than a few lines
        _post(phone, hall.token, longest["h"])
        wait_until(phone, "(h) => window.deck.reveal.getIndices().h === h", 5, arg=longest["h"])
        time.sleep(0.5)
        for i in range(4):
            _swipe(phone, 200, 700, -400)
            time.sleep(0.8)
            at = phone.evaluate(HERE)
            assert at[0] == longest["h"] and hall_view(phone)["following"], (i, at, longest)
        assert (
            phone.evaluate("window.deck.reveal.getCurrentSlide().scrollTop") >= longest["tall"] - 2
        )  # read to its end
        RESULTS.mkdir(exist_ok=True)
        phone.screenshot(path=str(RESULTS / "phone-page-long-slide-end.png"))
        # a slide that fits: a swipe reads ahead, and the way back shows over none of the slide
        short = phone.evaluate(f"""() => [...document.querySelectorAll('.slides section')]
            .find(s => +s.dataset.indexH > 2 && ({SLIDE_OVERFLOW})(s).tall <= 0 && !s.querySelector('.fragment')).dataset.indexH""")
        _post(phone, hall.token, int(short))
        wait_until(phone, "(h) => window.deck.reveal.getIndices().h === h", 5, arg=int(short))
        time.sleep(0.5)
        _swipe(phone, 200, 700, -400)
        wait_until(phone, "!window.deck.hall.following", 5)
        time.sleep(1.0)
        back = phone.locator(".hall-return")
        assert back.is_visible()
        phone.screenshot(path=str(RESULTS / "phone-page-way-back.png"))
        box = back.bounding_box()
        slide = phone.evaluate(
            "(() => { const r = window.deck.reveal.getCurrentSlide().getBoundingClientRect(); return [r.top, r.bottom]; })()"
        )
        assert slide[1] <= box["y"] + 1, (slide, box)  # the slide ends above the button
        assert not phone.errors, phone.errors
    finally:
        context.close()


def _post(page, token: str, h: int) -> None:
    """The presenter's move to slide ``h``, as its page posts it."""
    status = page.evaluate(
        """async ([token, h]) => (await fetch('_hall/state', {method: 'POST',
             headers: {'Authorization': 'Bearer ' + token, 'Content-Type': 'application/json'},
             body: JSON.stringify({seq: Date.now(), indexh: h, indexv: 0, indexf: -1})})).status""",
        [token, h],
    )
    assert status == 204, status
