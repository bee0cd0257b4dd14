// The hall writes' retry schedule (static/js/page/retry.js): the waits double from the base up to the
// cap, with a jitter in [0.5, 1), never below a Retry-After (itself capped), and stop after the
// schedule's retries; which replies are worth a resend; how a Retry-After header reads.
// Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { DEVICE_RETRY, PRESENTER_RETRY, mayRetry, retriable, retryAfterMs, retryDelay } from "../../static/js/page/retry.js";
import { rng } from "./mulberry32.mjs";

test("a device's waits: 1, 2, 4, 8, 16, 30, 30, 30 s at most, half that at least", () => {
  const top = [1000, 2000, 4000, 8000, 16000, 30000, 30000, 30000];
  for (let retry = 0; retry < top.length; retry++) {
    assert.equal(retryDelay(retry, DEVICE_RETRY, null, 0), top[retry] / 2);
    assert.ok(retryDelay(retry, DEVICE_RETRY, null, 0.999999) < top[retry]);
    assert.ok(retryDelay(retry, DEVICE_RETRY, null, 0.999999) > top[retry] * 0.999);
  }
  assert.ok(mayRetry(7, DEVICE_RETRY) && !mayRetry(8, DEVICE_RETRY));
  // in all, the longest a device keeps trying is under two minutes and a half
  const total = top.reduce((a, b) => a + b, 0);
  assert.ok(total < 150_000, String(total));
});

test("the presenter's position is retried until acknowledged, never more than 3 s apart", () => {
  for (const retry of [0, 1, 2, 3, 10, 100, 10_000]) {
    assert.ok(mayRetry(retry, PRESENTER_RETRY));
    const wait = retryDelay(retry, PRESENTER_RETRY, 3_600_000, 0.9);
    assert.ok(wait >= 250 && wait <= 3000, `${retry}: ${wait}`);
  }
});

test("jitter spreads the devices refused together, within [0.5, 1) of the wait", () => {
  const random = rng(46);
  for (let i = 0; i < 5000; i++) {
    const retry = Math.floor(random() * 12);
    const wait = retryDelay(retry, DEVICE_RETRY, null, random());
    const top = Math.min(30000, 1000 * 2 ** retry);
    assert.ok(wait >= top / 2 && wait < top, `${retry}: ${wait}`);
  }
  const waits = new Set(Array.from({ length: 50 }, () => retryDelay(2, DEVICE_RETRY, null, random())));
  assert.ok(waits.size > 40);
});

test("Retry-After is a floor, capped by the schedule; a draw out of range is clamped", () => {
  assert.equal(retryDelay(0, DEVICE_RETRY, 5000, 0), 5000);
  assert.equal(retryDelay(0, DEVICE_RETRY, 3_600_000, 0), 60_000);
  assert.equal(retryDelay(5, DEVICE_RETRY, 5000, 0), 15_000);   // the schedule's own wait is longer
  assert.equal(retryDelay(0, DEVICE_RETRY, 0, 0), 500);
  assert.equal(retryDelay(0, DEVICE_RETRY, -5, 0), 500);
  assert.equal(retryDelay(0, DEVICE_RETRY, null, -3), 500);
  assert.equal(retryDelay(0, DEVICE_RETRY, null, 7), 1000);
  assert.ok(Number.isFinite(retryDelay(1e9, DEVICE_RETRY, null, 0.5)));
});

test("which replies are sent again: none, 408, 429 and 5xx; never an acknowledgement or a refusal", () => {
  for (const status of [null, 408, 429, 500, 502, 503, 504]) assert.equal(retriable(status), true, String(status));
  for (const status of [200, 201, 204, 400, 403, 404, 409, 415]) assert.equal(retriable(status), false, String(status));
});

test("a Retry-After header: seconds, or a date", () => {
  const now = Date.parse("2026-12-06T21:00:00Z");
  assert.equal(retryAfterMs("3", now), 3000);
  assert.equal(retryAfterMs(" 0 ", now), 0);
  assert.equal(retryAfterMs("Sun, 06 Dec 2026 21:00:10 GMT", now), 10_000);
  assert.equal(retryAfterMs("Sun, 06 Dec 2026 20:00:00 GMT", now), 0);
  for (const bad of [null, undefined, "", "-1", "1.5", "soon", "3 s"]) assert.equal(retryAfterMs(bad, now), null, String(bad));
});
