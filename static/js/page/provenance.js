// Which code an output on screen belongs to (issue 50, item 1). The rule: an output on screen
// belongs to the code on screen, or it is marked as another's («Salida de otra versión del
// código», dimmed: cell.js, deck.css). A cell's output is produced by one code: the code a run
// started with (the sliders' values are in it: params.js writes them there; new noise is a run
// of the same code), or the code the last visit's output was kept under (lastrun.js's key holds
// it). Nothing else changes which code produced it: an edit, ↺ Restaurar, a slider moved, a
// restart of Python that does not replay the cell (deck.js), all change the code on screen and
// leave the output as it was, so they mark it; editing back to the producing code unmarks it;
// a run (▶, a replay after a restart, new noise) starts over with the code on screen.
//
// The producing code is kept as its text, not as a hash of it: a collision would show a stale
// output as current, and one text per cell costs nothing. Pure; tests/js/provenance.test.mjs
// drives it through 1 000 seeded random sequences of edit, run, restore, slider, noise, restart
// and reload against an oracle that compares the output's own text with the code's.

export class Provenance {
  constructor() {
    /** @type {string | null} the code whose run (or last visit) the output shows, or showed
     *  last: an emptied output shows nothing, so nothing is marked; null before any */
    this.producer = null;
  }

  /** A run of ``code`` starts: whatever the output shows from now on is its (the cell clears
   *  it, or keeps the last visit's output of this same code until the first line arrives).
   *  @param {string} code */
  started(code) { this.producer = code; }

  /** The last visit's output of ``code`` is shown. @param {string} code */
  lastVisit(code) { this.producer = code; }

  /**
   * Whether the output must be marked as another code's: it shows something (``shown``) and
   * the code that produced it is not ``code``, the code on screen. False when nothing is shown.
   * @param {string} code @param {boolean} shown @returns {boolean}
   */
  stale(code, shown) { return shown && this.producer !== null && this.producer !== code; }
}
