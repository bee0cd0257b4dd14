// Model-based tests of the pool's routing (static/js/page/pool.js) under node's test runner: fake
// workers (a queue, a running job, booting, down) driven the way workers.js drives the real
// ones, through thousands of seeded random interleavings of runs (foreground, background, the
// same cell again, the page's own snippets), Stop, results, a worker's crash or silence (it
// restarts alone), a worker that gives up, and the presenter's ⟲. The invariants are checked
// against the fake workers' own bookkeeping, not the router's.
// Run: node --test tests/js/   (a failure prints its seed; POOL_SEED=n replays one)
import { test } from "node:test";
import assert from "node:assert/strict";
import { Router, poolSize } from "../../static/js/page/pool.js";
import { rng } from "./mulberry32.mjs";

const SEEDS = Number(process.env.POOL_SEEDS ?? 3000);
const STEPS = 120;
const CELLS = ["a", "b", "c", "d", "e", "__page__"];
const SNIPPET = "__page__";

/** One simulated page: a pool of ``size`` fake workers behind a ``Router``. */
class World {
  /** @param {number} seed @param {number} size @param {typeof Router} RouterClass */
  constructor(seed, size, RouterClass = Router) {
    this.random = rng(seed);
    this.size = size;
    this.router = new RouterClass(size);
    this.workers = Array.from({ length: size }, (_, i) => this.newWorker(i === 0 ? "booting" : "unstarted"));
    this.generations = Array(size).fill(0);
    this.jobs = new Map();      // id → {id, cellId, worker, background, end}
    this.nextId = 1;
    this.settling = [];         // ended runs the router learns of a moment later (a promise's then)
    this.home = new Map();      // cell → the worker its runs went to since that worker last restarted
    this.log = [];
  }

  newWorker(phase) { return { phase, queue: [], running: null }; }
  pick(list) { return list[Math.floor(this.random() * list.length)]; }
  chance(p) { return this.random() < p; }

  /** The workers holding a pending run of ``cellId`` (the fake workers' own record). */
  holders(cellId) {
    const on = new Set();
    for (const job of this.jobs.values()) if (job.end === undefined && job.cellId === cellId) on.add(job.worker);
    return on;
  }

  // --- the pool's glue: what workers.js does --------------------------------------------------

  run(cellId, background) {
    const id = this.nextId++;
    const fresh = cellId === SNIPPET || !this.router.pins.has(cellId);
    const worker = this.router.route(id, cellId, { background });
    this.log.push(`run ${id} ${cellId}${background ? " bg" : ""} → w${worker}`);
    assert.ok(worker >= 0 && worker < this.size, `run ${id} routed to w${worker}`);
    if (this.size === 1) assert.equal(worker, 0, "with one worker every run goes to worker 0");
    if (cellId !== SNIPPET) {
      const home = this.home.get(cellId);
      if (home !== undefined) assert.equal(worker, home, `cell ${cellId}'s run ${id} went to w${worker}, its runs go to w${home}`);
      this.home.set(cellId, worker);
    }
    const upElsewhere = this.workers.some((w, i) => i !== worker && w.phase === "ready" && this.router.usable[i]);
    if (!background && fresh && this.workers[worker].phase === "booting" && upElsewhere) {
      assert.fail(`foreground run ${id} of unpinned ${cellId} waits for w${worker}'s boot while another worker is up`);
    }
    const job = { id, cellId, worker, background, end: undefined };
    this.jobs.set(id, job);
    const w = this.workers[worker];
    if (w.phase === "down") { this.end(job, "error"); return; }   // answered at once
    w.queue.push(job);
    if (cellId !== SNIPPET) assert.ok(this.holders(cellId).size <= 1, `cell ${cellId} pending on two workers`);
  }

  end(job, how) {
    assert.equal(job.end, undefined, `run ${job.id} ended twice (${job.end}, then ${how})`);
    job.end = how;
    this.log.push(`end ${job.id} ${how}`);
    this.settling.push(job.id);
  }

  settle() {
    for (const id of this.settling.splice(0)) this.router.ended(id);
  }

