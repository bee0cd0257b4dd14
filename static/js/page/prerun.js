// Ready before you get there: once Python is up, run the cells in the background in deck
// order, the current slide's cell first. While a worker still downloads wheels (its status
// says `downloading`: prefetch.js, matplotlib's last), the cells that do not draw go next: a
// cell that draws would only wait in the worker's queue while the worker waits on the network.
// Once the bytes are in, deck order again: while the wheels install and matplotlib is imported
// the worker is busy, and a numpy-only cell would delay the first figure (docs/benchmark.md).
// Each Python worker is given two background cells at a time (AHEAD_PER_WORKER): one runs
// while the next waits in the worker's queue, so the worker starts it the moment the first
// ends instead of idling until the page has taken the result and asked again (10–15 ms a cell
// under the aula profile's slow main thread: docs/benchmark.md). A cell the presenter runs
// still waits for at most one background cell: the worker's scheduler takes any presenter's
// run before a queued background one (PROTOCOL.md, "Scheduling", rule 3). With a pool of two
// workers (workers.js) the lanes take the cells in turn and the pool puts each on the less
// busy worker.
//
// On a phone (issue 49; docs/benchmark.md, "The phone's pre-run") the pre-run runs only near
// the current slide: the pending cells up to the AHEAD_SLIDES-th slide with cells after the
// current one (the cells behind it too, in deck order: they may bind names the nearer ones
// use), and none while the page is hidden. Moving on widens the window, so a slide the student
// reaches has its results computed there, on the phone, as before; only the far ones wait.
// Elsewhere (a laptop) every cell is pre-run as before.
//
// A restart (the watchdog's, a crash's, ⟲) ends the run under way, and the replay after it
// leaves that cell out: a background run it ended is asked for again, first, once, unless the
// viewer stopped it. Without that, the cell stayed «stopped» until the presenter reached it.
import { needsMatplotlib } from "../shared/scheduler.js";

/** Background cells in flight per Python worker: the one it runs, and the next. */
export const AHEAD_PER_WORKER = 2;

/** On a phone: how many slides with cells after the current one are pre-run. */
export const AHEAD_SLIDES = 2;
/** The shorter side of the viewport (CSS px) at most which a touch-only device is a phone. */
export const PHONE_MAX_SIDE = 600;
/** ``navigator.deviceMemory`` (GB) below which any device pre-runs only near the slide. */
export const LOW_MEMORY_GB = 4;
/** A battery below this level and not charging (the Battery API, where there is one): near only. */
export const LOW_BATTERY = 0.2;

/**
 * Which pre-run a device gets: "near" (the window of AHEAD_SLIDES, paused while hidden) or
 * "all" (every cell, the laptop's). Each signal is read on its own, none inferred from another:
 * a phone's form (no fine pointer, ``touchOnly``, and a viewport whose shorter side is at most
 * PHONE_MAX_SIDE: a tablet or a small laptop window is not one); a memory under LOW_MEMORY_GB
 * (``deviceMemory``, where the browser tells); a battery under LOW_BATTERY that is not charging
 * (``battery``, where the Battery API answers: it says no "saver" mode, so the level stands for
 * it). ``override`` (the page's ``?prerun=all`` or ``?prerun=near``) wins when it is one of them.
 * @param {{touchOnly?: boolean, shortSide?: number, deviceMemory?: number,
 *          battery?: {charging: boolean, level: number} | null}} device
 * @param {string | null} [override]
 * @returns {"near" | "all"}
 */
export function prerunPolicy(device, override = null) {
  if (override === "all" || override === "near") return override;
  const phone = device.touchOnly === true && typeof device.shortSide === "number" && device.shortSide <= PHONE_MAX_SIDE;
  const lowMemory = typeof device.deviceMemory === "number" && device.deviceMemory < LOW_MEMORY_GB;
  const lowBattery = !!device.battery && !device.battery.charging && device.battery.level < LOW_BATTERY;
  return phone || lowMemory || lowBattery ? "near" : "all";
}

/**
 * The last slide (an index in deck order) whose cells the "near" pre-run may run now: the
 * ``ahead``-th slide holding a cell after ``here``; the last slide with a cell if there are
 * fewer. ``cellSlides``: each cell's slide index, in deck order. Cells at or before it run (those
 * behind ``here`` included), the others wait until the current slide moves on.
 * @param {number[]} cellSlides @param {number} here @param {number} ahead @returns {number}
 */
