// Model-based tests of the worker's scheduler (static/js/shared/scheduler.js) under node's test runner:
// a fake Python whose every step takes simulated time, driven the way worker.js drives the real
// one, through thousands of seeded random interleavings of what a presenter and a hall can do
// (run, stop, cancel, restart, matplotlib ready or failed, drawing and numpy-only cells, the
// editor's completion queries and their cancellation).
// Run: node --test tests/js/   (a failure prints its seed; SCHED_SEED=n replays one)
import { test } from "node:test";
import assert from "node:assert/strict";
import { Scheduler, boundNames, needsMatplotlib } from "../../static/js/shared/scheduler.js";
import { rng } from "./mulberry32.mjs";

const SEEDS = Number(process.env.SCHED_SEEDS ?? 3000);
const STEPS = 20;   // as many as cellrunner.MATPLOTLIB_STEPS + the final "prepare"


// Cells as the deck has them: numpy-only ones, drawing ones, and ones that use what another
// defines (x is defined by a drawing cell, y by a numpy-only one).
const CODES = [
  "laplace_mech(10, sensitivity=1, epsilon=1.0)",
  "eps = 0.5\nprint(eps)",
  "fig, ax = plt.subplots()\nax.plot([1, 2])",
  "plt.hist(census.age)",
  "x = 3\nplt.plot([x, x])",
  "print(x + 1)",
  "y = np.ones(3)",
  "print(y.sum())",
  "for i in range(3):\n    print(i)",
  "def f(v):\n    return v\nplots.epsilon_curve()",
];

/** One simulated world: a page, a worker with a scheduler, and a fake Python. */
class World {
  constructor(seed) {
    this.random = rng(seed);
    this.now = 0;
    this.events = [];          // [{at, fn}] sorted by time
    this.jobs = new Map();     // id → {id, code, background, submittedAt, startedAt, endedAt, end}
    this.queries = new Map();  // id → {id, submittedAt, end}: the editor's completion queries
    this.nextId = 1;
    this.log = [];             // what happened, for a failure's report
    this.generation = 0;       // a restart starts a new worker: its late events are ignored
    this.startWorker();
  }

  at(delay, fn) {
    const generation = this.generation;
    this.events.push({ at: this.now + delay, fn: () => generation === this.generation && fn() });
    this.events.sort((a, b) => a.at - b.at);
  }

  uniform(lo, hi) { return lo + (hi - lo) * this.random(); }
  pick(list) { return list[Math.floor(this.random() * list.length)]; }

  startWorker() {
    this.generation += 1;
    this.sched = new Scheduler();
    this.running = null;       // the action under way
    this.history = [];         // actions in order: {kind, job?}
    const bootFails = this.random() < 0.03;
    this.at(this.uniform(50, 3000), () => {
      if (bootFails) {
        for (const job of this.sched.bootFailed()) this.end(job.id, "error");
        for (const query of this.sched.takeQueries()) this.endQuery(query.id, "empty");
        return;
      }
      this.sched.bootDone(STEPS);
      this.pump();
      const wheelsFail = this.random() < 0.05;
      this.at(this.uniform(10, 2500), () => {
        if (wheelsFail) for (const job of this.sched.mplFailed()) this.end(job.id, "error");
        else this.sched.wheelsLoaded();
        this.pump();
      });
    });
  }

  end(id, how) {
    const job = this.jobs.get(id);
    assert.ok(job, `end of unknown job ${id}`);
    assert.equal(job.end, undefined, `job ${id} ended twice (${job.end}, then ${how})`);
    job.end = how;
    job.endedAt = this.now;
    this.log.push(`${this.now.toFixed(0)} end ${id} ${how}`);
  }

  endQuery(id, how) {
    const query = this.queries.get(id);
    assert.ok(query, `end of unknown query ${id}`);
    assert.equal(query.end, undefined, `query ${id} ended twice (${query.end}, then ${how})`);
    query.end = how;
    query.endedAt = this.now;
    this.log.push(`${this.now.toFixed(0)} end query ${id} ${how}`);
  }

  // --- what the page does ---------------------------------------------------------------------

  /** The editor asks for completions (a key, a "." or a "("); it cancels one it no longer needs. */
  query() {
    const id = 10_000 + this.nextId++;
    this.queries.set(id, { id, submittedAt: this.now });
    this.log.push(`${this.now.toFixed(0)} query ${id}`);
    for (const query of this.sched.submitQuery({ id })) this.endQuery(query.id, "empty");
    this.pump();
  }

  cancelQuery() {
    const queued = this.sched.queries;
    if (!queued.length) return;
    const query = this.pick(queued);
    if (this.sched.cancelQuery(query.id)) this.endQuery(query.id, "cancelled");
  }

