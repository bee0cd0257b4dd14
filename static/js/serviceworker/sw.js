// The deck's Service Worker (copied to the deck's root, so its scope is the whole deck). Two jobs:
//
// 1. Isolation on a static host: hosts such as GitHub Pages cannot send COOP/COEP, so we add them
//    to the page and to its worker script, the only responses whose headers decide cross-origin
//    isolation (same-origin subresources need no CORP header).
// 2. The deck offline after one visit: a cache per deploy, `dpdeck-<version>`. The build
//    (dpdeck/build/offline.py) stamps VERSION below and lists in offline.json every file the deck
//    may fetch. Nothing is fetched at install (a cold visit's own loads keep the whole link):
//    files are kept as the page fetches them, and once Python has pre-run the cells the page
//    asks for the rest (`offline-fill`, low priority, one file at a time: while the presenter
//    talks) and hears how far it got (`offline-progress`; static/js/shared/PROTOCOL.md). Navigations:
//    network first, the cached index.html offline. Versioned paths (vendor/<pkg>-<version>/,
//    static-<hash>/) never change under one URL: cache first (where the browser routes
//    statically, the scripts and style sheets race the HTTP cache instead: `routeVersioned`).
//    Everything else: network first, the cache offline.
//    A new deploy changes this file's bytes (its VERSION), so the browser installs the new
//    worker; install copies the versioned files the new list shares with the old cache, and
//    activate deletes every other cache.

const VERSION = "__DPDECK_OFFLINE_VERSION__";
const PREFIX = "dpdeck-";
const CACHE = PREFIX + VERSION;
const MANIFEST = "offline.json";
const ROOT = new URL("./", self.location.href).href;
// pyodide.asm.wasm is cached and served like any versioned file: V8 keeps the machine code it
// compiled from a .wasm from Cache Storage too, so nothing measurable is lost, and offline it
// needs no HTTP cache (measured: bench/README.md, "The wasm in the service worker's cache").

/** The path of a URL below the deck's root ("" for the root itself), or null outside it. */
function relative(url) {
  const href = url.split("#")[0].split("?")[0];
  return href.startsWith(ROOT) ? href.slice(ROOT.length) : null;
}

/** The deck-relative path prefixes whose files never change under one URL. */
const VERSIONED = ["vendor/", "static-"];
const isVersioned = (rel) => VERSIONED.some((prefix) => rel.startsWith(prefix));