export function horizon(cellSlides, here, ahead) {
  const after = [...new Set(cellSlides.filter((s) => s > here))].sort((a, b) => a - b);
  if (!after.length) return Math.max(here, ...cellSlides);
  return ahead <= 0 ? here : after[Math.min(ahead, after.length) - 1];
}

/** What the page tells of the device, for ``prerunPolicy`` (the battery: asked once, briefly).
 *  @returns {Promise<Parameters<typeof prerunPolicy>[0]>} */
export async function deviceSignals() {
  /** @type {any} */
  const nav = navigator;
  let battery = null;
  if (typeof nav.getBattery === "function") {
    const asked = nav.getBattery().then((/** @type {any} */ b) => ({ charging: b.charging, level: b.level }), () => null);
    battery = await Promise.race([asked, new Promise((r) => setTimeout(() => r(null), 500))]);
  }
  return {
    touchOnly: !matchMedia("(any-pointer: fine)").matches,
    shortSide: Math.min(innerWidth, innerHeight),
    deviceMemory: nav.deviceMemory,
    battery,
  };
}

/** A background run that a restart ended (``restarted``), which the viewer did not stop, is
 *  asked for again once: ``cell`` goes first in ``pending`` (the cells still to ask for, in
 *  order), since the cells after it may need its names. ``again``: each cell asked for again,
 *  with its count of runs then.
 *  @param {Set<import("./cell.js").Cell>} pending @param {Map<import("./cell.js").Cell, number>} again
 *  @param {import("./cell.js").Cell} cell @param {Partial<import("../shared/types.js").RunResult> | null} result */
function askAgainIfCut(pending, again, cell, result) {
  if (!result?.restarted || cell.stopAsked || again.has(cell)) return;
  again.set(cell, cell.runs);
  const rest = [...pending];
  pending.clear();
  for (const c of [cell, ...rest]) pending.add(c);
}

/** Pre-run the context's cells while it is bound. ``policy()`` (read at each pick; default
 *  "all") says whether every cell is pre-run or only those up to ``horizon`` of the current
 *  slide, and none while the page is hidden ("near"): a lane with nothing allowed waits until
 *  the slide changes, the page shows again, or ``wake()`` is called (the policy changed).
 *  ``unbind()`` removes the runtime's status listener (a wait for Python ends), the deck's and
 *  the document's listeners, and stops the loop: the cells already asked for (up to
 *  AHEAD_PER_WORKER a worker) finish, no other is asked for, and the page is not marked
 *  `data-prerun-done`. While "near" has nothing to run now the page is marked
 *  `data-prerun-idle` (isolation.js then lets the offline fill start). A background run that a
 *  restart ended (``restarted``), not stopped by the viewer (``cell.stopAsked``), is asked for
 *  again once, before the other pending cells.
 *  @param {import("./context.js").DeckContext} ctx
 *  @param {{policy?: () => "near" | "all"}} [options]
 *  @returns {import("./context.js").Bound & {wake(): void}} */
