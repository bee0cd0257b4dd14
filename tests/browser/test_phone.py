"""Phones: reveal.js's scroll view (below its `scrollActivationWidth`, 435 px), laid out at the
phone's own size. A link to a slide lands on it, the code is legible, Run is in reach and runs.

Two phones: a plain 390×844 touch viewport, and Playwright's "Pixel 7" (412×839, Android).
Legible: the code's font size times the scale it is drawn at is at least 12 CSS px on screen,
the size under which Lighthouse's "Document uses legible font sizes" audit calls text too
small on a phone. Reveal.js's own scroll view drew the 1280×720 slide at ×0.3: 19 px code
became 5.8 px.
"""

from __future__ import annotations

import time

import pytest

from tests.support.browser import (
    CELL,
    cell_code,
    cell_ids,
    cell_index,
    cell_output,
    run_count,
    wait_ran,
    wait_runtime_ready,
    wait_until,
)
from tests.support.layout import SLIDE_OVERFLOW, SLIDES_BY_LENGTH
from tests.support.paths import ROOT

RESULTS = ROOT / "test-results"
MIN_CODE_PX = 12.0

PHONES = {
    "390x844": {
        "viewport": {"width": 390, "height": 844},
        "is_mobile": True,
        "has_touch": True,
        "device_scale_factor": 3,
    },
    "pixel7": "Pixel 7",
}

# an early content slide with fragments, an early code slide, a side-by-side code slide with a
# figure past the middle of the deck, a table near its end (past the middle, reveal.js 5.2.1, and
# 6.0.2 without deck.js's plugin, scrolled to the slide before: hakimel/reveal.js#3815)
LINKED = [
    "la-definicion",
    "el-dato-de-partida",
    "laplace-contra-gauss-escalar",
    "las-cinco-ideas-en-una-pagina",
]
CODE_SLIDE = "laplace-contra-gauss-escalar"


@pytest.fixture(params=list(PHONES))
def phone(request, browser, playwright_instance):
    spec = PHONES[request.param]
    options = dict(playwright_instance.devices[spec]) if isinstance(spec, str) else dict(spec)
    options.pop("default_browser_type", None)
    ctx = browser.new_context(**options)
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.phone = request.param
    yield page
    ctx.close()


def open_at(page, url: str, slide_id: str, query: str = "") -> None:
    page.goto(f"{url}{query}#/{slide_id}")
    wait_until(page, "document.documentElement.dataset.deckReady === 'true'", 30)


def on_screen(page, slide_id: str) -> dict:
    """Where the slide is, and which slide reveal.js calls current."""
    return page.evaluate(
        """(id) => {
        const r = document.getElementById(id).getBoundingClientRect();
        return {top: r.top, bottom: r.bottom, left: r.left, right: r.right,
                height: innerHeight, width: innerWidth, hash: location.hash,
                current: window.deck.reveal.getCurrentSlide()?.id,
                scrollView: window.deck.reveal.isScrollView()};
    }""",
        slide_id,
    )


def wait_landed(page, slide_id: str) -> dict:
    """The slide is on screen, whole, and reveal.js calls it the current one."""
    wait_until(
        page,
        """(id) => { const r = document.getElementById(id).getBoundingClientRect();
        return r.top > -2 && r.bottom < innerHeight + 2 && r.height > innerHeight / 4
               && window.deck.reveal.getCurrentSlide()?.id === id; }""",
        10,
        arg=slide_id,
    )
    return on_screen(page, slide_id)


@pytest.mark.parametrize("slide_id", LINKED)
def test_a_link_to_a_slide_lands_on_it(phone, deck_url, slide_id):
    open_at(phone, deck_url, slide_id, "?noprerun")
    where = wait_landed(phone, slide_id)
    assert where["scrollView"], where  # reveal.js's phone view, not 1280×720
    assert where["top"] > -2 and where["bottom"] <= where["height"] + 2, where
    assert where["left"] >= -1 and where["right"] <= where["width"] + 1, where
    wait_until(phone, "(id) => location.hash.startsWith('#/' + id)", 5, arg=slide_id)
    assert not phone.errors, phone.errors


# A link followed while the page is busy: a slide change that a scroll has queued (reveal.js
# syncs the scroll view on the next frame) comes before the link's hashchange is handled. It
# wrote the old slide's hash over the link's, and reveal.js stayed (deck.js, ScrollViewLinks 4).
FOLLOW_WHILE_BUSY = """async (target) => {
    const reveal = window.deck.reveal;
    reveal.next(); await new Promise(r => setTimeout(r, 50)); reveal.prev();   // scrolls, synced later
    location.hash = '#/' + target;
    const until = Date.now() + 1100;
    while (Date.now() < until) {}   // busy: what was queued before the hashchange comes first
}"""


