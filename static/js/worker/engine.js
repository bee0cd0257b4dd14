// The editor's completion engine, on the worker's side: jedi's and parso's wheels fetched,
// checked against the build's sha256 and unpacked on the first request (never at boot), then
// pyodide_pkg/completion.py imported as one scheduled query, in a gap between runs.
// worker.js owns the scheduler; this file only loads and asks. Protocol: PROTOCOL.md.
// (type-checked with the worker's globals: tsconfig.worker.json)

import { sha256 } from "./digest.js";

/** @typedef {import("../shared/types.js").EditorInfo} EditorInfo */

/** @param {ArrayBuffer} bytes */
async function sha256Hex(bytes) {
  return Array.from(await sha256(bytes), (b) => b.toString(16).padStart(2, "0")).join("");
}

export class Engine {
  /** @param {EditorInfo} info @param {string} base the page's folder */
  constructor(info, base) {
    this.info = info;
    this.base = base;
    /** "none" → "fetching" → "unpacked" → "ready"; or "failed" */
    this.state = "none";
    this.module = null;   // the completion module (a PyProxy), once imported
    this.bytes = 0;       // what the first request cost on the network
    this.loadSeconds = null;
  }

  /** Whether a query can be answered by Python now (else the page uses its static names). */
  get usable() { return this.state === "unpacked" || this.state === "ready"; }

  /**
   * Fetch, check and unpack the wheels; resolves when they are on the file system (no Python
   * runs meanwhile: the cells keep the interpreter). Called once; later calls do nothing.
   * @param {any} pyodide @param {() => void} onUnpacked
   */
  async fetch(pyodide, onUnpacked) {
    if (this.state !== "none" || !this.info) return;
    this.state = "fetching";
    const started = performance.now();
    try {
      for (const wheel of this.info.wheels) {
        const response = await fetch(new URL(wheel.url, this.base));
        if (!response.ok) throw new Error(`${wheel.url}: HTTP ${response.status}`);
        const bytes = await response.arrayBuffer();
        const actual = await sha256Hex(bytes);
        if (actual !== wheel.sha256) throw new Error(`${wheel.url}: sha256 ${actual}, se esperaba ${wheel.sha256}`);
        pyodide.unpackArchive(bytes, "wheel");
        this.bytes += bytes.byteLength;
      }
      const source = await (await fetch(new URL(this.info.engine, this.base))).text();
      pyodide.FS.writeFile("/home/pyodide/completion.py", source);
      this.state = "unpacked";
      this.loadSeconds = (performance.now() - started) / 1000;
      onUnpacked();
    } catch (e) {
      this.state = "failed";   // the editor keeps its static names; nothing else is affected
      console.warn("completion engine:", e);
    }
  }

  /**
   * Answer one query (a scheduled action: the interpreter is ours). The first one imports
   * jedi and answers the codes to warm it up with (``completion.warm_ups``). Never throws: a
   * failure is a null answer.
   * @param {any} pyodide
   * @param {{kind: string, code: string, line: number, column: number}} query
   * @param {any} namespace  the cells' namespace (``cellrunner.Session.namespace``, a PyProxy)
   */
  answer(pyodide, query, namespace) {
    if (!this.usable) return null;
    try {
      if (!this.module) {
        this.module = pyodide.pyimport("completion");
        this.state = "ready";
      }
      if (query.kind === "load") return this.module.warm_ups(namespace).toJs();   // the worker queues them
      const proxy = this.module.answer(query.kind, query.code, query.line, query.column, namespace);
      if (proxy === undefined || proxy === null) return null;
      if (typeof proxy !== "object" || typeof proxy.toJs !== "function") return proxy;
      const value = proxy.toJs({ dict_converter: Object.fromEntries });
      proxy.destroy();
      return value;
    } catch (e) {
      console.warn("completion:", e);
      return null;
    }
  }
}
