// Load in the order the lecture needs. While the interpreter compiles and starts (seconds of
// CPU on a slow laptop, during which the network would idle), the worker already downloads
// what comes next: first what the first cell needs (numpy's wheels, the deck's own wheel, the
// cell runner), then matplotlib's wheels, which the first figure needs. The bytes land in the
// browser's HTTP cache (the vendored and static folders are immutable), so when Pyodide asks
// for them they are there, or still arriving on the same request. Nothing here runs Python;
// a failed prefetch only means Pyodide fetches the file itself later.

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
 * The URLs to warm, in two waves: [what the first cell needs, what the first figure needs].
 * @param {import("./types.js").DeckConfig} config @param {string} base
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

/** Download ``url`` into the HTTP cache (the body is read to the end, then dropped). */
async function warm(/** @type {string} */ url) {
  try {
    const response = await fetch(url);
    await response.arrayBuffer();
  } catch (_) { /* Pyodide will fetch it itself, and report what fails */ }
}

/**
 * Warm the two waves, one after the other; resolves when both are in (never rejects).
 * @param {import("./types.js").DeckConfig} config @param {string} base
 */
export async function prefetch(config, base) {
  try {
    const lockURL = new URL(config.pyodideIndex + "pyodide-lock.json", base);
    const lock = await (await fetch(lockURL)).json();
    for (const wave of waves(config, base, lock)) await Promise.all(wave.map(warm));
  } catch (_) { /* as above */ }
}
