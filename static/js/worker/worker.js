// The Python runtime: Pyodide in a module Web Worker. Protocol and scheduling rules: see
// PROTOCOL.md. What runs next is decided by scheduler.js (pure); this file only executes it.
// (type-checked with the worker's globals: tsconfig.worker.json)
import { Scheduler } from "../shared/scheduler.js";
import { errorFromException, errorRecord } from "../shared/errors.js";
import { dropKept, fetchKept, prefetch } from "./prefetch.js";
import { Engine } from "./engine.js";
import { say } from "../shared/phrases.js";
import { assertNever } from "../shared/never.js";

/** @typedef {import("../shared/types.js").DeckConfig} DeckConfig */
/** @typedef {import("../shared/types.js").ToWorker} ToWorker */
/** @typedef {import("../shared/types.js").FromWorker} FromWorker */
/** @typedef {import("../shared/types.js").RunResult} RunResult */
/** @typedef {import("../shared/types.js").RunMessage} RunMessage */
/** @typedef {import("../shared/types.js").ErrorRecord} ErrorRecord */
/** @typedef {import("pyodide").PyodideInterface} PyodideInterface */

// Network waits are bounded, so that every run the page asks for ends: a fetch that stalls
// fails what needed it instead of holding it forever.
const BOOT_TIMEOUT_MS = 180_000;       // interpreter + numpy + dplab + prelude, on a slow phone
const WHEELS_TIMEOUT_MS = 180_000;     // matplotlib's wheels, fetched in the background
const PACKAGE_TIMEOUT_MS = 60_000;     // a package a cell needs, loaded on demand
// After a MemoryError: a heap this big (wasm memory never shrinks; Pyodide's limit is 4 GiB) is
// handed back to the browser by restarting Python, even when the cell runner could free the cell's names.
const MEMORY_RESTART_BYTES = 2 ** 30;

/** @type {PyodideInterface | null} */
let pyodide = null;
/** @type {any} */
let runner = null;           // the cellrunner package (a PyProxy; pyodide_pkg/cellrunner)
/** @type {any} */
let session = null;          // its Session: the cells' namespace, and run()
/** a Stop's traceback when it came before the cell's first line: cellrunner's (with its Spanish
 *  line) once Python is up */
let interruptedTraceback = "KeyboardInterrupt\n";
/** @type {any} */
let namespace = null;        // session.namespace, for the editor's completion
/** @type {Int32Array | null} */
let interruptBuffer = null;  // the page's (shared): its Stop writes 2 there
// What Python checks while no cell runs: a buffer nobody writes. The page's Stop is for a cell,
// and Python runs between cells too (a wheel installing while a run waits for its packages, a
// step of matplotlib's import): there it would swallow the interrupt, and the cell it was for
// would run on until the page restarts Python. A Stop that comes before its cell's code runs
// stays in the page's buffer, and the cell raises KeyboardInterrupt at its first line (or in
// session.run's first lines, before its own handling: runCell answers that as the cell's).
const idleBuffer = new Int32Array(1);
/** @type {Record<string, string>} */
let onDemand = {};           // import name → Pyodide package loaded the first time a cell needs it
/** @type {(string | null)[]} */
let steps = [];              // matplotlib's import steps (the last one prepares pyplot)
// One per worker (one interpreter); the "init" message, the page's first (runtime.js), boots it.
const scheduler = new Scheduler();
/** @type {unknown} */
let bootError = null;        // Python never came up: every run answers with why
/** @type {unknown} */
let mplError = null;         // matplotlib failed to load: every run that draws answers with why
let lastStatus = "";
let downloading = false;     // the prefetch still downloads wheels: we wait on the network (prerun.js)
let bootPackages = false;    // A/B (?bootpackages): loadPyodide's own `packages`, no prefetch
/** @type {Engine | null} */
let completion = null;           // the editor's completion: loaded on its first request (engine.js)

/** @param {FromWorker} msg */
const post = (msg) => self.postMessage(msg);
const quiet = { messageCallback: () => {}, errorCallback: () => {} };

