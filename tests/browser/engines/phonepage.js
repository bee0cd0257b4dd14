// A student's page in the live hall, at the size the driver opened it (a phone's 390 px: reveal.js's
// scroll view; or a laptop's 1366×768), on any engine: issue 50, items 3–6. Run inside an audience
// page (served by the hall, `?noprerun&nosw`) by the engines' drivers like hallfollow.js, one async
// arrow function called with the options and inpage.js's helpers; the presenter is played by this
// script, which posts the presenter's moves with the token the test passes (`options.token`).
//
// Steps (each fails with what it saw):
// - "fragments": the presenter reveals two fragments of a slide and steps back over both: at every
//   step the page shows exactly the presenter's fragments (it kept them shown on a phone).
// - "long-slide" (scroll view only): the presenter's slide is longer than the screen; while the
//   page follows, scrolling on past the slide's end stays in the slide (overscroll-behavior-y
//   contain, on the slides marked data-long), and one that fits the screen is not held.
// - "way-back": the student moves on alone; «Volver con el profesor» shows and nothing of the
//   slide is under it, at the slide's top and scrolled to its end.
// - "targets": on every slide, every target a finger can hit is ≥ 44 × 44 CSS px (a radio's target
//   is its label; a link inside a sentence is WCAG 2.5.8's inline exception). Only where the
//   page is a touch page: (pointer: coarse) or the scroll view; elsewhere the step reports so.
// - "wide-output": the census cell's table, run: where its lines are wider than the output, the
//   output is marked data-wide="right" and says «desliza →»; scrolled to its end, "left" and no
//   word; where it fits, neither (a short output on a phone, the table on a laptop).
// Report: {engine, view, steps: [{name, ok, seconds, details, error?}]}.
async (options = {}, { now, sleep, waitFor }) => {
  const opt = { liveTimeout: 60, followTimeout: 5, runTimeout: 240, ...options };
  await waitFor("the deck", () => document.documentElement.dataset.deckReady === "true", opt.liveTimeout);
  const reveal = window.deck.reveal;
  const scroll = reveal.isScrollView();
  const touch = scroll || matchMedia("(pointer: coarse)").matches;
  const report = {
    engine: { userAgent: navigator.userAgent },
    view: { width: innerWidth, height: innerHeight, dpr: devicePixelRatio, scroll, touch },
    steps: [],
  };

  async function step(name, body) {
    const entry = { name, ok: false, seconds: null, details: {} };
    report.steps.push(entry);
    const t = now();
    try { await body(entry.details); entry.ok = true; } catch (e) { entry.error = String(e && e.message || e); }
    entry.seconds = Math.round(now() - t) / 1000;
  }

  const hall = () => window.deck.hall;
  const here = () => { const i = reveal.getIndices(); return [i.h, i.v || 0, i.f ?? -1]; };
  const same = (a, b) => a.every((x, k) => x === b[k]);
  // a slide's indices: the scroll view wraps each slide in a page of its own and marks it
  // (reveal.js's getIndices and getSlide no longer find it there)
  const indices = (slide) => (scroll ? { h: Number(slide.dataset.indexH), v: Number(slide.dataset.indexV || 0) }
    : { h: reveal.getIndices(slide).h, v: reveal.getIndices(slide).v || 0 });
  const slideAt = (h) => (scroll ? document.querySelector(`.slides section[data-index-h="${h}"]`) : reveal.getSlide(h));
  const go = (slide) => { const i = indices(slide); reveal.slide(i.h, i.v); };
  let seq = 0;

  /** The presenter's move, as its page sends it (live.js publish). */
  async function present([indexh, indexv, indexf]) {
    seq = Math.max(Date.now(), seq + 1);
    const response = await fetch("_hall/state", {
      method: "POST",
      headers: { Authorization: `Bearer ${opt.token}`, "Content-Type": "application/json" },
      body: JSON.stringify({ seq, indexh, indexv, indexf }),
    });
    if (!response.ok) throw new Error(`the hall refused the presenter's move: ${response.status}`);
  }

  /** Which fragments of slide ``h`` show, as "1100": one digit per fragment, in document order. */
  const shown = (h) => [...slideAt(h).querySelectorAll(".fragment")]
    .map((f) => (f.classList.contains("visible") ? "1" : "0")).join("");
  /** What the presenter's page shows of slide ``h`` at fragment ``f``. */
  const expected = (h, f) => [...slideAt(h).querySelectorAll(".fragment")]
    .map((el) => (Number(el.dataset.fragmentIndex) <= f ? "1" : "0")).join("");

  /** The part of ``el`` its slide shows (a slide clips what it scrolled away), or null. */
  function shownPart(el, slide) {
    const r = el.getBoundingClientRect(), s = slide.getBoundingClientRect();
    const part = { top: Math.max(r.top, s.top), bottom: Math.min(r.bottom, s.bottom),
                   left: Math.max(r.left, s.left), right: Math.min(r.right, s.right) };
    return part.bottom - part.top > 0.5 && part.right - part.left > 0.5 ? part : null;
  }

  /** The slide's content under ``box``: its visible elements (leaves of text, code, controls,
   *  outputs) that overlap it by more than a pixel. */
  function under(box, slide) {
    const parts = "h2, h3, p, li, td, th, .katex-display, .cm-line, .cs-line, .cell-btn, input, select, "
      + ".cell-output > *, .poll-option, summary, figure, img";
    return [...slide.querySelectorAll(parts)]
      .filter((el) => getComputedStyle(el).visibility !== "hidden")
      .map((el) => [el, shownPart(el, slide)])
      .filter(([, p]) => p && p.bottom > box.top + 1 && p.top < box.bottom - 1
                        && p.right > box.left + 1 && p.left < box.right - 1)
      .map(([el, p]) => `${el.tagName}.${el.className} ${Math.round(p.top)}-${Math.round(p.bottom)}`);
  }

  await step("live", async (d) => {
    await waitFor("the hall's stream", () => hall() && hall().state === "live", opt.liveTimeout);
    d.following = hall().following;
    if (hall().presenter || !hall().following) throw new Error(`a new audience page ${JSON.stringify(d)}`);
  });

  await step("fragments", async (d) => {
    // the first slide with two fragment groups or more past the title
    const slides = reveal.getSlides();
    const groups = (s) => new Set([...s.querySelectorAll(".fragment")].map((f) => f.dataset.fragmentIndex)).size;
    const h = indices(slides.find((s, i) => i > 1 && groups(s) >= 2)).h;
    d.slide = h;
    d.seen = [];
    for (const f of [-1, 0, 1, 0, -1]) {
      await present([h, 0, f]);
      const want = expected(h, f);
      try {
        await waitFor(`fragment ${f} of slide ${h}`, () => same(here(), [h, 0, f]) && shown(h) === want, opt.followTimeout);
      } catch (e) {
        throw new Error(`presenter at [${h}, 0, ${f}] shows ${want}; this page at ${JSON.stringify(here())} shows ${shown(h)}`,
                        { cause: e });
      }
      d.seen.push(`${f}:${shown(h)}`);
    }
  });

  if (scroll) {
    await step("long-slide", async (d) => {
      const slides = [...document.querySelectorAll(".slides section")];
      // measured once, laid out: a far slide is skipped (content-visibility: auto) and measures
      // empty (the Python tests' twin: tests/support/layout.py SLIDE_OVERFLOW)
      const tall = new Map(slides.map((s) => {
        const was = s.style.contentVisibility;
        s.style.contentVisibility = "visible";
        const extra = s.scrollHeight - s.clientHeight;
        s.style.contentVisibility = was;
        return [s, extra];
      }));
      const long = slides.reduce((a, b) => (tall.get(b) > tall.get(a) ? b : a));
      const short = slides.find((s) => s !== slides[0] && tall.get(s) <= 0 && !s.querySelector(".fragment"));
      d.long = long.id;
      d.short = short?.id;
      await present([indices(long).h, indices(long).v, -1]);
      await waitFor(`the long slide ${long.id}`, () => reveal.getCurrentSlide() === long && hall().following, opt.followTimeout);
      await waitFor(`${long.id} marked long`, () => long.dataset.long === "true", opt.followTimeout);
      d.overscroll = getComputedStyle(long).overscrollBehaviorY;
      if (d.overscroll !== "contain") throw new Error(`a following page's long slide lets its scrolling go on: overscroll-behavior-y ${d.overscroll}`);
      if (!short) throw new Error("no slide fits the screen");
      await present([indices(short).h, indices(short).v, -1]);
      await waitFor(`the short slide ${short.id}`, () => reveal.getCurrentSlide() === short, opt.followTimeout);
      d.shortOverscroll = getComputedStyle(short).overscrollBehaviorY;
      if (d.shortOverscroll === "contain") throw new Error(`a slide that fits the screen holds a swipe: ${short.id}`);
    });
  }

  await step("way-back", async (d) => {
    // the presenter on the second slide; the student on alone to the census slide, whose output
    // is a long print (drawn as the speaker view's mirror draws one: 80 lines), and the slide
    // after it; each at its top and scrolled to its end
    const slides = reveal.getSlides();
    const cell = window.deck.cells.find((c) => c.id === "el-dato-de-partida");
    const census = document.getElementById(cell.id);
    const snap = cell.snapshot();
    const lines = Array.from({ length: 80 }, (_, i) => `fila ${i + 1}: ${"·".repeat(20)}\n`).join("");
    cell.restore({ ...snap, items: [{ kind: "stdout", text: lines }] });
    await present([indices(slides[1]).h, indices(slides[1]).v, -1]);
    await waitFor("the presenter's slide", () => reveal.getCurrentSlide() === slides[1] && hall().following, opt.followTimeout);
    const back = document.querySelector("#hall-status .hall-return");
    d.covered = {};
    d.boxes = [];
    for (const slide of [census, slides[slides.indexOf(census) + 1]]) {
      go(slide);
      await waitFor(`slide ${slide.id}`, () => reveal.getCurrentSlide() === slide, opt.followTimeout);
      await waitFor("following to pause", () => hall().following === false, opt.followTimeout);
      await waitFor("the way back", () => back && !back.hidden && back.getBoundingClientRect().height > 0, opt.followTimeout);
      d.button = back.textContent;
      await sleep(400);   // the page's own scroll settled
      for (const end of [false, true]) {
        if (end) {
          slide.scrollTop = slide.scrollHeight;
          for (const pre of slide.querySelectorAll(".cell-output pre")) pre.scrollTop = pre.scrollHeight;
          await sleep(200);
        }
        const box = back.getBoundingClientRect();
        if (!box.height) throw new Error(`the way back went away on ${slide.id}`);
        d.boxes.push([slide.id, end, Math.round(box.top), Math.round(box.bottom), Math.round(slide.getBoundingClientRect().bottom)]);
        const hidden = under(box, slide);
        if (hidden.length) d.covered[`${slide.id}${end ? " (its end)" : ""}`] = hidden.slice(0, 4);
      }
    }
    cell.restore(snap);
    if (Object.keys(d.covered).length) throw new Error(`under «${d.button}»: ${JSON.stringify(d.covered)}`);
  });

  await step("targets", async (d) => {
    d.touch = touch;
    if (!touch) return;
    const sel = 'button, a[href], input:not([type=hidden]), select, textarea, summary, [role=button], '
      + '[role=slider], [role=link], [tabindex]:not([tabindex="-1"])';
    const small = new Map();
    const slides = reveal.getSlides();
    d.measured = 0;
    for (const slide of slides) {
      go(slide);
      await waitFor(`slide ${slide.id}`, () => reveal.getCurrentSlide() === slide, 5);
      for (const details of slide.querySelectorAll("details")) details.open = true;
      await sleep(scroll ? 60 : 450);   // laid out (a fade between slides on a laptop)
      const scope = [...slide.querySelectorAll(sel), ...document.querySelectorAll(`.deck-chrome :is(${sel}), .controls :is(${sel}), .slide-number :is(${sel})`)];
      for (const el of scope) {
        if (el.closest("[hidden], [inert], [aria-hidden=true]") || el.matches(".cm-content, .cm-scroller")) continue;
        // a region that scrolls sideways is focusable for the keyboard only (axe-core's
        // scrollable-region-focusable): a finger swipes it, it is no target to tap
        if (el.matches(".katex-display[data-wide=true], table[data-wide=true], .cell-output pre[role=group]")) continue;
        const style = getComputedStyle(el);
        if (style.visibility === "hidden" || style.display === "none" || style.pointerEvents === "none") continue;
        let target = el;
        if (el.matches("input[type=radio], input[type=checkbox]")) target = el.closest("label") ?? el;
        if (el.matches("a") && el.parentElement && el.parentElement.textContent.trim() !== el.textContent.trim()
            && getComputedStyle(el).display === "inline") continue;   // a link inside a sentence
        const r = target.getBoundingClientRect();
        if (!r.width || !r.height) continue;
        d.measured++;
        if (r.width < 43.5 || r.height < 43.5) {
          const name = `${el.tagName.toLowerCase()}.${String(el.className).split(" ").filter(Boolean).join(".")} «${(el.textContent || el.getAttribute("aria-label") || "").trim().slice(0, 20)}»`;
          if (!small.has(name)) small.set(name, `${Math.round(r.width)}×${Math.round(r.height)} (${slide.id})`);
        }
      }
    }
    d.small = Object.fromEntries(small);
    if (small.size) throw new Error(`under 44 × 44 px: ${JSON.stringify(d.small)}`);
  });

  await step("wide-output", async (d) => {
    const cell = window.deck.cells.find((c) => c.id === "el-dato-de-partida");
    const slide = document.getElementById(cell.id);
    go(slide);
    await waitFor("Python", () => ["ready", "running"].includes(window.deck.runtime.state), opt.runTimeout);
    const out = slide.querySelector(".cell-output");
    const runs = cell.runs;
    cell.run();
    await waitFor("the census cell's run", () => cell.runs > runs && cell.running === null, opt.runTimeout);
    const pre = await waitFor("the census table", () => out.querySelector("pre.out-stdout"), 5);
    await sleep(300);   // marked a frame after it is drawn
    const label = () => getComputedStyle(pre, "::before").content;
    d.width = [pre.scrollWidth, pre.clientWidth];
    d.wide = pre.dataset.wide ?? null;
    d.label = label();
    const overflows = pre.scrollWidth > pre.clientWidth + 1;
    if (scroll && !overflows) throw new Error(`on a phone the census table fits its output? ${d.width}`);
    if (overflows) {
      if (d.wide !== "right" || !/desliza →/.test(d.label)) throw new Error(`a table cut at the right with no hint: data-wide ${d.wide}, label ${d.label}`);
      const box = pre.getBoundingClientRect();
      if (box.right > innerWidth + 1) throw new Error(`the output is wider than the screen: ${box.right}`);
      pre.scrollLeft = pre.scrollWidth;
      await waitFor("the hint to follow the scroll", () => pre.dataset.wide === "left", 3);
      d.scrolled = [pre.dataset.wide, label()];
      if (/desliza/.test(label())) throw new Error(`scrolled to its end, it still says ${label()}`);
      pre.scrollLeft = 0;
    } else if (d.wide || /desliza/.test(d.label)) {
      throw new Error(`a table that fits says it scrolls: data-wide ${d.wide}, label ${d.label}`);
    }
    // a short output, drawn as the speaker view's mirror draws one: no hint
    const snap = cell.snapshot();
    cell.restore({ ...snap, items: [{ kind: "stdout", text: "5.000 personas\n" }] });
    await sleep(300);
    const short = out.querySelector("pre");
    d.short = short.dataset.wide ?? null;
    if (short.dataset.wide) throw new Error(`a short output says it scrolls sideways: ${short.dataset.wide}`);
    cell.restore(snap);
    await sleep(300);
  });
  return report;
}
