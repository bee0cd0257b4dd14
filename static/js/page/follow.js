// Following the presenter in the live hall (docs/live-hall-protocol.md, "Following"): a pure
// state machine, with no DOM, no reveal.js, no network, no timers, no storage and no clock of
// its own (the time comes in as an argument), so that node's test runner can drive it through
// thousands of interleavings (tests/js/follow.test.mjs). live.js feeds it what happened (a new
// stream's greeting, a state pushed later, a move of the page, the «Volver con el profesor»
// button; a reload is a fresh instance) and executes the decisions it returns: move the deck,
// post the presenter's position, redraw the indicator.
//
// The rules:
// - A page accepts only a state whose `seq` is greater than the last it accepted (a duplicate, a
//   late or an older one changes nothing).
// - A follower moves to each state it accepts while it follows. A move of its own (not one that
//   applying a state caused) to anywhere but the presenter's position pauses following; a move
//   back onto it, or the button, resumes it. In the phones' scroll view fragments follow the
//   scrolling: a fragment behind the presenter's on the same slide still follows, one ahead
//   (a swipe that reads ahead) pauses, so the presenter's next click does not scroll it back.
// - The presenter's page publishes each move of its own with seq = max(now, its last seq + 1,
//   the accepted seq + 1): its clock, so a reloaded page (a fresh instance) still sends growing
//   numbers. A page that has not moved since it opened takes the states it accepts instead (a
//   reopened presenter URL catches up). When a new stream greets it with the server's state (or
//   with none), it publishes where it is if that state is older than the one it holds (its last
//   publish; for a page that has not moved, the last state it took): a restarted server lost it,
//   or the moves were made while the server was away. It also publishes then if it moved before
//   it heard the hall. A state pushed later (its own publish coming back) never makes it publish:
//   a publish still on its way is not one the server missed.

/** The presenter's position, as the stream and the state POST carry it (dpdeck/wire/hall.py).
 *  @typedef {import("../shared/types.js").HallState} HallState */
/** Where the page is: reveal.js's indices (`indexv` 0 and `indexf` -1 where reveal.js has none),
 *  and whether the page shows the phones' scroll view.
 *  @typedef {{indexh: number, indexv: number, indexf: number, scroll: boolean}} Here */
/** What to do, in order: move the deck to a state (not a move of the page's own; `timed`: a
 *  follower applying a state from the stream, whose delay since the publish live.js measures once
 *  the deck moved), post the presenter's position, or redraw the hall's indicator.
 *  @typedef {{kind: "apply", state: HallState, timed: boolean} | {kind: "publish", state: HallState} |
 *            {kind: "status"}} Decision */

import { hallState } from "./wire.js";

/** A state from the stream, checked and completed by its declared rules (wire.js, generated from
 *  dpdeck/wire/hall.py), or null when its `seq` is not an integer in its range. */
export { hallState };

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

  /** A presenter's link was opened in this page (a new `#presenter=…` fragment): it presents
   *  from now on, as a presenter's page just opened does (it takes the states it accepts until
   *  it moves; its first move publishes). */
  takePresenter() {
    if (this.presenter) return;
    this.presenter = true;
    this.moved = false;
    this.following = true;
  }

  /** The presenter's token was refused (403): this page follows from now on. */
  dropPresenter() {
    this.presenter = false;
  }

  /**
   * A `state` event pushed on the stream (after its first).
   * @param {unknown} s the event's data, as parsed
   * @param {Here} here where the page is now
   * @param {number} now the clock, in ms (Date.now())
   * @returns {Decision[]}
   */
  state(s, here, now) {
    const state = this.accept(s);
    if (!state) return [];
    /** @type {Decision[]} */
    const decisions = [];
    if (this.presenter) {
      if (this.moved && !this.seq) decisions.push(this.publish(here, now));   // it moved before it heard the hall
      else if (!this.moved) decisions.push({ kind: "apply", state, timed: false });   // a reopened presenter page catches up
    } else if (this.following) {
      decisions.push({ kind: "apply", state, timed: true });
    }
    decisions.push({ kind: "status" });
    return decisions;
  }

  /**
   * A new stream's greeting: its first `state` (the server's current one), or null when the
   * stream began without one (the server holds none). The server's may be older than the
   * page's: a restart lost its last states, or the presenter's moves never reached it.
   * @param {unknown} s the event's data, as parsed, or null
   * @param {Here} here
   * @param {number} now
   * @returns {Decision[]}
   */
  greeting(s, here, now) {
    if (!this.presenter) return s == null ? [] : this.state(s, here, now);
    const server = hallState(s)?.seq ?? 0;
    // what the server should hold: this page's last publish, or the last state a page that has
    // not moved took (it shows it)
    const held = this.moved ? this.seq : this.target?.seq ?? 0;
    const state = this.accept(s);
    /** @type {Decision[]} */
    const decisions = [];
    if (held > server || (this.moved && !this.seq)) decisions.push(this.publish(here, now));   // the server missed it
    else if (state && !this.moved) decisions.push({ kind: "apply", state, timed: false });
    if (state) decisions.push({ kind: "status" });
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

  /** ``s`` as the new target if it is a state newer than the accepted one; else null. */
  accept(s) {
    const state = hallState(s);
    if (!state || (this.target && state.seq <= this.target.seq)) return null;
    this.target = state;
    return state;
  }

  /** Whether the page shows the presenter's slide and fragment. In the scroll view, where
   *  fragments follow the scrolling, a fragment behind the presenter's (scrolled back a little)
   *  still follows; one ahead is reading ahead, on one's own.
   *  @param {Here} here */
  atTarget(here) {
    const t = this.target;
    if (!t) return true;
    if (here.indexh !== t.indexh || here.indexv !== t.indexv) return false;
    return here.scroll ? here.indexf <= t.indexf : here.indexf === t.indexf;
  }

  /** @param {Here} here @param {number} now @returns {Decision} */
  publish(here, now) {
    this.seq = Math.max(now, this.seq + 1, (this.target?.seq ?? 0) + 1);
    return { kind: "publish", state: { seq: this.seq, indexh: here.indexh, indexv: here.indexv, indexf: here.indexf } };
  }
}
