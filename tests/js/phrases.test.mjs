// The Spanish of the codes the pure modules return (static/js/phrases.js) is the Spanish the page
// showed before they returned codes, word for word (the browser tests read it); and a cell's
// state (static/js/cellstate.js) gives the `data-state` and the text it gave before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { EDITOR_PHRASES, PHRASES, cellMeta, say } from "../../static/js/phrases.js";
import { readFileSync, readdirSync } from "node:fs";
import { IDLE, activeRun, afterRun, dataState } from "../../static/js/cellstate.js";
import { Scheduler } from "../../static/js/scheduler.js";

test("the scheduler's status, said in Spanish", () => {
  const s = new Scheduler();
  assert.equal(say(s.status()), "Python: cargando…");
  s.bootProgress({ code: "boot-packages", packages: ["numpy", "pandas"] });
  assert.deepEqual(s.status(), { state: "loading", code: "boot-packages", packages: ["numpy", "pandas"] });
  assert.equal(say(s.status()), "Python: cargando numpy, pandas y dplab…");
  s.bootDone(2);
  assert.equal(say(s.status()), "Python: listo");
  s.submit({ type: "run", id: 1, cellId: "a", code: "plt.plot([1])", seed: null, background: false });
  assert.equal(say(s.status()), "Python: listo · cargando matplotlib…");
  s.mplFailed();
  assert.equal(say(s.status()), "Python: listo · matplotlib no se pudo cargar");
  s.submit({ type: "run", id: 2, cellId: "b", code: "print(1)", seed: null, background: false });
  const action = s.next();
  assert.deepEqual(s.status(), { state: "running", code: "running" });
  assert.equal(say(s.status()), "Python: ejecutando…");
  s.finished(action);
  const failed = new Scheduler();
  failed.bootFailed();
  assert.deepEqual([failed.status().state, say(failed.status())], ["error", "Python: error al iniciar"]);
});

test("phrases with parameters", () => {
  assert.equal(say({ code: "loading-package", name: "contourpy" }), "Python: cargando contourpy…");
  assert.equal(say({ code: "rerun-package", name: "contourpy" }), "se cargó contourpy; la celda se ejecutó de nuevo");
  assert.equal(say({ code: "restart-crashed", message: "exit(1)\nmore" }),
               "Python terminó inesperadamente (exit(1)): se reinició y se volvió a correr el preludio");
  assert.equal(say({ code: "restart-worker-error", message: "" }), "el proceso de Python falló (error desconocido); se reinició");
  assert.equal(say({ code: "memory-freed", names: ["x", "y"] }),
               "\nMemoria agotada: se deshizo lo que esta celda había asignado (x, y) y se liberó; Python sigue en marcha.");
  assert.equal(say({ code: "memory-freed", names: [] }),
               "\nMemoria agotada: se deshizo lo que esta celda había asignado y se liberó; Python sigue en marcha.");
  assert.match(say({ code: "memory-restart", gigabytes: 1.25 }), /^\nMemoria agotada \(Python ocupaba 1,3 GB\): se reinicia/);
});

test("every phrase is Spanish text, not empty", () => {
  for (const [code, entry] of Object.entries(PHRASES)) {
    assert.ok(typeof entry === "function" || entry.length > 0, code);
  }
});

const clock = (at) => new Date(at).toLocaleTimeString("es", { hour12: false });

test("a cell's state gives its data-state and the text beside its buttons", () => {
  const at = Date.UTC(2026, 0, 1, 10, 2, 3);
  const rows = [
    // state, data-state, text
    [IDLE, "", ""],
    [{ phase: "waiting", runId: 3 }, "running", "esperando a Python…"],
    [{ phase: "running", runId: 3 }, "running", "ejecutando…"],
    [afterRun({ ok: true, seconds: 0.25 }, at), "done", `calculado ${clock(at)} · 0,25 s`],
    [afterRun({ ok: false, seconds: 1.5 }, at), "error", `calculado ${clock(at)} · 1,5 s`],   // the code raised
    [afterRun({ ok: false, seconds: null }, at), "error", `error ${clock(at)}`],               // it never ran to an end
    [afterRun({ ok: false, seconds: null, cancelled: true }, at), "error", `detenida ${clock(at)}`],
    [afterRun({ ok: false, seconds: null, restarted: true }, at), "error", `detenida ${clock(at)}`],
    [afterRun({ ok: false, seconds: null, crashed: true }, at), "error", `Python se reinició ${clock(at)}`],
    [{ phase: "suspect" }, "error", "Python dejó de responder después de esta celda: no se volvió a correr"],
    [{ phase: "not-replayed", ok: true }, "done", "no se volvió a correr al reiniciar Python (▶ para ejecutarla)"],
    [{ phase: "not-replayed", ok: false }, "error", "no se volvió a correr al reiniciar Python (▶ para ejecutarla)"],
  ];
  for (const [state, data, text] of rows) {
    assert.equal(dataState(state), data, JSON.stringify(state));
    assert.equal(cellMeta(state), text, JSON.stringify(state));
  }
  assert.match(cellMeta(afterRun({ ok: true, seconds: 0.25 }, at)), /^calculado \d\d:\d\d:\d\d · 0,25 s$/);
});

test("a cell runs while its state is waiting or running, with the runtime's id", () => {
  assert.equal(activeRun({ phase: "waiting", runId: 7 }), 7);
  assert.equal(activeRun({ phase: "running", runId: 8 }), 8);
  assert.equal(activeRun(IDLE), null);
  assert.equal(activeRun({ phase: "done", at: 0, seconds: 1 }), null);
  assert.throws(() => dataState(/** @type {any} */ ({ phase: "nonsense" })), /unhandled case/);
});

test("every phrase CodeMirror says has its Spanish (the search panel, the fold markers…)", () => {
  const root = new URL("../../node_modules/@codemirror/", import.meta.url);
  const said = new Set();
  for (const pkg of readdirSync(root)) {
    let source;
    try { source = readFileSync(new URL(`${pkg}/dist/index.js`, root), "utf8"); } catch { continue; }
    // state.phrase("X"), phrase(view, "X"), phrase(cond ? "X" : "Y")
    for (const call of source.matchAll(/phrase\(([^()]*)\)/g)) {
      for (const [, text] of call[1].matchAll(/"([^"]+)"/g)) said.add(text);
    }
  }
  assert.ok(said.has("Find") && said.has("Fold line"), [...said].join(", "));
  const missing = [...said].filter((p) => !(p in EDITOR_PHRASES));
  assert.deepEqual(missing, []);
});
