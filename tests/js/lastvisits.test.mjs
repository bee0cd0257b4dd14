// When the last visit's outputs are drawn (static/js/page/lastvisits.js): the opening slide's at once,
// the others one idle moment at a time in deck order, all at once for a print; and which slide
// a URL's fragment opens, before reveal.js has started.
import { test } from "node:test";
import assert from "node:assert/strict";
import { stub } from "./stub.mjs";
import { openingSlide, showLastVisits } from "../../static/js/page/lastvisits.js";

/** Idle callbacks held until the test runs them; a clock that each drawn output moves on. */
function page(t, msPerOutput = 1) {
  const idle = [];
  const listeners = {};
  let clock = 0;
  stub(t, {
    requestIdleCallback: (fn) => idle.push(fn),
    window: { addEventListener: (type, fn) => { listeners[type] = fn; } },
    performance: { now: () => clock },
  });
  const drawn = [];
  const cell = (id, onOpening) => ({
    id, root: { onOpening }, showLastVisit() { drawn.push(id); clock += msPerOutput; } });
  const opening = { contains: (root) => root.onOpening };
  return { idle, listeners, drawn, cell, opening };
}

test("the opening slide's outputs at once, the others when idle, in deck order", (t) => {
  const p = page(t);
  const cells = [p.cell("a", false), p.cell("b", true), p.cell("c", false), p.cell("d", false)];
  let done = 0;
  showLastVisits(cells, p.opening, () => { done += 1; });
  assert.deepEqual(p.drawn, ["b"]);
  assert.equal(done, 0);
  while (p.idle.length) p.idle.shift()();
  assert.deepEqual(p.drawn, ["b", "a", "c", "d"]);
  assert.equal(done, 1);
  let none = 0;
  showLastVisits([p.cell("e", true)], p.opening, () => { none += 1; });   // nothing left for later
  assert.equal(none, 1);
});

test("each idle moment draws what fits in its slice, at least one", (t) => {
  const p = page(t, 5);   // 5 ms per output: two per 8 ms slice
  const cells = ["a", "b", "c", "d", "e"].map((id) => p.cell(id, false));
  showLastVisits(cells, null);
  assert.deepEqual(p.drawn, []);
  p.idle.shift()();
  assert.deepEqual(p.drawn, ["a", "b"]);
  const slow = page(t, 50);   // slower than a slice: still one per idle moment, never none
  showLastVisits(["x", "y"].map((id) => slow.cell(id, false)), null);
  slow.idle.shift()();
  assert.deepEqual(slow.drawn, ["x"]);
  assert.equal(slow.idle.length, 1);
});

test("a print draws every output still waiting, once", (t) => {
  const p = page(t);
  let done = 0;
  const { flush } = showLastVisits(["a", "b", "c"].map((id) => p.cell(id, false)), null, () => { done += 1; });
  p.listeners.beforeprint();
  assert.deepEqual(p.drawn, ["a", "b", "c"]);
  flush();
  while (p.idle.length) p.idle.shift()();
  assert.deepEqual(p.drawn, ["a", "b", "c"]);
  assert.equal(done, 1);
});

test("the slide a fragment opens: an id, an index, a vertical index, or the first", (t) => {
  stub(t, { CSS: { escape: (s) => s.replace(/"/g, '\\"') } });
  const slide = (id, below = []) => ({ id, querySelectorAll: () => below });
  const v0 = slide("v0"), v1 = slide("v1");
  const stacks = [slide("titulo"), slide("pila", [v0, v1]), slide("tercera")];
  const root = {
    querySelectorAll: () => stacks,
    querySelector: (sel) => [...stacks, v0, v1].find((s) => sel === `section[id="${s.id}"]`) ?? null,
  };
  assert.equal(openingSlide("", root), stacks[0]);
  assert.equal(openingSlide("#/tercera", root), stacks[2]);
  assert.equal(openingSlide("#/v1", root), v1);
  assert.equal(openingSlide("#/tercera/2", root), stacks[2]);   // a fragment index after the id
  assert.equal(openingSlide("#/2", root), stacks[2]);
  assert.equal(openingSlide("#/1/1", root), v1);
  assert.equal(openingSlide("#/1", root), stacks[1]);
  assert.equal(openingSlide("#/9", root), null);
  assert.equal(openingSlide("#/no-existe", root), null);
  assert.equal(openingSlide("#/%E0%A4%A", root), null);   // a malformed escape names no slide, and throws nothing
});
