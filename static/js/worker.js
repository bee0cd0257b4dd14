// The Python runtime: Pyodide in a module Web Worker. Protocol and scheduling rules: see
// PROTOCOL.md. What runs next is decided by scheduler.js (pure); this file only executes it.
import { Scheduler } from "./scheduler.js";

// Network waits are bounded, so that every run the page asks for ends: a fetch that stalls
// fails what needed it instead of holding it forever.
const BOOT_TIMEOUT_MS = 180_000;       // interpreter + numpy + dplab + prelude, on a slow phone
const WHEELS_TIMEOUT_MS = 180_000;     // matplotlib's wheels, fetched in the background
const PACKAGE_TIMEOUT_MS = 60_000;     // a package a cell needs, loaded on demand

let pyodide = null;
let runner = null;           // the cellrunner module (a PyProxy)
let interruptBuffer = null;
let onDemand = {};           // import name → Pyodide package loaded the first time a cell needs it
let steps = [];              // matplotlib's import steps (the last one prepares pyplot)
let scheduler = null;
let bootError = null;        // Python never came up: every run answers with why
let mplError = null;         // matplotlib failed to load: every run that draws answers with why
let lastStatus = "";

const post = (msg) => self.postMessage(msg);
const quiet = { messageCallback: () => {}, errorCallback: () => {} };

function errorInfo(e) {
  return { type: e?.name || "Error", message: String(e?.message || e),
           traceback: e?.pythonTraceback ?? String(e?.stack || e) };
}

/** Tell the page what the scheduler's state means, once per change. */
function publishStatus(override = null) {
  const { state, detail } = override ?? scheduler.status();
  const key = `${state}|${detail}`;
  if (key === lastStatus) return;
  lastStatus = key;
  post({ type: "status", state, detail });
}

function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: sin respuesta tras ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

async function boot(config, base) {
  scheduler.bootProgress("Python: cargando el intérprete…");
  publishStatus();
  const { loadPyodide } = await import(new URL(config.pyodideIndex + "pyodide.mjs", base).href);
  pyodide = await loadPyodide({
    indexURL: new URL(config.pyodideIndex, base).href,
    env: { MPLBACKEND: "agg", HOME: "/home/pyodide" },
    stdout: () => {}, stderr: () => {},
  });
  // Without a shared buffer the page cannot interrupt, but a buffer of our own still makes
  // Python call into JS every few dozen bytecodes: that is what lets WebKitGTK's terminate()
  // end a worker spinning in a loop (else the stopped cell goes on burning a core).
  pyodide.setInterruptBuffer(interruptBuffer ?? new Int32Array(1));
  scheduler.bootProgress("Python: cargando numpy y dplab…");
  publishStatus();
  await pyodide.loadPackage([...config.packages, new URL(config.wheel, base).href], quiet);
  const source = await (await fetch(new URL(config.runner, base))).text();
  pyodide.FS.writeFile("/home/pyodide/cellrunner.py", source);
  runner = pyodide.pyimport("cellrunner");
  steps = [...runner.MATPLOTLIB_STEPS.toJs(), null];   // null: prepare pyplot
  if (config.prelude) {
    const result = runCell("__prelude__", config.prelude, null);
    if (!result.ok) {   // shown under every cell that waits for it: the deck's own bug
      const error = new Error("el preludio del mazo falló");
      error.pythonTraceback = "El preludio del mazo (deck.yaml, prelude) falló:\n" + result.error.traceback;
      throw error;
    }
  }
}

