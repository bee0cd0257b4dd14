// The deck's Service Worker (static/js/serviceworker/sw.js) in a sandbox with a fake Cache Storage and network:
// a new deploy's worker deletes the caches of other versions (and the old names) on activate,
// copies the versioned files it shares with the old cache on install, keeps what the page
// fetches, serves the cached index.html offline, and fills in the rest of offline.json on request.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import vm from "node:vm";

const SOURCE = readFileSync(new URL("../../static/js/serviceworker/sw.js", import.meta.url), "utf-8");
const ROOT = "https://deck.example/curso/";

/** What a same-origin fetch answers in a browser: type "basic" (node's Response says "default"). */
class NetResponse extends Response {
  get type() { return "basic"; }
  clone() { return new NetResponse(super.clone().body, this); }
}

class FakeCache {
  constructor() { this.map = new Map(); }
  async match(key) { return this.map.get(String(key?.url ?? key).split("?")[0])?.clone(); }
  async put(key, response) { this.map.set(String(key?.url ?? key), response); }
  async keys() { return [...this.map.keys()].map((url) => ({ url })); }
}

class FakeCaches {
  constructor() { this.all = new Map(); }
  async open(name) {
    if (!this.all.has(name)) this.all.set(name, new FakeCache());
    return this.all.get(name);
  }
  async keys() { return [...this.all.keys()]; }
  async delete(name) { return this.all.delete(name); }
}

/** A URLPattern that keeps what it was made from (node 20 has none). */
class FakeURLPattern {
  constructor(init) { this.init = init; }
}

/** Load sw.js stamped with ``version``; ``files``: the server's content by path. */
function worker(version, { files = {}, caches = new FakeCaches(), online = true, root = ROOT,
                            URLPattern = FakeURLPattern } = {}) {
  const handlers = {};
  const net = { online, fetched: [] };
  const fetch = async (input) => {
    const url = String(input?.url ?? input);
    net.fetched.push(url.slice(ROOT.length));
    if (!net.online) throw new TypeError("Failed to fetch");
    const rel = url.slice(ROOT.length).split("?")[0] || "index.html";   // the server's directory index
    const body = rel === "offline.json" ? JSON.stringify({ version, files: Object.keys(files) }) : files[rel];
    return body === undefined ? new NetResponse("no", { status: 404 }) : new NetResponse(body, { status: 200 });
  };
  const self = {
    location: { href: root + "sw.js" },
    navigator: { get onLine() { return net.online; } },
    clients: { claim: async () => { self.claimed = true; } },
    skipWaiting: () => {},
    addEventListener: (type, fn) => { handlers[type] = fn; },
  };
  const sandbox = { self, caches, fetch, Headers, Request, Response, URL, URLPattern, console, Set,
                    JSON, Date };
  vm.runInNewContext(SOURCE.replace("__DPDECK_OFFLINE_VERSION__", version), sandbox);
  /** Dispatch an extendable event; resolves when its waitUntil promises settle. */
  const dispatch = async (type, props = {}) => {
    const waits = [];
    let responded = null;
    handlers[type]({ ...props, waitUntil: (p) => waits.push(p), respondWith: (p) => { responded = p; } });
    const response = responded && await responded;
    await Promise.all(waits);
    return response;
  };
  const get = (rel, extra = {}) => dispatch("fetch", {
    request: { url: ROOT + rel, method: "GET", mode: "cors", destination: "", ...extra } });
  return { dispatch, get, caches, net, self };
}

test("a new version's worker deletes the other versions' caches and the old names", async () => {
  const files = { "index.html": "v2", "vendor/pyodide-0.27.7/numpy.whl": "np", "static-bbb/js/deck.js": "new" };
  const caches = new FakeCaches();
  (await caches.open("dpdeck-v1")).put(ROOT + "vendor/pyodide-0.27.7/numpy.whl", new Response("np"));
  (await caches.open("dpdeck-v1")).put(ROOT + "static-aaa/js/deck.js", new Response("old"));
  await caches.open("some-older-name");
  const sw = worker("v2", { files, caches });
  await sw.dispatch("install");
  await sw.dispatch("activate");
  assert.deepEqual(await caches.keys(), ["dpdeck-v2"]);
  assert.ok(sw.self.claimed);
  // the versioned file both deploys list came from the old cache, not the network
  const kept = await (await caches.open("dpdeck-v2")).keys();
  assert.deepEqual(kept.map((r) => r.url), [ROOT + "vendor/pyodide-0.27.7/numpy.whl"]);
  assert.ok(!sw.net.fetched.includes("vendor/pyodide-0.27.7/numpy.whl"));
});