def test_a_link_followed_while_the_page_is_busy_lands(phone, deck_url):
    open_at(phone, deck_url, CODE_SLIDE, "?noprerun")
    wait_landed(phone, CODE_SLIDE)
    target = "el-compromiso-privacidad-utilidad"
    phone.evaluate(FOLLOW_WHILE_BUSY, target)
    assert wait_landed(phone, target)["hash"] == f"#/{target}"
    assert not phone.errors, phone.errors


def test_the_url_follows_the_scroll_and_a_reload_stays(phone, deck_url):
    open_at(phone, deck_url, "el-dato-de-partida", "?noprerun")
    wait_landed(phone, "el-dato-de-partida")
    ids = phone.evaluate("[...document.querySelectorAll('.slides section')].map(s => s.id)")
    after = ids[ids.index("el-dato-de-partida") + 1]
    phone.evaluate("window.deck.reveal.next()")  # one screen down: the next slide
    wait_landed(phone, after)
    wait_until(phone, "(id) => location.hash.startsWith('#/' + id)", 5, arg=after)
    phone.reload()
    wait_until(phone, "document.documentElement.dataset.deckReady === 'true'", 30)
    assert wait_landed(phone, after)["current"] == after


def test_code_is_legible_and_never_cut_off(phone, deck_url):
    open_at(phone, deck_url, CODE_SLIDE, "?noprerun")
    wait_landed(phone, CODE_SLIDE)
    # every cell's code: an editor (its slide is near), or the static code shown until then
    sizes = phone.evaluate("""() => [...document.querySelectorAll('.cell .cm-content, .cell .cell-static')].map(el => {
        const scale = el.getBoundingClientRect().width / el.offsetWidth;   // reveal.js's scaling
        const scroller = el.closest('.cm-scroller, .cell-static');
        return {cell: el.closest('.cell').dataset.cellId,
                px: parseFloat(getComputedStyle(el).fontSize) * scale,
                hidden: scroller.scrollWidth - scroller.clientWidth};
    })""")
    assert len(sizes) == len(cell_ids(phone)) and sizes
    small = [s for s in sizes if s["px"] < MIN_CODE_PX]
    assert not small, f"code under {MIN_CODE_PX} px on screen: {small[:3]}"
    cut = [s for s in sizes if s["hidden"] > 1]  # long lines wrap: nothing off to the side
    assert not cut, f"code lines cut off at the right: {cut[:3]}"
    # no slide is wider than the phone; a slide taller than it scrolls within its page
    slides = phone.evaluate(f"""() => [...document.querySelectorAll('.slides section')].map(s => ({{
        ...({SLIDE_OVERFLOW})(s), scrolls: ['auto', 'scroll'].includes(getComputedStyle(s).overflowY)}}))""")
    assert not [s for s in slides if s["wide"] > 1], [s for s in slides if s["wide"] > 1][:3]
    assert not [s for s in slides if s["tall"] > 1 and not s["scrolls"]]


def test_run_is_in_reach_and_runs(phone, deck_url):
    open_at(phone, deck_url, CODE_SLIDE, "?noprerun")  # no background runs: the run is ours
    wait_landed(phone, CODE_SLIDE)
    run = phone.locator(CELL.format(CODE_SLIDE) + " button.run")
    box = run.bounding_box()
    where = on_screen(phone, CODE_SLIDE)
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= where["height"], box
    assert box["height"] >= 32, box  # a finger's worth
    wait_runtime_ready(phone)
    i = cell_index(phone, CODE_SLIDE)
    runs = run_count(phone, i)
    run.tap()  # a real tap: nothing covers the button
    wait_ran(phone, i, runs, 120)
    out = cell_output(phone, CODE_SLIDE)
    assert out["state"] == "done" and out["figures"] >= 1 and not out["error"], out
    # the figure fits the phone's width
    fig = phone.locator(
        CELL.format(CODE_SLIDE)
        + " .cell-output img.out-figure, "
        + CELL.format(CODE_SLIDE)
        + " .cell-output svg"
    ).first
    fig_box = fig.bounding_box()
    assert fig_box and fig_box["x"] >= 0 and fig_box["x"] + fig_box["width"] <= where["width"] + 1
    assert wait_landed(phone, CODE_SLIDE)["current"] == CODE_SLIDE  # the run did not move us
    RESULTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(RESULTS / f"phone-{phone.phone}-{CODE_SLIDE}.png"))
    assert not phone.errors, phone.errors


