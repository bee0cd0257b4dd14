// The phone's pre-run policy (static/js/page/prerun.js) under node's test runner: which devices get
// the "near" pre-run, each signal read on its own, and how far ahead of the current slide it
// runs (issue 49; docs/benchmark.md, "The phone's pre-run").
// Run: node --test tests/js/prerun.test.mjs
import { test } from "node:test";
import assert from "node:assert/strict";
import { AHEAD_SLIDES, horizon, prerunPolicy } from "../../static/js/page/prerun.js";

const PHONE = { touchOnly: true, shortSide: 390 };
const LAPTOP = { touchOnly: false, shortSide: 720, deviceMemory: 8 };

test("a phone pre-runs near the slide, a laptop every cell", () => {
  assert.equal(prerunPolicy(PHONE), "near");
  assert.equal(prerunPolicy(LAPTOP), "all");
  assert.equal(prerunPolicy({}), "all");   // nothing told: as before
});

test("each signal stands on its own", () => {
  assert.equal(prerunPolicy({ touchOnly: true, shortSide: 800 }), "all");   // a tablet
  assert.equal(prerunPolicy({ touchOnly: false, shortSide: 390 }), "all");  // a small window, a mouse
  assert.equal(prerunPolicy({ touchOnly: true }), "all");                   // no size told: not a phone
  assert.equal(prerunPolicy({ ...LAPTOP, deviceMemory: 2 }), "near");        // little memory
  assert.equal(prerunPolicy({ ...LAPTOP, deviceMemory: 4 }), "all");
  assert.equal(prerunPolicy({ ...LAPTOP, battery: { charging: false, level: 0.1 } }), "near");
  assert.equal(prerunPolicy({ ...LAPTOP, battery: { charging: true, level: 0.1 } }), "all");
  assert.equal(prerunPolicy({ ...LAPTOP, battery: { charging: false, level: 0.5 } }), "all");
  assert.equal(prerunPolicy({ ...LAPTOP, battery: null }), "all");
});

test("the page's ?prerun= wins when it is all or near, else the device decides", () => {
  assert.equal(prerunPolicy(PHONE, "all"), "all");
  assert.equal(prerunPolicy(LAPTOP, "near"), "near");
  assert.equal(prerunPolicy(PHONE, "everything"), "near");
  assert.equal(prerunPolicy(LAPTOP, ""), "all");
});

test("the horizon is the AHEAD_SLIDES-th slide with cells after the current one", () => {
  const slides = [2, 2, 5, 7, 7, 9, 12];
  assert.equal(AHEAD_SLIDES, 2);
  assert.equal(horizon(slides, 0, 2), 5);    // slides 2 and 5 ahead
  assert.equal(horizon(slides, 2, 2), 7);    // the current slide's own are behind the horizon too
  assert.equal(horizon(slides, 3, 1), 5);
  assert.equal(horizon(slides, 9, 2), 12);   // fewer left: the last
  assert.equal(horizon(slides, 12, 2), 12);
  assert.equal(horizon(slides, 20, 2), 20);  // past every cell: all behind
  assert.equal(horizon(slides, 0, 0), 0);
  assert.equal(horizon([], 3, 2), 3);
});
