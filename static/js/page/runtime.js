// The page's handle on the Python worker: run cells, stop them, restart the runtime, and
// notice a worker that died in silence (watchdog.js). Protocol: see PROTOCOL.md. One per page,
// or one per worker where the page has a pool of them (workers.js).
import { PING_MS, Watchdog } from "./watchdog.js";
import { errorRecord } from "../shared/errors.js";
import { say } from "../shared/phrases.js";
import { assertNever } from "../shared/never.js";

/** @typedef {import("../shared/types.js").DeckConfig} DeckConfig */
/** @typedef {import("../shared/types.js").FromWorker} FromWorker */
/** @typedef {import("../shared/types.js").ToWorker} ToWorker */
/** @typedef {import("../shared/types.js").RunResult} RunResult */
/** @typedef {import("../shared/types.js").RuntimeState} RuntimeState */
/** @typedef {import("../shared/types.js").FigureMessage} FigureMessage */
/** @typedef {import("../shared/types.js").BudgetMessage} BudgetMessage */
/** @typedef {import("../shared/types.js").VerdictMessage} VerdictMessage */
/** @typedef {Extract<FromWorker, {id: number}>} RunReply  a message about one run or query */

/**
 * What a run tells its cell as it goes (each optional).
 * @typedef {object} RunHandlers
 * @property {(id: number, state: RuntimeState) => void} [onQueued]
 * @property {(reason: string) => void} [onRerun]
 * @property {(kind: "stdout" | "stderr", text: string) => void} [onText]
 * @property {(msg: FigureMessage) => void} [onFigure]
 * @property {(msg: BudgetMessage) => void} [onBudget]
 * @property {(msg: VerdictMessage) => void} [onVerdict]
 */

/**
 * A run the worker has not answered yet.
 * @typedef {object} PendingRun
 * @property {RunHandlers} handlers
 * @property {(result: RunResult) => void} resolve
 * @property {string} cellId
 * @property {number} id
 * @property {string} code
 * @property {string | number | null} seed
 * @property {boolean} background
 * @property {boolean} [stopAsked]  Stop was pressed before its "started" arrived
 */

/** The cell id of the page's own snippets (``evaluate``): no Cell has it. */
export const PAGE_SNIPPET = "__page__";

const STOP_GRACE_MS = 3000;   // after an interrupt, how long before we restart instead
                              // (measured: bench/README.md, "Stop's grace")

/** An interrupt buffer for Stop, or null where this browser cannot share memory with the
 *  worker. Feature-detected, not inferred: cross-origin isolation is needed but not enough
 *  (WebKitGTK 2.50 is isolated and has no ``SharedArrayBuffer``). */
export function makeInterruptBuffer() {
  if (self.crossOriginIsolated !== true) return null;
  if (typeof SharedArrayBuffer !== "function" || typeof Atomics !== "object") return null;
  try {
    return new Int32Array(new SharedArrayBuffer(4));
  } catch (_) {
    return null;
  }
}

/**
 * Events: "status" (detail ``{state, detail}``), "restart" (detail ``{reason, suspect}``),
 * "fatal" (detail: the ErrorRecord of a boot failure).
 */
export class Runtime extends EventTarget {
  /** @type {Worker} the Python worker: made by ``start()`` (in the constructor), again at each restart */
  worker;

  /** @param {DeckConfig} config @param {string} baseURL the page's folder
   *  @param {{name?: string}} [options]  ``name``: the worker's (a pool's second: workers.js) */
  constructor(config, baseURL, { name = "python" } = {}) {
    super();
    this.name = name;
    this.config = config;
    this.base = baseURL;
    /** @type {Map<number, PendingRun>} */
    this.pending = new Map();
    this.nextId = 1;
    /** @type {number | null} the run the worker said has started */
    this.current = null;
    /** @type {Int32Array | null} */
    this.interruptBuffer = null;
    /** @type {RuntimeState} */
    this.state = "loading";
    this.detail = "";
    /** Whether the worker is still downloading wheels, as its last status said (prerun.js) */
    this.downloading = false;
    this.restarts = 0;
    this.gaveUp = null;         // why the watchdog stopped restarting (until ⟲), or null
    this.watchdog = new Watchdog();
    this.lastResultCell = null; // the cell whose result was the worker's last word
    /** @type {Map<number, (msg: {ready: boolean, answer: any} | null) => void>} the editor's queries */
    this.queries = new Map();
    setInterval(() => this.checkAlive(), PING_MS);
    document.addEventListener("visibilitychange", () => this.watchdog.resumed());
    this.start();
  }

