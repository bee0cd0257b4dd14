"""What the deck draws around a slide covers nothing on it (issue 33, items 6, 7, 9, 10): on every
slide at 1280×720 the slide number and the deck's chrome sit clear of every box of content, with
every fragment shown; with a live hall, the indicator and «Volver con el profesor» sit clear of the
title at 1366×768 and 1280×720, the button says where the presenter is when the student is one
fragment behind, and a phone shows «N en sala» with the full text one tap away."""

from __future__ import annotations

from tests.browser.test_hall import _open, hall  # noqa: F401  (hall: a fixture)
from tests.support.browser import open_deck, wait_until

# the boxes the deck draws over the slide, and every box of content of the slide on screen (leaf
# elements with text, and replaced or drawn ones), each as [what, left, top, right, bottom]
OVERLAPS = """(extra) => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (e) => { const r = e.getBoundingClientRect(); const s = getComputedStyle(e);
    return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && Number(s.opacity) > 0; };
  const over = [...document.querySelectorAll('.reveal .slide-number, .deck-chrome > *, .deck-actions > *, ' + extra)]
    .filter(shown);
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const drawn = 'img, svg, canvas, input, button, select, textarea, .cm-line, .katex';
  const content = [...slide.querySelectorAll('*')].filter((e) => shown(e) && (e.matches(drawn)
    || [...e.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim())));
  const hits = [];
  for (const o of over) for (const c of content) {
    const [a, b] = [box(o), box(c)];
    if (a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3])
      hits.push([(o.className || o.tagName) + '', (c.textContent || c.tagName).trim().slice(0, 40)]);
  }
  return hits;
}"""


def test_nothing_the_deck_draws_sits_on_a_slide_at_1280x720(browser, deck_url):
    context = browser.new_context(viewport={"width": 1280, "height": 720})
    page = context.new_page()
    open_deck(page, deck_url + "?noprerun")
    slides = page.evaluate(
        """() => window.deck.reveal.getSlides().map((s) => { const i = window.deck.reveal.getIndices(s);
        return [i.h, i.v || 0, s.querySelectorAll('.fragment').length - 1]; })"""
    )
    hits = {}
    for h, v, f in slides:
        page.evaluate("([h, v, f]) => window.deck.reveal.slide(h, v, f)", [h, v, f])
        page.wait_for_timeout(50)
        found = page.evaluate(OVERLAPS, "#nothing")
        if found:
            hits[f"{h}/{v}"] = found
    assert not hits, hits
    context.close()


HERE = "() => { const i = window.deck.reveal.getIndices(); return [i.h, i.v || 0, i.f ?? -1]; }"
FRAGMENTS_SLIDE = "la-definicion"  # a content slide with four fragments


def test_the_hall_covers_no_title_and_says_where_the_presenter_is(browser, hall):  # noqa: F811
    presenter = _open(browser, hall.audience + "?noprerun&nosw#presenter=" + hall.token)
    laptops = [_open(browser, hall.audience + "?noprerun&nosw", size=s) for s in ((1366, 768), (1280, 720))]
    phone = _open(browser, hall.audience + "?noprerun&nosw", phone=True)
    h = presenter.evaluate(f"window.deck.reveal.getIndices(document.getElementById('{FRAGMENTS_SLIDE}')).h")
    presenter.evaluate(f"window.deck.reveal.slide({h}, 0, 1)")
    for s in (*laptops, phone):
        wait_until(
            s,
            f"(() => {{ const i = window.deck.reveal.getIndices(); return i.h === {h} && i.f === 1; }})()",
            5,
        )

    for s in laptops:  # one fragment behind, on the presenter's slide
        s.evaluate(f"window.deck.reveal.slide({h}, 0, 0)")
        back = s.locator("#hall-status .hall-return")
        wait_until(s, "() => window.deck.hall.following === false", 3)
        assert back.is_visible()
        assert back.text_content() == "Volver con el profesor (más adelante en esta diapositiva)"
        title = s.locator("#hall-status").get_attribute("title")
        assert title.startswith("Por su cuenta") and "no sigue al profesor" in title, title
        assert (
            s.evaluate(OVERLAPS, "#hall-status *") == []
        )  # the indicator and the button: clear of the title
        s.evaluate(f"window.deck.reveal.slide({h - 1}, 0)")
        wait_until(
            s, "() => /diapositiva \\d+\\)$/.test(document.querySelector('.hall-return').textContent)", 2
        )
        s.locator("#hall-status .hall-return").click()
        wait_until(s, "() => window.deck.hall.following === true", 3)

    # the phone: «N en sala», the full text of the hall and of Python a tap away
    short = phone.locator("#hall-status .label .short")
    assert short.is_visible() and short.text_content() == "4 en sala"
    assert not phone.locator("#runtime-status .label").is_visible()
    phone.locator("#hall-status").tap()
    detail = phone.locator(".hall-detail")
    assert detail.is_visible()
    assert (
        detail.text_content().startswith("Siguiendo · 4 dispositivos") and "Python" in detail.text_content()
    )
    detail.tap()
    assert not detail.is_visible()

    # reading ahead on the phone: a swipe to the next fragment is on its own; the presenter's next
    # click does not scroll it back
    phone.mouse.move(195, 450)
    for _ in range(10):  # the scroll view snaps to each fragment's stretch of scrolling
        phone.mouse.wheel(0, 700)
        phone.wait_for_timeout(400)
        if phone.evaluate(HERE) != [h, 0, 1]:
            break
    ahead = phone.evaluate(HERE)
    assert ahead[0] == h and ahead[2] == 2, ahead
    wait_until(phone, "() => window.deck.hall.following === false", 3)
    presenter.keyboard.press("ArrowRight")
    wait_until(laptops[0], "(() => window.deck.reveal.getIndices().f === 2)()", 3)
    presenter.keyboard.press("ArrowRight")
    wait_until(laptops[0], "(() => window.deck.reveal.getIndices().f === 3)()", 3)
    phone.wait_for_timeout(300)
    assert phone.evaluate(HERE) == ahead and phone.evaluate("window.deck.hall.following") is False
    phone.locator(".hall-return").click()
    wait_until(phone, "(() => window.deck.reveal.getIndices().f === 3)()", 3)
    for p in (presenter, *laptops, phone):
        assert p.errors == []
        p.context.close()
