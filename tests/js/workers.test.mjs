// The page's pool of Python workers (static/js/page/workers.js) over fake Web Workers: it does what
// the router (pool.js, tests/js/pool.test.mjs) says with real Runtimes (runtime.js): the second
// worker starts once the primary is ready, each run's messages go to the worker the router
// picked, Stop and its cancel reach that worker with that worker's own run id, ⟲ terminates and
// restarts both and says so once, and a worker that restarts by itself names the cells to replay.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeWorker, stubRuntimeGlobals } from "./stub.mjs";


/** A pool of two over fake workers, just made. */
async function newPool(t) {
  stubRuntimeGlobals(t);
  const { RuntimePool } = await import("../../static/js/page/workers.js");
  return new RuntimePool({ assets: { static: "static/" } }, "http://127.0.0.1/", 2);
}

/** A pool of two over fake workers, its primary ready and its second worker started and ready. */
async function readyPool(t) {
  const pool = await newPool(t);
  assert.equal(FakeWorker.all.length, 1, "only the primary starts at once");
  const [primary] = FakeWorker.all;
  primary.reply({ type: "status", state: "ready", detail: "Python: listo" });
  assert.equal(FakeWorker.all.length, 2, "the second starts once the primary is ready");
  const second = FakeWorker.all[1];
  assert.equal(second.name, "python-2");
  second.reply({ type: "status", state: "ready", detail: "Python: listo" });
  return { pool, primary, second };
}

const ok = (id) => ({ type: "result", id, ok: true, value: null, seconds: 0.1 });

test("pool: runs go to the idle worker and stay there; results come back; ran counts them", async (t) => {
  const { pool, primary, second } = await readyPool(t);
  const ids = [];
  const a = pool.run("a", "1", { onQueued: (id) => ids.push(id) });
  const b = pool.run("b", "2", { onQueued: (id) => ids.push(id) });
  const [runA] = primary.sent("run"), [runB] = second.sent("run");
  assert.equal(runA.cellId, "a");
  assert.equal(runB.cellId, "b", "a cell asked for while the primary is busy goes to the second");
  primary.reply(ok(runA.id));
  second.reply(ok(runB.id));
  assert.equal((await a).ok && (await b).ok, true);
  assert.deepEqual(pool.ran, [1, 1]);
  assert.notEqual(ids[0], ids[1], "the pool's ids are its own: two workers' ids may be equal");
  pool.run("b", "3");   // both idle: b goes back to its own worker
  assert.equal(second.sent("run").length, 2);
  assert.equal(primary.sent("run").length, 1);
});

test("pool: Stop reaches the worker that holds the run, with that worker's own id", async (t) => {
  const { pool, primary, second } = await readyPool(t);
  const ids = [];
  pool.run("a", "while True: pass", { onQueued: (id) => ids.push(id) });
  const b = pool.run("b", "while True: pass", { onQueued: (id) => ids.push(id) });
  const [runB] = second.sent("run");
  pool.stop(ids[1]);   // not started yet: cancelled on the second worker
  assert.deepEqual(second.sent("cancel").map((m) => m.id), [runB.id]);
  assert.deepEqual(primary.sent("cancel"), []);
  second.reply({ type: "result", id: runB.id, ok: false, cancelled: true, seconds: null,
                 error: { type: "Cancelada", message: "", traceback: "" } });
  assert.equal((await b).cancelled, true);
  assert.equal(pool.current, null);
  primary.reply({ type: "started", id: primary.sent("run")[0].id });
  assert.equal(pool.current, ids[0]);
});

test("pool: ⟲ restarts both workers and says so once; a worker's own restart names its cells", async (t) => {
  const { pool, primary, second } = await readyPool(t);
  const events = [];
  pool.addEventListener("restart", (e) => events.push(e.detail));
  pool.run("a", "1");
  pool.run("b", "2");
  primary.reply(ok(primary.sent("run")[0].id));
  second.reply(ok(second.sent("run")[0].id));
  await new Promise((resolve) => setTimeout(resolve, 0));

  pool.restart("⟲");
  assert.equal(primary.terminated && second.terminated, true, "⟲ terminates both");
  assert.equal(FakeWorker.all.length, 4, "…and starts two new ones");
  assert.deepEqual(events.map((d) => d.manual), [true], "one restart event for both");
  assert.equal(pool.restarts, 2);

  const fresh = FakeWorker.all.slice(2);
  const primary2 = fresh.find((w) => w.name === "python"), second2 = fresh.find((w) => w.name === "python-2");
  primary2.reply({ type: "status", state: "ready", detail: "Python: listo" });
  second2.reply({ type: "status", state: "ready", detail: "Python: listo" });
  pool.run("c", "3");
  pool.run("d", "4");
  assert.equal(second2.sent("run")[0].cellId, "d");
  second2.reply({ type: "crashed", error: { type: "Error", message: "x", traceback: "" } });
  const own = events.at(-1);
  assert.equal(own.manual, false);
  assert.equal(own.worker, 1);
  assert.deepEqual(own.only, ["d"], "only the cells whose state lived in the restarted worker are replayed");
  assert.equal(primary2.terminated, false, "the other worker goes on");
});

