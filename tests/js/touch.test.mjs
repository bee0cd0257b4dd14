// A finger on a slider: a vertical swipe scrolls and leaves the value alone; a sideways one (or
// a tap) applies; a mouse applies at once (params.js guardSwipe, driven with plain events).
import { test } from "node:test";
import assert from "node:assert/strict";
import { guardSwipe } from "../../static/js/page/params.js";
import { stepZoom } from "../../static/js/page/zoom.js";

function slider(value = "500") {
  const input = new EventTarget();
  input.value = value;
  const log = { applied: 0, reverted: 0 };
  const guard = guardSwipe(input, () => { log.applied += 1; }, () => { log.reverted += 1; });
  const fire = (type, fields = {}) => input.dispatchEvent(Object.assign(new Event(type), fields));
  return { input, log, guard, fire };
}

test("a vertical swipe that starts on the slider puts its value back and applies nothing", () => {
  const { input, log, guard, fire } = slider();
  fire("pointerdown", { pointerType: "touch", clientX: 100, clientY: 300 });
  input.value = "530"; fire("input");            // the browser moved the thumb under the finger
  assert.equal(guard.holding(), true);
  fire("pointermove", { clientX: 103, clientY: 280 });   // mostly up: a scroll
  assert.equal(input.value, "500");
  input.value = "540"; fire("input");            // and keeps trying while the page scrolls
  assert.equal(input.value, "500");
  fire("pointercancel");
  assert.equal(input.value, "500");
  assert.equal(log.applied, 0);
  assert.equal(guard.holding(), false);
});

test("a sideways swipe applies, and so does a tap on the track", () => {
  const s = slider();
  s.fire("pointerdown", { pointerType: "touch", clientX: 100, clientY: 300 });
  s.input.value = "520"; s.fire("input");
  s.fire("pointermove", { clientX: 130, clientY: 303 });
  assert.equal(s.log.applied, 1);
  assert.equal(s.guard.holding(), false);    // from now on each change applies at once
  s.fire("pointerup");
  assert.equal(s.input.value, "520");
  const t = slider();
  t.fire("pointerdown", { pointerType: "touch", clientX: 10, clientY: 10 });
  t.input.value = "900"; t.fire("input");
  t.fire("pointerup");
  assert.equal(t.log.applied, 1);
});

test("a mouse is never held", () => {
  const { guard, fire } = slider();
  fire("pointerdown", { pointerType: "mouse", clientX: 0, clientY: 0 });
  assert.equal(guard.holding(), false);
});

test("the zoom keys zoom the code within bounds, in steps that come back", () => {
  assert.equal(stepZoom(1, 1), 1.1);
  assert.equal(stepZoom(1.6, 1), 1.6);
  assert.equal(stepZoom(0.8, -1), 0.8);
  let z = 1;
  for (let i = 0; i < 3; i++) z = stepZoom(z, 1);
  for (let i = 0; i < 3; i++) z = stepZoom(z, -1);
  assert.equal(z, 1);
});