/**
 * What "init" made (Python, the completion engine): nothing asks for it before (Python runs
 * jobs and queries only once booted; "init" is the page's first message, runtime.js), so a
 * missing one is a bug, thrown as such (as using the null would throw).
 * @template T @param {T | null} value @param {string} what @returns {T}
 */
function made(value, what) {
  if (value === null) throw new Error(`${what} before the worker's init`);
  return value;
}

/** Tell the page what the scheduler's state means, in Spanish (phrases.js), once per change.
 *  @param {import("../shared/types.js").SchedulerStatus | null} [override] */
function publishStatus(override = null) {
  const status = override ?? scheduler.status();
  const { state } = status, detail = say(status);
  const key = `${state}|${detail}|${downloading}`;
  if (key === lastStatus) return;
  lastStatus = key;
  post({ type: "status", state, detail, downloading, at: performance.timeOrigin + performance.now() });
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(say({ code: "no-answer", what, seconds: ms / 1000 }))), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** @param {DeckConfig} config @param {string} base */
async function boot(config, base) {
  scheduler.bootProgress({ code: "boot-interpreter" });
  publishStatus();
  const { loadPyodide } = await import(new URL(config.pyodideIndex + "pyodide.mjs", base).href);
  const wheels = [config.wheel, config.runner].map((path) => new URL(path, base).href);
  const python = pyodide = /** @type {PyodideInterface} */ (await loadPyodide({
    indexURL: new URL(config.pyodideIndex, base).href,
    env: { HOME: "/home/pyodide" },   // MPLBACKEND: cellrunner sets it, once
    stdout: () => {}, stderr: () => {},
    // Pyodide's documented way (A/B, ?bootpackages): it downloads these while it bootstraps
    packages: bootPackages ? [...config.packages, ...wheels] : [],
  }));
  // Without a shared buffer the page cannot interrupt, but a buffer of our own still makes
  // Python call into JS every few dozen bytecodes: that is what lets WebKitGTK's terminate()
  // end a worker spinning in a loop (else the stopped cell goes on burning a core). The
  // page's buffer is Python's only while a cell runs (runCell).
  python.setInterruptBuffer(idleBuffer);
  scheduler.bootProgress({ code: "boot-packages", packages: config.packages });
  publishStatus();
  if (!bootPackages) await python.loadPackage([...config.packages, ...wheels], quiet);
  runner = python.pyimport("cellrunner");
  interruptedTraceback = String(runner.INTERRUPTED_TRACEBACK);
  session = runner.Session();
  namespace = session.namespace;
  if (interruptBuffer) runner.install_sleep(sleepUntilStop);   // time.sleep: no CPU, Stop wakes it
  steps = [...runner.MATPLOTLIB_STEPS.toJs(), null];   // null: prepare pyplot
  if (config.prelude) {
    const result = runCell("__prelude__", config.prelude, null);
    if (!result.ok) {   // shown under every cell that waits for it: the deck's own bug
      const error = /** @type {Error & {pythonTraceback?: string}} */ (new Error(say({ code: "prelude-failed" })));
      error.pythonTraceback = say({ code: "prelude-failed-traceback" }) + failure(result).traceback;
      throw error;
    }
  }
}

/** The error of a run that is not ok: such a result carries one (types.js, RunResult; cellrunner).
 *  @param {Partial<RunResult>} result @returns {ErrorRecord} */
const failure = (result) => /** @type {ErrorRecord} */ (result.error);

/**
 * Run code through the cell runner's session; its output goes to the page as the run ``id`` (none if null).
 * @param {string} cellId @param {string} code @param {number | null} id
 * @param {string | number | null} [seed]
 * @returns {RunResult}
 */