  stop(job) {
    const target = this.router.stopTarget(job.id);
    this.log.push(`stop ${job.id} → w${target}`);
    assert.equal(target, job.worker, `Stop of run ${job.id} went to w${target}, it is on w${job.worker}`);
    const w = this.workers[target];
    const queued = w.queue.indexOf(job);
    if (queued >= 0) { w.queue.splice(queued, 1); this.end(job, "cancelled"); return; }
    if (w.running !== job) return;   // ended meanwhile: nothing to stop
    if (this.chance(0.7)) { w.running = null; this.end(job, "stopped"); return; }
    this.restartWorker(target, "stop-restart");   // no interrupt buffer, or it did not stop
  }

  /** One worker restarts by itself (Runtime.restart): the running run ends, the queued ones
   *  run on the new interpreter; the cells that lived there are replayed. */
  restartWorker(worker, why) {
    const w = this.workers[worker];
    if (w.phase === "down" || w.phase === "unstarted") return;
    this.log.push(`restart w${worker} (${why})`);
    this.restartOne(worker);
    const lived = this.router.restarted(worker);
    this.forgetHomes(worker);
    for (const cellId of lived) if (cellId !== SNIPPET && !this.holders(cellId).size) this.run(cellId, false);
  }

  restartOne(worker) {
    const w = this.workers[worker];
    if (w.running) { const job = w.running; w.running = null; this.end(job, "restarted"); }
    w.phase = "booting";
    this.router.setUp(worker, false);
    this.generations[worker] += 1;
  }

  /** A restart empties the interpreter: its cells may go anywhere next, but not while a run of
   *  theirs is still pending there. */
  forgetHomes(worker) {
    for (const [cellId, home] of [...this.home]) {
      if (home === worker && !this.holders(cellId).has(worker)) this.home.delete(cellId);
    }
  }

  /** A worker gives up (too many restarts) or fails to boot: its pending runs end with the error. */
  down(worker) {
    const w = this.workers[worker];
    if (w.phase === "down" || w.phase === "unstarted") return;
    this.log.push(`down w${worker}`);
    w.phase = "down";
    this.router.setUp(worker, false);
    for (const job of [w.running, ...w.queue]) if (job) this.end(job, "error");
    w.running = null;
    w.queue = [];
    this.router.down(worker);
    this.forgetHomes(worker);
  }

  manualRestart() {
    this.log.push("⟲");
    const before = [...this.generations];
    const started = this.workers.map((w) => w.phase !== "unstarted");
    for (const worker of this.router.restartAll()) {
      const w = this.workers[worker];
      if (w.phase === "down") { w.phase = "booting"; this.router.setUp(worker, false); }
      else this.restartOne(worker);
      if (this.generations[worker] === before[worker]) this.generations[worker] += 1;
    }
    started.forEach((was, worker) => {
      if (was) assert.ok(this.generations[worker] > before[worker], `⟲ did not restart w${worker}`);
    });
    for (let worker = 0; worker < this.size; worker += 1) this.forgetHomes(worker);
  }

  startSecondary() {
    for (let worker = 1; worker < this.size; worker += 1) {
      if (this.workers[worker].phase !== "unstarted") continue;
      this.workers[worker].phase = "booting";
      this.router.started(worker);
      this.log.push(`start w${worker}`);
    }
  }

  // --- the fake workers ----------------------------------------------------------------------

  /** A worker does one thing: boot, start its next run (foreground first), or end the one under way. */
  work(worker) {
    const w = this.workers[worker];
    if (w.phase === "booting") { w.phase = "ready"; this.router.setUp(worker, true); return; }
    if (w.phase !== "ready") return;
    if (w.running) { const job = w.running; w.running = null; this.end(job, this.chance(0.9) ? "ok" : "error"); return; }
    const next = w.queue.find((job) => !job.background) ?? w.queue[0];
    if (!next) return;
    w.queue.splice(w.queue.indexOf(next), 1);
    w.running = next;
  }

  pending() { return [...this.jobs.values()].filter((job) => job.end === undefined); }

