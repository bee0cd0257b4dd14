// One Python worker's runtime (static/js/page/runtime.js) over a fake Web Worker: what a `crashed`
// message does to the runs. A run that had started ends with the crash; the runs that had not
// go to the new worker. An interpreter that died between runs (`outsideRun`: a wasm trap while
// importing matplotlib) answers no run `crashed`, and its restarts are capped as silence's are.
import { test } from "node:test";
import assert from "node:assert/strict";
import { FakeWorker, stubRuntimeGlobals } from "./stub.mjs";

const ERROR = { type: "RuntimeError", message: "unreachable", traceback: "" };

const worker = () => FakeWorker.all.at(-1);
const ready = () => worker().reply({ type: "status", state: "ready", detail: "Python: listo" });

/** A runtime over a fake worker, its worker ready. */
async function readyRuntime(t) {
  stubRuntimeGlobals(t);
  const { Runtime } = await import("../../static/js/page/runtime.js");
  const runtime = new Runtime({ assets: { static: "static/" } }, "http://127.0.0.1/");
  ready();
  return runtime;
}

test("runtime: a death between runs sends the waiting runs to the new worker, and answers none crashed", async (t) => {
  const runtime = await readyRuntime(t);
  const restarts = [];
  runtime.addEventListener("restart", (e) => restarts.push(e.detail));
  const settled = [];
  const drawing = runtime.run("dibuja", "plt.plot([1])").then((r) => settled.push(["dibuja", r]));
  runtime.run("otra", "plt.show()").then((r) => settled.push(["otra", r]));
  const first = worker();
  assert.deepEqual(first.sent("run").map((m) => m.cellId), ["dibuja", "otra"]);

  first.reply({ type: "crashed", error: ERROR, outsideRun: true });   // matplotlib's import trapped
  assert.equal(first.terminated, true);
  assert.equal(FakeWorker.all.length, 2, "a new worker");
  assert.deepEqual(restarts.map((d) => [d.manual, d.suspect]), [[false, null]]);
  assert.deepEqual(worker().sent("run").map((m) => m.cellId), ["dibuja", "otra"], "the waiting runs go to it");
  await Promise.resolve();
  assert.deepEqual(settled, [], "no run ended: none had started");

  ready();
  const [run] = worker().sent("run");
  worker().reply({ type: "started", id: run.id });
  worker().reply({ type: "result", id: run.id, ok: true, seconds: 0.1, value: null });
  await drawing;
  assert.deepEqual(settled.map(([cell, r]) => [cell, r.ok]), [["dibuja", true]]);
});

test("runtime: a run that had started ends with its crash; the restart is not capped", async (t) => {
  const runtime = await readyRuntime(t);
  for (let i = 0; i < 5; i += 1) {   // a student's cell that calls os._exit, five times in a row
    const result = runtime.run("sale", "import os; os._exit(1)");
    const [run] = worker().sent("run");
    worker().reply({ type: "started", id: run.id });
    worker().reply({ type: "result", id: run.id, ok: false, crashed: true, seconds: null, error: ERROR });
    worker().reply({ type: "crashed", error: ERROR });
    assert.equal((await result).crashed, true);
    ready();
  }
  assert.equal(runtime.restarts, 5);
  assert.equal(runtime.gaveUp, null);
});

test("runtime: deaths between runs, again and again, end in «pulse ⟲», not a loop", async (t) => {
  const runtime = await readyRuntime(t);
  const { MAX_RESTARTS } = await import("../../static/js/page/watchdog.js");
  const waiting = runtime.run("dibuja", "plt.plot([1])");
  for (let i = 0; i < MAX_RESTARTS; i += 1) {
    worker().reply({ type: "crashed", error: ERROR, outsideRun: true });
    assert.equal(runtime.gaveUp, null, `restart ${i + 1} of ${MAX_RESTARTS}`);
    assert.deepEqual(worker().sent("run").map((m) => m.cellId), ["dibuja"]);
  }
  const workers = FakeWorker.all.length;
  worker().reply({ type: "crashed", error: ERROR, outsideRun: true });
  assert.equal(FakeWorker.all.length, workers, "no new worker");
  assert.equal(worker().terminated, true);
  assert.equal(runtime.state, "error");
  const result = await waiting;
  assert.equal(result.restarted, true);
  assert.match(result.error.message, /pulse ⟲/);
  assert.equal((await runtime.run("otra", "1")).restarted, true, "a later run is answered at once");
});
