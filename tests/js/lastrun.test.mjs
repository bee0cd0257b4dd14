// The last visit's results (static/js/page/lastrun.js): found only for the same inputs and deck
// version, bounded, oldest evicted first, and nothing at all from a browser that refuses storage.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LastRunStore, label, runKey } from "../../static/js/page/lastrun.js";

/** localStorage's calls over a Map; `quota` chars in all, as a browser refuses past its quota. */
function memoryStorage(quota = Infinity) {
  const map = new Map();
  const used = () => [...map.values()].reduce((sum, v) => sum + v.length, 0);
  return {
    map,
    getItem: (k) => (map.has(k) ? map.get(k) : null),
    setItem: (k, v) => {
      if (used() - (map.get(k)?.length ?? 0) + v.length > quota) throw new Error("QuotaExceededError");
      map.set(k, String(v));
    },
    removeItem: (k) => { map.delete(k); },
  };
}

const INPUTS = { version: "v1", wheel: "dplab-1.0-py3-none-any.whl", cellId: "laplace",
  code: "print(1)", params: { epsilon: 1, b: 2 }, seed: null };
const ITEMS = [{ kind: "stdout", text: "1\n" }, { kind: "figure", svg: "<svg/>", alt: "Figura" }];

test("a run is found again under the same inputs, with when it was computed", () => {
  const storage = memoryStorage();
  new LastRunStore(storage, "v1").save(runKey(INPUTS), ITEMS, 1000);
  assert.deepEqual(new LastRunStore(storage, "v1").load(runKey(INPUTS)), { items: ITEMS, at: 1000 });
  const reordered = { ...INPUTS, params: { b: 2, epsilon: 1 } };
  assert.equal(runKey(reordered), runKey(INPUTS));
});

test("an edit, a slider, a seed, another wheel or cell never finds the old output", () => {
  const storage = memoryStorage();
  const store = new LastRunStore(storage, "v1");
  store.save(runKey(INPUTS), ITEMS, 1000);
  for (const change of [{ code: "print(2)" }, { params: { epsilon: 0.5, b: 2 } }, { seed: 7 },
    { wheel: "dplab-1.1-py3-none-any.whl" }, { cellId: "gauss" }]) {
    assert.equal(store.load(runKey({ ...INPUTS, ...change })), null, JSON.stringify(change));
  }
});

test("a new deck version ignores the old entries and drops them", () => {
  const storage = memoryStorage();
  new LastRunStore(storage, "v1").save(runKey(INPUTS), ITEMS, 1000);
  const store = new LastRunStore(storage, "v2");
  assert.equal(store.load(runKey(INPUTS)), null);   // v1's key: not this version's
  assert.equal(store.load(runKey({ ...INPUTS, version: "v2" })), null);
  assert.deepEqual([...storage.map.keys()], ["dpdeck:lastrun:index"]);
});

test("the store stays under its bound, evicting the oldest first", () => {
  const storage = memoryStorage();
  const store = new LastRunStore(storage, "v1", 250);
  const keys = [1, 2, 3, 4].map((i) => runKey({ ...INPUTS, cellId: `c${i}` }));
  keys.forEach((k, i) => assert.ok(store.save(k, ITEMS, 1000 + i)));
  const kept = keys.filter((k) => store.load(k));
  assert.ok(kept.length < 4 && kept.includes(keys[3]) && !kept.includes(keys[0]), String(kept.length));
  const big = [{ kind: "figure", svg: "x".repeat(300), alt: "Figura" }];
  assert.equal(store.save(keys[0], big, 2000), false);   // bigger than the whole bound: not kept
});

test("a browser's quota evicts the oldest; a refusing browser just gets nothing", () => {
  const storage = memoryStorage(700);
  const store = new LastRunStore(storage, "v1");
  const keys = [1, 2, 3, 4, 5].map((i) => runKey({ ...INPUTS, cellId: `c${i}` }));
  keys.forEach((k, i) => assert.ok(store.save(k, ITEMS, 1000 + i)));
  assert.ok(store.load(keys[4]) && !store.load(keys[0]));
  const refusing = { getItem: () => { throw new Error("SecurityError"); },
    setItem: () => { throw new Error("SecurityError"); }, removeItem: () => {} };
  const none = new LastRunStore(refusing, "v1");
  assert.equal(none.save(keys[0], ITEMS, 1), false);
  assert.equal(none.load(keys[0]), null);
  assert.equal(new LastRunStore(null, "v1").save(keys[0], ITEMS, 1), false);
});

test("the label says when, in Spanish, hh:mm in local time", () => {
  const at = new Date(2026, 11, 4, 9, 5).getTime();
  assert.equal(label(at), "calculado en su visita anterior, 09:05");
});