  start() {
    this.watchdog.resumed();   // a ping to the previous worker proves nothing about this one
    this.downloading = false;   // a new worker says its own
    this.interruptBuffer = makeInterruptBuffer();
    const url = new URL(this.config.assets.static + "js/worker/worker.js", this.base);
    this.worker = new Worker(url, { type: "module", name: this.name });
    this.worker.onmessage = (e) => { this.watchdog.heard(performance.now()); this.onMessage(e.data); };
    this.worker.onmessageerror = () => this.watchdog.heard(performance.now());
    this.worker.onerror = (e) => {   // a worker that cannot even load would fail at every start:
      e.preventDefault?.();           // the same cap as for silence keeps it from looping
      this.restartOrGiveUp(say({ code: "restart-worker-error", message: e.message }));
    };
    /** @param {ToWorker} msg */
    const send = (msg) => this.worker.postMessage(msg);
    const query = new URLSearchParams(location.search);
    const prefetch = !query.has("noprefetch");   // A/B: prefetch.js
    const bootPackages = query.has("bootpackages");   // A/B: loadPyodide's `packages` instead
    /** @type {Omit<import("../shared/types.js").InitMessage, "interruptBuffer">} */
    const init = { type: "init", config: this.config, base: this.base, prefetch, bootPackages };
    try {
      send({ ...init, interruptBuffer: this.interruptBuffer });
    } catch (_) {   // the buffer could not be shared after all: Stop restarts instead
      this.interruptBuffer = null;
      send({ ...init, interruptBuffer: null });
    }
    this.setStatus("loading", say({ code: "boot" }));
  }

  /** How many Python workers: one (a pool has more: workers.js). */
  get workers() { return 1; }

  /** Whether Stop can interrupt Python (else it restarts the worker). */
  get canInterrupt() { return this.interruptBuffer !== null; }

  /** @param {RuntimeState} state @param {string} detail */
  setStatus(state, detail) {
    this.state = state;
    this.detail = detail;
    this.dispatchEvent(new CustomEvent("status", { detail: { state, detail } }));
  }

  /** One case per message the worker sends (types.js, `FromWorker`): `tsc` checks that none is
   *  left out (`assertNever`). PROTOCOL.md, "Worker → page".
   *  @param {FromWorker} msg */
  onMessage(msg) {
    switch (msg.type) {
      case "status":
        this.downloading = msg.downloading ?? false;
        this.setStatus(msg.state, msg.detail);
        return;
      case "pong":
        return;   // it was heard: that is all a pong is for
      case "completion":
        this.queries.get(msg.id)?.(msg);
        return;
      case "crashed": {
        const reason = msg.reason ?? say({ code: "restart-crashed", message: msg.error.message });
        // a death outside any run has no cell to leave out of the replay: capped, as silence is
        if (msg.outsideRun) this.restartOrGiveUp(reason);
        else this.restart(reason, { manual: false });
        return;
      }
      case "fatal":
        this.setStatus("error", say({ code: "fatal" }));
        this.dispatchEvent(new CustomEvent("fatal", { detail: msg.error }));
        return;
      case "started":
      case "rerun":
      case "stdout":
      case "stderr":
      case "figure":
      case "budget":
      case "verdict":
      case "result":
        this.onRunMessage(msg);
        return;
      default:   // a message of no known type (a cell's code can post one): dropped
        assertNever(msg, { ignore: true });
    }
  }

  /** A message about one pending run (ignored if a restart abandoned it).
   *  @param {Exclude<RunReply, {type: "completion"}>} msg */
  onRunMessage(msg) {
    const job = this.pending.get(msg.id);
    if (!job) return;   // a message of a run that was abandoned by a restart
    switch (msg.type) {
      case "started":
        this.current = msg.id;
        if (job.stopAsked) this.stop(msg.id);   // Stop was pressed while "started" was on its way
        return;
      case "rerun":
        job.handlers.onRerun?.(msg.reason);
        return;
      case "stdout":
      case "stderr":
        job.handlers.onText?.(msg.type, msg.text);
        return;
      case "figure":
        job.handlers.onFigure?.(msg);
        return;
      case "budget":
        job.handlers.onBudget?.(msg);
        return;
      case "verdict":
        job.handlers.onVerdict?.(msg);
        return;
      case "result":
        this.pending.delete(msg.id);
        if (this.current === msg.id) this.current = null;
        this.lastResultCell = job.cellId;
        job.resolve(msg);
        return;
      default:
        assertNever(msg, { ignore: true });
    }
  }