function runCell(cellId, code, id, seed = null) {
  const emit = (kind, payload) => {
    if (id === null) return;
    if (typeof payload === "string") {   // stdout, stderr: text
      post({ type: kind, id, text: payload });
    } else {   // a dict (figure, budget, verdict, …): its fields are the message's (types.js)
      const data = payload.toJs({ dict_converter: Object.fromEntries });
      payload.destroy();
      post({ ...data, type: kind, id });
    }
  };
  const python = made(pyodide, "Python");
  python.setInterruptBuffer(interruptBuffer ?? idleBuffer);
  let proxy;
  try {
    proxy = session.run(code, cellId, emit, seed);
  } catch (e) {
    // A Stop already waiting when the run began fires at Python's first check, which may come
    // in session.run's first lines, before its own handling: it stopped this cell, not Python
    if (/** @type {{type?: string}} */ (e)?.type !== "KeyboardInterrupt") throw e;
    return { ok: false, seconds: null,
             error: errorRecord("KeyboardInterrupt", say({ code: "interrupted-message" }), interruptedTraceback) };
  } finally {
    python.setInterruptBuffer(idleBuffer);
  }
  const result = proxy.toJs({ dict_converter: Object.fromEntries });
  proxy.destroy();
  return result;
}

/** A cell's time.sleep (cellrunner.install_sleep): block this thread, using no CPU, for at most
 *  ``ms`` milliseconds or until the page's Stop writes the interrupt buffer and notifies.
 *  Returns true for a Stop, which it consumes (the sleep raises KeyboardInterrupt).
 *  @param {number} ms */
function sleepUntilStop(ms) {
  const buffer = interruptBuffer;   // set: boot installs this sleep only with a buffer
  if (!buffer) return false;
  Atomics.wait(buffer, 0, 0, ms);
  if (Atomics.load(buffer, 0) !== 2) return false;
  Atomics.store(buffer, 0, 0);
  return true;
}

/** The interpreter's heap (wasm memory) in bytes, or 0 if this Pyodide does not say. */
function heapBytes() {
  return /** @type {any} */ (pyodide)?._module?.HEAPU8?.length ?? 0;
}
// For the benches (bench/browser.py's MemoryWatch reads it through the worker's own scope):
// measureUserAgentSpecificMemory counts JavaScript heaps only, not this wasm memory
/** @type {any} */ (self).deckHeapBytes = heapBytes;

/**
 * Answer a run that exhausted memory, after cellrunner undid what it bound and collected
 * (``result.memory``: ``{released, left}``). Python goes on when the memory came back and the
 * heap stayed under MEMORY_RESTART_BYTES; else the page is asked for a new interpreter (the
 * result is ``crashed``: the cell is not replayed). The note under the cell says which.
 * Returns true when the interpreter is to be replaced (nothing more runs on it).
 * @param {RunMessage} job @param {RunResult & {memory: {released: string[], left: boolean}}} result
 */
function answerMemoryError(job, result) {
  const { memory, ...rest } = result;
  const failed = failure(rest);   // a MemoryError
  const heap = heapBytes();
  if (memory.left && heap < MEMORY_RESTART_BYTES) {
    const note = say({ code: "memory-freed", names: memory.released });
    post({ type: "result", id: job.id, ...rest, error: { ...failed, traceback: failed.traceback + note } });
    return false;
  }
  const note = say({ code: "memory-restart", gigabytes: heap / 2 ** 30 });
  const error = { ...failed, traceback: failed.traceback + note };
  post({ type: "result", id: job.id, ...rest, error, crashed: true });
  post({ type: "crashed", error, reason: say({ code: "restart-memory" }) });
  return true;
}

/** @param {{id: number}} job @param {any} e */
function answerWithError(job, e) {
  post({ type: "result", id: job.id, ok: false, seconds: null, error: errorFromException(e) });
}

/** Run one job; post its result. Throws only if the interpreter itself died; returns true when
 *  it is to be replaced (the run exhausted its memory: see answerMemoryError).
 *  @param {RunMessage} job
 *  @returns {Promise<boolean>} */
