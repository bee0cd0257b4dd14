// Stand-ins for the browser's globals in the JS tests under node (components, workers, runtime).

/** Put stand-ins on globalThis for one test; put the real ones back after it.
 *  @param {import("node:test").TestContext} t @param {Record<string, unknown>} globals */
export function stub(t, globals) {
  const saved = Object.fromEntries(Object.keys(globals).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
  for (const [name, value] of Object.entries(globals)) {
    Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
  }
  t.after(() => {
    for (const [name, descriptor] of Object.entries(saved)) {
      if (descriptor) Object.defineProperty(globalThis, name, descriptor);
      else delete globalThis[name];
    }
  });
}

/** A Web Worker that records what the page posts; the test answers for it (``reply``). */
export class FakeWorker {
  static all = [];
  constructor(url, options) {
    this.name = options?.name;
    this.posted = [];
    this.terminated = false;
    this.onmessage = null;
    FakeWorker.all.push(this);
  }
  postMessage(msg) { this.posted.push(msg); }
  terminate() { this.terminated = true; }
  reply(data) { this.onmessage?.({ data }); }
  /** The page's messages of ``type``. */
  sent(type) { return this.posted.filter((m) => m.type === type); }
}

/** The globals a Runtime (runtime.js) reads, with workers that are FakeWorkers (``FakeWorker.all``
 *  emptied first). @param {import("node:test").TestContext} t */
export function stubRuntimeGlobals(t) {
  FakeWorker.all = [];
  stub(t, { Worker: FakeWorker, document: new EventTarget(), location: { search: "" }, self: {},
            setInterval: () => 0 });
}