  /**
   * Run a cell; resolves with {ok, value | error, seconds, noise, seedUsed}. Never rejects.
   * ``seed``: a number makes every fresh draw of noise in dplab reproducible for this run.
   * ``background``: a pre-run; the worker runs the presenter's cells first.
   * @param {string} cellId
   * @param {string} code
   * @param {RunHandlers} [handlers]
   * @param {{seed?: string | number | null, background?: boolean}} [options]
   * @returns {Promise<RunResult>}
   */
  run(cellId, code, handlers = {}, { seed = null, background = false } = {}) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      if (this.gaveUp) {
        resolve({ ok: false, restarted: true, seconds: null, error: errorRecord("Reinicio", this.gaveUp) });
        return;
      }
      const job = { handlers, resolve, cellId, id, code, seed, background };
      this.pending.set(id, job);
      handlers.onQueued?.(id, this.state);
      this.send(job);
    });
  }

  /**
   * Evaluate a Python expression for the page itself, outside any cell (``evaluateWith``).
   * @param {string} expression
   * @param {RunHandlers} [handlers]  e.g. ``onFigure`` for the figures it leaves open
   * @returns {Promise<import("../shared/types.js").EvalResult>}
   */
  evaluate(expression, handlers = {}) { return evaluateWith(this, expression, handlers); }

  /**
   * Call one of the page's named Python functions (``callWith``).
   * @param {string} name e.g. "poll.summary"
   * @param {Record<string, unknown>} args
   * @param {RunHandlers} [handlers]
   * @returns {Promise<import("../shared/types.js").EvalResult>}
   */
  call(name, args, handlers = {}) { return callWith(this, name, args, handlers); }

  /** Ask the worker for a pending run. @param {PendingRun} job */
  send({ id, cellId, code, seed, background }) {
    this.worker.postMessage(/** @type {ToWorker} */ ({ type: "run", id, cellId, code, seed, background }));
  }

  /**
   * Ask the worker's completion engine (completion.js). Resolves with ``{ready, answer}``, or
   * null if the worker was restarted. A query not started within ``timeoutMs`` (the worker is
   * busy) is cancelled: the worker answers it at once with ``answer: null``; one that has
   * started is waited for (the first ones parse the stubs jedi needs). Never rejects.
   * @param {import("../shared/types.js").QueryKind} kind
   * @param {string} code @param {number} line 1-based @param {number} column 0-based
   * @param {number} timeoutMs
   * @returns {Promise<{ready: boolean, answer: any} | null>}
   */
  query(kind, code, line, column, timeoutMs) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.worker.postMessage(/** @type {ToWorker} */ ({ type: "complete-cancel", id }));
      }, timeoutMs);
      const done = (msg) => { clearTimeout(timer); this.queries.delete(id); resolve(msg); };
      this.queries.set(id, done);
      this.worker.postMessage(/** @type {ToWorker} */ ({ type: "complete", id, kind, code, line, column }));
    });
  }

  /** Whether a cell runs or waits (then completion uses static names instead of asking). */
  get busy() { return this.pending.size > 0; }

  /** The watchdog's tick: ping the worker, or restart it if it stopped answering. */
  checkAlive() {
    if (this.gaveUp) return;
    const now = performance.now();
    const verdict = this.watchdog.tick(now, {
      pending: this.pending.size, cellRunning: this.current != null, booting: this.state === "loading" });
    if (verdict.ping) this.worker.postMessage(/** @type {ToWorker} */ ({ type: "ping", n: verdict.ping }));
    if (!verdict.dead) return;
    this.restartOrGiveUp(say({ code: "restart-silent" }), { suspect: this.lastResultCell });
  }

  /** Restart for a failure no run is known to have caused (silence, a worker that cannot load,
   *  an interpreter that died between runs); after too many in a row, stop and say so.
   *  @param {string} reason @param {{suspect?: string | null}} [options] */
  restartOrGiveUp(reason, options = {}) {
    if (this.watchdog.allowRestart(performance.now())) {
      this.restart(reason, { ...options, manual: false });
      return;
    }
    this.gaveUp = say({ code: "restart-gave-up" });
    this.abandon(this.gaveUp);
    this.worker.terminate();
    this.setStatus("error", say({ code: "gave-up" }));
  }

  /** Stop the run ``id``: cancel it if it has not started; interrupt it if it runs; restart
   *  the runtime if it cannot be interrupted (no isolation) or does not stop in time.
   *  @param {number} id */
  stop(id) {
    const job = this.pending.get(id);
    if (!job) return;
    if (this.current !== id) {
      job.stopAsked = true;   // if it has started already, "started" is on its way: stop it then
      this.worker.postMessage(/** @type {ToWorker} */ ({ type: "cancel", id }));
      return;
    }
    if (this.interruptBuffer) {
      this.interruptBuffer[0] = 2;   // SIGINT: Python raises KeyboardInterrupt in the cell
      Atomics.notify(this.interruptBuffer, 0);   // and a cell in time.sleep wakes at once
      setTimeout(() => {
        if (this.pending.has(id)) this.restart(say({ code: "restart-interrupt-ignored" }), { manual: false });
      }, STOP_GRACE_MS);
    } else {
      this.restart(say({ code: "restart-no-interrupt" }), { manual: false });
    }
  }

  /** End every pending run with ``reason`` (the worker that had them is gone).
   *  @param {string} reason */
  abandon(reason) {
    this.current = null;
    for (const done of [...this.queries.values()]) done(null);
    const abandoned = [...this.pending.values()];
    this.pending.clear();
    for (const job of abandoned) {
      job.resolve({ ok: false, restarted: true, seconds: null, error: errorRecord("Reinicio", reason) });
    }
  }

  /**
   * Terminate the worker and start a new one. The run that had started ends with an error
   * (``restarted``); the runs that had not (queued, or asked for while Python was silent) wait
   * for the new worker and run there, after the replay. Listeners of "restart" get
   * ``{reason, suspect, manual}``: ``suspect`` is the cell that ran last before a worker went
   * silent or exhausted memory (not to be replayed), or null; ``manual``: the presenter asked
   * (⟲), not the runtime recovering from a failure (deck.js replays differently).
   * @param {string} reason
   * @param {{suspect?: string | null, manual?: boolean}} [options]
   */
  restart(reason, { suspect = null, manual = true } = {}) {
    this.worker.terminate();
    this.restarts += 1;
    this.gaveUp = null;
    this.lastResultCell = null;
    const waiting = [...this.pending.values()].filter((job) => job.id !== this.current && !job.stopAsked);
    for (const job of waiting) this.pending.delete(job.id);
    this.abandon(reason);
    this.start();   // before telling anyone: a listener may run cells on the new worker at once
    this.dispatchEvent(new CustomEvent("restart", { detail: { reason, suspect, manual } }));
    for (const job of waiting) {   // after the replay the listeners queued: they may need its state
      this.pending.set(job.id, job);
      job.handlers.onRerun?.(say({ code: "waited-for-restart" }));
      this.send(job);
    }
  }
}