async function runJob(job) {
  // Clear a stale interrupt *before* saying the run started: a Stop the page sends after
  // `started` (even while the cell's packages load) must reach the cell, not be wiped.
  if (interruptBuffer) interruptBuffer[0] = 0;
  post({ type: "started", id: job.id });
  try {
    await withTimeout(made(pyodide, "Python").loadPackagesFromImports(job.code, { messageCallback: () => {} }),
                      PACKAGE_TIMEOUT_MS, say({ code: "load-cell-packages" }));
  } catch {   // the cell reports what it cannot import (a Stop meanwhile waits for its code)
  }
  let result = runCell(job.cellId, job.code, job.id, job.seed ?? null);
  const wanted = result.ok ? undefined : failure(result).missing;
  const missing = wanted !== undefined && onDemand[wanted];
  if (missing) {
    // matplotlib needed a package the cold load left out (e.g. contourpy for ax.contour):
    // load it and run the cell again, once, from a clean output
    publishStatus({ state: "loading", code: "loading-package", name: missing });
    try {
      await withTimeout(made(pyodide, "Python").loadPackage([missing], quiet), PACKAGE_TIMEOUT_MS, say({ code: "load-package", name: missing }));
      post({ type: "rerun", id: job.id, reason: say({ code: "rerun-package", name: missing }) });
      publishStatus();
      result = runCell(job.cellId, job.code, job.id, job.seed ?? null);
    } catch (e) {
      result = { ok: false, seconds: null, error: errorFromException(e) };
    }
  }
  if ("memory" in result) return answerMemoryError(job, /** @type {any} */ (result));
  post({ type: "result", id: job.id, ...result });
  return false;
}

/** @param {number} index */
function runStep(index) {
  const name = steps[index];
  if (name === null) session.prepare_matplotlib();
  else runner.import_step(name);
}

/** @param {any} e */
function failMatplotlib(e) {
  if (scheduler.mpl === "failed") return;
  mplError = e;
  for (const job of scheduler.mplFailed()) answerWithError(job, e);
}

/** Whether ``e`` is a trap of the wasm machine (out-of-bounds access, unreachable…): not an
 *  error of Python's, which the interpreter survives, but the interpreter's end.
 *  @param {unknown} e */
function trapped(e) {
  return typeof WebAssembly !== "undefined" && e instanceof WebAssembly.RuntimeError;
}

/** The run ``id`` ended because the interpreter died under it (the page restarts us).
 *  @param {number} id @param {unknown} e */
