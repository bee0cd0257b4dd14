// The page's pool of Python workers, where the device can afford a second one (pool.js,
// ``poolSize``): two Runtimes (runtime.js) behind the interface the page's components already
// use of one (run, stop, restart, call, evaluate, query, state, detail, busy and the "status",
// "restart" and "fatal" events). Which worker runs what is pool.js's ``Router``, a pure model
// tested in node (tests/js/pool.test.mjs); this module only does what it says. Rules:
// PROTOCOL.md, "A pool of workers". With one worker the page makes a plain Runtime instead
// (deck.js): the pool is never in that path.
import { Runtime, callWith, evaluateWith } from "./runtime.js";
import { Router } from "./pool.js";
import { boundNames } from "../shared/scheduler.js";
import { say } from "../shared/phrases.js";

/** @typedef {import("../shared/types.js").RunResult} RunResult */
/** @typedef {import("../shared/types.js").RuntimeState} RuntimeState */
/** @typedef {import("./runtime.js").RunHandlers} RunHandlers */
/** What the page's components are handed: one runtime, or the pool of two.
 *  @typedef {Runtime | RuntimePool} Python */

/**
 * A primary worker, started at once, and a second one started once the primary is first ready
 * (so the cold boot has the network and the cores to itself, and the second boots from the HTTP
 * cache). Its events, as a Runtime's: "status" (the primary's status, or while the primary is
 * ready and another worker runs a cell, that one's "running"), "restart" (once for ⟲, which
 * restarts every worker; for a worker that restarts by itself, with ``only``: the cells whose
 * state lived in it, the ones to replay), "fatal" (the primary's: a second worker that fails is
 * only left out).
 */
export class RuntimePool extends EventTarget {
  /** @param {import("../shared/types.js").DeckConfig} config @param {string} base @param {number} size */
  constructor(config, base, size) {
    super();
    this.config = config;
    this.base = base;
    this.router = new Router(size);
    /** @type {(Runtime | null)[]} the workers, by index; null: not started yet */
    this.runtimes = Array.from({ length: size }, () => null);
    /** @type {Map<number, {inner: number | null}>} a pending run's id in its worker's runtime */
    this.inner = new Map();
    this.nextId = 1;
    /** @type {number[]} how many runs each worker has ended (the tests read it) */
    this.ran = Array(size).fill(0);
    this.manualRestart = false;
    /** @type {Map<string, string>} each cell's code as it last ran (explainNameElsewhere) */
    this.codes = new Map();
    this.runtimes[0] = this.startWorker(0);
  }

  /** @returns {number} how many workers the page has (started or not) */
  get workers() { return this.router.size; }

  /** @param {number} index @returns {Runtime} */
  startWorker(index) {
    const runtime = new Runtime(this.config, this.base, { name: index === 0 ? "python" : `python-${index + 1}` });
    runtime.addEventListener("status", () => this.onStatus(index));
    runtime.addEventListener("restart", (/** @type {CustomEvent} */ e) => this.onRestart(index, e.detail));
    runtime.addEventListener("fatal", (/** @type {CustomEvent} */ e) => {
      this.router.down(index);
      if (index === 0) this.dispatchEvent(new CustomEvent("fatal", { detail: e.detail }));
    });
    return runtime;
  }

  get primary() { return /** @type {Runtime} */ (this.runtimes[0]); }

  /** The runtime whose status the page shows: the primary, unless it is ready and another runs. */
  get shown() {
    if (this.primary.state !== "ready") return this.primary;
    return this.runtimes.find((r) => r?.state === "running") ?? this.primary;
  }

  /** @returns {RuntimeState} */
  get state() { return this.shown.state; }
  get detail() { return this.shown.detail; }
  get canInterrupt() { return this.primary.canInterrupt; }
  /** Whether some worker is still downloading wheels (prerun.js). */
  get downloading() { return this.runtimes.some((r) => r?.downloading ?? false); }
  get restarts() { return this.runtimes.reduce((n, r) => n + (r?.restarts ?? 0), 0); }
  /** The primary's worker (a test listens to its messages). */
  get worker() { return this.primary.worker; }
  /** The pool's id of a run that a worker says has started (the primary's first), or null. */
  get current() {
    for (const [id, { inner }] of this.inner) {
      const runtime = this.runtimes[this.router.stopTarget(id) ?? 0];
      if (inner !== null && runtime?.current === inner) return id;
    }
    return null;
  }
  /** Whether the editor's queries should wait: they go to the primary (its namespace). */
  get busy() { return this.primary.busy; }