/** What runs a page's snippet: a Runtime, or the pool of them (workers.js).
 *  @typedef {{run: (cellId: string, code: string, handlers?: RunHandlers) => Promise<RunResult>}} Runner */

/**
 * Evaluate a Python expression for the page itself, outside any cell (a poll's randomized
 * answer, its estimate; PROTOCOL.md, "The page's own snippets"): a foreground ``run`` with
 * the cell id ``PAGE_SNIPPET``, which no Cell shows or stores and whose source cellrunner
 * does not keep; the expression binds no name. Resolves with ``{ok: true, value}``, the
 * expression's value through JSON (what JSON cannot encode comes back as its ``str``), or
 * ``{ok: false, error}``; never rejects. The run's seed is not passed on.
 * @param {Runner} runner
 * @param {string} expression
 * @param {RunHandlers} [handlers]  e.g. ``onFigure`` for the figures it leaves open
 * @returns {Promise<import("../shared/types.js").EvalResult>}
 */
export async function evaluateWith(runner, expression, handlers = {}) {
  const code = `__import__("base64").b64encode(__import__("json").dumps(${expression}, default=str).encode()).decode()`;
  const result = await runner.run(PAGE_SNIPPET, code, handlers);
  if (!result.ok) return { ok: false, error: result.error ?? errorRecord("Error", say({ code: "eval-no-detail" })) };
  try {
    const bytes = Uint8Array.from(atob(String(result.value).replace(/^'|'$/g, "")), (c) => c.charCodeAt(0));
    return { ok: true, value: JSON.parse(new TextDecoder().decode(bytes)) };
  } catch (e) {
    return { ok: false, error: errorRecord("Error", say({ code: "eval-unreadable", reason: String(e) })) };
  }
}

/**
 * Call one of the page's named Python functions (``cellrunner.calls.CALLS``) with ``args``
 * as JSON: the values reach Python as JSON, never as source. As ``evaluateWith``, resolves
 * with ``{ok, value}`` or ``{ok: false, error}`` and never rejects.
 * @param {Runner} runner
 * @param {string} name e.g. "poll.summary"
 * @param {Record<string, unknown>} args
 * @param {RunHandlers} [handlers]
 * @returns {Promise<import("../shared/types.js").EvalResult>}
 */
export function callWith(runner, name, args, handlers = {}) {
  // two JSON texts as Python string literals: JSON's string escapes are Python's too
  const literal = (text) => JSON.stringify(text);
  return evaluateWith(runner, `__import__("cellrunner.calls", fromlist=["call"]).call(${literal(name)}, ${literal(JSON.stringify(args))})`, handlers);
}
