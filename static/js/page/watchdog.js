// Is the Python worker still alive? A pure decision on timestamps (milliseconds), driven by
// runtime.js and tested under node with simulated time (tests/js/watchdog.test.mjs).
//
// A worker that dies without an error event (it closed itself, or a callback wedged its event
// loop) goes silent. The page pings it once a second while a run is pending; the worker answers
// between actions. A ping that no message follows within the limit means the worker is gone.
// While a cell runs, Python holds the worker's thread and cannot answer: then silence is the
// cell's (Stop is the presenter's tool for a runaway cell), and no verdict is given.

export const PING_MS = 1000;
export const SILENT_MS = 5000;          // after boot (measured: bench/README.md, "The watchdog's silence")
export const BOOT_SILENT_MS = 30_000;   // booting has longer synchronous steps (start-up, prelude)
export const MAX_RESTARTS = 3;          // watchdog restarts within RESTART_WINDOW_MS before
export const RESTART_WINDOW_MS = 60_000; // giving up (a cell that kills Python every replay)

export class Watchdog {
  constructor() {
    this.lastHeard = -Infinity;
    this.ping = null;          // {n, at}: the oldest ping not followed by any message
    this.sent = 0;
    this.restartTimes = [];
  }

  /** Any message from the worker arrived. */
  heard(now) {
    this.lastHeard = now;
    this.ping = null;
  }

  /** The page woke up (a hidden tab, a frozen laptop): what was outstanding proves nothing. */
  resumed() {
    this.ping = null;
  }

  /**
   * Called every PING_MS. Returns ``{ping: n}`` (send a ping), ``{dead: true}`` or ``{}``.
   * @param {number} now
   * @param {{pending: number, cellRunning: boolean, booting: boolean}} state
   */
  tick(now, { pending, cellRunning, booting }) {
    if (pending === 0 || cellRunning) {
      this.ping = null;
      return {};
    }
    if (this.ping) {
      const limit = booting ? BOOT_SILENT_MS : SILENT_MS;
      return now - this.ping.at > limit ? { dead: true } : {};
    }
    this.sent += 1;
    this.ping = { n: this.sent, at: now };
    return { ping: this.sent };
  }

  /** A restart for silence happens now; returns false when there were too many lately. */
  allowRestart(now) {
    this.restartTimes = this.restartTimes.filter((t) => now - t < RESTART_WINDOW_MS);
    if (this.restartTimes.length >= MAX_RESTARTS) return false;
    this.restartTimes.push(now);
    this.ping = null;
    return true;
  }
}
