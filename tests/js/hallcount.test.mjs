// The exercise count as the presenter's slide shows it (static/js/page/hallcount.js): the interval of
// discrete Laplace noise, its coverage from the noise's law, and the clipping to what is public
// and true (post-processing that never makes the interval miss a true count).
import { test } from "node:test";
import assert from "node:assert/strict";
import { countFailure, countSaid, countShown, noiseCover, noiseReach } from "../../static/js/page/hallcount.js";
import { sayHall } from "../../static/js/shared/phrases.js";

/** Discrete Laplace of sensitivity 1 at ε: P(k) = (1 - a)/(1 + a) a^|k|, a = e^-ε (what
 *  dplab.discrete_laplace_mech draws, dpdeck/hall/release.py). */
const law = (epsilon) => { const a = Math.exp(-epsilon); return (k) => ((1 - a) / (1 + a)) * a ** Math.abs(k); };
const RELEASE_EPSILON = 0.5;   // dpdeck/hall/release.py

test("the 95 % reach of discrete Laplace noise is computed from ε", () => {
  for (const epsilon of [0.1, 0.5, 1, 2]) {
    const a = Math.exp(-epsilon), k = noiseReach(epsilon);
    const beyond = (j) => (2 * a ** (j + 1)) / (1 + a);   // P(|noise| > j)
    assert.ok(beyond(k) <= 0.05 && (k === 0 || beyond(k - 1) > 0.05), `ε = ${epsilon}: k = ${k}`);
  }
  assert.equal(noiseReach(0.5), 6);
});

test("the interval's coverage, summed over the noise's law, is the one the slide says (96 % at ε = 0,5)", () => {
  for (const epsilon of [0.1, 0.5, 1, 2]) {
    const p = law(epsilon), k = noiseReach(epsilon);
    let within = 0;
    for (let j = -k; j <= k; j += 1) within += p(j);
    assert.ok(Math.abs(noiseCover(epsilon, k) - within) < 1e-12, `ε = ${epsilon}`);
    assert.ok(within >= 0.95, `ε = ${epsilon}: ${within}`);
  }
  assert.equal(noiseCover(RELEASE_EPSILON, 6).toFixed(3), "0.962");   // issue 47: unclipped ±6 covers 96,2 %
  // what the professor reads (issue 47 item 20: «≈ 0» with two real solves is the noise working)
  const said = sayHall(countSaid(0, { exercise: "e", value: 0, new: true, epsilon: RELEASE_EPSILON, sd: 2.8, budget: { accountants: [], more: 0 }, refused: null }));
  assert.match(said, /^≈ 0 dispositivos lo resolvieron \(IC 95 %: de 0 a 6, recortado a 0: un conteo no es negativo;/);
  assert.match(said, /es el ruido funcionando: el conteo publicado se aparta del real hasta ±6 el 96 % de las veces/);
});

test("a count is clipped to 0 and to the devices admitted, never to the devices connected", () => {
  // no bound said: the top is not clipped (the devices connected now are no bound)
  assert.deepEqual(countShown(8, 0.5), { value: 8, low: 2, high: 14, clipped: false, admitted: null });
  assert.deepEqual(countShown(8, 0.5, undefined), countShown(8, 0.5));
  assert.deepEqual(countShown(-2, 0.5), { value: 0, low: 0, high: 4, clipped: true, admitted: null });
  // the release's admitted devices: a true bound (no solve without an admission)
  assert.deepEqual(countShown(8, 0.5, 3), { value: 3, low: 2, high: 3, clipped: true, admitted: 3 });
  assert.deepEqual(countShown(10, 0.5, 30), { value: 10, low: 4, high: 16, clipped: false, admitted: 30 });
  for (const bad of [-1, 2.5, "3", null, NaN]) assert.equal(countShown(8, 0.5, bad).admitted, null, String(bad));
});

test("clipping to true bounds never loses the truth: every count 0…N, every noise in reach", () => {
  const k = noiseReach(RELEASE_EPSILON);
  for (const admitted of [0, 1, 3, 12]) {
    for (let truth = 0; truth <= admitted; truth += 1) {
      for (let noise = -k - 3; noise <= k + 3; noise += 1) {
        const noisy = truth + noise, shown = countShown(noisy, RELEASE_EPSILON, admitted);
        const held = noisy - k <= truth && truth <= noisy + k;
        if (held) assert.ok(shown.low <= truth && truth <= shown.high, `${truth} ${noisy} ${admitted}`);
      }
    }
  }
});

test("a release that failed says whether it may have been spent", () => {
  assert.deepEqual(countFailure(null), { code: "count-no-answer" });
  assert.deepEqual(countFailure({ status: 503 }), { code: "count-no-answer" });
  assert.deepEqual(countFailure({ status: 502 }), { code: "count-no-answer" });
  assert.deepEqual(countFailure({ status: 429 }), { code: "count-refused-request", status: 429 });
  assert.doesNotMatch(sayHall(countFailure(null)), /ni se gastó/);
  assert.match(sayHall(countFailure(null)), /puede que haya publicado el conteo/);
  assert.match(sayHall(countFailure({ status: 400 })), /no se contó nada ni se gastó presupuesto/);
});

test("a release says when one network brought many of the devices admitted (issue 46, item 2)", () => {
  const release = (admitted, cluster) => ({ exercise: "e", value: 3, new: true, epsilon: 0.5, sd: 2.8,
    budget: { accountants: [], more: 0 }, refused: null, admitted, cluster });
  const many = sayHall(countSaid(3, release(70, 64)));
  assert.match(many, /De los 70 dispositivos admitidos, 64 llegaron desde una misma red/);
  for (const [admitted, cluster] of [[70, 1], [70, null], [null, null]]) {
    assert.doesNotMatch(sayHall(countSaid(3, release(admitted, cluster))), /misma red/);
  }
});
