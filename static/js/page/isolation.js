// The deck's Service Worker (sw.js): cross-origin isolation where the server does not send
// COOP/COEP (a static host), and the whole deck kept for use without a network.
// ``?nosw`` opts out (to test the restart-based Stop); file:// and old browsers skip it.
import { say } from "../shared/phrases.js";

const RELOAD_FLAG = "dpdeck:sw-reload";

/** Whether this page may use the Service Worker at all. */
function swAllowed() {
  return "serviceWorker" in navigator && isSecureContext
         && !new URLSearchParams(location.search).has("nosw");
}

async function register() {
  try {
    return await navigator.serviceWorker.register("sw.js");
  } catch (e) {
    console.warn("Service Worker not registered:", e);
    return null;
  }
}

/** Before Python starts: where the page is not isolated, register the Service Worker (which adds
 *  COOP/COEP) and reload once under its control. An isolated page registers it only once Python
 *  is ready and the cells pre-ran (keepOffline), so a cold visit's loads do not share the link. */
export async function ensureIsolation() {
  if (!swAllowed()) return;
  if (self.crossOriginIsolated) {   // the server sent the headers: nothing to wait for
    sessionStorage.removeItem(RELOAD_FLAG);
    return;
  }
  if (!await register()) return;
  if (sessionStorage.getItem(RELOAD_FLAG)) return;   // reloaded once already: live without it
  await navigator.serviceWorker.ready;
  if (!navigator.serviceWorker.controller) {
    await new Promise((resolve) => navigator.serviceWorker.addEventListener("controllerchange", resolve, { once: true }));
  }
  sessionStorage.setItem(RELOAD_FLAG, "1");
  location.reload();
  await new Promise(() => {});   // the page is going away: start nothing
}

let asked = false;

/** Resolves once the deck's background pre-run of every cell is done, or has nothing to run
 *  near the current slide (a phone's: ``data-prerun-idle``; prerun.js), or at once under
 *  ``?noprerun``: until then the page's own work (matplotlib, the cells) has the link,
 *  the CPU and the disk. At most ``limit`` ms. */
function settled(limit = 120_000) {
  const done = () => document.documentElement.dataset.prerunDone === "true"
                     || document.documentElement.dataset.prerunIdle === "true"
                     || new URLSearchParams(location.search).has("noprerun");
  return new Promise((resolve) => {
    if (done()) return resolve(undefined);
    const observer = new MutationObserver(() => { if (done()) finish(); });
    const timer = setTimeout(() => finish(), limit);
    const finish = () => { observer.disconnect(); clearTimeout(timer); resolve(undefined); };
    observer.observe(document.documentElement, { attributes: true, attributeFilter: ["data-prerun-done", "data-prerun-idle"] });
  });
}

/** Resolves once no Python worker downloads wheels (its prefetch: numpy's, then matplotlib's,
 *  which the first figure waits for), at once if none does. A phone's pre-run idles after the
 *  opening slide while matplotlib still downloads: a fill begun then shared the phone's one
 *  link with it (docs/benchmark.md, "F2 holds": the bench's emulated link does not slow a
 *  service worker's fetches, so it cannot time this). At most ``limit`` ms.
 *  @param {{downloading: boolean} & EventTarget} runtime */
function downloaded(runtime, limit = 120_000) {
  return new Promise((resolve) => {
    if (!runtime.downloading) return resolve(undefined);
    const check = () => { if (!runtime.downloading) finish(); };
    const timer = setTimeout(() => finish(), limit);
    const finish = () => { runtime.removeEventListener("status", check); clearTimeout(timer); resolve(undefined); };
    runtime.addEventListener("status", check);
  });
}

/** Once Python is ready, the pre-run done (or idle) and the wheels in: ask the Service Worker
 *  to keep the rest of the deck (offline.json) and say how far it got, quietly, in the status
 *  indicator's tooltip and its ``data-offline`` ("partial", then "ready": every file kept; the
 *  tests wait for it). Once per page.
 *  @param {HTMLElement} statusEl @param {{downloading: boolean} & EventTarget} runtime */
export async function keepOffline(statusEl, runtime) {
  if (asked || !swAllowed()) return;
  asked = true;
  await settled();
  await downloaded(runtime);
  if (!await register()) return;
  const registration = await navigator.serviceWorker.ready;
  let ours = "";
  navigator.serviceWorker.addEventListener("message", (event) => {
    /** @type {import("../shared/types.js").OfflineProgress} */
    const msg = event.data;
    if (msg?.type !== "offline-progress") return;
    statusEl.dataset.offline = msg.complete ? "ready" : "partial";
    statusEl.dataset.offlineVersion = msg.version;
    const text = msg.complete ? say({ code: "offline-ready" })
      : msg.done + msg.failed < msg.total ? say({ code: "offline-saving", done: msg.done, total: msg.total })
      : say({ code: "offline-missing", failed: msg.failed });
    if (!statusEl.title || statusEl.title === ours) statusEl.title = ours = text;   // a restart's reason wins
  });
  navigator.serviceWorker.startMessages();   // deliver them to the listener above now
  /** @type {import("../shared/types.js").OfflineFill} */
  const ask = { type: "offline-fill" };
  registration.active?.postMessage(ask);
}