  /** @param {number} index */
  onStatus(index) {
    const runtime = /** @type {Runtime} */ (this.runtimes[index]);
    this.router.setUp(index, runtime.state === "ready" || runtime.state === "running");
    if (runtime.gaveUp) this.router.down(index);
    if (index === 0 && runtime.state === "ready") this.startSecondaries();
    this.dispatchEvent(new CustomEvent("status", { detail: { state: this.state, detail: this.detail } }));
  }

  startSecondaries() {
    for (let index = 1; index < this.runtimes.length; index += 1) {
      if (this.runtimes[index]) continue;
      this.runtimes[index] = this.startWorker(index);
      this.router.started(index);
    }
  }

  /** @param {number} index @param {{reason: string, suspect: string | null, manual: boolean}} detail */
  onRestart(index, detail) {
    if (this.manualRestart) {   // ⟲: one event, from the primary's restart (the last one)
      if (index === 0) this.dispatchEvent(new CustomEvent("restart", { detail: { ...detail, manual: true } }));
      return;
    }
    const only = this.router.restarted(index);
    this.dispatchEvent(new CustomEvent("restart", { detail: { ...detail, only, worker: index } }));
  }

  /**
   * Run a cell on the worker the router picks (its own, once it has run); as ``Runtime.run``:
   * resolves with its RunResult, never rejects. ``onQueued`` is given the pool's id of the run
   * (what ``stop`` takes).
   * @param {string} cellId @param {string} code @param {RunHandlers} [handlers]
   * @param {{seed?: string | number | null, background?: boolean}} [options]
   * @returns {Promise<RunResult>}
   */
  run(cellId, code, handlers = {}, options = {}) {
    const id = this.nextId++;
    const worker = this.router.route(id, cellId, { background: Boolean(options.background) });
    const runtime = this.runtimes[worker] ?? this.primary;
    const entry = { inner: /** @type {number | null} */ (null) };
    this.inner.set(id, entry);
    const own = { ...handlers, onQueued: (/** @type {number} */ inner, /** @type {RuntimeState} */ state) => {
      entry.inner = inner;
      handlers.onQueued?.(id, state);
    } };
    this.codes.set(cellId, code);
    return runtime.run(cellId, code, own, options).then((result) => {
      this.inner.delete(id);
      this.router.ended(id);
      this.ran[worker] += 1;
      return this.explainNameElsewhere(cellId, worker, result);
    });
  }

  /** A NameError for a name that a cell living on another worker binds: its traceback says so,
   *  and how to have one interpreter (cells on different workers share no names; PROTOCOL.md).
   *  @param {string} cellId @param {number} worker @param {RunResult} result @returns {RunResult} */
  explainNameElsewhere(cellId, worker, result) {
    const error = result.ok ? null : result.error;
    const name = error?.type === "NameError" ? /name '(\w+)' is not defined/.exec(error.message)?.[1] : null;
    if (!error || !name) return result;
    for (const [other, at] of this.router.pins) {
      if (other === cellId || at === worker || !boundNames(this.codes.get(other) ?? "").has(name)) continue;
      const note = say({ code: "pool-name-elsewhere", name, cell: other });
      return { ...result, error: { ...error, traceback: `${error.traceback}\n${note}` } };
    }
    return result;
  }

  /** Stop the run ``id`` on the worker that holds it (``Runtime.stop``). @param {number} id */
  stop(id) {
    const worker = this.router.stopTarget(id);
    const inner = this.inner.get(id)?.inner;
    if (worker === null || inner == null) return;
    this.runtimes[worker]?.stop(inner);
  }

  /** ⟲: restart every worker (one "restart" event, ``manual``), the primary last.
   *  @param {string} reason */
  restart(reason) {
    const workers = this.router.restartAll().sort((a, b) => b - a);
    this.manualRestart = true;
    try {
      for (const index of workers) this.runtimes[index]?.restart(reason, { manual: true });
    } finally {
      this.manualRestart = false;
    }
  }

  /** As ``Runtime.evaluate``, on the least busy worker. @param {string} expression @param {RunHandlers} [handlers] */
  evaluate(expression, handlers = {}) { return evaluateWith(this, expression, handlers); }

  /** As ``Runtime.call``. @param {string} name @param {Record<string, unknown>} args @param {RunHandlers} [handlers] */
  call(name, args, handlers = {}) { return callWith(this, name, args, handlers); }

  /** The editor's queries go to the primary (``Runtime.query``).
   *  @param {import("../shared/types.js").QueryKind} kind @param {string} code @param {number} line
   *  @param {number} column @param {number} timeoutMs */
  query(kind, code, line, column, timeoutMs) { return this.primary.query(kind, code, line, column, timeoutMs); }
}
