// Make the page cross-origin isolated where the server does not (a static host): register the
// deck's Service Worker, which adds COOP/COEP, and reload once under its control.
// ``?nosw`` opts out (to test the restart-based Stop); file:// and old browsers skip it.

const RELOAD_FLAG = "dpdeck:sw-reload";

export async function ensureIsolation() {
  const params = new URLSearchParams(location.search);
  if (!("serviceWorker" in navigator) || params.has("nosw") || !isSecureContext) return;
  if (self.crossOriginIsolated) {   // the server sent the headers: nothing to do, nothing to wait for
    sessionStorage.removeItem(RELOAD_FLAG);
    return;
  }
  try {
    await navigator.serviceWorker.register("sw.js");
  } catch (e) {
    console.warn("Service Worker not registered:", e);
    return;
  }
  if (sessionStorage.getItem(RELOAD_FLAG)) return;   // reloaded once already: live without it
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
  }
  sessionStorage.setItem(RELOAD_FLAG, "1");
  location.reload();
  await new Promise(() => {});   // the page is going away: start nothing
}
