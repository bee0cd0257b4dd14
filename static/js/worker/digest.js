// SHA-256 with WebCrypto, for the wheels the worker checks before Pyodide unpacks them
// (engine.js: the editor's; prefetch.js: the prefetched ones).
// (type-checked with the worker's globals: tsconfig.worker.json)

/** The SHA-256 digest of ``bytes``. @param {ArrayBuffer} bytes @returns {Promise<Uint8Array>} */
export async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}
