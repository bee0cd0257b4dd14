// What the page's components are handed (deck.js makes it once): the runtime, the deck's
// reveal.js, the build's config, and the live hall as an explicit observable holder. A component
// is installed with the context and returns something with `unbind()`, as reveal.js's
// controllers have bind and unbind: no component reads `window.deck` (that is for the tests and
// for curious students), and no property of a global is redefined to learn of a change.

/** @typedef {import("./live.js").Hall} Hall */
/** reveal.js's deck, with its `off` (reveal.js has it; ambient.d.ts does not declare it).
 *  @typedef {import("reveal").RevealDeck & {off?(type: string, listener: (event: Event) => void): void}} RevealDeck */

/**
 * What a component is given.
 * @typedef {object} DeckContext
 * @property {import("./runtime.js").Runtime | null} runtime  null: a speaker-view copy (no Python)
 * @property {HallHolder} hall        the page's live hall (live.js), as it is now
 * @property {RevealDeck | null} reveal  null: no slides (a test's bare page)
 * @property {import("./types.js").DeckConfig} config  the build's config
 * @property {boolean} receiver       this page is a speaker-view copy
 */

/** What an installed component hands back: ``unbind()`` removes its listeners and
 *  subscriptions, after which it no longer reacts to the hall, the deck or the storage.
 *  @typedef {{unbind(): void}} Bound */

/**
 * The page's hall object (live.js's, or a test's own), held where every component can follow
 * it: ``subscribe(fn)`` calls ``fn`` now, whenever the object is replaced (``set``), and whenever
 * the object held dispatches `status` (it found a server, lost it, …); a replaced object's
 * `status` events are no longer heard. ``subscribe`` returns its ``unsubscribe``.
 */
export class HallHolder {
  /** @param {Hall | null} [hall] */
  constructor(hall = null) {
    /** @type {Hall | null} */
    this.hall = null;
    /** @type {Set<(hall: Hall | null) => void>} */
    this.subscribers = new Set();
    this.onStatus = () => this.notify();
    this.set(hall);
  }

  /** @returns {Hall | null} */
  get() { return this.hall; }

  /** Hold ``hall`` (null: none) and tell every subscriber. @param {Hall | null} hall */
  set(hall) {
    this.hall?.removeEventListener?.("status", this.onStatus);
    this.hall = hall;
    hall?.addEventListener?.("status", this.onStatus);
    this.notify();
  }

  /** @param {(hall: Hall | null) => void} fn @returns {() => void} unsubscribe */
  subscribe(fn) {
    const own = (/** @type {Hall | null} */ hall) => fn(hall);   // one entry per subscribe, even of the same fn
    this.subscribers.add(own);
    own(this.hall);
    return () => { this.subscribers.delete(own); };
  }

  notify() { for (const fn of [...this.subscribers]) fn(this.hall); }
}
