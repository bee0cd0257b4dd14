// The Python runtime: Pyodide in a module Web Worker. Protocol: see PROTOCOL.md.
let pyodide = null;
let runner = null;           // the cellrunner module (a PyProxy)
let interruptBuffer = null;
let onDemand = {};           // import name → Pyodide package loaded the first time a cell needs it

const post = (msg) => self.postMessage(msg);
const status = (state, detail) => post({ type: "status", state, detail });

function errorInfo(e) {
  return { type: e?.name || "Error", message: String(e?.message || e),
           traceback: e?.pythonTraceback ?? String(e?.stack || e) };
}

async function boot(config, base) {
  status("loading", "Python: cargando el intérprete…");
  const { loadPyodide } = await import(new URL(config.pyodideIndex + "pyodide.mjs", base).href);
  pyodide = await loadPyodide({
    indexURL: new URL(config.pyodideIndex, base).href,
    env: { MPLBACKEND: "agg", HOME: "/home/pyodide" },
    stdout: () => {}, stderr: () => {},
  });
  if (interruptBuffer) pyodide.setInterruptBuffer(interruptBuffer);
  status("loading", "Python: cargando numpy y dplab…");
  await pyodide.loadPackage([...config.packages, new URL(config.wheel, base).href],
                            { messageCallback: () => {}, errorCallback: () => {} });
  const source = await (await fetch(new URL(config.runner, base))).text();
  pyodide.FS.writeFile("/home/pyodide/cellrunner.py", source);
  runner = pyodide.pyimport("cellrunner");
  if (config.prelude) {
    const result = runCell("__prelude__", config.prelude, null);
    if (!result.ok) {   // shown under every cell that waits for it: the deck's own bug
      const error = new Error("el preludio del mazo falló");
      error.pythonTraceback = "El preludio del mazo (deck.yaml, prelude) falló:\n" + result.error.traceback;
      throw error;
    }
  }
  status("ready", "Python: listo");
}

async function loadDeferred(config) {
  await pyodide.loadPackage(config.deferredPackages, { messageCallback: () => {}, errorCallback: () => {} });
  // Importing pyplot costs ~1.5 s in Pyodide: do it now, before the first cell that draws, one
  // module at a time, letting the presenter's numpy-only cells run in between.
  const steps = runner.MATPLOTLIB_STEPS.toJs();
  for (const name of steps) {
    await presenterIdle();
    runner.import_step(name);
  }
  await presenterIdle();
  runner.prepare_matplotlib();
}

