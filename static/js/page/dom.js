// The parts of the page's markup that the build always writes (templates/): one that is missing
// is a bug of the build, not a state the page handles, so it fails here, by name.

/**
 * The element under ``root`` that matches ``selector``, which the build always writes.
 * @param {ParentNode} root
 * @param {string} selector
 * @returns {HTMLElement}
 */
export function required(root, selector) {
  const el = root.querySelector(selector);
  if (!(el instanceof HTMLElement)) throw new Error(`missing ${selector} in the page's markup`);
  return el;
}

/** ``then`` when the page is idle: requestIdleCallback where the browser has it (within 1 s even
 *  if the page never idles; WebKit has none), else a timer. */
export function whenIdle(/** @type {() => void} */ then) {
  if (typeof requestIdleCallback === "function") requestIdleCallback(then, { timeout: 1000 });
  else setTimeout(then, 50);
}
