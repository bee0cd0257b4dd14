// Following the presenter in the live hall (docs/live-hall-protocol.md, "Following"): a pure
// state machine, with no DOM, no reveal.js, no network, no timers, no storage and no clock of
// its own (the time comes in as an argument), so that node's test runner can drive it through
// thousands of interleavings (tests/js/follow.test.mjs). live.js feeds it what happened (a state
// from the stream, a move of the page, the «Volver con el profesor» button) and executes the
// decisions it returns: move the deck, post the presenter's position, redraw the indicator.
//
// The rules:
// - A page accepts only a state whose `seq` is greater than the last it accepted (a duplicate, a
//   late or an older one changes nothing).
// - A follower moves to each state it accepts while it follows. A move of its own (not one that
//   applying a state caused) to anywhere but the presenter's position pauses following; a move
//   back onto it, or the button, resumes it. In the phones' scroll view fragments follow the
//   scrolling, so only the slide counts there.
// - The presenter's page publishes each move of its own with seq = max(now, its last seq + 1,
//   the accepted seq + 1): its clock, so a reloaded page (a fresh instance) still sends growing
//   numbers. When a state arrives, it publishes again if the server's is older than its own
//   last (the server missed its moves) or if it moved before it heard the hall; a page that has
//   not moved since it opened takes the state instead (a reopened presenter URL catches up).

/** The presenter's position, as the stream and `POST /_hall/state` carry it.
 *  @typedef {{seq: number, indexh: number, indexv: number, indexf: number}} HallState */
/** Where the page is: reveal.js's indices (`indexv` 0 and `indexf` -1 where reveal.js has none),
 *  and whether the page shows the phones' scroll view.
 *  @typedef {{indexh: number, indexv: number, indexf: number, scroll: boolean}} Here */
/** What to do, in order: move the deck to a state (not a move of the page's own; `timed`: a
 *  follower applying a state from the stream, whose delay since the publish live.js measures once
 *  the deck moved), post the presenter's position, or redraw the hall's indicator.
 *  @typedef {{kind: "apply", state: HallState, timed: boolean} | {kind: "publish", state: HallState} |
 *            {kind: "status"}} Decision */

/** A state from the stream, checked and completed, or null when its `seq` is not an integer. */
export function hallState(s) {
  if (!Number.isInteger(s?.seq)) return null;
  return { seq: s.seq, indexh: s.indexh | 0, indexv: s.indexv | 0, indexf: Number.isInteger(s.indexf) ? s.indexf : -1 };
}

export class Follow {
  /** @param {{presenter?: boolean}} [options] presenter: this page holds the token */
  constructor({ presenter = false } = {}) {
    this.presenter = presenter;
    this.present = false;        // a hall server answered
    this.following = true;
    /** @type {HallState | null} the presenter's latest position (the last accepted state) */
    this.target = null;
    this.seq = 0;                // the presenter's page: its last published seq
    this.moved = false;          // the presenter's page: it moved since it opened
    this.applying = false;       // a state is being applied: the moves it causes are not the page's
  }

  // --- events -------------------------------------------------------------------------------

  /** A hall server answered `_hall/hello`: moves count from now on. */
  found() {
    this.present = true;
  }

  /** The presenter's token was refused (403): this page follows from now on. */
  dropPresenter() {
    this.presenter = false;
  }

  /**
   * A `state` event from the stream (pushed, or the first of a new stream).
   * @param {unknown} s the event's data, as parsed
   * @param {Here} here where the page is now
   * @param {number} now the clock, in ms (Date.now())
   * @returns {Decision[]}
   */
  state(s, here, now) {
    const state = hallState(s);
    if (!state || (this.target && state.seq <= this.target.seq)) return [];
    this.target = state;
    /** @type {Decision[]} */
    const decisions = [];
    if (this.presenter) {
      if (this.seq > state.seq || (this.moved && !this.seq)) decisions.push(this.publish(here, now));   // the server missed our moves
      else if (!this.moved) decisions.push({ kind: "apply", state, timed: false });   // a reopened presenter page catches up
    } else if (this.following) {
      decisions.push({ kind: "apply", state, timed: true });
    }
    decisions.push({ kind: "status" });
    return decisions;
  }

  /**
   * The page moved (reveal.js's slidechanged, fragmentshown, fragmenthidden).
   * @param {Here} here where it is now
   * @param {number} now
   * @returns {Decision[]}
   */
  localMove(here, now) {
    if (this.applying) return [];
    if (this.presenter) {
      this.moved = true;
      return this.present ? [this.publish(here, now)] : [];
    }
    if (!this.present) return [];
    const following = this.atTarget(here);
    if (following === this.following) return [];
    this.following = following;
    return [{ kind: "status" }];
  }

  /** «Volver con el profesor»: back to the presenter's position, following again.
   *  @returns {Decision[]} */
  rejoin() {
    this.following = true;
    /** @type {Decision[]} */
    const decisions = this.target ? [{ kind: "apply", state: this.target, timed: false }] : [];
    decisions.push({ kind: "status" });
    return decisions;
  }

  /** An "apply" decision is being executed: until `endApply`, the page's moves are its. */
  startApply() { this.applying = true; }
  endApply() { this.applying = false; }

  // --- decisions ----------------------------------------------------------------------------

  /** Whether the page shows the presenter's slide (and fragment, outside the scroll view).
   *  @param {Here} here */
  atTarget(here) {
    const t = this.target;
    if (!t) return true;
    const same = here.indexh === t.indexh && here.indexv === t.indexv;
    return same && (here.scroll || here.indexf === t.indexf);
  }

  /** @param {Here} here @param {number} now @returns {Decision} */
  publish(here, now) {
    this.seq = Math.max(now, this.seq + 1, (this.target?.seq ?? 0) + 1);
    return { kind: "publish", state: { seq: this.seq, indexh: here.indexh, indexv: here.indexv, indexf: here.indexf } };
  }
}
