// The page's plugins (static/js/page/plugins.js), registered by id as reveal.js registers its
// own: each inits in the registry's order whatever order the modules load in, a missing or
// failing one is reported by its id and the others still start; and every id deck.js lists is
// the id of its module's plugin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { MissingPlugin, loadAll, registerPlugins } from "../../static/js/page/plugins.js";

const PAGE = new URL("../../static/js/page/", import.meta.url);
const later = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));

/** A module holding the plugin ``id`` whose init records its call in ``log`` (and may throw). */
const module = (id, log, { fail = null } = {}) => ({
  plugin: {
    id,
    init(deck) {
      log.push([id, deck]);
      if (fail) throw fail;
      return { unbind() { log.push([`${id} unbound`, deck]); } };
    },
  },
});

test("plugins init in the registry's order, whatever order their modules load in", async () => {
  const log = [], deck = { cells: [] };
  const registry = registerPlugins([
    { id: "a", load: () => later(30, module("a", log)) },
    { id: "b", load: () => later(10, module("b", log)) },
    { id: "c", load: async () => module("c", log) },
  ]);
  assert.deepEqual(registry.ids, ["a", "b", "c"]);
  assert.deepEqual(log, [], "nothing inits before start()");
  const { started, failed } = await registry.start(deck, { report: () => assert.fail("none fails") });
  assert.deepEqual(log.map(([id]) => id), ["a", "b", "c"]);
  assert.ok(log.every(([, d]) => d === deck), "each is handed the deck's context");
  assert.deepEqual([...started.keys()], ["a", "b", "c"]);
  assert.equal(failed.size, 0);
  started.get("b").unbind();
  assert.deepEqual(log.at(-1), ["b unbound", deck]);
});

test("a failing init is reported by its id, and the plugins after it still start", async () => {
  const log = [], reported = [], boom = new Error("boom");
  const { started, failed } = await registerPlugins([
    { id: "a", load: async () => module("a", log) },
    { id: "b", load: async () => module("b", log, { fail: boom }) },
    { id: "c", load: async () => module("c", log) },
  ]).start({}, { report: (id, error) => reported.push([id, error]) });
  assert.deepEqual(reported, [["b", boom]]);
  assert.deepEqual([...started.keys()], ["a", "c"]);
  assert.deepEqual([...failed], [["b", boom]]);
  assert.deepEqual(log.map(([id]) => id), ["a", "b", "c"]);
});

test("a module that does not load, or holds no plugin of its id, is reported missing by id", async () => {
  const log = [], reported = [];
  const gone = new TypeError("Failed to fetch dynamically imported module");
  const { started, failed } = await registerPlugins([
    { id: "unloadable", load: () => Promise.reject(gone) },
    { id: "renamed", load: async () => module("other-name", log) },
    { id: "empty", load: async () => ({}) },
    { id: "fine", load: async () => module("fine", log) },
  ]).start({}, { report: (id, error) => reported.push([id, error]) });
  assert.deepEqual(reported.map(([id]) => id), ["unloadable", "renamed", "empty"]);
  for (const [id, error] of reported) {
    assert.ok(error instanceof MissingPlugin && error.id === id && error.message.includes(`"${id}"`), id);
  }
  assert.equal(failed.get("unloadable").cause, gone, "the load's own error is kept");
  assert.deepEqual([...started.keys()], ["fine"]);
  assert.deepEqual(log.map(([id]) => id), ["fine"], "another id's plugin is never started");
});

test("a module that fails to load before start() is not an unhandled rejection", async () => {
  const unhandled = [];
  const onUnhandled = (reason) => unhandled.push(reason);
  process.on("unhandledRejection", onUnhandled);
  try {
    const registry = registerPlugins([{ id: "gone", load: () => Promise.reject(new Error("404")) }]);
    await later(20);
    const { failed } = await registry.start({}, { report: () => {} });
    assert.ok(failed.has("gone"));
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
  assert.deepEqual(unhandled, []);
});

test("an id registered twice is refused at once, by its id", () => {
  const load = async () => ({});
  assert.throws(() => registerPlugins([{ id: "x", load }, { id: "y", load }, { id: "x", load }]), /"x" is registered twice/);
});

test("loadAll gives each answer under its own name", async () => {
  assert.deepEqual(await loadAll({ slow: later(20, 1), fast: Promise.resolve(2), none: later(0, null) }),
                   { slow: 1, fast: 2, none: null });
  await assert.rejects(loadAll({ ok: Promise.resolve(1), bad: Promise.reject(new Error("no")) }), /no/);
});

test("every plugin deck.js registers is its module's plugin, under the same id", async () => {
  const source = readFileSync(new URL("deck.js", PAGE), "utf8");
  const listed = [...source.matchAll(/\{ id: "([\w-]+)", load: \(\) => import\("\.\/([\w-]+\.js)"\) \}/g)];
  assert.ok(listed.length >= 5, "deck.js's registry is read");
  const ids = listed.map(([, id]) => id);
  assert.equal(new Set(ids).size, ids.length);
  for (const [, id, file] of listed) {
    const { plugin } = await import(new URL(file, PAGE).href);
    assert.equal(plugin?.id, id, file);
    assert.equal(typeof plugin.init, "function", file);
  }
});
