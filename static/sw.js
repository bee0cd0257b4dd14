// The deck's Service Worker (copied to the deck's root, so its scope is the whole deck).
// Stop that works on a static host: hosts such as GitHub Pages cannot send COOP/COEP, so we add
// them to the page and to its worker script, the only responses whose headers decide cross-
// origin isolation (same-origin subresources need no CORP header). Every other request is left
// alone: the browser's HTTP cache serves the versioned files (vendor/<pkg>-<version>/,
// static-<hash>/) on a second visit, and V8 reuses its compiled WebAssembly from that cache,
// which a Response re-wrapped here would defeat.

self.addEventListener("install", () => self.skipWaiting());
self.addEventListener("activate", (event) => event.waitUntil((async () => {
  for (const name of await caches.keys()) await caches.delete(name);   // earlier versions cached
  await self.clients.claim();
})()));

function isolate(response) {
  if (response.status === 0 || response.type === "opaque") return response;
  const headers = new Headers(response.headers);
  headers.set("Cross-Origin-Opener-Policy", "same-origin");
  headers.set("Cross-Origin-Embedder-Policy", "require-corp");
  headers.set("Cross-Origin-Resource-Policy", "same-origin");
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (new URL(request.url).origin !== self.location.origin) return;   // never happens: CSP
  if (request.mode !== "navigate" && request.destination !== "worker") return;
  event.respondWith(fetch(request).then(isolate));
});
