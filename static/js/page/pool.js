// Which Python worker runs what, when the page has more than one: a pure model, with no Worker,
// no timers and no DOM, so that node's test runner can drive it through thousands of seeded
// interleavings (tests/js/pool.test.mjs). workers.js (the page's pool of runtimes) asks it and
// does what it says. Its rules and invariants: PROTOCOL.md, "A pool of workers".
import { PAGE_SNIPPET } from "./runtime.js";   // the page's own snippets bind no name: never pinned

/** The largest pool: one primary worker and one more. */
export const MAX_WORKERS = 2;

/** The least of each capability that earns a second worker. */
export const POOL_MIN_CORES = 4;
export const POOL_MIN_MEMORY_GB = 4;

/**
 * How many Python workers the page starts: 2 where the device has at least 4 logical cores
 * (``navigator.hardwareConcurrency``) and at least 4 GB of memory (``navigator.deviceMemory``,
 * where the browser tells; where it does not, the cores alone decide), else 1. Each capability
 * is read on its own: an unknown core count means 1 (nothing is inferred from the memory, nor
 * the memory from the cores). A phone or a tablet keeps one whatever it says of its cores and
 * memory (``touchOnly``: none of its pointers is fine, the media query ``(any-pointer: fine)``
 * does not match; Safari tells no memory, and a phone's 8 cores share a phone's memory and
 * battery). WebKit clamps the core count to 4 or 8 against fingerprinting, so there it cannot
 * tell 2 cores from 4: the Macs of the last decade have at least 4 logical cores, but WebKitGTK
 * on this project's 2-core test machine says 4 and starts two workers (they share two cores).
 * ``override`` (the page's ``?workers=1`` or ``?workers=2``) wins when it is 1 or 2; any other
 * value is ignored.
 * @param {{hardwareConcurrency?: number, deviceMemory?: number, touchOnly?: boolean}} device
 *   what ``navigator`` and the media queries say
 * @param {string | null} [override]
 * @returns {1 | 2}
 */
export function poolSize(device, override = null) {
  if (override === "1") return 1;
  if (override === "2") return 2;
  if (device.touchOnly) return 1;
  const cores = device.hardwareConcurrency;
  if (typeof cores !== "number" || !(cores >= POOL_MIN_CORES)) return 1;
  const memory = device.deviceMemory;
  if (memory === undefined || memory === null) return 2;
  return typeof memory === "number" && memory >= POOL_MIN_MEMORY_GB ? 2 : 1;
}

/**
 * A run the pool has routed and that has not ended.
 * @typedef {object} RoutedRun
 * @property {number} id
 * @property {string} cellId
 * @property {number} worker
 * @property {boolean} background
 */

/**
 * The pool's routing state. Guarantees (PROTOCOL.md, "A pool of workers"; checked over seeded
 * interleavings by tests/js/pool.test.mjs):
 * - every run is routed to exactly one worker, and ends there exactly once (``ended``);
 * - Stop goes to the worker that holds the run (``stopTarget``);
 * - a cell is pinned to one worker (its edits, sliders and noise state live in that
 *   interpreter): while it has a run pending it is never routed elsewhere, and its runs go to
 *   that worker until that worker restarts or goes down;
 * - a manual restart restarts every worker (``restartAll``) and drops every pin that no
 *   pending run holds;
 * - an unpinned foreground run does not wait for a worker's boot while another worker is up;
 * - with one worker every run goes to worker 0.
 */
export class Router {
  /** @param {number} size how many workers (1 or 2) */
  constructor(size) {
    if (!Number.isInteger(size) || size < 1 || size > MAX_WORKERS) {
      throw new RangeError(`size must be 1..${MAX_WORKERS}, got ${size}`);
    }
    this.size = size;
    /** @type {boolean[]} started (the primary at once; another once the primary is up) */
    this.begun = Array.from({ length: size }, (_, i) => i === 0);
    /** @type {boolean[]} takes runs: started, and not down (until ⟲) */
    this.usable = [...this.begun];
    /** @type {boolean[]} its Python is up (not booting): what a foreground run prefers */
    this.up = Array(size).fill(false);
    /** @type {Map<string, number>} cell id → the worker its state lives in */
    this.pins = new Map();
    /** @type {Map<number, RoutedRun>} the runs that have not ended */
    this.runs = new Map();
  }

