// Injected into the deck's page by bench/startup.py (Playwright add_init_script, so before any
// of the deck's scripts and outside its Content-Security-Policy). It changes nothing the deck
// does; it only watches and presses Run:
//  - wraps window.Worker so that every message of the Python worker (status, result, figure)
//    and every "run" request is timestamped on the page's clock (ms since navigation);
//  - notices the moment deck.js publishes window.deck (the page is ready), and then
//      mode "presenter": presses Run on each cell in deck order (a cell the deck's background
//                        pre-run already ran, or is running, is not run twice), then optionally
//                        runs one diagnostic snippet through the runtime;
//      mode "probe":     once Python is ready, runs one numpy-only cell again and again on a
//                        fixed grid (every probeStepMs for probeWindowMs, i.e. while matplotlib
//                        loads), then (idleProbes > 0) a few times once the worker is idle.
//      mode "page":      nothing: the visit ends once the page is ready (bench/diagnose/ready.py).
// The result is read with page.evaluate("() => window.__bench.done").
(() => {
  if (window.top !== window) return;   // reveal.js speaker-view iframes
  const cfg = Object.assign({
    mode: "presenter", timeoutMs: 180000, probeCellId: null, probeStepMs: 150,
    probeWindowMs: 6000, idleProbes: 0, quietMs: 600, diag: "",
  }, window.__BENCH_CFG || {});
  const now = () => performance.now();
  const sleep = (ms) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
  const B = {
    mode: cfg.mode, timeOrigin: performance.timeOrigin, marks: {}, statuses: [], runs: {},
    figures: [], fatal: null, error: null, probes: [], idle: [], diag: null, workers: 0,
    cellIds: [], lastMessage: 0,
  };
  let finish;
  const done = new Promise((resolve) => { finish = resolve; });
  let readyResolve;
  const ready = new Promise((resolve) => { readyResolve = resolve; });
  Object.defineProperty(B, "done", { value: done, enumerable: false });
  window.__bench = B;

  // the main thread's long tasks (> 50 ms): what competes with the worker for the 2 cores
  B.longTasks = [];
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (B.longTasks.length < 2000) B.longTasks.push([e.startTime, e.duration]);
    }).observe({ type: "longtask", buffered: true });
  } catch (_) { /* not supported */ }

  const snapshot = () => {
    const nav = performance.getEntriesByType("navigation")[0];
    B.navigation = nav ? { responseEnd: nav.responseEnd, domContentLoaded: nav.domContentLoadedEventEnd,
                           load: nav.loadEventEnd } : null;
    const copy = JSON.parse(JSON.stringify(B));
    copy.runs = Object.values(B.runs).sort((a, b) => a.id - b.id);
    return copy;
  };
  let finished = false;
  const end = () => { if (!finished) { finished = true; B.marks.end = now(); finish(snapshot()); } };
  setTimeout(() => { B.error = B.error || `timeout after ${cfg.timeoutMs} ms`; end(); }, cfg.timeoutMs);

  // ---- the Python worker's messages ----
  const NativeWorker = window.Worker;
  let lastRunning = null;
  let lastResult = 0;
  class WatchedWorker extends NativeWorker {
    constructor(url, options) {
      super(url, options);
      this.__benchPython = (options && options.name === "python") || /\/worker\.js/.test(String(url));
      if (!this.__benchPython) return;
      B.workers += 1;
      const gen = B.workers;
      if (B.marks.workerCreated == null) B.marks.workerCreated = now();
      this.addEventListener("message", (event) => {
        const m = event.data;
        const t = now();
        if (!m || typeof m !== "object") return;
        B.lastMessage = t;
        if (m.type === "status") {
          // at: when the worker posted it (its own clock), as bare Pyodide's marks are taken
          const at = typeof m.at === "number" ? m.at - performance.timeOrigin : null;
          B.statuses.push({ t, at, state: m.state, detail: m.detail, gen });
          if (m.state === "running") lastRunning = t;
          if (m.state === "ready" && B.marks.ready == null) { B.marks.ready = t; readyResolve(); }
        } else if (m.type === "started") {   // newer workers say when a job starts
          const r = B.runs[m.id] || (B.runs[m.id] = { id: m.id, cellId: null, requested: null });
          r.started = t;
        } else if (m.type === "result") {
          const r = B.runs[m.id] || (B.runs[m.id] = { id: m.id, cellId: null, requested: null });
          r.result = t;
          r.ok = !!m.ok;
          r.seconds = m.seconds ?? null;
          r.error = m.ok ? null : `${m.error?.type}: ${m.error?.message}`.slice(0, 500);
          r.running = r.started ?? (lastRunning != null && lastRunning >= Math.max(r.requested ?? 0, lastResult) ? lastRunning : null);
          lastResult = t;
        } else if (m.type === "figure") {
          B.figures.push({ t, id: m.id, cellId: B.runs[m.id]?.cellId ?? null, svgLength: (m.svg || "").length });
        } else if (m.type === "fatal") {
          B.fatal = `${m.error?.type}: ${m.error?.message}`.slice(0, 2000);
        }
      });
    }

    postMessage(message, ...rest) {
      if (this.__benchPython && message && message.type === "run") {
        B.runs[message.id] = { id: message.id, cellId: message.cellId, requested: now(),
                               running: null, result: null, background: !!message.background };
      }
      return super.postMessage(message, ...rest);
    }
  }
  window.Worker = WatchedWorker;

  // ---- the page is ready when deck.js publishes window.deck ----
  let deckValue;
  Object.defineProperty(window, "deck", {
    configurable: true, enumerable: true,
    get() { return deckValue; },
    set(value) {
      deckValue = value;
      if (B.marks.deckReady == null) {
        B.marks.deckReady = now();
        // the last visit's outputs (static/js/page/lastvisits.js): the opening slide's before this,
        // the others when the page is idle after it: when the first and the last came
        // (watched until the page says every cell had its turn, data-last-visits: no observer
        // left to run on every class change of the visit's runs)
        const shown = () => document.querySelectorAll(".cell.from-last-visit").length;
        const allHadTheirTurn = () => document.documentElement.dataset.lastVisits === "shown";
        let count = shown();
        if (count) B.marks.lastVisitShown = B.marks.lastVisitAll = B.marks.deckReady;
        const watch = new MutationObserver(() => {
          const n = shown();
          if (n > count) B.marks.lastVisitAll = now();
          if (n && B.marks.lastVisitShown == null) B.marks.lastVisitShown = B.marks.lastVisitAll;
          count = Math.max(count, n);
          if (allHadTheirTurn()) watch.disconnect();
        });
        if (!allHadTheirTurn()) {
          watch.observe(document.body, { subtree: true, attributes: true, attributeFilter: ["class"] });
        }
        queueMicrotask(() => { drive(value).catch((e) => { B.error = String(e?.stack || e); }).finally(end); });
      }
    },
  });

  async function drive(deck) {
    const cells = deck.cells || [];
    B.cellIds = cells.map((c) => c.id);
    B.currentCellIds = currentCells(deck, cells).map((c) => c.id);
    if (cfg.mode === "presenter") await presenter(deck, cells);
    else if (cfg.mode === "probe") await probe(deck, cells);
    else if (cfg.mode !== "page") await ready;
  }

  /** The cells of the slide the page opened on, or, when it has none, of the first slide after
   *  it that has any (the code slide a student reaches first): "the current slide's cells". */
  function currentCells(deck, cells) {
    const slides = deck.reveal?.getSlides?.() ?? [];
    const here = slides.indexOf(deck.reveal?.getCurrentSlide?.());
    const at = (c) => slides.indexOf(c.slide);
    const first = cells.find((c) => at(c) >= here);
    return first ? cells.filter((c) => c.slide === first.slide) : [];
  }

  async function presenter(deck, cells) {
    for (const cell of cells) {
      if (cell.runs > 0) continue;        // the deck's pre-run got there first
      await cell.run();                   // also waits for a run already under way
    }
    B.marks.allDone = now();
    if (cfg.diag && deck.runtime) {
      await waitQuiet(deck, 10000);
      const r = await deck.runtime.run("__bench__", cfg.diag, {});
      B.diag = { ok: r.ok, value: r.value ?? null, error: r.ok ? null : r.error?.message };
    }
  }

  async function waitQuiet(deck, limitMs) {
    const until = now() + limitMs;
    while (now() < until) {
      const idle = deck.runtime?.state === "ready" && now() - B.lastMessage > cfg.quietMs;
      if (idle) return true;
      await sleep(50);
    }
    return false;
  }

  async function pressAndRecord(cell, into) {
    const requested = now();
    const r = await cell.run();
    const resolved = now();
    const own = Object.values(B.runs).filter((x) => x.cellId === cell.id && x.result != null && x.result <= resolved)
      .sort((a, b) => b.result - a.result)[0];
    into.push({ requested, resolved, runId: own?.id ?? null, seconds: r?.seconds ?? null, ok: !!r?.ok });
  }

  async function probe(deck, cells) {
    const cell = cells.find((c) => c.id === cfg.probeCellId);
    if (!cell) throw new Error(`no cell ${cfg.probeCellId} to probe with`);
    await ready;
    const t0 = B.marks.ready;
    B.marks.probeStart = now();
    for (let k = 0; ; k++) {
      const target = t0 + k * cfg.probeStepMs;
      if (target - t0 >= cfg.probeWindowMs) break;
      if (now() > target + cfg.probeStepMs / 2) continue;   // this slot passed while we waited
      await sleep(target - now());
      await pressAndRecord(cell, B.probes);
    }
    B.marks.probeEnd = now();
    if (cfg.idleProbes > 0) B.marks.quiet = (await waitQuiet(deck, 60000)) ? now() : null;
    for (let i = 0; i < cfg.idleProbes; i++) {
      await sleep(100);
      await pressAndRecord(cell, B.idle);
    }
  }
})();
