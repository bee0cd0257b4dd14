// Ready before you get there: once Python is up, run the cells in the background in deck
// order, the current slide's cell first, one at a time (so a cell the presenter runs waits
// for at most one background cell).

export function startPrerun(cells, reveal, runtime) {
  const pending = new Set(cells);
  const current = () => {
    const slide = reveal.getCurrentSlide();
    return cells.find((c) => c.slide === slide && pending.has(c));
  };
  const ready = () => runtime.state === "ready" || runtime.state === "running";
  const whenReady = () => /** @type {Promise<void>} */ (new Promise((resolve) => {
    if (ready()) return resolve();
    const on = () => { if (ready()) { runtime.removeEventListener("status", on); resolve(); } };
    runtime.addEventListener("status", on);
  }));

  (async () => {
    while (pending.size) {
      await whenReady();
      const cell = current() ?? pending.values().next().value;
      pending.delete(cell);
      if (cell.runs > 0 || cell.running !== null) continue;   // the presenter got there first
      await cell.run({ background: true });
    }
    document.documentElement.dataset.prerunDone = "true";
  })();
}
