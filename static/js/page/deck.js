// The page: reveal.js slides, the Python runtime, and one Cell per code cell.
// Python starts first: this module's static imports are only what starting the worker needs,
// so the worker boots while reveal.js and CodeMirror (most of the page's JS) still load.
import { Runtime } from "./runtime.js";
import { say } from "../shared/phrases.js";
import { poolSize } from "./pool.js";
import { isReceiver, styleSpeakerNotes } from "./mirror.js";
import { ensureIsolation, keepOffline } from "./isolation.js";
import { loadAll, registerPlugins } from "./plugins.js";

/** An element the page's template always has (templates/index.html.j2): a missing one is a
 *  broken build, said at once. @param {string} id @returns {HTMLElement} */
function pageElement(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`deck.js: the page has no #${id}`);
  return el;
}

/** @type {import("../shared/types.js").DeckConfig} the build's config (dpdeck/build/config.py) */
const config = JSON.parse(pageElement("deck-config").textContent ?? "");
const base = new URL(".", document.baseURI).href;
const receiver = isReceiver();
document.documentElement.classList.toggle("is-receiver", receiver);   // deck.css: the speaker view's copies
document.documentElement.classList.toggle("is-upcoming", receiver && /[?&]controls=false\b/.test(location.search));

const statusEl = pageElement("runtime-status");
const announcer = pageElement("announcer");
const announce = (/** @type {string} */ text) => { announcer.textContent = text; };
const showStatus = (/** @type {{state: string, detail: string}} */ { state, detail }) => {
  statusEl.dataset.state = state;
  const label = statusEl.querySelector(".label");
  if (label) label.textContent = detail;
};

if (!receiver) await ensureIsolation();
// a second Python worker where the device affords it (pool.js; ``?workers=1|2`` overrides)
const workers = poolSize({ hardwareConcurrency: navigator.hardwareConcurrency,
                           deviceMemory: /** @type {{deviceMemory?: number}} */ (navigator).deviceMemory,
                           touchOnly: !matchMedia("(any-pointer: fine)").matches },
                         new URLSearchParams(location.search).get("workers"));
/** @type {import("./workers.js").Python | null} a speaker-view copy runs no Python */
// the pool's module only where there is a pool: one worker's start fetches nothing more than before
const runtime = receiver ? null
  : workers > 1 ? new (await import("./workers.js")).RuntimePool(config, base, workers) : new Runtime(config, base);
if (runtime) document.documentElement.dataset.workers = String(runtime.workers);
runtime?.addEventListener("status", (/** @type {CustomEvent} */ e) => showStatus(e.detail));
runtime?.addEventListener("status", (/** @type {CustomEvent} */ e) => { if (e.detail.state === "ready") keepOffline(statusEl, runtime); });

// The features started once reveal.js is ready, as reveal.js's plugins: by id, each module's
// `plugin = {id, init(deck)}` (plugins.js), in this order; they load now, with the core below. A
// missing or failing one is reported by its id (window.deck.plugins) and the others still start.
const features = registerPlugins([
  { id: "help", load: () => import("./help.js") },
  { id: "zoom", load: () => import("./zoom.js") },
  { id: "prerun", load: () => import("./prerun.js") },
  { id: "polls", load: () => import("./poll.js") },
  { id: "hallcounts", load: () => import("./hallcount.js") },
]);
// the core: what the page cannot start without, each module by name
const { reveal: { default: Reveal }, notes: { default: RevealNotes }, cell: { Cell }, storage: { EditStore, ProgressStore },
        mirror: { publish, subscribe }, actions: { installActions, showWhere }, exercise: { installExercises },
        live: { takeToken, listenForPresenterLinks, startHall }, lastrun: { LastRunStore, runKey },
        context: { HallHolder }, lastvisits: { openingSlide, showLastVisits } } = await loadAll({
  reveal: import("reveal"), notes: import("reveal-notes"), cell: import("./cell.js"), storage: import("./storage.js"),
  mirror: import("./mirror.js"), actions: import("./actions.js"), exercise: import("./exercise.js"),
  live: import("./live.js"), lastrun: import("./lastrun.js"), context: import("./context.js"),
  lastvisits: import("./lastvisits.js") });