  submit(background) {
    const id = this.nextId++;
    const code = this.pick(CODES);
    this.jobs.set(id, { id, code, background, submittedAt: this.now });
    this.log.push(`${this.now.toFixed(0)} submit ${id} ${background ? "bg" : "fg"} ${JSON.stringify(code)}`);
    for (const job of this.sched.submit({ id, code, background })) this.end(job.id, "error");
    this.pump();
  }

  cancelSomething() {
    const queued = this.sched.jobs;
    if (!queued.length) return;
    const job = this.pick(queued);
    if (this.sched.cancel(job.id)) this.end(job.id, "cancelled");
  }

  interrupt() {   // Stop on the running cell: KeyboardInterrupt ends it early
    if (this.running?.kind === "job") this.running.interrupted = true;
  }

  restart() {
    this.log.push(`${this.now.toFixed(0)} restart`);
    for (const job of this.jobs.values()) if (job.end === undefined) this.end(job.id, "restarted");
    for (const query of this.queries.values()) if (query.end === undefined) this.endQuery(query.id, "restarted");
    this.startWorker();
  }

  // --- what the worker does (as worker.js's pump) --------------------------------------------

  pump() {
    this.checkNoDeadlock();
    if (this.running) return;
    const action = this.sched.next();
    if (!action) return;
    this.running = action;
    this.checkStart(action);
    this.history.push(action);
    const duration = action.kind === "job" ? this.uniform(5, 1500) : this.uniform(5, 300);
    const finish = () => {
      if (action.kind === "job") this.end(action.job.id, action.interrupted ? "interrupted" : "result");
      else if (action.kind === "query") this.endQuery(action.query.id, "answered");
      else if (this.random() < 0.01) {   // an import step that raises: matplotlib fails
        for (const job of this.sched.mplFailed()) this.end(job.id, "error");
      }
      this.sched.finished(action);
      this.running = null;
      this.checkStatus();
      this.at(0, () => this.pump());   // worker.js: a macrotask between actions
    };
    this.at(duration, () => (action.interrupted ? finish() : finish()));
  }

  // --- invariants ----------------------------------------------------------------------------

  /** Nothing runs, Python is up, matplotlib is not still being fetched, and something is
   *  queued: then the scheduler must have something to do. */
  checkNoDeadlock() {
    const s = this.sched;
    if (this.running || s.python !== "ready") return;
    if (!s.queries.length && (s.mpl === "fetching" || !s.jobs.length)) return;
    const probe = Object.assign(Object.create(Object.getPrototypeOf(s)), s,
                                { jobs: [...s.jobs], queries: [...s.queries] });
    assert.ok(probe.next(), `deadlock: ${s.jobs.length} queued, ${s.queries.length} queries, matplotlib ${s.mpl}`);
  }

  checkStart(action) {
    const s = this.sched;
    const previous = this.history[this.history.length - 1];
    if (action.kind === "query") {
      // a query fills a gap: no presenter's job that could run waits for it, and a query
      // follows a query only when nothing else could go (a run waits for at most one query)
      const fg = s.jobs.filter((j) => !j.background);
      const free = fg.find((j) => (!j.needsMpl || s.mpl === "ready") && !dependsOnQueued(j, fg));
      assert.ok(!free, `query ${action.query.id} went before the presenter's job ${free?.id}`);
      if (previous?.kind === "query") {
        const bg = s.jobs.filter((j) => j.background);
        const other = s.mpl === "importing" ||
          bg.some((j) => (!j.needsMpl || s.mpl === "ready") && !dependsOnQueued(j, bg));
        assert.ok(!other, `two queries in a row while a run or a step could go`);
      }
      return;
    }
    if (action.kind === "step") {
      // a presenter's numpy-only cell that nothing holds waits for at most one step in a row
      if (previous?.kind === "step") {
        const free = s.jobs.find((j) => !j.background && !j.needsMpl && !dependsOnQueued(j, s.jobs));
        assert.ok(!free, `two import steps in a row while job ${free?.id} could run`);
      }
      return;
    }
    const job = action.job;
    const record = this.jobs.get(job.id);
    record.startedAt = this.now;
    this.log.push(`${this.now.toFixed(0)} start ${job.id}`);
    assert.ok(!job.needsMpl || s.mpl === "ready", `job ${job.id} draws but matplotlib is ${s.mpl}`);
    // it overtakes only jobs of its own queue that cannot go: they wait for matplotlib, or
    // they use a name that a job queued before them binds
    const sameQueue = s.jobs.filter((j) => j.background === job.background);
    for (const earlier of sameQueue.filter((j) => j.id < job.id)) {
      const blocked = (earlier.needsMpl && s.mpl !== "ready") || dependsOnQueued(earlier, sameQueue);
      assert.ok(blocked, `job ${job.id} overtook job ${earlier.id}, which could run`);
      assert.ok(!mentionsBound(job, earlier), `job ${job.id} overtook job ${earlier.id}, which defines what it uses`);
    }
    if (job.background) {
      assert.ok(!s.jobs.some((j) => !j.background && !j.needsMpl && !dependsOnQueued(j, s.jobs.filter((k) => !k.background))),
                `background job ${job.id} went before a presenter's job that could run`);
    }
  }

