// What the in-page scenarios (scenario.js, hallfollow.js) share: one expression that evaluates to
// an object of helpers. A scenario is injected as one function and cannot import, so the drivers
// hand it these as its second argument (drivers.source).
(() => {
  const now = () => performance.now();
  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

  /** Poll ``predicate`` until it returns something truthy; throw after ``timeout`` seconds. */
  async function waitFor(what, predicate, timeout) {
    const deadline = now() + timeout * 1000;
    for (;;) {
      let value;
      try { value = predicate(); } catch (_) { value = undefined; }
      if (value) return value;
      if (now() > deadline) throw new Error(`timed out after ${timeout} s waiting for ${what}`);
      await sleep(25);
    }
  }

  /** A promise, or an error after ``timeout`` seconds. */
  function within(promise, timeout, what) {
    let timer;
    const expired = new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out after ${timeout} s: ${what}`)), timeout * 1000);
    });
    return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
  }

  return { now, sleep, waitFor, within };
})()