let hallToken = receiver ? null : takeToken();   // before reveal.js reads the URL's fragment
// a presenter's link opened later in this tab (only the fragment changes): before reveal.js
// listens, so that it never reads the token as a slide; the hall presents from then on
if (!receiver) listenForPresenterLinks((token) => { hallToken = token; context.hall.get()?.takePresenter(token); });

const store = runtime ? new EditStore(config.deckId) : null;
/** @type {import("./cell.js").Cell[]} */
let cells;
if (runtime && store) {
  const lastRuns = {   // each cell's last output in this browser, shown until its run lands
    store: new LastRunStore(localStorageOrNull(), config.version),
    key: (/** @type {string} */ cellId, /** @type {string} */ code, /** @type {number | null} */ seed) =>
      // the sliders' values are in the code: params.js writes them there
      runKey({ version: config.version, wheel: config.wheel, cellId, code, params: {}, seed }),
  };
  cells = [...cellElements()].map((el) => new Cell(el, { runtime, store, announce, lastRuns }));
  // the opening slide's at once, the others when idle; then the page says so (the tests wait for it)
  showLastVisits(cells, openingSlide(), () => { document.documentElement.dataset.lastVisits = "shown"; });
} else {
  // a speaker-view copy: the main window's outputs mirrored
  cells = [...cellElements()].map((el) => new Cell(el, { readOnly: true }));
}
// what the page's components are handed (context.js): live.js sets the hall through its holder,
// and reveal.js is in it once initialized (the components installed before it read none)
/** @type {import("./context.js").DeckContext} */
const context = { runtime, hall: new HallHolder(), reveal: null, config, receiver, base, announce, cells };
/** @type {import("./context.js").Bound[]} every installed component, for window.deck.unbind() */
const bound = [];
/** @type {import("./exercise.js").ExerciseHub} */
let exercises;
if (!runtime || !store) {   // runtime is null exactly on a speaker-view copy (receiver)
  exercises = installExercises(context);
  bound.push(exercises, subscribe(context, { onStatus: showStatus, exercises }));
  styleSpeakerNotes(new URL(`${config.assets.katex}dist/katex.min.css`, base).href);
} else {
  exercises = installExercises(context, { progress: new ProgressStore(config.deckId) });
  runtime.addEventListener("restart", (/** @type {CustomEvent} */ e) => {
    announce(e.detail.reason);
    notify(e.detail.reason);
    statusEl.title = e.detail.reason;
    replay(cells, e.detail);
  });
  runtime.addEventListener("fatal", (/** @type {CustomEvent} */ e) => { statusEl.title = e.detail.traceback || e.detail.message; });
  bound.push(exercises, installActions(context, { store }), lazyCompletion(context), publish(context, { exercises }));
  showStatus({ state: runtime.state, detail: runtime.detail });   // what it said while we loaded
}

/** completion.js (more of CodeMirror) is loaded with the first editor, not with the page: one
 *  handler for all the cells, the first editor loads it, once. ``unbind()`` removes that handler
 *  and unbinds completion.js's installer (or keeps it from installing, if still loading).
 *  @param {import("./context.js").DeckContext} ctx @returns {import("./context.js").Bound} */
function lazyCompletion(ctx) {
  let unbound = false;
  /** @type {import("./context.js").Bound | null} */
  let installed = null;
  const load = () => import("./completion.js").then(({ installCompletion }) => {
    if (!unbound) installed = installCompletion(ctx);
  });
  const first = () => {
    for (const c of ctx.cells) c.removeEventListener("editor", first);
    load();
  };
  if (ctx.cells.some((c) => c.editor)) load();
  else for (const c of ctx.cells) c.addEventListener("editor", first);
  return {
    unbind() {
      unbound = true;
      for (const c of ctx.cells) c.removeEventListener("editor", first);
      installed?.unbind();
    },
  };
}

