// The page's watchdog (static/js/page/watchdog.js) on simulated time: a silent worker is noticed
// within a few seconds while a run is pending; a running cell, an idle page or a slow boot is not
// taken for a dead worker; a cell that kills Python at every replay does not restart it forever.
import { test } from "node:test";
import assert from "node:assert/strict";
import { BOOT_SILENT_MS, MAX_RESTARTS, PING_MS, SILENT_MS, Watchdog } from "../../static/js/page/watchdog.js";

/** Tick every PING_MS until a verdict of death; the worker answers pings while ``alive(t)``. */
function timeToDeath(alive, state, limit = 120_000) {
  const w = new Watchdog();
  for (let t = 0; t <= limit; t += PING_MS) {
    if (alive(t)) w.heard(t);
    const verdict = w.tick(t, state);
    if (verdict.dead) return t;
  }
  return null;
}

const pending = { pending: 1, cellRunning: false, booting: false };

test("a worker that goes silent while a run is pending is noticed within a few seconds", () => {
  const died = 10_000;
  const noticed = timeToDeath((t) => t < died, pending);
  assert.ok(noticed !== null && noticed - died <= SILENT_MS + 2 * PING_MS, `noticed at ${noticed}`);
  assert.ok(noticed - died <= 8000);
});

test("an answering worker, an idle page or a running cell is never taken for dead", () => {
  assert.equal(timeToDeath(() => true, pending), null);
  assert.equal(timeToDeath(() => false, { ...pending, pending: 0 }), null);
  assert.equal(timeToDeath(() => false, { ...pending, cellRunning: true }), null);
});

test("while booting, silence is allowed for longer", () => {
  const noticed = timeToDeath(() => false, { ...pending, booting: true });
  assert.ok(noticed > BOOT_SILENT_MS && noticed <= BOOT_SILENT_MS + 2 * PING_MS);
});

test("a page that slept (hidden tab) does not count its own sleep as the worker's silence", () => {
  const w = new Watchdog();
  assert.ok(w.tick(0, pending).ping);
  w.resumed();                                  // woke up 60 s later
  assert.deepEqual(Object.keys(w.tick(60_000, pending)), ["ping"]);
});

test("restarts for silence are capped", () => {
  const w = new Watchdog();
  for (let i = 0; i < MAX_RESTARTS; i++) assert.ok(w.allowRestart(i * 1000));
  assert.equal(w.allowRestart(MAX_RESTARTS * 1000), false);
  assert.ok(w.allowRestart(10 * 60_000));       // much later: allowed again
});
