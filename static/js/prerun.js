// Ready before you get there: once Python is up, run the cells in the background in deck
// order, the current slide's cell first, one at a time per Python worker (so a cell the
// presenter runs waits for at most one background cell; with a pool of two workers, workers.js,
// two lanes take the cells in turn and the pool puts each on the less busy worker).

/** Pre-run the context's cells while it is bound. ``unbind()`` removes the runtime's status
 *  listener (a wait for Python ends) and stops the loop: the cell under way finishes, no other
 *  starts, and the page is not marked `data-prerun-done`.
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
      const cell = current() ?? pending.values().next().value;
      if (!cell) break;
      pending.delete(cell);
      if (cell.runs > 0 || cell.running !== null) continue;   // the presenter got there first
      await cell.run({ background: true });
      if (!bound) return false;
    }
    return true;
  };
  const lanes = Array.from({ length: runtime.workers ?? 1 }, lane);   // a runtime of old (a test's) has one
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