/** localStorage, or null where the browser refuses it (reading the property can throw). */
function localStorageOrNull() {
  try { return window.localStorage; } catch { return null; }
}

/** The page's code cells (the build's .cell elements). */
function cellElements() {
  return /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".cell"));
}

/** After a restart, run again (in the order they last ran) the cells that had run, so the
 *  state later cells depend on comes back; where one worker of a pool restarted by itself,
 *  only the cells whose state lived in it (``only``: workers.js). Never replayed: a cell that was stopped, crashed
 *  Python or exhausted its memory, or ran last before Python went silent (``suspect``, marked).
 *  After ⟲ (``manual``) only the cells whose code is the authored code are replayed: each
 *  authored cell needs only the prelude, so ⟲ always gives a working deck, even when an edit
 *  broke the namespace or the builtins. An edited cell keeps its edit in the editor and is not
 *  run (nor replayed by a later restart) until asked (▶, ▶▶); its note says so. All are queued
 *  at once, ahead of anything the presenter runs next.
 *  @param {import("./cell.js").Cell[]} all
 *  @param {{suspect?: string | null, manual?: boolean, only?: string[] | null}} restart the "restart" event's detail */
function replay(all, { suspect = null, manual = false, only = null } = {}) {
  const ran = all.filter((c) => (!only || only.includes(c.id)) && c.lastResult && !c.lastResult.restarted && !c.lastResult.cancelled
                                && !c.lastResult.crashed && c.id !== suspect)
                 .sort((a, b) => (a.lastRunAt ?? 0) - (b.lastRunAt ?? 0));   // set with lastResult
  all.find((c) => c.id === suspect)?.markSuspect();
  for (const cell of ran) {
    if (!manual || !cell.edited) cell.run({ replay: true });
    else cell.markNotReplayed();
  }
}

/** Editors only where the viewer is: the cells of the current slide and then of its neighbours
 *  get theirs (cell.js builds them one per task), the rest keep their static code until then.
 *  ``ready`` resolves once the current slide's editors are built; ``unbind()`` removes the
 *  "slidechanged" listener (the editors not built yet are then built on a click or Tab only).
 *  @param {import("./context.js").DeckContext} ctx
 *  @returns {{ready: Promise<unknown>} & import("./context.js").Bound} */
function buildNearEditors(ctx) {
  const { reveal, cells: all } = ctx;
  if (!reveal) return { ready: Promise.resolve(), unbind() {} };
  const near = () => {
    const slides = reveal.getSlides();
    const current = reveal.getCurrentSlide();
    const at = current ? slides.indexOf(current) : -1;
    const [here, ...around] = [slides[at], slides[at - 1], slides[at + 1]].map((s) => all.filter((c) => c.slide === s));
    const ready = Promise.all(here.map((c) => c.wantEditor()));
    for (const cell of around.flat()) cell.wantEditor();
    return ready;
  };
  reveal.on("slidechanged", near);
  return { ready: near(), unbind() { reveal.off("slidechanged", near); } };
}

/** reveal.js names its arrows in English for screen readers ("previous slide", "next slide",
 *  "above slide", "below slide"; 6.0.2 writes them once, as it builds its controls): in Spanish.
 *  @param {HTMLElement} revealEl */
function spanishArrows(revealEl) {
  for (const side of /** @type {const} */ (["left", "right", "up", "down"])) {
    const label = say({ code: `nav-${side}` });
    for (const b of revealEl.querySelectorAll(`.controls .navigate-${side}`)) {
      b.setAttribute("aria-label", label);
      b.setAttribute("title", label);
    }
  }
}

/** On a phone (reveal.js's scroll view) a formula or a table wider than the screen scrolls
 *  sideways (phone.css): such a one is made reachable by the keyboard and named for a screen
 *  reader (axe-core's scrollable-region-focusable); one that fits is left out of the tab order.
 *  Checked now, when reveal.js lays the slides out again, and once the fonts are in (KaTeX's
 *  widen formulas). A check measures one slide per task, the current one first: a phone's far
 *  slides are skipped (``content-visibility: auto``), so measuring one lays it out, and all
 *  sixty at once were one long task (bench/diagnose/longtasks.py). A newer check ends an older
 *  one; the slides' element is marked ``data-wide-checked`` when a check has measured them all.
 *  @param {any} reveal  @returns {import("./context.js").Bound} */