function isolate(response) {
  if (response.status === 0 || response.type === "opaque") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** Keep a copy of a complete, successful response (not a 206 range, not a redirect). */
async function keep(key, response) {
  if (response.status !== 200 || response.type !== "basic" || response.redirected) return;
  try {
    await (await caches.open(CACHE)).put(key, response);
  } catch (e) {
    console.warn("offline cache: could not keep", key, e);   // quota: the deck still works online
  }
}

/** The cached copy of ``key`` (a URL without its query: an exact match, Cache Storage's fast path). */
async function fromCache(key) {
  return (await caches.open(CACHE)).match(key);
}

/** Network first; offline (or on a server error) the cached copy, if any. */
async function networkFirst(request, key, event) {
  try {
    const response = await fetch(request);
    if (response.ok) {
      event.waitUntil(keep(key, response.clone()));
      return response;
    }
    return (await fromCache(key)) || response;
  } catch (e) {
    const cached = await fromCache(key);
    if (cached) return cached;
    throw e;
  }
}

/** Cache first: a versioned file's content never changes under its URL. */
async function cacheFirst(request, key, event) {
  const cached = await fromCache(key);
  if (cached) return cached;
  const response = await fetch(request);
  event.waitUntil(keep(key, response.clone()));
  return response;
}

self.addEventListener("install", (event) => {
  self.skipWaiting();
  if ("addRoutes" in event) event.waitUntil(routeVersioned(event));
  event.waitUntil(adoptFromOldCaches());
});

/** Where the browser has static routing (`InstallEvent.addRoutes`), versioned files skip this
 *  worker's thread when they can. The page's scripts and style sheets are raced between the
 *  network (online, the HTTP cache answers a warm visit, and V8 reuses the code it compiled from
 *  it) and the fetch handler (offline, it wins with this cache's copy). The other versioned files
 *  (the wasm, the stdlib, the wheels: megabytes, which a race would read twice) come from this
 *  cache without waking the worker (on a miss, from the network). A worker's script comes through
 *  the fetch handler alone, which adds COOP/COEP to it (`isolate`). The first rule that matches
 *  decides. Elsewhere, or if the browser refuses the rules, every request comes through the fetch
 *  handler, as before. */
async function routeVersioned(event) {
  const path = new URL(ROOT).pathname.replace(/[\\+*?:{}()]/g, "\\$&");   // literal in a URLPattern
  const race = "race-network-and-fetch-handler";
  try {   // URLPattern too may be missing: the worker installs all the same
    const versioned = VERSIONED.map((prefix) => new URLPattern({ pathname: `${path}${prefix}*` }));
    await event.addRoutes([
      { condition: { requestDestination: "worker" }, source: "fetch-event" },
      ...versioned.flatMap((urlPattern) => [
        { condition: { urlPattern, requestDestination: "script" }, source: race },
        { condition: { urlPattern, requestDestination: "style" }, source: race },
        { condition: { urlPattern }, source: "cache" },
      ]),
    ]);
  } catch (e) {
    console.warn("static routes not added: every request goes through the fetch handler", e);
  }
}

/** The new deploy's versioned files an older cache already holds: copied, not downloaded again. */
async function adoptFromOldCaches() {
  const old = (await caches.keys()).filter((name) => name.startsWith(PREFIX) && name !== CACHE);
  if (!old.length) return;
  let files;
  try {
    files = (await (await fetch(ROOT + MANIFEST, { cache: "no-store" })).json()).files;
  } catch {
    return;
  }
  const cache = await caches.open(CACHE);
  for (const rel of files.filter(isVersioned)) {
    for (const name of old) {
      const hit = await (await caches.open(name)).match(ROOT + rel);
      if (hit) { await cache.put(ROOT + rel, hit); break; }
    }
  }
}

self.addEventListener("activate", (event) => event.waitUntil((async () => {
  for (const name of await caches.keys()) {
    if (name !== CACHE) await caches.delete(name);   // other deploys', and older names
  }
  await self.clients.claim();
})()));

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const rel = relative(request.url);
  // another origin (the live hall on an origin of its own, `build --hall`: live answers, never
  // cached; the CSP forbids any other) or outside the deck
  if (rel === null) return;
  if (rel.startsWith("_hall/")) return;   // the live hall (live.js): live answers, never cached
  if (request.mode === "navigate") {
    // the deck's one page: keep it as index.html, whatever the URL's query (?noprerun…)
    const key = ROOT + "index.html";
    if (rel !== "" && rel !== "index.html") {
      event.respondWith(fetch(request).then(isolate));
      return;
    }
    event.respondWith(networkFirst(request, key, event).then(isolate));
    return;
  }
  const key = ROOT + rel;
  const answer = isVersioned(rel) ? cacheFirst(request, key, event) : networkFirst(request, key, event);
  event.respondWith(request.destination === "worker" ? answer.then(isolate) : answer);
});

// --- the rest of offline.json, on the page's request --------------------------------------------

let filling = null;   // one fill at a time; a second request waits for it and hears its end

self.addEventListener("message", (event) => {
  const msg = event.data;
  if (!msg || msg.type !== "offline-fill") return;
  const client = /** @type {Client} */ (event.source);
  const tell = (progress) => client?.postMessage({ type: "offline-progress", version: VERSION, ...progress });
  filling ??= fill(tell).finally(() => { filling = null; });
  event.waitUntil(filling.then(tell));
});

/** Fetch every listed file the cache lacks, one at a time at low priority. */
async function fill(tell) {
  const cache = await caches.open(CACHE);
  // offline, the list this version kept: the page still hears that everything is here
  const manifest = await networkFirst(new Request(ROOT + MANIFEST, { cache: "no-cache" }), ROOT + MANIFEST,
                                      { waitUntil: (p) => p });
  const { files } = await manifest.json();
  const have = new Set((await cache.keys()).map((r) => relative(r.url)));
  let done = files.filter((rel) => have.has(rel)).length;
  let failed = 0;
  let lastTold = 0;
  tell({ done, total: files.length, failed, complete: false });
  for (const rel of files) {
    if (have.has(rel)) continue;
    try {
      // the HTTP cache first: what the page loaded already costs no network
      const response = await fetch(ROOT + rel, { priority: "low" });
      if (!response.ok) throw new Error(`HTTP ${response.status}`);
      await cache.put(ROOT + rel, response);
      done += 1;
    } catch (e) {
      failed += 1;
      console.warn("offline cache: could not fetch", rel, e);
    }
    if (Date.now() - lastTold > 250) {
      lastTold = Date.now();
      tell({ done, total: files.length, failed, complete: false });
    }
  }
  return { done, total: files.length, failed, complete: failed === 0 };
}