  checkStatus() {
    const { state, code } = this.sched.status();
    if (this.sched.mpl === "ready") assert.ok(code !== "mpl-loading", `status "${code}" with matplotlib ready`);
    if (this.sched.python === "ready" && !this.sched.busy) assert.equal(state, "ready");
  }

  // --- the simulation --------------------------------------------------------------------------

  /** Random page actions for ``count`` steps, then run until nothing is left to happen. */
  play(count) {
    let t = 0;
    for (let i = 0; i < count; i++) {
      t += this.uniform(0, 400);
      const r = this.random();
      const fn = r < 0.35 ? () => this.submit(false)
        : r < 0.55 ? () => this.submit(true)
        : r < 0.72 ? () => this.query()
        : r < 0.77 ? () => this.cancelQuery()
        : r < 0.85 ? () => this.cancelSomething()
        : r < 0.94 ? () => this.interrupt()
        : () => this.restart();
      this.events.push({ at: t, fn });
    }
    this.events.sort((a, b) => a.at - b.at);
    this.lastInput = t;
    let guard = 0;
    while (this.events.length) {
      const event = this.events.shift();
      this.now = Math.max(this.now, event.at);
      event.fn();
      assert.ok(++guard < 100_000, "the simulation does not end");
    }
  }
}

function mentionsBound(job, other) {
  const names = boundNames(other.code);
  return (job.code.match(/[A-Za-z_]\w*/g) ?? []).some((n) => names.has(n));
}

function dependsOnQueued(job, queue) {
  return queue.filter((j) => j.id < job.id).some((other) => mentionsBound(job, other));
}

test(`${SEEDS} random interleavings: every run ends, in a bounded time, and the order rules hold`, () => {
  const only = process.env.SCHED_SEED;
  const seeds = only ? [Number(only)] : Array.from({ length: SEEDS }, (_, i) => i + 1);
  let jobs = 0;
  let queries = 0;
  let worst = 0;
  for (const seed of seeds) {
    const world = new World(seed);
    try {
      world.play(40);
      for (const job of world.jobs.values()) {
        assert.ok(job.end, `job ${job.id} never ended`);
        jobs += 1;
      }
      for (const query of world.queries.values()) {
        assert.ok(query.end, `query ${query.id} never ended`);
        queries += 1;
      }
      // liveness with a bound: after the last click, all is done within boot + wheels + the
      // import steps + every job's longest run (the fake Python's own maxima)
      // the import steps + every job's longest run + every query's (the fake Python's own maxima)
      const bound = 3000 + 2500 + STEPS * 300 + world.jobs.size * 1500 + world.queries.size * 300;
      const finished = Math.max(...[...world.jobs.values(), ...world.queries.values()].map((j) => j.endedAt), 0);
      worst = Math.max(worst, finished - world.lastInput);
      assert.ok(finished - world.lastInput <= bound, `took ${finished - world.lastInput} ms after the last input`);
    } catch (error) {
      error.message = `seed ${seed} (replay: SCHED_SEED=${seed} node --test tests/js/): ${error.message}\n` +
                      world.log.slice(-30).join("\n");
      throw error;
    }
  }
  console.log(`# scheduler: ${seeds.length} interleavings, ${jobs} runs and ${queries} queries, all ended; ` +
              `longest tail after the last input ${Math.round(worst)} ms (simulated)`);
});

test("issue 10, sequence 1: a figure cell, then a numpy-only cell, before matplotlib is in", () => {
  const s = new Scheduler();
  s.bootDone(STEPS);
  s.submit({ id: 1, code: "plots.epsilon_curve()" });            // "¿Qué tan grande es e^ε?"
  s.submit({ id: 2, code: "laplace_mech(10, sensitivity=1, epsilon=1.0)" });   // Laplace
  const first = s.next();
  assert.deepEqual([first.kind, first.job?.id], ["job", 2]);     // numpy-only: no wait
  s.finished(first);
  s.wheelsLoaded();
  const order = [];
  for (let a = s.next(); a; a = s.next()) { order.push(a.kind === "job" ? a.job.id : "step"); s.finished(a); }
  assert.deepEqual(order, [...Array(STEPS).fill("step"), 1]);   // the figure once pyplot is in
  assert.equal(s.status().code, "ready");
});

