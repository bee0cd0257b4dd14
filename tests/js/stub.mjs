// Stand-ins for the browser's globals in the JS tests under node (components, workers).

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