function focusableWhenWide(reveal) {
  /** @param {HTMLElement} el */
  const mark = (el) => {
    const wide = el.scrollWidth > el.clientWidth + 1;
    if (wide === (el.dataset.wide === "true")) return;
    el.dataset.wide = String(wide);
    if (wide) {
      el.tabIndex = 0;
      if (el.tagName !== "TABLE") el.setAttribute("role", "group");   // a table keeps its role
      el.setAttribute("aria-label", say({ code: el.tagName === "TABLE" ? "wide-table" : "wide-formula" }));
    } else {
      for (const attr of ["tabindex", "role", "aria-label"]) el.removeAttribute(attr);
    }
  };
  let checks = 0;   // the newest check's number: an older one stops at its next slide
  const check = () => {
    if (!reveal.isScrollView()) return;
    const mine = ++checks;
    const slidesEl = reveal.getRevealElement().querySelector(".slides");
    delete slidesEl.dataset.wideChecked;
    const current = reveal.getCurrentSlide();
    /** @type {HTMLElement[]} */
    const queue = reveal.getSlides().filter((/** @type {HTMLElement} */ s) => s !== current);
    if (current) queue.unshift(current);
    const next = () => {
      if (mine !== checks) return;
      const slide = queue.shift();
      if (!slide) { slidesEl.dataset.wideChecked = "true"; return; }
      for (const el of slide.querySelectorAll(".katex-display, table.deck-table")) mark(/** @type {HTMLElement} */ (el));
      setTimeout(next, 0);
    };
    next();
  };
  reveal.on("resize", check);
  check();
  document.fonts?.ready.then(check);
  return { unbind() { checks++; reveal.off("resize", check); } };
}

/** A visible notice beside the status indicator (what the announcer reads aloud), for a while. */
let noticeTimer = 0;
function notify(text) {
  let el = document.getElementById("runtime-notice");
  if (!el) {
    el = document.createElement("div");
    el.id = "runtime-notice";
    el.className = "runtime-notice";
    statusEl.after(el);
  }
  el.textContent = text;
  el.hidden = false;
  clearTimeout(noticeTimer);
  noticeTimer = setTimeout(() => { el.hidden = true; }, 10_000);
}

/** Phones: narrower than its `scrollActivationWidth` (435 px), reveal.js shows its scroll view
 *  (the slides one under the other, one screen each), which loses links to a slide (5.2.1, and
 *  still 6.0.2: without this plugin tests/browser/test_phone.py fails):
 *  1. start() runs configure() → sync() → layout(), which switches the scroll view on; laying
 *     the pages out at scrollTop 0 makes the first slide current, sync() then writes that to the
 *     URL ("#/titulo"), and only after that does start() read the URL: the link is gone.
 *  2. scrollToSlide() scrolls to the slide's share of the deck times (scrollHeight − a screen),
 *     short of the slide's page by that share of a screen: past the middle of the deck, scroll
 *     snapping settles on the slide before it (hakimel/reveal.js#3815).
 *  3. Scrolling never updates the URL, so a reload or a shared URL names a slide left long ago.
 *  4. A link followed on the page (a new hash) is handled on its hashchange, a task later. A
 *     slide change that a scroll had already queued (reveal.js syncs the scroll view on the next
 *     frame), or a deferred write (it replaces the URL at most once a second), can come first:
 *     it wrote the old slide's hash over the link's, reveal.js then read the old hash back and
 *     stayed. On a busy phone the link was lost (test_phone.py caught it once).
 *  A plugin is handed reveal.js's controllers: it keeps the link and goes there once ready,
 *  scrolls to the slide's own page, writes the URL when the current slide changes, and never
 *  writes over a hash the page has not handled yet (its hashchange will write its own). */
