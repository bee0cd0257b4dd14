// What the page's components are handed (deck.js makes it once): the runtime, the deck's
// reveal.js, the build's config and base URL, the page's cells, its announcer, and the live hall
// as an explicit observable holder. Every component (actions.js, completion.js, exercise.js,
// help.js, zoom.js, prerun.js, mirror.js, poll.js, hallcount.js, deck.js's near editors) is
// installed with the context as its first argument (what only it needs is a second, options
// argument) and returns something with `unbind()`, as reveal.js's controllers have bind and
// unbind: `unbind()` removes every listener it added (reveal.on, addEventListener, the runtime's
// events, a BroadcastChannel, its timers), and `window.deck.unbind()` unbinds them all. No
// component reads `window.deck` (that is for the tests and for curious students), and no
// property of a global is redefined to learn of a change.

/** @typedef {import("./live.js").Hall} Hall */
/** reveal.js's deck (ambient.d.ts: what the page calls of it, `on` and `off` included).
 *  @typedef {import("reveal").RevealDeck} RevealDeck */

/**
 * What a component is given.
 * @typedef {object} DeckContext
 * @property {import("./workers.js").Python | null} runtime  null: a speaker-view copy (no Python);
 *   a pool of two workers where the device affords it (workers.js), else one Runtime
 * @property {HallHolder} hall        the page's live hall (live.js), as it is now
 * @property {RevealDeck | null} reveal  null: no slides (a test's bare page), or reveal.js not
 *   initialized yet (deck.js sets it once it is: the components installed before read none)
 * @property {import("../shared/types.js").DeckConfig} config  the build's config
 * @property {boolean} receiver       this page is a speaker-view copy
 * @property {string} base            the deck's base URL (the page's directory)
 * @property {(text: string) => void} announce  say ``text`` to a screen reader (#announcer)
 * @property {import("./cell.js").Cell[]} cells  the page's code cells, in deck order
 */

/** What an installed component hands back: ``unbind()`` removes its listeners and
 *  subscriptions (and stops its timers, closes its channel), after which it no longer reacts to
 *  the hall, the deck, the keyboard, the runtime or the storage. Calling it twice is harmless.
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
