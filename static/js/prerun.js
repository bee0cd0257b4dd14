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
import { needsMatplotlib } from "./scheduler.js";

/** Background cells in flight per Python worker: the one it runs, and the next. */
export const AHEAD_PER_WORKER = 2;

/** Pre-run the context's cells while it is bound. ``unbind()`` removes the runtime's status
 *  listener (a wait for Python ends) and stops the loop: the cells already asked for (up to
 *  AHEAD_PER_WORKER a worker) finish, no other is asked for, and the page is not marked
 *  `data-prerun-done`.
 *  @param {import("./context.js").DeckContext} ctx @returns {import("./context.js").Bound} */
export function startPrerun(ctx) {
  const { cells, reveal, runtime } = ctx;
  if (!runtime) return { unbind() {} };   // a speaker-view copy runs no Python
  const pending = new Set(cells);
  let bound = true;
  /** @type {Set<() => void>} the status listeners of the waits for Python under way */
  const waiting = new Set();
  const current = () => {
    const slide = reveal?.getCurrentSlide();
    return cells.find((c) => c.slide === slide && pending.has(c));
  };
  /** The next cell to ask for: the current slide's; then, while wheels download, one that does
   *  not draw; then the first in deck order. */
  const nextCell = () => {
    const mine = current();
    if (mine) return mine;
    if (runtime.downloading) {
      for (const cell of pending) if (!needsMatplotlib(cell.code)) return cell;
    }
    return pending.values().next().value;
  };
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
      if (!cell) break;
      pending.delete(cell);
      if (cell.runs > 0 || cell.running !== null) continue;   // the presenter got there first
      await cell.run({ background: true });
      if (!bound) return false;
    }
    return true;
  };
  const workers = runtime.workers ?? 1;   // a runtime of old (a test's) has one
  const lanes = Array.from({ length: workers * AHEAD_PER_WORKER }, lane);
  Promise.all(lanes).then((done) => {
    if (done.every(Boolean)) document.documentElement.dataset.prerunDone = "true";
  });
  return {
    unbind() {
      bound = false;
      for (const on of waiting) runtime.removeEventListener("status", on);
      waiting.clear();
    },
  };
}
