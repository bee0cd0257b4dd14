// Ready before you get there: once Python is up, run the cells in the background in deck
// order, the current slide's cell first, one at a time (so a cell the presenter runs waits
// for at most one background cell).

/** Pre-run the context's cells while it is bound. ``unbind()`` removes the runtime's status
 *  listener (a wait for Python ends) and stops the loop: the cell under way finishes, no other
 *  starts, and the page is not marked `data-prerun-done`.
 *  @param {import("./context.js").DeckContext} ctx @returns {import("./context.js").Bound} */
export function startPrerun(ctx) {
  const { cells, reveal, runtime } = ctx;
  if (!runtime) return { unbind() {} };   // a speaker-view copy runs no Python
  const pending = new Set(cells);
  let bound = true;
  /** @type {(() => void) | null} the status listener of a wait for Python, if one is under way */
  let waiting = null;
  const current = () => {
    const slide = reveal?.getCurrentSlide();
    return cells.find((c) => c.slide === slide && pending.has(c));
  };
  const ready = () => runtime.state === "ready" || runtime.state === "running";
  const whenReady = () => /** @type {Promise<void>} */ (new Promise((resolve) => {
    if (ready()) return resolve();
    const on = () => { if (ready()) { runtime.removeEventListener("status", on); waiting = null; resolve(); } };
    waiting = on;
    runtime.addEventListener("status", on);
  }));

  (async () => {
    while (pending.size) {
      await whenReady();
      if (!bound) return;
      const cell = current() ?? pending.values().next().value;
      if (!cell) break;
      pending.delete(cell);
      if (cell.runs > 0 || cell.running !== null) continue;   // the presenter got there first
      await cell.run({ background: true });
      if (!bound) return;
    }
    document.documentElement.dataset.prerunDone = "true";
  })();
  return {
    unbind() {
      bound = false;
      if (waiting) runtime.removeEventListener("status", waiting);
      waiting = null;
    },
  };
}