def test_screenshots_of_a_code_slide_and_a_text_slide(phone, deck_url):
    """For a person to look at: test-results/phone-<phone>-*.png."""
    RESULTS.mkdir(exist_ok=True)
    open_at(phone, deck_url, "el-dato-de-partida")
    wait_runtime_ready(phone)
    wait_until(
        phone,
        "(id) => document.querySelector(`.cell[data-cell-id='${id}']`).dataset.state === 'done'",
        120,
        arg="el-dato-de-partida",
    )
    wait_landed(phone, "el-dato-de-partida")
    phone.screenshot(path=str(RESULTS / f"phone-{phone.phone}-el-dato-de-partida.png"))
    phone.evaluate("location.hash = '#/la-definicion'")
    wait_landed(phone, "la-definicion")
    phone.screenshot(path=str(RESULTS / f"phone-{phone.phone}-la-definicion.png"))
    assert not phone.errors, phone.errors


SLIDER_SLIDE = "varepsilon-determina-la-dispersion"


def overlaps_with_bar(page) -> list:
    """Elements of the current slide drawn under the deck's bar (none may be): the part of each
    that the slide shows (it scrolls inside its page with overflow: auto, which clips)."""
    return page.evaluate("""() => {
        const bar = document.querySelector('.deck-chrome').getBoundingClientRect();
        const slide = window.deck.reveal.getCurrentSlide();
        return [...slide.querySelectorAll('h2, p, li, .cm-line, .cell-btn, input, .cell-output > *')]
          .map(e => {   // the part of it the slide shows (a slide clips what it scrolled away)
            const r = e.getBoundingClientRect(), s = slide.getBoundingClientRect();
            return [e, {top: Math.max(r.top, s.top), bottom: Math.min(r.bottom, s.bottom),
                        height: Math.min(r.bottom, s.bottom) - Math.max(r.top, s.top)}];
          })
          .filter(([e, r]) => r.height > 0 && r.bottom > bar.top + 1 && r.top < bar.bottom - 1
                              && getComputedStyle(e).visibility !== 'hidden')
          .map(([e, r]) => `${e.tagName}.${e.className} ${Math.round(r.top)}-${Math.round(r.bottom)}`);
    }""")


def test_the_bar_has_its_own_room_tappable_buttons_and_says_where_one_is(phone, deck_url):
    open_at(phone, deck_url, CODE_SLIDE, "?noprerun")
    wait_landed(phone, CODE_SLIDE)
    bar = phone.locator(".deck-chrome").bounding_box()
    assert bar["y"] == 0 and bar["width"] >= 380 and bar["height"] <= 60, bar
    assert not overlaps_with_bar(phone)
    # the longest slide scrolls inside its page: nothing of it passes under the bar
    longest = phone.evaluate(SLIDES_BY_LENGTH)[0]["id"]
    phone.evaluate("(id) => { location.hash = '#/' + id; }", longest)
    wait_landed(phone, longest)
    phone.evaluate(
        "() => { const s = window.deck.reveal.getCurrentSlide(); s.scrollTop = s.scrollHeight / 2; }"
    )
    assert phone.evaluate("window.deck.reveal.getCurrentSlide().scrollTop") > 50, longest
    assert not overlaps_with_bar(phone)
    # and from one slide to the next the page scrolls under the bar, not over it
    scroller = phone.evaluate("(() => { const r = document.body.getBoundingClientRect(); return r.top; })()")
    assert scroller >= bar["height"] - 1, scroller
    for action in ("run-all", "restart", "reset-all", "notebook"):
        box = phone.locator(f"button[data-action='{action}']").bounding_box()
        assert box and box["width"] >= 44 and box["height"] >= 44, (action, box)
    words = [phone.locator(f"button[data-action='{a}']").inner_text() for a in ("restart", "reset-all")]
    assert "Python" in words[0] and "código" in words[1], words  # ⟲ and ↺ told apart
    index = phone.evaluate("(id) => window.deck.reveal.getSlides().findIndex(s => s.id === id) + 1", longest)
    total = phone.evaluate("window.deck.reveal.getSlides().length")
    assert phone.locator("#deck-where").inner_text() == f"{index} / {total}"
    RESULTS.mkdir(exist_ok=True)
    phone.screenshot(path=str(RESULTS / f"phone-{phone.phone}-bar.png"))
    assert not phone.errors, phone.errors


