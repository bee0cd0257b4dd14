// The scroll position of a fragment in reveal.js's scroll view (static/js/page/scrollfragment.js).
import assert from "node:assert/strict";
import { test } from "node:test";
import { fragmentProgress } from "../../static/js/page/scrollfragment.js";

test("a page without fragments is one part; with g groups, g + 1 parts", () => {
  // pages: none, 2 groups, none  → parts 1 + 3 + 1 = 5
  assert.equal(fragmentProgress([0, 2, 0], 0, -1), 0.5 / 5);
  assert.equal(fragmentProgress([0, 2, 0], 1, -1), 1.5 / 5);   // the slide, no fragment yet
  assert.equal(fragmentProgress([0, 2, 0], 1, 0), 2.5 / 5);
  assert.equal(fragmentProgress([0, 2, 0], 1, 1), 3.5 / 5);
  assert.equal(fragmentProgress([0, 2, 0], 2, -1), 4.5 / 5);
});

test("a fragment beyond the slide's last is its last; every progress is inside its page", () => {
  assert.equal(fragmentProgress([3, 0], 0, 9), 3.5 / 5);
  assert.equal(fragmentProgress([0, 0], 1, 4), 1.5 / 2);
  for (let page = 0; page < 4; page++) {
    for (let f = -1; f < 4; f++) {
      const p = fragmentProgress([1, 0, 3, 2], page, f);
      assert.ok(p > 0 && p < 1, `${page} ${f} ${p}`);
    }
  }
});