/** Resolves when no cell runs and no presenter's cell that can run is waiting. */
async function presenterIdle() {
  await new Promise((resolve) => setTimeout(resolve, 0));   // let queued messages arrive
  while (busy || jobs.some((job) => !job.background && !job.needsMpl)) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function runCell(cellId, code, id, seed = null) {
  const emit = (kind, payload) => {
    if (id === null) return;
    if (kind === "figure") {
      const fig = payload.toJs({ dict_converter: Object.fromEntries });
      payload.destroy();
      post({ ...fig, type: "figure", id });   // svg or png, alt, note: see PROTOCOL.md
    } else {
      post({ type: kind, id, text: payload });
    }
  };
  if (interruptBuffer) interruptBuffer[0] = 0;
  const proxy = runner.run_cell(code, cellId, emit, seed);
  const result = proxy.toJs({ dict_converter: Object.fromEntries });
  proxy.destroy();
  return result;
}

// Scheduling. Cells the presenter runs (foreground) go first, in the order asked (later cells
// may use what earlier ones defined). Background pre-runs fill the gaps, and one that draws
// never holds the line while matplotlib loads: a numpy-only cell never waits for matplotlib.
const NEEDS_MATPLOTLIB = /\b(plt|matplotlib|pyplot|plots|figure|fig)\b/;
const jobs = [];             // {id, cellId, code, seed, background, needsMpl}
let busy = false;
let booting = true;
let bootError = null;        // Python never came up: every run answers with why
let mplError = null;         // matplotlib failed to load: every run that draws answers with why
let mplReady = false;

function nextJob() {
  const runnable = (job) => !job.needsMpl || mplReady;
  const fg = jobs.findIndex((job) => !job.background);
  if (fg >= 0) return runnable(jobs[fg]) ? fg : -1;   // foreground stays in order
  return jobs.findIndex(runnable);
}

async function pump() {
  if (busy || booting) return;
  const index = nextJob();
  if (index < 0) {
    // Python is ready; only the figures wait: say so without calling the runtime "loading"
    if (jobs.length && !mplReady) status("ready", "Python: listo · cargando matplotlib…");
    return;
  }
  const [job] = jobs.splice(index, 1);
  busy = true;
  post({ type: "started", id: job.id });
  try {
    try { await pyodide.loadPackagesFromImports(job.code, { messageCallback: () => {} }); } catch (_) { /* the cell reports it */ }
    status("running", "Python: ejecutando…");
    let result = runCell(job.cellId, job.code, job.id, job.seed ?? null);
    const missing = !result.ok && onDemand[result.error.missing];
    if (missing) {
      // matplotlib needed a package the cold load left out (e.g. contourpy for ax.contour):
      // load it and run the cell again, once, from a clean output
      status("loading", `Python: cargando ${missing}…`);
      await pyodide.loadPackage([missing], { messageCallback: () => {}, errorCallback: () => {} });
      post({ type: "rerun", id: job.id, reason: `se cargó ${missing}; la celda se ejecutó de nuevo` });
      status("running", "Python: ejecutando…");
      result = runCell(job.cellId, job.code, job.id, job.seed ?? null);
    }
    post({ type: "result", id: job.id, ...result });
  } catch (e) {
    // run_cell never raises: an exception here means the interpreter itself died
    // (os._exit, a fatal wasm error). Report it on the cell; the page restarts us.
    const info = errorInfo(e);
    post({ type: "result", id: job.id, ok: false, crashed: true, seconds: null,
           error: { type: "Fallo", message: "el intérprete de Python terminó",
                    traceback: `El intérprete de Python terminó durante esta celda (${info.message.split("\n")[0]}).\nSe reinicia y se vuelve a correr el preludio.` } });
    post({ type: "crashed", error: info });
    return;
  } finally {
    busy = false;
    status("ready", mplReady ? "Python: listo" : "Python: listo · cargando matplotlib…");
    setTimeout(pump, 0);   // a macrotask: a "cancel" that arrived meanwhile is handled first
  }
}

function failAll(e, which = () => true) {
  for (const job of jobs.filter(which)) {
    jobs.splice(jobs.indexOf(job), 1);
    post({ type: "result", id: job.id, ok: false, error: errorInfo(e) });
  }
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "init") {
    interruptBuffer = msg.interruptBuffer || null;
    onDemand = msg.config.onDemand || {};
    boot(msg.config, msg.base).then(() => {
      booting = false;
      pump();
      return loadDeferred(msg.config);
    }).then(() => {
      mplReady = true;
      if (!busy) status("ready", "Python: listo");
      setTimeout(pump, 0);   // a run asked for meanwhile is received first
    }, (e) => {
      if (booting) {
        bootError = e;
        status("error", "Python: error al iniciar");
        failAll(e);
        post({ type: "fatal", error: errorInfo(e) });
      } else {   // numpy cells still run; the ones that draw say why they cannot
        mplError = e;
        failAll(e, (job) => job.needsMpl);
        status("ready", "Python: listo · matplotlib no se pudo cargar");
      }
    });
  } else if (msg.type === "run") {
    jobs.push({ ...msg, needsMpl: NEEDS_MATPLOTLIB.test(msg.code) });
    if (bootError) failAll(bootError);
    else if (mplError) failAll(mplError, (job) => job.needsMpl);
    if (!bootError) pump();
  } else if (msg.type === "cancel") {
    const index = jobs.findIndex((job) => job.id === msg.id);
    if (index >= 0) {
      jobs.splice(index, 1);
      post({ type: "result", id: msg.id, ok: false, cancelled: true, seconds: null,
             error: { type: "Cancelada", message: "ejecución cancelada", traceback: "Ejecución cancelada antes de empezar." } });
    }
  }
};