def swipe(page, x: float, y: float, dx: float, dy: float, steps: int = 10) -> None:
    """A finger: down at (x, y), moved by (dx, dy) in steps, up (touch events through CDP)."""
    cdp = page.context.new_cdp_session(page)
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for i in range(1, steps + 1):
        point = {"x": x + dx * i / steps, "y": y + dy * i / steps}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    cdp.detach()


def _settled(locator, timeout: float = 5.0) -> dict:
    """The element's box once it has not moved for three polls (a page's fling has ended)."""
    deadline = time.monotonic() + timeout
    boxes = [None]
    while time.monotonic() < deadline:
        boxes.append(locator.bounding_box())
        if len(boxes) >= 4 and boxes[-1] == boxes[-2] == boxes[-3]:
            return boxes[-1]
        time.sleep(0.1)
    raise TimeoutError(f"still moving after {timeout} s: {boxes[-3:]}")


def test_a_vertical_swipe_on_a_slider_scrolls_and_leaves_its_value(phone, deck_url):
    open_at(phone, deck_url, SLIDER_SLIDE, "?noprerun")
    wait_landed(phone, SLIDER_SLIDE)
    slider = phone.locator(CELL.format(SLIDER_SLIDE) + " input[type=range]")
    slider.scroll_into_view_if_needed()
    before = (slider.input_value(), cell_code(phone, SLIDER_SLIDE))
    box = slider.bounding_box()
    # a thumb that lands on the slider's right part and goes up the screen, drifting a little
    swipe(phone, box["x"] + box["width"] * 0.8, box["y"] + box["height"] / 2, 12, -220)
    phone.wait_for_timeout(400)
    assert (slider.input_value(), cell_code(phone, SLIDER_SLIDE)) == before
    # a sideways swipe still moves it, and writes the code (the slider brought back into view
    # first, below the phone's bar: the vertical swipe may have scrolled it under the bar)
    # (after the fling of the vertical swipe has ended: a scroll asked for during it is undone)
    _settled(slider)
    slider.evaluate("e => e.scrollIntoView({block: 'center'})")
    box = _settled(slider)
    assert box["y"] > 0, box
    swipe(phone, box["x"] + box["width"] * 0.5, box["y"] + box["height"] / 2, -80, 4)
    wait_until(phone, lambda: cell_code(phone, SLIDER_SLIDE) != before[1], 5)
    assert slider.input_value() != before[0]
    assert not phone.errors, phone.errors


def test_a_long_print_on_a_far_page_is_followed_once_the_page_comes_near(phone, deck_url):
    """An output drawn on a page far from the screen (phone.css skips its layout) is not
    measured there and then, which would lay that page out on the phone's main thread (F2); once
    the page comes near it is, as one drawn there: followed to its last line (on a phone the
    block grows and its slide scrolls, so its own end is in view) and marked for what it hides."""
    open_at(phone, deck_url, CODE_SLIDE, "?noprerun")
    wait_landed(phone, CODE_SLIDE)
    wait_runtime_ready(phone)
    far = phone.evaluate(
        """() => { const c = window.deck.cells[window.deck.cells.length - 1];
        c.code = 'for i in range(600):\\n    print(i)'; c.run(); return c.slide.id; }"""
    )
    assert far != CODE_SLIDE
    pre = f"#{far} .cell-output pre.out-stdout"
    wait_until(
        phone,
        f"(() => {{ const p = document.querySelector('{pre}'); return !!p && /599/.test(p.textContent); }})()",
        120,
    )
    time.sleep(0.3)  # a frame or two: a block drawn now would have been measured by then
    owed = phone.evaluate(
        f"(() => {{ const p = document.querySelector('{pre}'); return [p.scrollTop, 'follow' in p.dataset]; }})()"
    )
    assert owed == [0, True], owed  # not measured while its page is far
    phone.evaluate(f"document.getElementById('{far}').scrollIntoView()")
    wait_until(
        phone,
        f"""(() => {{ const p = document.querySelector('{pre}');
        return !('follow' in p.dataset) && p.scrollTop + p.clientHeight >= p.scrollHeight - 2
               && !('more' in p.dataset) === (p.scrollHeight <= p.clientHeight + 1); }})()""",
        10,
    )
    assert not phone.errors, phone.errors