const ScrollViewLinks = {
  id: "scroll-view-links",
  init(reveal) {
    const view = reveal.scroll;
    view.scrollToSlide = function scrollToSlide(slide) {
      if (!this.active) { this.activatedCallbacks.push(() => this.scrollToSlide(slide)); return; }
      const page = slide.closest(".scroll-page");
      if (!page) return;
      const scroller = this.viewportElement;
      const top = page.getBoundingClientRect().top - scroller.getBoundingClientRect().top;
      if (top > 0 || top + page.offsetHeight <= 0) scroller.scrollTop += top;   // not on it yet
    };
    if (!reveal.getConfig().hash) return;
    const where = reveal.location;
    let handled = location.hash;   // the URL's hash as the page last wrote or handled it
    const replaceState = where.replaceState.bind(where);
    where.replaceState = (url) => {
      if (location.hash !== handled) return;   // a link's hashchange is on its way
      replaceState(url);
      handled = location.hash;
    };
    addEventListener("hashchange", () => { handled = location.hash; }, true);   // before reveal.js's own
    const link = location.hash;
    reveal.on("slidechanged", () => { if (reveal.isScrollView()) reveal.location.writeURL(); });
    reveal.on("ready", () => {
      const target = link && reveal.isScrollView() && reveal.location.getIndicesFromHash(link);
      if (!target) return;
      history.replaceState(history.state, "", link);
      handled = link;
      reveal.slide(target.h, target.v, target.f);
    });
  },
};

const deck = new Reveal({
  hash: !receiver,
  respondToHashChanges: !receiver,
  slideNumber: "c/t",
  showSlideNumber: "all",
  controls: true,
  controlsTutorial: false,   // its bouncing arrow costs a core where a browser composites in software
  progress: true,
  center: false,
  width: config.slideSize.width,    // dpdeck/build/layout.py: the one definition of the size
  height: config.slideSize.height,
  margin: 0.03,
  transition: receiver ? "none" : "fade",
  transitionSpeed: "fast",
  pdfSeparateFragments: false,
  plugins: [RevealNotes, ScrollViewLinks],
});
await deck.initialize();
context.reveal = deck;
spanishArrows(deck.getRevealElement());
bound.push(focusableWhenWide(deck));
bound.push(showWhere(context));
if (/print-pdf/.test(location.search)) (await import("./print.js")).preparePrint();   // build.py pdf
const nearEditors = buildNearEditors(context);
bound.push(nearEditors);
await nearEditors.ready;   // a link to a code slide: its editor is there when the page is ready
// live.js: the live hall, if a server is here (or at config.hall, the origin the build named)
startHall(context.hall, deck, { base, token: hallToken, receiver, origin: config.hall });

// the plugins (above): the Spanish help, the code's zoom, the pre-run, and the live hall's
// polls and exercise counts, each following the context's hall until unbound
const plugins = await features.start(context);
bound.push(...plugins.started.values());
const polls = /** @type {ReturnType<typeof import("./poll.js").installPolls> | undefined} */ (plugins.started.get("polls"));
const hallCounts = /** @type {ReturnType<typeof import("./hallcount.js").installHallCounts> | undefined} */ (
  plugins.started.get("hallcounts"));
if (plugins.failed.size) document.documentElement.dataset.pluginsFailed = [...plugins.failed.keys()].join(" ");
// for the tests and for curious students (no component reads it): window.deck.cells[0].run();
// `hall` is the one held now (a test puts its own with window.deck.context.hall.set(fake))
window.deck = {
  reveal: deck, runtime, cells, config, receiver, exercises: exercises.exercises, context,
  get hall() { return context.hall.get(); },
  polls: polls?.polls ?? new Map(), hallCounts: hallCounts?.boxes ?? [],
  /** which plugins started, and each failed one's error, by id (plugins.js) */
  plugins: { started: [...plugins.started.keys()], failed: Object.fromEntries(plugins.failed) },
  /** unbind every component (context.js): they follow nothing after (tests/browser/test_polls.py) */
  unbind() { for (const b of bound) b.unbind(); },
};
document.documentElement.dataset.deckReady = "true";