  step() {
    this.settle();
    const r = this.random();
    if (r < 0.28) this.run(this.pick(CELLS), this.chance(0.4));
    else if (r < 0.62) this.work(Math.floor(this.random() * this.size));
    else if (r < 0.72) { const mine = this.pending(); if (mine.length) this.stop(this.pick(mine)); }
    else if (r < 0.78) this.restartWorker(Math.floor(this.random() * this.size), this.chance(0.5) ? "crash" : "silence");
    else if (r < 0.8) this.down(Math.floor(this.random() * this.size));
    else if (r < 0.84) this.manualRestart();
    else if (r < 0.9) this.startSecondary();
    else { const mine = this.pending(); if (mine.length) this.run(this.pick(mine).cellId, false); }   // the same cell again
    this.checkAll();
  }

  /** Invariants that hold after every step. */
  checkAll() {
    for (const cellId of CELLS) {
      if (cellId !== SNIPPET) assert.ok(this.holders(cellId).size <= 1, `cell ${cellId} pending on two workers`);
    }
    for (const job of this.pending()) {
      const w = this.workers[job.worker];
      assert.ok(w.running === job || w.queue.includes(job), `pending run ${job.id} is on no worker`);
    }
  }

  /** Let every worker finish (a down primary is ⟲'d, as the presenter would): every run ends. */
  drain() {
    this.startSecondary();
    for (let round = 0; round < 10_000 && this.pending().length; round += 1) {
      this.settle();
      if (this.workers.every((w) => w.phase === "down") || this.workers[0].phase === "down") this.manualRestart();
      for (let worker = 0; worker < this.size; worker += 1) this.work(worker);
    }
    this.settle();
    assert.deepEqual(this.pending().map((job) => job.id), [], "every run ends");
    assert.equal(this.router.runs.size, 0, "the router knows every run ended");
  }
}

/** Run one seed; on a failure, the error names the seed and the last events. */
function simulate(seed, size, RouterClass = Router) {
  const world = new World(seed, size, RouterClass);
  try {
    for (let i = 0; i < STEPS; i += 1) world.step();
    world.drain();
  } catch (e) {
    e.message = `seed ${seed}, ${size} workers: ${e.message}\n  ${world.log.slice(-15).join("\n  ")}`;
    throw e;
  }
  return world;
}

const only = process.env.POOL_SEED;

test(`pool of 2: every invariant over ${SEEDS} seeds`, () => {
  const seeds = only ? [Number(only)] : Array.from({ length: SEEDS }, (_, i) => i + 1);
  let routedTo1 = 0, restarts = 0;
  for (const seed of seeds) {
    const world = simulate(seed, 2);
    routedTo1 += [...world.jobs.values()].filter((job) => job.worker === 1).length;
    restarts += world.generations[1];
  }
  assert.ok(routedTo1 > 0 && restarts > 0, "the interleavings used the second worker and restarted it");
});

test(`pool of 1: every run goes to worker 0, over ${SEEDS} seeds`, () => {
  const seeds = only ? [Number(only)] : Array.from({ length: SEEDS }, (_, i) => i + 1);
  for (const seed of seeds) simulate(seed, 1);
});

// Each invariant can fail: a router broken in one way is caught within a few hundred seeds.
// Each is [the invariant's message that must catch it, the broken router].
const MUTANTS = {
  "no affinity": [/its runs go to w/, class extends Router {
    route(id, cellId, options) { this.pins.delete(cellId); return super.route(id, cellId, options); }
  }],
  "Stop to the wrong worker": [/Stop of run \d+ went to w/, class extends Router {
    stopTarget(id) { const w = super.stopTarget(id); return w === null ? null : (w + 1) % this.size; }
  }],
  "a restart forgets a cell with a pending run": [/its runs go to w|pending on two workers/, class extends Router {
    dropPins(worker) { for (const cellId of this.cellsOn(worker)) this.pins.delete(cellId); }
  }],
  "⟲ restarts the primary only": [/⟲ did not restart w1/, class extends Router {
    restartAll() { return super.restartAll().slice(0, 1); }
  }],
  "a run forgotten by the router": [/the router knows every run ended/, class extends Router {
    ended(id) { if (id % 7 !== 3) super.ended(id); }
  }],
  "a foreground run sent to a booting worker": [/waits for w\d's boot/, class extends Router {
    leastBusy() { return super.leastBusy(true); }
  }],
  "with one worker, a run to worker 1": [/routed to w1/, class extends Router {
    leastBusy(background) { return this.size === 1 ? 1 : super.leastBusy(background); }
  }],
};