function postDied(id, e) {
  const info = errorFromException(e);
  post({ type: "result", id, ok: false, crashed: true, seconds: null,
         error: errorRecord(say({ code: "died-type" }), say({ code: "died-message" }),
                            say({ code: "died-traceback", message: info.message })) });
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
        if (action.kind === "job") {
          if (await runJob(action.job)) return;   // stay busy: the page replaces this interpreter
        } else if (action.kind === "query") answerQuery(action.query);
        else runStep(action.index);
      } catch (e) {
        if (action.kind === "step" && trapped(e)) {
          // a wasm trap while importing matplotlib (WebKit, after the heap ran out in the
          // interpreter this one replaced; it seems, once on a cold load of a busy machine): this
          // interpreter is dead, not matplotlib missing. No run was under way, so none is at
          // fault: the runs waiting for matplotlib had not started, and the page's restart
          // sends them to the new interpreter (PROTOCOL.md, "Liveness"), a restart it caps
          post({ type: "crashed", error: errorFromException(e), outsideRun: true });
          return;   // stay busy: nothing more runs on a dead interpreter
        } else if (action.kind === "step") {
          failMatplotlib(e);
        } else if (action.kind === "query") {   // (engine.answer catches Python's errors itself)
          console.warn("completion:", e);
          if (action.query.id >= 0) post({ type: "completion", id: action.query.id, ready: false, answer: null });
        } else {
          // session.run never raises: an exception here means the interpreter itself died
          // (os._exit, a fatal wasm error). Report it on the cell; the page restarts us.
          postDied(action.job.id, e);
          post({ type: "crashed", error: errorFromException(e) });
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

/** @param {DeckConfig} config @param {string} base */
async function start(config, base) {
  try {
    await withTimeout(boot(config, base), BOOT_TIMEOUT_MS, say({ code: "start-python" }));
  } catch (e) {
    bootError = e;
    dropKept();
    for (const job of scheduler.bootFailed()) answerWithError(job, e);
    for (const query of scheduler.takeQueries()) answerQuery(query);
    publishStatus();
    post({ type: "fatal", error: errorFromException(e) });
    return;
  }
  scheduler.bootDone(steps.length);
  pump();
  try {
    await withTimeout(made(pyodide, "Python").loadPackage(config.deferredPackages, quiet), WHEELS_TIMEOUT_MS,
                      say({ code: "load-package", name: config.deferredPackages.join(", ") }));
    scheduler.wheelsLoaded();
  } catch (e) {
    failMatplotlib(e);
  }
  dropKept();   // Pyodide has loaded what it was going to
  pump();
}

/** The editor's query: to the scheduler once the engine is unpacked; before that, answered
 *  at once "not ready" (the page uses its static names) while the wheels load.
 *  @param {import("../shared/types.js").CompleteMessage} msg */
function onComplete(msg) {
  const engine = made(completion, "the completion engine");
  if (scheduler.python === "ready" && engine.state === "none") {
    engine.fetch(made(pyodide, "Python"), () => { scheduler.submitQuery({ id: -1, kind: "load" }); pump(); });
  }
  if (scheduler.python !== "ready" || !engine.usable) {
    post({ type: "completion", id: msg.id, ready: false, answer: null });
    return;
  }
  scheduler.submitQuery(msg);
  pump();
}

/** @param {{id: number, kind: string, code?: string, line?: number, column?: number}} query */
function answerQuery(query) {
  const engine = made(completion, "the completion engine");
  const answer = scheduler.python === "ready" ? engine.answer(made(pyodide, "Python"), /** @type {any} */ (query), namespace) : null;
  if (query.id >= 0) post({ type: "completion", id: query.id, ready: engine.usable, answer });
  else if (query.kind === "load" && Array.isArray(answer)) {   // warm jedi up, one gap each
    for (const code of answer) scheduler.submitQuery({ id: -1, kind: "complete", code, line: 1, column: code.length });
  }
}

/** Boot: the first message. @param {import("../shared/types.js").InitMessage} msg */
function onInit(msg) {
  interruptBuffer = msg.interruptBuffer || null;
  onDemand = msg.config.onDemand || {};
  completion = new Engine(msg.config.editor, msg.base);
  bootPackages = msg.bootPackages;
  if (msg.prefetch && !bootPackages) {   // numpy's wheels, then matplotlib's, meanwhile
    downloading = true;
    globalThis.fetch = fetchKept(globalThis.fetch.bind(globalThis));   // Pyodide's fetches take them
    prefetch(msg.config, msg.base).then(() => { downloading = false; publishStatus(); });
  }
  start(msg.config, msg.base);
}

/** Drop a run that has not started; answer it cancelled. @param {number} id */
function onCancel(id) {
  if (!scheduler.cancel(id)) return;   // started, or ended: Stop reaches it otherwise
  post({ type: "result", id, ok: false, cancelled: true, seconds: null,
         error: errorRecord(say({ code: "cancelled-type" }), say({ code: "cancelled-message" }),
                            say({ code: "cancelled-traceback" })) });
  publishStatus();
}

/** One case per message the page sends (types.js, `ToWorker`): `tsc` checks that none is left
 *  out (`assertNever`). PROTOCOL.md, "Page → worker".
 *  @param {MessageEvent<ToWorker>} event */
self.onmessage = (event) => {
  const msg = event.data;
  switch (msg.type) {
    case "ping":
      post({ type: "pong", n: msg.n });   // the page's watchdog: this event loop still turns
      return;
    case "init":
      onInit(msg);
      return;
    case "run":
      for (const job of scheduler.submit(msg)) answerWithError(job, bootError ?? mplError);
      publishStatus();
      pump();
      return;
    case "cancel":
      onCancel(msg.id);
      return;
    case "complete":
      onComplete(msg);
      return;
    case "complete-cancel":
      if (scheduler.cancelQuery(msg.id)) post({ type: "completion", id: msg.id, ready: made(completion, "the completion engine").usable, answer: null });
      return;
    default:   // only the page posts here, with the types above; anything else is dropped
      assertNever(msg, { ignore: true });
  }
};
