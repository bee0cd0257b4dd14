// Load in the order the lecture needs. While the interpreter compiles and starts (seconds of
// CPU on a slow laptop, during which the network would idle), the worker already downloads
// what comes next: first what the first cell needs (numpy's wheels, the deck's own wheel, the
// cell runner), then matplotlib's wheels, which the first figure needs. The bytes are kept in
// the worker until Pyodide asks for them (`fetchKept`, which the worker puts in place of its
// `fetch`): reading numpy's 12 MB wheel back from the HTTP cache took 0,32 s of the worker's
// start, on this machine, locally. Nothing here runs Python; a failed prefetch only means
// Pyodide fetches the file itself later.

import { sha256 } from "./digest.js";

/**
 * The lock entries of ``names`` and of everything they depend on (pyodide-lock.json's
 * "depends"), dependencies first, each once. Unknown names are skipped: Pyodide reports them.
 * @param {{packages: Record<string, {file_name: string, depends?: string[]}>}} lock
 * @param {readonly string[]} names
 * @returns {string[]} the wheels' file names
 */
export function closure(lock, names) {
  /** @type {string[]} */
  const files = [];
  const seen = new Set();
  const visit = (/** @type {string} */ name) => {
    const key = name.toLowerCase();
    if (seen.has(key) || !lock.packages[key]) return;
    seen.add(key);
    for (const dep of lock.packages[key].depends ?? []) visit(dep);
    files.push(lock.packages[key].file_name);
  };
  for (const name of names) visit(name);
  return files;
}

/**
 * The URLs to download, in two waves: [what the first cell needs, what the first figure needs].
 * @param {import("../shared/types.js").DeckConfig} config @param {string} base
 * @param {{packages: Record<string, {file_name: string, depends?: string[]}>}} lock
 * @returns {[string[], string[]]}
 */
export function waves(config, base, lock) {
  const index = new URL(config.pyodideIndex, base);
  const url = (/** @type {string} */ file) => new URL(file, index).href;
  const boot = closure(lock, config.packages);
  const deferred = closure(lock, config.deferredPackages).filter((f) => !boot.includes(f));
  return [
    [...boot.map(url), new URL(config.wheel, base).href, new URL(config.runner, base).href],
    deferred.map(url),
  ];
}

/** The prefetched bodies Pyodide has not asked for yet: URL → its body (null when the download
 *  failed). Each is handed over once, then forgotten; after `dropKept`, nothing more is kept. */
const kept = new Map();
let keeping = true;

/** Download one file and keep its body. @param {string} url */
async function warm(url) {
  const body = fetch(url)
    .then((response) => (response.ok ? response.arrayBuffer() : null))
    .catch(() => null);   // Pyodide will fetch it itself, and report what fails
  if (keeping) kept.set(url, body);
  await body;
}

/**
 * Download the two waves, one after the other; resolves when both are in (never rejects).
 * @param {import("../shared/types.js").DeckConfig} config @param {string} base
 */
export async function prefetch(config, base) {
  try {
    const lockURL = new URL(config.pyodideIndex + "pyodide-lock.json", base);
    const lock = await (await fetch(lockURL)).json();
    for (const wave of waves(config, base, lock)) await Promise.all(wave.map(warm));
  } catch (_) { /* as above */ }
}

/** Whether ``body`` is what ``integrity`` ("sha256-<base64>", as Pyodide asks a lock wheel)
 *  says; false where this context has no WebCrypto (plain HTTP on a LAN).
 *  @param {ArrayBuffer} body @param {string} integrity */
export async function hasIntegrity(body, integrity) {
  if (!integrity.startsWith("sha256-") || !globalThis.crypto?.subtle) return false;
  return "sha256-" + btoa(String.fromCharCode(...await sha256(body))) === integrity;
}

/**
 * A `fetch` that answers a GET of a prefetched file with its kept body (once; still downloading:
 * when it is in), checked against the integrity the request asks (off this thread, in WebCrypto),
 * and passes every other request to ``fallback``: one whose download failed, whose bytes do not
 * match, or that this context cannot check goes to the network as it would have.
 * @param {typeof fetch} fallback @returns {typeof fetch}
 */
export function fetchKept(fallback) {
  return async (input, init) => {
    const request = input instanceof Request ? input : null;
    const url = new URL(request ? request.url : String(input), globalThis.location?.href).href;
    const method = init?.method ?? request?.method ?? "GET";
    const integrity = init?.integrity ?? request?.integrity ?? "";
    const entry = kept.get(url);
    if (!entry || method !== "GET") return fallback(input, init);
    kept.delete(url);
    const body = await entry;
    if (!body || (integrity && !(await hasIntegrity(body, integrity)))) return fallback(input, init);
    return new Response(body, { status: 200 });
  };
}

/** Forget whatever Pyodide did not ask for, and keep nothing more (its loads are over: memory
 *  back). */
export function dropKept() {
  keeping = false;
  kept.clear();
}
