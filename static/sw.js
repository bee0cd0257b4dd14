// The deck's Service Worker (copied to the deck's root, so its scope is the whole deck).
// 1. Stop that works on a static host: hosts such as GitHub Pages cannot send COOP/COEP, so we
//    add them to every same-origin response; the page is then cross-origin isolated and a
//    running cell can be interrupted instead of restarting Python.
// 2. A fast second visit: files under versioned folders (vendor/<pkg>-<version>/,
//    static-<hash>/) never change under the same URL, so they are served from a cache.
const CACHE = "dpdeck-immutable-v1";
const IMMUTABLE = /\/(vendor\/|static-[0-9a-f]+\/)/;

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

function isolate(response) {
  if (response.status === 0 || response.type === "opaque") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

async function respond(request) {
  const url = new URL(request.url);
  if (request.method === "GET" && IMMUTABLE.test(url.pathname)) {
    const cache = await caches.open(CACHE);
    const hit = await cache.match(request, { ignoreVary: true });
    if (hit) return isolate(hit);
    const response = await fetch(request);
    if (response.ok) cache.put(request, response.clone());
    return isolate(response);
  }
  return isolate(await fetch(request));
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (new URL(request.url).origin !== self.location.origin) return;   // never happens: CSP
  if (request.cache === "only-if-cached" && request.mode !== "same-origin") return;
  event.respondWith(respond(request));
});

// The page tells us which static-<hash>/ folder is current: older ones are dropped.
self.addEventListener("message", (event) => {
  const current = event.data?.keepStatic;
  if (!current) return;
  event.waitUntil(caches.open(CACHE).then(async (cache) => {
    for (const request of await cache.keys()) {
      const m = new URL(request.url).pathname.match(/\/(static-[0-9a-f]+)\//);
      if (m && m[1] + "/" !== current) await cache.delete(request);
    }
  }));
});