test("pool: the status is the primary's, or while it is ready, the one of a worker that runs", async (t) => {
  const { pool, second } = await readyPool(t);
  assert.equal(pool.state, "ready");
  assert.equal(pool.workers, 2);
  const seen = [];
  pool.addEventListener("status", (e) => seen.push(e.detail.state));
  second.reply({ type: "status", state: "running", detail: "Python: ejecutando…" });
  assert.equal(pool.state, "running");
  assert.equal(pool.detail, "Python: ejecutando…");
  second.reply({ type: "status", state: "ready", detail: "Python: listo" });
  assert.deepEqual(seen, ["running", "ready"]);
});

test("pool: it downloads while some worker's status says so; new workers have said nothing", async (t) => {
  const { pool, primary, second } = await readyPool(t);
  assert.equal(pool.downloading, false, "a status that does not say (a copy's mirror)");
  second.reply({ type: "status", state: "ready", detail: "Python: listo", downloading: true });
  assert.equal(pool.downloading, true);
  primary.reply({ type: "status", state: "ready", detail: "Python: listo", downloading: false });
  assert.equal(pool.downloading, true, "the second still downloads");
  second.reply({ type: "status", state: "ready", detail: "Python: listo", downloading: false });
  assert.equal(pool.downloading, false);
  second.reply({ type: "status", state: "ready", detail: "Python: listo", downloading: true });
  pool.restart("prueba");
  assert.equal(pool.downloading, false, "new workers have said nothing yet");
});

test("pool: while the second worker boots, the presenter's runs go to the primary", async (t) => {
  const pool = await newPool(t);
  const [primary] = FakeWorker.all;
  primary.reply({ type: "status", state: "ready", detail: "Python: listo" });
  const second = FakeWorker.all[1];
  pool.run("a", "1", {}, { background: true });   // the pre-run: the primary is busy
  pool.run("b", "2", {}, { background: true });   // a background run may wait for the boot
  pool.run("c", "3");                             // the presenter's: not behind a boot
  assert.deepEqual(second.sent("run").map((m) => m.cellId), ["b"]);
  assert.deepEqual(primary.sent("run").map((m) => m.cellId), ["a", "c"]);
});

test("pool: a NameError for a name a cell on the other worker binds says so, and how to have one interpreter", async (t) => {
  const { pool, primary, second } = await readyPool(t);
  const a = pool.run("define", "x = 41\nprint(x)");
  const b = pool.run("other", "y = 1");               // the primary is busy: to the second
  const [runB] = second.sent("run");
  second.reply(ok(runB.id));
  await b;
  primary.reply(ok(primary.sent("run")[0].id));
  await a;
  const nameError = (id, name) => ({ type: "result", id, ok: false, seconds: 0.1,
    error: { type: "NameError", message: `name '${name}' is not defined`, traceback: `NameError: name '${name}' is not defined` } });
  // «other» lives on the second worker; an edit of it that uses x (bound on the primary) fails there
  const c = pool.run("other", "print(x + 1)");
  second.reply(nameError(second.sent("run")[1].id, "x"));
  const traceback = (await c).error.traceback;
  assert.match(traceback, /^NameError: name 'x' is not defined\n«x» lo define la celda define, que corre en el otro intérprete/);
  assert.match(traceback, /\?workers=1/);
  // a name no cell binds, or one bound on the same worker: the traceback as it was
  const d = pool.run("other", "print(z)");
  second.reply(nameError(second.sent("run")[2].id, "z"));
  assert.equal((await d).error.traceback, "NameError: name 'z' is not defined");
  const e = pool.run("other", "print(y)");
  second.reply(nameError(second.sent("run")[3].id, "y"));
  assert.equal((await e).error.traceback, "NameError: name 'y' is not defined");
});