  /** How many runs are pending on ``worker``. @param {number} worker */
  pendingOn(worker) {
    let n = 0;
    for (const run of this.runs.values()) if (run.worker === worker) n += 1;
    return n;
  }

  /** Whether ``cellId`` has a run pending on ``worker``. @param {string} cellId @param {number} worker */
  holds(cellId, worker) {
    for (const run of this.runs.values()) if (run.cellId === cellId && run.worker === worker) return true;
    return false;
  }

  /** The worker a new, unpinned run goes to: the usable one with the fewest pending runs (an
   *  idle one first), the primary on a tie; the primary when none is usable (it answers). A
   *  foreground run only considers the workers whose Python is up, if any is: the presenter's
   *  run does not wait for a boot while another worker could take it.
   *  @param {boolean} background */
  leastBusy(background) {
    const usable = [...this.usable.keys()].filter((w) => this.usable[w]);
    const up = usable.filter((w) => this.up[w]);
    const candidates = !background && up.length ? up : usable;
    let best = -1;
    for (const w of candidates) if (best < 0 || this.pendingOn(w) < this.pendingOn(best)) best = w;
    return best < 0 ? 0 : best;
  }

  /** Whether ``worker``'s Python is up (its status is ready or running), or booting again.
   *  @param {number} worker @param {boolean} up */
  setUp(worker, up) {
    this.up[worker] = up;
  }

  /**
   * Route the run ``id`` of ``cellId``; returns the worker that must run it. A pinned cell goes
   * to its worker; an unpinned one to the least busy usable worker, and is pinned there (not the
   * page's own snippets, which bind nothing).
   * @param {number} id @param {string} cellId @param {{background?: boolean}} [options]
   * @returns {number}
   */
  route(id, cellId, { background = false } = {}) {
    if (this.runs.has(id)) throw new Error(`run ${id} routed twice`);
    const pinned = this.pins.get(cellId);
    const worker = pinned ?? this.leastBusy(background);
    if (cellId !== PAGE_SNIPPET) this.pins.set(cellId, worker);
    this.runs.set(id, { id, cellId, worker, background });
    return worker;
  }

  /** The worker that holds the run ``id`` (Stop goes there), or null if it has ended.
   *  @param {number} id @returns {number | null} */
  stopTarget(id) {
    return this.runs.get(id)?.worker ?? null;
  }

  /** The run ``id`` ended (result, error, cancellation or restart). Harmless if it had ended.
   *  @param {number} id */
  ended(id) {
    this.runs.delete(id);
  }

  /** The cells whose state lives in ``worker`` (pinned there). @param {number} worker @returns {string[]} */
  cellsOn(worker) {
    return [...this.pins].filter(([, w]) => w === worker).map(([cellId]) => cellId);
  }

  /** Forget the pins of ``worker``, except a cell's whose run is still pending there (it runs
   *  there, after the restart: a cell is never on two workers at once). @param {number} worker */
  dropPins(worker) {
    for (const cellId of this.cellsOn(worker)) if (!this.holds(cellId, worker)) this.pins.delete(cellId);
  }

  /** A worker other than the primary is started: it takes runs from now on. @param {number} worker */
  started(worker) {
    this.begun[worker] = true;
    this.usable[worker] = true;
  }

  /**
   * ``worker`` restarted by itself (a crash, silence, a Stop that restarts, memory): its
   * interpreter is new, so the cells pinned there lose their pins (but those with a run pending
   * there). Returns the cells whose state lived there: the ones to replay.
   * @param {number} worker @returns {string[]}
   */
  restarted(worker) {
    const lived = this.cellsOn(worker);
    this.dropPins(worker);
    return lived;
  }

  /** The presenter's ⟲: every worker that has been started restarts, the ones that went down
   *  too (they take runs again), and every pin that no pending run holds is dropped. Returns the
   *  workers to restart (one not started yet starts later, fresh). @returns {number[]} */
  restartAll() {
    const restart = [];
    for (let w = 0; w < this.size; w += 1) {
      this.dropPins(w);
      if (!this.begun[w]) continue;
      this.usable[w] = true;
      restart.push(w);
    }
    return restart;
  }

  /** ``worker`` cannot run anything (Python failed to start, or it gave up restarting): no
   *  new run goes there, and its cells lose their pins (but those with a run pending there,
   *  which the worker answers with its error). @param {number} worker */
  down(worker) {
    this.usable[worker] = false;
    this.dropPins(worker);
  }
}
