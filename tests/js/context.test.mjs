// The components' context (static/js/page/context.js): the hall's holder tells its subscribers when
// the hall is set or replaced and when the hall held reports its status, and a component that
// was unbound (hallcount.js's installer here, on a stand-in DOM) no longer reacts.
import { test } from "node:test";
import assert from "node:assert/strict";
import { HallHolder } from "../../static/js/page/context.js";
import { installHallCounts } from "../../static/js/page/hallcount.js";

/** A hall as live.js makes it, reduced to what the holder and hallcount.js read. */
function fakeHall({ present = true, presenter = false } = {}) {
  const hall = new EventTarget();
  Object.assign(hall, { present, presenter, devices: 3, releaseCount: async () => null });
  return hall;
}

const status = (hall) => hall.dispatchEvent(new CustomEvent("status", { detail: {} }));

test("subscribe calls back now, on set, and on the held hall's status; unsubscribe stops it", () => {
  const first = fakeHall(), second = fakeHall();
  const holder = new HallHolder(first);
  const seen = [];
  const unsubscribe = holder.subscribe((h) => seen.push(h));
  assert.deepEqual(seen, [first]);             // now
  status(first);
  assert.deepEqual(seen, [first, first]);      // the held hall's status
  holder.set(second);
  assert.equal(holder.get(), second);
  assert.deepEqual(seen, [first, first, second]);
  status(first);                               // a replaced hall is no longer heard
  assert.equal(seen.length, 3);
  status(second);
  assert.deepEqual(seen.at(-1), second);
  unsubscribe();
  holder.set(null);
  status(second);
  assert.equal(seen.length, 4);
  assert.equal(holder.get(), null);
});

test("two subscriptions of the same function are two: each unsubscribes alone", () => {
  const holder = new HallHolder();
  let calls = 0;
  const fn = () => { calls += 1; };
  const a = holder.subscribe(fn);
  holder.subscribe(fn);
  assert.equal(calls, 2);
  a();
  holder.set(fakeHall());
  assert.equal(calls, 3);
});

/** Just enough of a DOM for hallcount.js's boxes: elements that keep their text and `hidden`. */
function standInDocument(exerciseIds) {
  const element = () => ({
    className: "", textContent: "", title: "", hidden: false, disabled: false, type: "", dataset: {},
    children: [],
    setAttribute() {},
    append(...nodes) { this.children.push(...nodes); },
    addEventListener() {},
  });
  const exercises = exerciseIds.map((id) => {
    const side = element();
    return { dataset: { exerciseId: id }, side, querySelector: (sel) => (sel === ".exercise-side" ? side : null) };
  });
  return {
    exercises,
    document: { createElement: element, querySelectorAll: (sel) => (sel === ".exercise" ? exercises : []) },
  };
}

test("hall counts follow the context's hall until unbound, then no longer react", (t) => {
  const stand = standInDocument(["ej-1"]);
  const saved = globalThis.document;
  globalThis.document = stand.document;
  t.after(() => { globalThis.document = saved; });
  const hall = new HallHolder();
  const ctx = { runtime: {}, hall, reveal: null, config: {}, receiver: false };
  const { boxes, unbind } = installHallCounts(ctx);
  assert.equal(boxes.length, 1);
  const [box] = boxes;
  assert.equal(box.box.hidden, true);          // no hall: neither the box nor the students' line
  assert.equal(box.note.hidden, true);
  const presenting = fakeHall({ presenter: true });
  hall.set(presenting);
  assert.equal(box.box.hidden, false);         // the presenter's box
  assert.equal(box.note.hidden, true);
  presenting.presenter = false;                // the token was refused: live.js says so by `status`
  status(presenting);
  assert.equal(box.box.hidden, true);
  assert.equal(box.note.hidden, false);        // a student's line
  unbind();
  hall.set(fakeHall({ presenter: true }));     // unbound: nothing changes any more
  assert.equal(box.box.hidden, true);
  assert.equal(box.note.hidden, false);
  assert.equal(hall.subscribers.size, 0);
});

test("a speaker-view copy has no hall counts, and its unbind is harmless", () => {
  const { boxes, unbind } = installHallCounts({ runtime: null, hall: new HallHolder(), reveal: null, config: {}, receiver: true });
  assert.deepEqual(boxes, []);
  unbind();
});