for (const [name, [message, Mutant]] of Object.entries(MUTANTS)) {
  test(`the invariants catch a router with ${name}`, () => {
    const size = name.startsWith("with one worker") ? 1 : 2;
    let caught = null;
    for (let seed = 1; seed <= 500 && !caught; seed += 1) {
      try { simulate(seed, size, Mutant); } catch (e) { caught = e; }
    }
    assert.ok(caught, `no seed caught "${name}"`);
    assert.match(caught.message, message);
  });
}

test("poolSize: two workers only with ≥ 4 cores and, where known, ≥ 4 GB", () => {
  assert.equal(poolSize({ hardwareConcurrency: 2 }), 1);            // this machine
  assert.equal(poolSize({ hardwareConcurrency: 3, deviceMemory: 8 }), 1);
  assert.equal(poolSize({ hardwareConcurrency: 4 }), 2);            // memory unknown (Firefox, Safari)
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 8 }), 2);
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 4 }), 2);
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 2 }), 1);   // a small phone
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 0.5 }), 1);
  assert.equal(poolSize({}), 1);                                    // cores unknown: one, whatever the memory
  assert.equal(poolSize({ deviceMemory: 8 }), 1);
  assert.equal(poolSize({ hardwareConcurrency: Number.NaN }), 1);
  // a phone or a tablet (no fine pointer) keeps one, whatever its cores and memory
  assert.equal(poolSize({ hardwareConcurrency: 8, touchOnly: true }), 1);            // Safari on iOS
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 8, touchOnly: true }), 1);
  assert.equal(poolSize({ hardwareConcurrency: 8, deviceMemory: 8, touchOnly: false }), 2);
});

test("poolSize: ?workers=1|2 wins; other values are ignored", () => {
  assert.equal(poolSize({ hardwareConcurrency: 2 }, "2"), 2);
  assert.equal(poolSize({ hardwareConcurrency: 16, deviceMemory: 8 }, "1"), 1);
  assert.equal(poolSize({ hardwareConcurrency: 16 }, "3"), 2);
  assert.equal(poolSize({ hardwareConcurrency: 2 }, ""), 1);
  assert.equal(poolSize({ hardwareConcurrency: 2 }, null), 1);
});

test("Router: routing, pins, Stop, restarts", () => {
  const r = new Router(2);
  assert.equal(r.route(1, "a"), 0, "only the primary is started");
  r.started(1);
  assert.equal(r.route(2, "b"), 1, "an idle worker takes an unpinned cell");
  assert.equal(r.route(3, "a"), 0, "a pinned cell goes to its worker");
  assert.equal(r.route(4, "__page__"), 1, "a snippet goes to the least busy");
  assert.equal(r.pins.has("__page__"), false, "a snippet is never pinned");
  assert.equal(r.stopTarget(2), 1);
  r.ended(2); r.ended(4);
  assert.equal(r.stopTarget(2), null);
  assert.deepEqual(r.restarted(1), ["b"]);
  assert.equal(r.pins.has("b"), false, "a restart drops the pins of the cells it emptied");
  assert.deepEqual(r.restarted(0), ["a"]);
  assert.equal(r.pins.get("a"), 0, "…but not of a cell with a run pending there");
  r.down(1);
  assert.equal(r.route(5, "c"), 0, "a worker that is down takes nothing");
  assert.deepEqual(r.restartAll(), [0, 1], "⟲ restarts both");
  assert.equal(r.usable[1], true, "…and a worker that was down takes runs again");
  assert.throws(() => new Router(3), RangeError);
  assert.deepEqual(new Router(2).restartAll(), [0], "a worker not started yet is not restarted");
});
