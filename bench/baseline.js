// The baseline page: starts bench/baseline-worker.js and records, on the page's clock (ms since
// navigation), when each of its marks happened and when the first figure reached the page.
// bench/startup.py reads the result with page.evaluate("() => window.__bench.done").
const config = JSON.parse(document.getElementById("bench-config").textContent);
const mode = new URLSearchParams(location.search).get("mode") || "time";
const base = new URL("..", location.href).href;   // the served dist root
const B = { mode, timeOrigin: performance.timeOrigin, marks: {}, steps: [], diag: null, error: null };
let finish;
B.done = new Promise((resolve) => { finish = resolve; });
window.__bench = B;
const statusEl = document.getElementById("status");
const snapshot = () => ({ mode: B.mode, timeOrigin: B.timeOrigin, marks: B.marks, steps: B.steps,
                          diag: B.diag, error: B.error, svgLength: B.svgLength });

B.marks["page-script"] = performance.now();
const worker = new Worker(new URL("baseline-worker.js", import.meta.url), { type: "module", name: "baseline" });
B.marks["worker-created"] = performance.now();
worker.onmessage = (event) => {
  const msg = event.data;
  if (msg.type === "mark") {
    B.marks[msg.name] = msg.t - performance.timeOrigin;
    statusEl.textContent = msg.name;
  } else if (msg.type === "step") {
    B.steps.push({ name: msg.name, ms: msg.ms, compileMs: msg.compileMs, compiled: msg.compiled });
  } else if (msg.type === "figure") {
    // the figure is on the page: the deck's "first figure" is measured the same way (the
    // worker's figure message reaching the page)
    B.marks["figure-received"] = performance.now();
    B.svgLength = msg.svgLength;
  } else if (msg.type === "done") {
    B.diag = msg.diag;
    statusEl.textContent = "done";
    finish(snapshot());
  } else if (msg.type === "error") {
    B.error = msg.message;
    statusEl.textContent = "error: " + msg.message;
    finish(snapshot());
  }
};
worker.onerror = (e) => { B.error = `worker error: ${e.message}`; finish(snapshot()); };
worker.postMessage({ config, base, mode });
setTimeout(() => { B.error = B.error || "timeout"; finish(snapshot()); }, config.timeoutMs || 180000);
