// What the Python worker does next: a pure state machine, with no Pyodide, no timers and no
// I/O, so that node's test runner can drive it through thousands of interleavings
// (tests/js/scheduler.test.mjs). The worker (worker.js) feeds it events and executes the
// actions it returns. Its rules and invariants: PROTOCOL.md, "Scheduling". It says what it is
// doing in codes (types.js, `StatusPhrase`); their Spanish is in phrases.js.

/** @typedef {import("./types.js").StatusPhrase} StatusPhrase */
/** @typedef {import("./types.js").SchedulerStatus} SchedulerStatus */
/** A queued run: the `run` message, with what the scheduler learnt from its code.
 *  @typedef {import("./types.js").RunMessage & {needsMpl: boolean, binds: Set<string>}} Job */
/** What ``next()`` says to do: run a job, import a step of matplotlib, or answer a query.
 *  @typedef {{kind: "job", job: Job} | {kind: "step", index: number} | {kind: "query", query: any}} Action */

/** Code that draws: it waits until matplotlib is imported. */
const NEEDS_MATPLOTLIB = /\b(plt|matplotlib|pyplot|plots|figure|fig)\b/;

/** Whether ``code`` draws (and so must wait for matplotlib). */
export function needsMatplotlib(code) {
  return NEEDS_MATPLOTLIB.test(code);
}