export function startPrerun(ctx, { policy = () => "all" } = {}) {
  const { cells, reveal, runtime } = ctx;
  if (!runtime) return { unbind() {}, wake() {} };   // a speaker-view copy runs no Python
  const pending = new Set(cells);
  /** @type {Map<import("./cell.js").Cell, number>} a cell asked for again: its runs then */
  const again = new Map();
  let bound = true;
  /** @type {Set<() => void>} the status listeners of the waits for Python under way */
  const waiting = new Set();
  /** @type {(HTMLElement | null | undefined)[]} the deck's slides, in order */
  const slides = reveal?.getSlides?.() ?? [];
  const slideOf = (/** @type {import("./cell.js").Cell} */ c) => slides.indexOf(c.slide);
  const cellSlides = cells.map(slideOf);
  const here = () => slides.indexOf(reveal?.getCurrentSlide());
  /** Whether ``cell`` may be pre-run now under the policy. */
  const allowed = (/** @type {import("./cell.js").Cell} */ cell) => policy() === "all"
    || (!document.hidden && slideOf(cell) <= horizon(cellSlides, here(), AHEAD_SLIDES));
  const current = () => {
    const slide = reveal?.getCurrentSlide();
    return cells.find((c) => c.slide === slide && pending.has(c) && allowed(c));
  };
  /** The next cell to ask for: the current slide's; then, while wheels download, one that does
   *  not draw; then the first in deck order (each of them one the policy allows now). */
  const nextCell = () => {
    const mine = current();
    if (mine) return mine;
    if (runtime.downloading) {
      for (const cell of pending) if (!needsMatplotlib(cell.code) && allowed(cell)) return cell;
    }
    for (const cell of pending) if (allowed(cell)) return cell;
    return undefined;
  };
  /** @type {Set<() => void>} lanes waiting for the window to move */
  const parked = new Set();
  const wake = () => { for (const go of [...parked]) go(); parked.clear(); };
  const moved = () => wake();
  reveal?.on?.("slidechanged", moved);
  document.addEventListener("visibilitychange", moved);
  const park = () => /** @type {Promise<void>} */ (new Promise((resolve) => {
    parked.add(resolve);
    if (parked.size === lanes.length) document.documentElement.dataset.prerunIdle = "true";
  })).then(() => { delete document.documentElement.dataset.prerunIdle; });
  const ready = () => runtime.state === "ready" || runtime.state === "running";
  const whenReady = () => /** @type {Promise<void>} */ (new Promise((resolve) => {
    if (ready()) return resolve();
    const on = () => { if (ready()) { runtime.removeEventListener("status", on); waiting.delete(on); resolve(); } };
    waiting.add(on);
    runtime.addEventListener("status", on);
  }));

  /** One lane: a cell at a time until none is left. @returns {Promise<boolean>} whether it ran out of cells (not unbound) */
  const lane = async () => {
    while (pending.size) {
      await whenReady();
      if (!bound) return false;
      const cell = nextCell();
      if (!cell) {
        await park();
        if (!bound) return false;
        continue;
      }
      pending.delete(cell);
      if (cell.runs > (again.get(cell) ?? 0) || cell.running !== null) continue;   // the presenter got there first
      const result = await cell.run({ background: true });
      if (!bound) return false;
      askAgainIfCut(pending, again, cell, result);
    }
    wake();   // the others parked: none is left for them either
    return true;
  };
  const workers = runtime.workers ?? 1;   // a runtime of old (a test's) has one
  /** @type {Promise<boolean>[]} */
  const lanes = [];
  for (let i = 0; i < workers * AHEAD_PER_WORKER; i++) lanes.push(lane());
  Promise.all(lanes).then((done) => {
    if (done.every(Boolean)) document.documentElement.dataset.prerunDone = "true";
  });
  return {
    wake,
    unbind() {
      bound = false;
      for (const on of waiting) runtime.removeEventListener("status", on);
      waiting.clear();
      reveal?.off?.("slidechanged", moved);
      document.removeEventListener("visibilitychange", moved);
      wake();
    },
  };
}

/** The pre-run as the page's plugin (plugins.js). None on a speaker-view copy, nor with
 *  ``?noprerun`` (cells run only when asked: for tests, and to watch a cold cell compute).
 *  ``?prerun=all|near`` chooses the policy, else the device does (``prerunPolicy``): its form and
 *  memory at once, its battery once it answers (then ``wake()``); `data-prerun` on <html> says
 *  the policy now.
 *  @type {import("./plugins.js").DeckPlugin<import("./context.js").Bound & {wake(): void}>} */
export const plugin = {
  id: "prerun",
  init(ctx) {
    const search = new URLSearchParams(location.search);
    if (!ctx.runtime || search.has("noprerun")) return { unbind() {}, wake() {} };
    const asked = search.get("prerun");
    let policy = prerunPolicy({ touchOnly: !matchMedia("(any-pointer: fine)").matches,
                                shortSide: Math.min(innerWidth, innerHeight),
                                deviceMemory: /** @type {{deviceMemory?: number}} */ (navigator).deviceMemory }, asked);
    document.documentElement.dataset.prerun = policy;
    const prerun = startPrerun(ctx, { policy: () => policy });
    deviceSignals().then((device) => {
      policy = prerunPolicy(device, asked);
      document.documentElement.dataset.prerun = policy;
      prerun.wake();
    });
    return prerun;
  },
};
