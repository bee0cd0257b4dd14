// The page's handle on the Python worker: run cells, stop them, restart the runtime.
// Protocol: see PROTOCOL.md. One Runtime per page.

const STOP_GRACE_MS = 1500;   // after an interrupt, how long before we restart instead

/** An interrupt buffer for Stop, or null where this browser cannot share memory with the
 *  worker. Feature-detected, not inferred: cross-origin isolation is needed but not enough
 *  (WebKitGTK 2.50 is isolated and has no ``SharedArrayBuffer``). */
export function makeInterruptBuffer() {
  if (self.crossOriginIsolated !== true) return null;
  if (typeof SharedArrayBuffer !== "function" || typeof Atomics !== "object") return null;
  try {
    return new Int32Array(new SharedArrayBuffer(4));
  } catch (_) {
    return null;
  }
}

export class Runtime extends EventTarget {
  constructor(config, baseURL) {
    super();
    this.config = config;
    this.base = baseURL;
    this.pending = new Map();   // id → {handlers, resolve, cellId}
    this.nextId = 1;
    this.state = "loading";
    this.detail = "";
    this.restarts = 0;
    this.start();
  }

  start() {
    this.interruptBuffer = makeInterruptBuffer();
    const url = new URL(this.config.assets.static + "js/worker.js", this.base);
    this.worker = new Worker(url, { type: "module", name: "python" });
    this.worker.onmessage = (e) => this.onMessage(e.data);
    this.worker.onerror = (e) => {
      e.preventDefault?.();
      this.restart(`el proceso de Python falló (${e.message || "error desconocido"}); se reinició`);
    };
    const init = { type: "init", config: this.config, base: this.base };
    try {
      this.worker.postMessage({ ...init, interruptBuffer: this.interruptBuffer });
    } catch (_) {   // the buffer could not be shared after all: Stop restarts instead
      this.interruptBuffer = null;
      this.worker.postMessage({ ...init, interruptBuffer: null });
    }
    this.setStatus("loading", "Python: cargando…");
  }

  /** Whether Stop can interrupt Python (else it restarts the worker). */
  get canInterrupt() { return this.interruptBuffer !== null; }

  setStatus(state, detail) {
    this.state = state;
    this.detail = detail;
    this.dispatchEvent(new CustomEvent("status", { detail: { state, detail } }));
  }

  onMessage(msg) {
    if (msg.type === "status") { this.setStatus(msg.state, msg.detail); return; }
    if (msg.type === "crashed") {
      this.restart(`Python terminó inesperadamente (${msg.error.message.split("\n")[0]}): se reinició y se volvió a correr el preludio`);
      return;
    }
    if (msg.type === "fatal") {
      this.setStatus("error", "Python: error");
      this.dispatchEvent(new CustomEvent("fatal", { detail: msg.error }));
      return;
    }
    const job = this.pending.get(msg.id);
    if (!job) return;   // a message of a run that was abandoned by a restart
    if (msg.type === "started") { this.current = msg.id; return; }
    if (msg.type === "rerun") job.handlers.onRerun?.(msg.reason);
    else if (msg.type === "stdout" || msg.type === "stderr") job.handlers.onText?.(msg.type, msg.text);
    else if (msg.type === "figure") job.handlers.onFigure?.(msg);
    else if (msg.type === "result") {
      this.pending.delete(msg.id);
      if (this.current === msg.id) this.current = null;
      job.resolve(msg);
    }
  }

  /**
   * Run a cell; resolves with {ok, value | error, seconds, noise, seedUsed}. Never rejects.
   * ``seed``: a number makes every fresh draw of noise in dplab reproducible for this run.
   * ``background``: a pre-run; the worker runs the presenter's cells first.
   */
  run(cellId, code, handlers = {}, { seed = null, background = false } = {}) {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { handlers, resolve, cellId, id, code, seed });
      handlers.onQueued?.(id, this.state);
      this.worker.postMessage({ type: "run", id, cellId, code, seed, background });
    });
  }

  /** Stop the run ``id``: cancel it if it has not started; interrupt it if it runs; restart
   *  the runtime if it cannot be interrupted (no isolation) or does not stop in time. */
  stop(id) {
    if (!this.pending.has(id)) return;
    if (this.current !== id) {
      this.worker.postMessage({ type: "cancel", id });
      return;
    }
    if (this.interruptBuffer) {
      this.interruptBuffer[0] = 2;   // SIGINT: Python raises KeyboardInterrupt in the cell
      setTimeout(() => {
        if (this.pending.has(id)) this.restart("la celda no respondía a la interrupción: se reinició Python");
      }, STOP_GRACE_MS);
    } else {
      this.restart("celda detenida: se reinició Python (la página no está aislada, así que no se puede interrumpir)");
    }
  }

  /** Terminate the worker and start a new one; pending runs end with an error. */
  restart(reason) {
    this.worker.terminate();
    this.current = null;
    this.restarts += 1;
    const abandoned = [...this.pending.values()];
    this.pending.clear();
    for (const job of abandoned) {
      job.resolve({ ok: false, restarted: true, seconds: null,
                    error: { type: "Reinicio", message: reason, traceback: reason } });
    }
    this.start();   // before telling anyone: a listener may run cells on the new worker at once
    this.dispatchEvent(new CustomEvent("restart", { detail: { reason } }));
  }
}
