// When a device's write to the hall is sent again (live.js: a poll answer, a solve, the
// presenter's position). Pure: no timers, no network, no clock of its own and no randomness of its
// own (both come in as arguments), so that node's test runner checks the schedule
// (tests/js/retry.test.mjs).
//
// A write is idempotent by what it carries (a poll answer by its token, a solve by its token, a
// position by its seq): sending the same body again never counts twice, so a write whose reply
// was lost, refused for the moment (429, 503) or never arrived (a network error) is simply sent
// again, the same body, until the hall acknowledges it or the schedule runs out.

/**
 * A retry schedule: the first wait (``baseMs``), doubled on each retry up to ``capMs``, at most
 * ``retries`` retries after the first send (Infinity: until acknowledged), and the longest
 * `Retry-After` honoured (``maxRetryAfterMs``: a longer one waits this long).
 * @typedef {{baseMs: number, capMs: number, retries: number, maxRetryAfterMs: number}} RetrySchedule
 */

/** A student's write (a poll answer, a solve): waits of about 1, 2, 4, 8, 16, 30, 30, 30 s;
 *  after 8 retries (about 2 minutes in all) the page says it failed and offers to send it again. */
export const DEVICE_RETRY = Object.freeze({ baseMs: 1000, capMs: 30_000, retries: 8, maxRetryAfterMs: 60_000 });

/** The presenter's position: about 0.5, 1, 2, 3, 3 … s, until the hall acknowledges it or a
 *  newer move supersedes it (a room a slide behind is never left so). */
export const PRESENTER_RETRY = Object.freeze({ baseMs: 500, capMs: 3000, retries: Infinity, maxRetryAfterMs: 3000 });

/**
 * Whether a reply (its HTTP status, or null: no reply, a network error) is worth sending the
 * same body again for: none, 408, 429 and any 5xx (a proxy's 502/504, the hall's 503 while its
 * store is away). Every other status is final: 2xx and 409 acknowledge (409: the hall kept this
 * write already), 400 and 403 refuse this body for good.
 * @param {number | null} status
 * @returns {boolean}
 */
export function retriable(status) {
  return status === null || status === 408 || status === 429 || status >= 500;
}

/**
 * A `Retry-After` header's wait in ms: delta-seconds ("3") or an HTTP date (the wait until it,
 * 0 when past); null when absent or unreadable.
 * @param {string | null | undefined} header
 * @param {number} now  the clock, ms since the epoch (Date.now())
 * @returns {number | null}
 */
export function retryAfterMs(header, now) {
  if (header == null) return null;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  if (!/[A-Za-z]/.test(text)) return null;   // "-1", "1.5", "": none of the two forms
  const at = Date.parse(text);
  return Number.isFinite(at) ? Math.max(0, at - now) : null;
}

/**
 * The wait in ms before retry number ``retry`` (0: the first retry, after the first send failed):
 * ``min(capMs, baseMs · 2^retry)``, scaled by a jitter in [0.5, 1) so that devices refused
 * together do not come back together; never shorter than the reply's `Retry-After` (up to
 * ``maxRetryAfterMs``). Always finite and ≥ 0.
 * @param {number} retry  a non-negative integer
 * @param {RetrySchedule} schedule
 * @param {number | null} [after]  the reply's `Retry-After`, in ms (retryAfterMs), or null
 * @param {number} [random]  a uniform draw in [0, 1) (Math.random())
 * @returns {number}
 */
export function retryDelay(retry, schedule, after = null, random = Math.random()) {
  const exponential = Math.min(schedule.capMs, schedule.baseMs * 2 ** Math.min(retry, 30));
  const jittered = exponential * (0.5 + Math.min(Math.max(random, 0), 1) / 2);
  const floor = after != null && after > 0 ? Math.min(after, schedule.maxRetryAfterMs) : 0;
  return Math.max(jittered, floor);
}

/** Whether the schedule allows retry number ``retry`` (0: the first). @param {number} retry @param {RetrySchedule} schedule */
export function mayRetry(retry, schedule) {
  return retry < schedule.retries;
}