function runCell(cellId, code, id, seed = null) {
  const emit = (kind, payload) => {
    if (id === null) return;
    if (kind === "figure" || kind === "budget") {
      const data = payload.toJs({ dict_converter: Object.fromEntries });
      payload.destroy();
      post({ ...data, type: kind, id });   // figure: svg or png, alt, note; budget: accountants, more (PROTOCOL.md)
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

function answerWithError(job, e) {
  post({ type: "result", id: job.id, ok: false, seconds: null, error: errorInfo(e) });
}

/** Run one job; post its result. Throws only if the interpreter itself died. */
async function runJob(job) {
  post({ type: "started", id: job.id });
  try {
    await withTimeout(pyodide.loadPackagesFromImports(job.code, { messageCallback: () => {} }),
                      PACKAGE_TIMEOUT_MS, "cargar los paquetes de la celda");
  } catch (_) { /* the cell reports what it cannot import */ }
  let result = runCell(job.cellId, job.code, job.id, job.seed ?? null);
  const missing = !result.ok && onDemand[result.error.missing];
  if (missing) {
    // matplotlib needed a package the cold load left out (e.g. contourpy for ax.contour):
    // load it and run the cell again, once, from a clean output
    publishStatus({ state: "loading", detail: `Python: cargando ${missing}…` });
    try {
      await withTimeout(pyodide.loadPackage([missing], quiet), PACKAGE_TIMEOUT_MS, `cargar ${missing}`);
      post({ type: "rerun", id: job.id, reason: `se cargó ${missing}; la celda se ejecutó de nuevo` });
      publishStatus();
      result = runCell(job.cellId, job.code, job.id, job.seed ?? null);
    } catch (e) {
      result = { ok: false, seconds: null, error: errorInfo(e) };
    }
  }
  post({ type: "result", id: job.id, ...result });
}

function runStep(index) {
  const name = steps[index];
  if (name === null) runner.prepare_matplotlib();
  else runner.import_step(name);
}

function failMatplotlib(e) {
  if (scheduler.mpl === "failed") return;
  mplError = e;
  for (const job of scheduler.mplFailed()) answerWithError(job, e);
}

let pumping = false;

/** Do what the scheduler says until it says nothing can go now. Never runs twice at once. */
async function pump() {
  if (pumping) return;
  pumping = true;
  try {
    for (let action = scheduler.next(); action; action = scheduler.next()) {
      publishStatus();
      try {
        if (action.kind === "job") await runJob(action.job);
        else runStep(action.index);
      } catch (e) {
        if (action.kind === "step") {
          failMatplotlib(e);
        } else {
          // run_cell never raises: an exception here means the interpreter itself died
          // (os._exit, a fatal wasm error). Report it on the cell; the page restarts us.
          const info = errorInfo(e);
          post({ type: "result", id: action.job.id, ok: false, crashed: true, seconds: null,
                 error: { type: "Fallo", message: "el intérprete de Python terminó",
                          traceback: `El intérprete de Python terminó durante esta celda (${info.message.split("\n")[0]}).\nSe reinicia y se vuelve a correr el preludio.` } });
          post({ type: "crashed", error: info });
          return;   // stay busy: nothing more runs on a dead interpreter
        }
      }
      scheduler.finished(action);
      publishStatus();
      // a macrotask between actions: a "cancel" or "ping" that arrived meanwhile is handled
      await new Promise((resolve) => setTimeout(resolve, 0));
    }
    publishStatus();
  } finally {
    pumping = false;
  }
}

async function start(config, base) {
  try {
    await withTimeout(boot(config, base), BOOT_TIMEOUT_MS, "iniciar Python");
  } catch (e) {
    bootError = e;
    for (const job of scheduler.bootFailed()) answerWithError(job, e);
    publishStatus();
    post({ type: "fatal", error: errorInfo(e) });
    return;
  }
  scheduler.bootDone(steps.length);
  pump();
  try {
    await withTimeout(pyodide.loadPackage(config.deferredPackages, quiet), WHEELS_TIMEOUT_MS,
                      "cargar matplotlib");
    scheduler.wheelsLoaded();
  } catch (e) {
    failMatplotlib(e);
  }
  pump();
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "ping") {
    post({ type: "pong", n: msg.n });   // the page's watchdog: this event loop still turns
  } else if (msg.type === "init") {
    interruptBuffer = msg.interruptBuffer || null;
    onDemand = msg.config.onDemand || {};
    scheduler = new Scheduler();
    start(msg.config, msg.base);
  } else if (msg.type === "run") {
    for (const job of scheduler.submit(msg)) answerWithError(job, bootError ?? mplError);
    publishStatus();
    pump();
  } else if (msg.type === "cancel") {
    const job = scheduler.cancel(msg.id);
    if (job) {
      post({ type: "result", id: msg.id, ok: false, cancelled: true, seconds: null,
             error: { type: "Cancelada", message: "ejecución cancelada", traceback: "Ejecución cancelada antes de empezar." } });
      publishStatus();
    }
  }
};
