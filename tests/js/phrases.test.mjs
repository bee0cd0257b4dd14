// The Spanish of the codes the pure modules return (static/js/shared/phrases.js) is the Spanish the page
// showed before they returned codes, word for word (the browser tests read it); and a cell's
// state (static/js/page/cellstate.js) gives the `data-state` and the text it gave before.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CAPTIONS, EDITOR_PHRASES, HELP, PHRASES, PRIVACY_PARAMS, cellMeta, say } from "../../static/js/shared/phrases.js";
import { readFileSync, readdirSync } from "node:fs";
import { IDLE, activeRun, afterRun, dataState } from "../../static/js/page/cellstate.js";
import { Scheduler } from "../../static/js/shared/scheduler.js";

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

// one phrase per code that takes parameters (types.js, `UiPhrase` and the rest): the test below
// fails when a new one comes without its sample
const SAMPLES = [
  { code: "boot-packages", packages: ["numpy"] }, { code: "loading-package", name: "scipy" },
  { code: "restart-crashed", message: "exit" }, { code: "restart-worker-error", message: "x" },
  { code: "rerun-package", name: "scipy" }, { code: "memory-freed", names: ["a"] },
  { code: "memory-restart", gigabytes: 1.5 },
  { code: "boot-wait", what: "numpy", seconds: 3, usual: 10 }, { code: "cell-code-label", id: "c1" },
  { code: "cell-try-label", label: "ε = 1" }, { code: "cell-locked-label", seed: "123456789" },
  { code: "result-ready", alts: "Un histograma" }, { code: "result-error", type: "ValueError" },
  { code: "exercise-raised", type: "NameError" }, { code: "exercise-hint", n: 1, total: 3 },
  { code: "exercise-hint-label", n: 1, total: 3 }, { code: "output-label", kind: "stderr" },
  { code: "exercise-verdict", ok: true, message: "bien" }, { code: "exercise-count", solved: 2, total: 5 },
  { code: "name-undefined", name: "x", hint: null },
  { code: "keyword-unknown", fn: "f", word: "eps", hint: "epsilon", params: ["epsilon"] },
  { code: "param-out-of-range", name: "k", range: "> 0" },
  { code: "param-invalid", name: "epsilon", what: "w", value: "-1" },
  { code: "run-all-progress", n: 2, total: 9 }, { code: "slide-of", n: 4, total: 60 },
  { code: "offline-saving", done: 3, total: 10 }, { code: "offline-missing", failed: 2 },
  { code: "meter-more", more: 2 }, { code: "meter-budget", symbol: "ε" },
  { code: "meter-spent", symbol: "ε", text: "0,5 de 1" }, { code: "code-size", percent: 125 },
  { code: "param-outside", written: "12", min: 0, max: 10 }, { code: "param-unbound", prefix: "epsilon =" },
  { code: "notebook-intro", packageName: "dplab", wheelName: "dplab-1.0-py3-none-any.whl" },
  { code: "notebook-action-label", packageName: "dplab" }, { code: "notebook-wheel", packageName: "dplab" },
  { code: "downloading", file: "a.ipynb" }, { code: "died-traceback", message: "trap\nmore" },
  { code: "no-answer", what: "iniciar Python", seconds: 180 }, { code: "load-package", name: "scipy" },
  { code: "last-visit", time: "09:05" }, { code: "eval-unreadable", reason: "SyntaxError" },
  { code: "pool-name-elsewhere", name: "x", cell: "el-mecanismo-de-laplace" },
];

test("every code gives non-empty text, its parameters written in (none left undefined)", () => {
  const functions = Object.entries(PHRASES).filter(([, entry]) => typeof entry === "function").map(([code]) => code);
  assert.deepEqual(SAMPLES.map((p) => p.code).sort(), functions.sort(), "one sample per code with parameters");
  for (const code of Object.keys(PHRASES)) {
    const sample = SAMPLES.find((p) => p.code === code) ?? { code };
    const text = say(/** @type {any} */ (sample));
    assert.ok(typeof text === "string" && text.trim().length > 0, code);
    assert.doesNotMatch(text, /undefined|NaN|\[object /, code);
  }
});

test("the page's phrases with parameters, word for word as the page showed them", () => {
  assert.equal(say({ code: "boot-wait", what: "numpy", seconds: 3, usual: 10 }),
               "Esperando a Python (numpy): la primera vez tarda unos 10 s; van 3 s.");
  assert.equal(say({ code: "boot-wait", what: "numpy", seconds: 14, usual: 10 }),
               "Esperando a Python (numpy): van 14 s, más que los 10 s habituales (red o equipo lentos).");
  assert.equal(say({ code: "cell-locked-label", seed: "123456789" }),
               "Ruido fijo: cada ejecución repite este mismo ruido (semilla …6789); pulse para volver a sacar ruido nuevo");
  assert.equal(say({ code: "exercise-verdict", ok: true, message: "bien" }), "Correcto: bien");
  assert.equal(say({ code: "exercise-verdict", ok: false, message: "mal" }), "Todavía no: mal");
  assert.equal(say({ code: "exercise-hint", n: 2, total: 3 }), "Pista 2 de 3");
  assert.equal(say({ code: "name-undefined", name: "censo", hint: "census" }), "«censo» no está definido: ¿quiso decir «census»?");
  assert.equal(say({ code: "keyword-unknown", fn: "f", word: "eps", hint: null, params: [] }),
               "f() no tiene un parámetro llamado «eps».");
  assert.equal(say({ code: "keyword-unknown", fn: "f", word: "eps", hint: "epsilon", params: ["epsilon", "k"] }),
               "f() no tiene un parámetro llamado «eps»: ¿quiso decir «epsilon»? Sus parámetros: epsilon, k.");
  assert.equal(say({ code: "keyword-unknown", fn: "f", word: "zz", hint: null, params: ["epsilon"] }),
               "f() no tiene un parámetro llamado «zz». Sus parámetros: epsilon.");
  assert.equal(say({ code: "died-traceback", message: "trap\nmore" }),
               "El intérprete de Python terminó durante esta celda (trap).\nSe reinicia y se vuelve a correr el preludio.");
  assert.equal(say({ code: "no-answer", what: "iniciar Python", seconds: 180 }), "iniciar Python: sin respuesta tras 180 s");
  const intro = say({ code: "notebook-intro", packageName: "dplab", wheelName: "w.whl" });
  assert.match(intro, /^Las celdas de la presentación /);
  assert.ok(intro.includes("`dplab`") && intro.includes("pip install w.whl numpy matplotlib\n```"), intro);
});

test("the tables of text beside the codes: the help overlay's, the captions, the privacy parameters", () => {
  for (const [name, rows] of Object.entries(HELP)) {
    assert.ok(rows.length > 0, name);
    for (const [keys, what] of rows) assert.ok(keys.trim() && what.trim(), `${name}: ${keys}`);
  }
  assert.deepEqual(Object.keys(CAPTIONS), ["▶▶", "⟲", "↺", "⤓"]);
  assert.deepEqual(Object.keys(PRIVACY_PARAMS).sort(), ["clip_bound", "delta", "epsilon", "sensitivity", "sigma"]);
});
