// The exercise count as the presenter's slide shows it (static/js/hallcount.js): the interval of
// discrete Laplace noise, and the clipping to what is public (post-processing).
import { test } from "node:test";
import assert from "node:assert/strict";
import { countShown, noiseReach } from "../../static/js/hallcount.js";

test("the 95 % reach of discrete Laplace noise is computed from ε", () => {
  for (const epsilon of [0.1, 0.5, 1, 2]) {
    const a = Math.exp(-epsilon), k = noiseReach(epsilon);
    const beyond = (j) => (2 * a ** (j + 1)) / (1 + a);   // P(|noise| > j)
    assert.ok(beyond(k) <= 0.05 && (k === 0 || beyond(k - 1) > 0.05), `ε = ${epsilon}: k = ${k}`);
  }
  assert.equal(noiseReach(0.5), 6);
});

test("a count is clipped to 0 … the devices connected, and says so", () => {
  // «≈ 8 dispositivos» while 3 are connected
  assert.deepEqual(countShown(8, 0.5, 3), { value: 3, low: 2, high: 3, clipped: true, devices: 3 });
  assert.deepEqual(countShown(-2, 0.5, 30), { value: 0, low: 0, high: 4, clipped: true, devices: 30 });
  assert.deepEqual(countShown(10, 0.5, 30), { value: 10, low: 4, high: 16, clipped: false, devices: 30 });
  assert.deepEqual(countShown(1, 0.5, undefined), { value: 1, low: 0, high: 7, clipped: true, devices: null });
});