test("the same version's worker keeps its cache", async () => {
  const caches = new FakeCaches();
  await caches.open("dpdeck-v1");
  const sw = worker("v1", { caches });
  await sw.dispatch("activate");
  assert.deepEqual(await caches.keys(), ["dpdeck-v1"]);
});

test("fetched files are kept; offline, navigations get the cached index.html, isolated", async () => {
  const files = { "index.html": "<html>", "static-aaa/js/deck.js": "js", "assets/a.svg": "<svg/>" };
  const sw = worker("v1", { files });
  await sw.dispatch("activate");
  const page = await sw.get("?noprerun", { mode: "navigate" });
  assert.equal(page.headers.get("Cross-Origin-Embedder-Policy"), "require-corp");
  await sw.get("static-aaa/js/deck.js");
  await sw.get("assets/a.svg");
  sw.net.online = false;
  const offline = await sw.get("", { mode: "navigate" });
  assert.equal(await offline.text(), "<html>");
  assert.equal(offline.headers.get("Cross-Origin-Opener-Policy"), "same-origin");
  assert.equal(await (await sw.get("static-aaa/js/deck.js")).text(), "js");
  assert.equal(await (await sw.get("assets/a.svg")).text(), "<svg/>");
});

test("versioned files come from the cache first, without the network", async () => {
  const sw = worker("v1", { files: { "vendor/k/x.js": "x" } });
  await sw.get("vendor/k/x.js");
  sw.net.fetched.length = 0;
  assert.equal(await (await sw.get("vendor/k/x.js")).text(), "x");
  assert.deepEqual(sw.net.fetched, []);
});

test("offline-fill fetches what the cache lacks and reports it all kept", async () => {
  const files = { "index.html": "i", "vendor/p/a.whl": "a", "vendor/p/b.whl": "b", "static-c/x.js": "x" };
  const sw = worker("v3", { files });
  await sw.get("vendor/p/a.whl");
  sw.net.fetched.length = 0;
  const told = [];
  await sw.dispatch("message", { data: { type: "offline-fill" }, source: { postMessage: (m) => told.push(m) } });
  const last = told.at(-1);
  assert.deepEqual({ ...last }, { type: "offline-progress", version: "v3", done: 4, total: 4, failed: 0, complete: true });
  assert.ok(!sw.net.fetched.includes("vendor/p/a.whl"), "a file already kept is not fetched again");
  const kept = (await (await sw.caches.open("dpdeck-v3")).keys()).map((r) => r.url.slice(ROOT.length));
  assert.deepEqual(kept.sort(), [...Object.keys(files), "offline.json"].sort());
  // offline, the page still hears that everything is kept (the list from the cache)
  sw.net.online = false;
  told.length = 0;
  await sw.dispatch("message", { data: { type: "offline-fill" }, source: { postMessage: (m) => told.push(m) } });
  assert.equal(told.at(-1).complete, true);
  assert.equal(told.at(-1).done, 4);
});

test("where the browser routes statically: a worker's script to the handler, page code raced, the rest from the cache", async () => {
  const sw = worker("v1", { root: "https://deck.example/mi curso+1/" });
  /** @type {any[]} */
  let rules = [];
  await sw.dispatch("install", { addRoutes: async (r) => { rules = r; } });
  const shown = rules.map(({ condition: { urlPattern, requestDestination }, source }) =>
    [urlPattern?.init.pathname ?? "", requestDestination ?? "", source]);
  const race = "race-network-and-fetch-handler";
  const vendor = "/mi%20curso\\+1/vendor/*", versioned = "/mi%20curso\\+1/static-*";   // the root's path, literal
  assert.deepEqual(JSON.parse(JSON.stringify(shown)), [   // made in the sandbox: compared as data
    ["", "worker", "fetch-event"],   // first: its response needs COOP/COEP (isolate), whatever its path
    [vendor, "script", race], [vendor, "style", race], [vendor, "", "cache"],
    [versioned, "script", race], [versioned, "style", race], [versioned, "", "cache"],
  ]);
  // a browser that refuses the rules still installs the worker, which then serves everything
  const warned = [];
  const original = console.warn;
  console.warn = (...args) => warned.push(args.join(" "));
  try {
    await worker("v1").dispatch("install", { addRoutes: async () => { throw new TypeError("not supported"); } });
    // nor does a missing URLPattern keep it from installing
    await worker("v1", { URLPattern: null }).dispatch("install", { addRoutes: async () => {} });
  } finally {
    console.warn = original;
  }
  assert.equal(warned.length, 2, warned.join("\n"));
  assert.match(warned.join("\n"), /static routes not added/);
  // one without static routing installs as before, and its handler still serves a versioned file
  const plain = worker("v1", { files: { "static-aaa/js/deck.js": "code" } });
  await plain.dispatch("install");
  assert.equal(await (await plain.get("static-aaa/js/deck.js")).text(), "code");
});