test("issue 10, sequence 2: the replay after a restart queues drawing cells before numpy-only ones", () => {
  const s = new Scheduler();
  const codes = ["plt.plot([1])", "print(1)", "fig, ax = plt.subplots()", "y = 2", "print(y)"];
  codes.forEach((code, i) => s.submit({ id: i + 1, code }));
  s.bootDone(STEPS);
  s.wheelsLoaded();
  const ran = [];
  for (let a = s.next(); a; a = s.next()) { if (a.kind === "job") ran.push(a.job.id); s.finished(a); }
  assert.deepEqual(ran.sort(), [1, 2, 3, 4, 5]);
  assert.ok(ran.indexOf(4) < ran.indexOf(5), "print(y) ran before y = 2");
});

test("a presenter's numpy-only cell waits for at most one import step", () => {
  const s = new Scheduler();
  s.bootDone(STEPS);
  s.wheelsLoaded();
  s.submit({ id: 1, code: "plt.plot([1])" });
  const step = s.next();
  assert.equal(step.kind, "step");
  s.submit({ id: 2, code: "print(2)" });
  s.finished(step);
  assert.deepEqual(s.next().job.id, 2);
});

test("matplotlib failing answers the cells that draw, and only those", () => {
  const s = new Scheduler();
  s.bootDone(STEPS);
  s.submit({ id: 1, code: "plt.plot([1])" });
  s.submit({ id: 2, code: "print(2)" });
  assert.deepEqual(s.mplFailed().map((j) => j.id), [1]);
  assert.deepEqual(s.submit({ id: 3, code: "plt.show()" }).map((j) => j.id), [3]);
  const action = s.next();
  assert.equal(action.job.id, 2);
  s.finished(action);
  assert.equal(s.status().code, "mpl-failed");
});

test("a boot failure answers every queued run and every later one", () => {
  const s = new Scheduler();
  s.submit({ id: 1, code: "print(1)" });
  assert.deepEqual(s.bootFailed().map((j) => j.id), [1]);
  assert.deepEqual(s.submit({ id: 2, code: "print(2)" }).map((j) => j.id), [2]);
  assert.equal(s.next(), null);
  assert.equal(s.status().state, "error");
});

test("boundNames over-approximates what a cell binds", () => {
  const names = boundNames("a = 1\nb, (c, d) = 2, (3, 4)\ne += 1\nf: int = 2\ndef g(): pass\n" +
                           "class H: pass\nfor i, j in []: pass\nimport numpy as k\nimport os.path\n" +
                           "with open('x') as m: pass\nif (n := 3): pass\nglobal o\nobj.attr = 1\nz[0] = 1");
  for (const name of "a b c d e f g H i j k os m n o obj attr z".split(" ")) assert.ok(names.has(name), name);
  assert.ok(!names.has("open"));
  assert.ok(!boundNames("print(a == b)").has("a"));
  const call = boundNames("laplace_mech(10, sensitivity=1, epsilon=0.5)");
  assert.ok(!call.has("laplace_mech") && !call.has("sensitivity"), [...call].join());
  assert.ok(boundNames("(a, b) = 1, 2\nz[k] = f(q=1)").has("z") && boundNames("(a, b) = 1, 2").has("b"));
  assert.ok(needsMatplotlib("fig, ax = plt.subplots()") && !needsMatplotlib("laplace_mech(1, 1, 1)"));
});

test("a completion query waits for the presenter's run, and a run waits for at most one query", () => {
  const s = new Scheduler();
  s.bootDone(STEPS);
  s.wheelsLoaded();
  s.submitQuery({ id: 100 });
  s.submit({ id: 1, code: "print(1)" });
  const first = s.next();
  assert.equal(first.job?.id, 1);                      // the presenter's run first
  s.finished(first);
  s.submitQuery({ id: 101 });
  s.submit({ id: 2, code: "print(2)", background: true });
  s.submit({ id: 3, code: "print(3)", background: true });
  const kinds = [];
  for (let a = s.next(); a; a = s.next()) { kinds.push(a.kind === "query" ? `q${a.query.id}` : a.kind === "job" ? a.job.id : "step"); s.finished(a); }
  assert.equal(kinds.filter((k) => String(k).startsWith("q")).length, 2);
  for (let i = 1; i < kinds.length; i++) {   // no two queries in a row while anything else can go
    assert.ok(!(String(kinds[i]).startsWith("q") && String(kinds[i - 1]).startsWith("q") && kinds.slice(i).some((k) => typeof k === "number")), kinds.join());
  }
  assert.equal(s.cancelQuery(999), null);
  s.submitQuery({ id: 102 });
  assert.equal(s.cancelQuery(102).id, 102);
  assert.equal(s.next(), null);
  assert.equal(s.status().code, "ready");   // a query is not a run: the status says ready
});
