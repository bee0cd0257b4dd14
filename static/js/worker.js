// The Python runtime: Pyodide in a module Web Worker. Protocol: see PROTOCOL.md.
let pyodide = null;
let runner = null;           // the cellrunner module (a PyProxy)
let booted = null;           // Promise: Pyodide + numpy + dplab + prelude ready
let deferred = null;         // Promise: matplotlib loaded and pyplot imported
let queue = Promise.resolve();
let interruptBuffer = null;

const post = (msg) => self.postMessage(msg);
const status = (state, detail) => post({ type: "status", state, detail });

function errorInfo(e) {
  return { type: e?.name || "Error", message: String(e?.message || e), traceback: String(e?.stack || e) };
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
    if (!result.ok) {
      throw new Error("el preludio del mazo falló:\n" + result.error.traceback);
    }
  }
  status("ready", "Python: listo");
}

async function loadDeferred(config) {
  await pyodide.loadPackage(config.deferredPackages, { messageCallback: () => {}, errorCallback: () => {} });
  // Importing pyplot costs ~2 s in Pyodide: do it now, between cells, not inside the first one.
  // (Synchronous, so it can never interleave with a running cell.)
  runner.prepare_matplotlib();
}

function runCell(cellId, code, id) {
  const emit = (kind, payload) => {
    if (id === null) return;
    if (kind === "figure") {
      const fig = payload.toJs({ dict_converter: Object.fromEntries });
      payload.destroy();
      post({ type: "figure", id, svg: fig.svg, alt: fig.alt });
    } else {
      post({ type: kind, id, text: payload });
    }
  };
  if (interruptBuffer) interruptBuffer[0] = 0;
  const proxy = runner.run_cell(code, cellId, emit);
  const result = proxy.toJs({ dict_converter: Object.fromEntries });
  proxy.destroy();
  return result;
}

// Cells that draw need matplotlib; a numpy-only cell does not wait for it, unless it queues
// behind a cell that does (cells run in the order they were asked for: later cells may use
// what earlier ones defined).
const NEEDS_MATPLOTLIB = /\b(plt|matplotlib|pyplot|plots|figure|fig)\b/;

function enqueue(job) {
  const next = queue.then(job);
  queue = next.catch(() => {});
  return next;
}

function handleRun({ id, cellId, code }) {
  return enqueue(async () => {
    await booted;
    if (NEEDS_MATPLOTLIB.test(code)) {
      status("loading", "Python: cargando matplotlib…");
      await deferred;
    }
    try { await pyodide.loadPackagesFromImports(code, { messageCallback: () => {} }); } catch (_) { /* the cell reports it */ }
    status("running", "Python: ejecutando…");
    const result = runCell(cellId, code, id);
    post({ type: "result", id, ...result });
    status("ready", "Python: listo");
  });
}

self.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "init") {
    interruptBuffer = msg.interruptBuffer || null;
    booted = boot(msg.config, msg.base);
    deferred = booted.then(() => loadDeferred(msg.config));
    booted.catch((e) => {
      status("error", "Python: error al iniciar");
      post({ type: "fatal", error: errorInfo(e) });
    });
    deferred.catch((e) => { if (pyodide) post({ type: "fatal", error: errorInfo(e) }); });
  } else if (msg.type === "run") {
    handleRun(msg).catch((e) => post({ type: "result", id: msg.id, ok: false, error: errorInfo(e) }));
  }
};