// Where Python binds a name: assignment targets (also augmented, annotated and tuple ones),
// def, class, for, import … as, with … as, walrus, global/nonlocal. Over-approximate on
// purpose: a name wrongly taken as bound only keeps a job in order.
const BINDING_PATTERNS = [
  /(?:^|[;:]|\n)[ \t]*([A-Za-z_([*][\w \t,.*()[\]]*?)[ \t]*(?::[^=\n]*)?(?:[-+*/%&|^@]|\/\/|\*\*|<<|>>)?=(?!=)/g,
  /\b(?:def|class)[ \t]+([A-Za-z_]\w*)/g,
  /\bfor[ \t]+([\w \t,()[\]]+?)[ \t]+in\b/g,
  /\bas[ \t]+([A-Za-z_]\w*)/g,
  /\bimport[ \t]+([\w \t,.]+)/g,
  /([A-Za-z_]\w*)[ \t]*:=/g,
  /\b(?:global|nonlocal)[ \t]+([\w \t,]+)/g,
];
const IDENTIFIER = /[A-Za-z_]\w*/g;

/** The names ``code`` may bind at top level or anywhere (a superset). */
export function boundNames(code) {
  const names = new Set();
  for (const pattern of BINDING_PATTERNS) {
    for (const match of code.matchAll(pattern)) {
      if (opensMoreThanItCloses(match[1])) continue;   // f(x, key=1): a keyword argument
      for (const name of match[1].match(IDENTIFIER) ?? []) names.add(name);
    }
  }
  return names;
}

function opensMoreThanItCloses(text) {
  const count = (ch) => text.split(ch).length - 1;
  return count("(") > count(")") || count("[") > count("]");
}

/** Whether ``code`` mentions any of ``names`` (as a whole identifier). */
function mentionsAny(code, names) {
  if (!names.size) return false;
  for (const name of code.match(IDENTIFIER) ?? []) if (names.has(name)) return true;
  return false;
}

export class Scheduler {
  constructor() {
    this.loaderSteps = 0;        // matplotlib's import steps, known once Python is up
    this.python = "booting";     // booting → ready | failed
    /** @type {StatusPhrase} what booting does now */
    this.bootStep = { code: "boot" };
    this.mpl = "fetching";       // fetching → importing → ready; or failed at any point
    this.stepsDone = 0;
    /** @type {Job[]} queued, in request order */
    this.jobs = [];
    /** @type {Action | null} the action under way */
    this.busy = null;
    this.lastKind = null;        // "job" | "step": the loader and the jobs take turns
    this.queries = [];           // the editor's completion requests, in order: {id, …}
    this.lastWasQuery = false;   // a query never follows a query while a job or step can go
  }

  // --- events -------------------------------------------------------------------------------

  /** A run is asked for. Returns the jobs to answer at once with an error ([] or [job]).
   *  @param {import("./types.js").RunMessage} run
   *  @returns {Job[]} */
  submit({ id, code, background = false, ...rest }) {
    const job = { ...rest, id, code, background: Boolean(background),
                  needsMpl: needsMatplotlib(code), binds: boundNames(code) };
    if (this.python === "failed" || (job.needsMpl && this.mpl === "failed")) return [job];
    this.jobs.push(job);
    return [];
  }

  /** Drop a queued run. Returns it, or null if it is not queued (running, or ended). */
  cancel(id) { return takeById(this.jobs, id); }

  /** The editor asks for a completion, a signature or a doc (``completion.js``). Answered in
   *  the gaps: never while a presenter's job can go, and one at a time between other actions.
   *  Returns ``[query]`` to answer at once with nothing (Python failed), else []. */
  submitQuery(query) {
    if (this.python === "failed") return [query];   // nothing to ask: answered empty
    this.queries.push(query);
    return [];
  }

  /** Drop a queued query (the editor moved on). Returns it, or null. */
  cancelQuery(id) { return takeById(this.queries, id); }

  /** Booting goes on: ``step`` says what loads now. @param {StatusPhrase} step */
  bootProgress(step) {
    this.bootStep = step;
  }

  /**
   * Python, numpy, dplab and the prelude are up.
   * @param {number} loaderSteps how many steps import matplotlib once its wheels are loaded
   *   (each one short: the worker's ``import_step``; the last one prepares pyplot)
   */
  bootDone(loaderSteps) {
    this.python = "ready";
    this.loaderSteps = loaderSteps;
  }

  /** Python never came up. Returns every queued job: each must be answered with the error. */
  bootFailed() {
    this.python = "failed";
    this.mpl = "failed";
    return this.jobs.splice(0);
  }

  /** Drop every queued query (Python failed): returns them, each to be answered empty. */
  takeQueries() {
    return this.queries.splice(0);
  }

  /** matplotlib's wheels are installed: its import steps may run. */
  wheelsLoaded() {
    if (this.mpl === "fetching") this.mpl = this.loaderSteps > 0 ? "importing" : "ready";
  }

  /** matplotlib cannot be had. Returns the queued jobs that draw: each must get the error. */
  mplFailed() {
    this.mpl = "failed";
    const failed = this.jobs.filter((job) => job.needsMpl);
    this.jobs = this.jobs.filter((job) => !job.needsMpl);
    return failed;
  }

  /** The action that :meth:`next` returned has ended (whatever its outcome). */
  finished(action) {
    if (this.busy !== action) throw new Error("finished() of an action that is not under way");
    this.busy = null;
    if (action.kind === "step" && this.mpl === "importing") {
      this.stepsDone += 1;
      if (this.stepsDone >= this.loaderSteps) this.mpl = "ready";
    }
  }

  // --- decisions ----------------------------------------------------------------------------

  /** Whether ``job`` may start now: what it needs is there, and it does not overtake a job
   *  it may depend on (one earlier in its queue that binds a name it mentions). */
  eligible(job, earlier) {
    if (job.needsMpl && this.mpl !== "ready") return false;
    return earlier.every((other) => !mentionsAny(job.code, other.binds));
  }

  firstEligible(background) {
    const queue = this.jobs.filter((job) => job.background === background);
    return queue.find((job, i) => this.eligible(job, queue.slice(0, i))) ?? null;
  }

  /** The next action, marked under way, or null (busy, booting, or nothing can go now). */
  next() {
    if (this.busy || this.python !== "ready") return null;
    const fg = this.firstEligible(false);
    const bg = fg ? null : this.firstEligible(true);
    const canStep = this.mpl === "importing";
    // a query fills a gap: no presenter's job can go, and it does not follow a query while
    // something else can (so a run waits for at most one query)
    if (this.queries.length && !fg && !(this.lastWasQuery && (bg || canStep))) {
      this.busy = { kind: "query", query: this.queries.shift() };
      this.lastWasQuery = true;
      return this.busy;
    }
    const presenterWaitsForMpl = this.jobs.some((job) => !job.background && job.needsMpl);
    /** @type {Action | null} */
    let action = null;
    const job = fg ?? bg;
    if (canStep && job) {
      // take turns, except that the presenter's numpy-only cells go first while none of the
      // presenter's cells waits for matplotlib
      const stepTurn = this.lastKind === "job" && (!fg || presenterWaitsForMpl);
      action = stepTurn ? { kind: "step", index: this.stepsDone } : { kind: "job", job };
    } else if (canStep) {
      action = { kind: "step", index: this.stepsDone };
    } else if (job) {
      action = { kind: "job", job };
    }
    if (!action) return null;
    if (action.kind === "job") this.jobs.splice(this.jobs.indexOf(action.job), 1);
    this.busy = action;
    this.lastKind = action.kind;
    this.lastWasQuery = false;
    return action;
  }

  // --- what the status indicator says ------------------------------------------------------

  /** ``{state, code, …}`` for the page's status indicator, derived from the state alone
   *  (the worker says it in Spanish: phrases.js).
   *  @returns {SchedulerStatus} */
  status() {
    if (this.python === "booting") return { state: "loading", ...this.bootStep };
    if (this.python === "failed") return { state: "error", code: "boot-failed" };
    if (this.busy?.kind === "job") return { state: "running", code: "running" };
    if (this.mpl === "failed") return { state: "ready", code: "mpl-failed" };
    if (this.mpl !== "ready" && this.jobs.some((job) => job.needsMpl)) {
      return { state: "ready", code: "mpl-loading" };
    }
    return { state: "ready", code: "ready" };
  }
}

/** Remove from ``list`` the item with this ``id`` and return it, or null if none has it.
 *  @template {{id: number}} T @param {T[]} list @param {number} id @returns {T | null} */
function takeById(list, id) {
  const index = list.findIndex((item) => item.id === id);
  return index < 0 ? null : list.splice(index, 1)[0];
}
