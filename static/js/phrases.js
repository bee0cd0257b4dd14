// The Spanish the page says about Python and its cells, in one table: the pure modules decide
// with codes (scheduler.js's status, the runtime's restarts, a cell's state: types.js, `Phrase`
// and `CellState`), and the edge that writes text (the worker's `status` message, the runtime's
// events, the cell's DOM) asks this module for the words, like CodeMirror's `phrases`. Pure: no
// DOM, no Pyodide, so the worker, the page and node's tests (tests/js/phrases.test.mjs) load it.
import { assertNever } from "./never.js";

/** @typedef {import("./types.js").Phrase} Phrase */
/** @typedef {import("./types.js").CellState} CellState */

/**
 * Code → Spanish: a string, or a function of the phrase's parameters. `tsc` checks that every
 * code of `Phrase` has an entry and that each function gets the parameters its code carries.
 * @type {{[K in Phrase["code"]]: string | ((p: Extract<Phrase, {code: K}>) => string)}}
 */
export const PHRASES = {
  // the status indicator (the `detail` of a `status` message): scheduler.js, runtime.js, worker.js
  "boot": "Python: cargando…",
  "boot-interpreter": "Python: cargando el intérprete…",
  "boot-packages": ({ packages }) => `Python: cargando ${packages.join(", ")} y dplab…`,
  "loading-package": ({ name }) => `Python: cargando ${name}…`,
  "boot-failed": "Python: error al iniciar",
  "running": "Python: ejecutando…",
  "ready": "Python: listo",
  "mpl-loading": "Python: listo · cargando matplotlib…",
  "mpl-failed": "Python: listo · matplotlib no se pudo cargar",
  "fatal": "Python: error",
  "gave-up": "Python: no responde · pulse ⟲",
  // why Python restarted: the notice beside the status, and the error of the run it ended
  "restart-manual": "Python reiniciado a pedido",
  "restart-crashed": ({ message }) =>
    `Python terminó inesperadamente (${message.split("\n")[0]}): se reinició y se volvió a correr el preludio`,
  "restart-worker-error": ({ message }) =>
    `el proceso de Python falló (${message || "error desconocido"}); se reinició`,
  "restart-silent": "Python dejó de responder: se reinició y se volvieron a correr las celdas",
  "restart-gave-up": "Python falló varias veces seguidas: pulse ⟲ para reiniciarlo",
  "restart-interrupt-ignored": "la celda no respondía a la interrupción: se reinició Python",
  "restart-no-interrupt": "celda detenida: se reinició Python (aquí el navegador no permite interrumpirla)",
  "restart-memory": "Python se quedó sin memoria: se reinició y se volvieron a correr las celdas, menos la que la agotó",
  // a note at the head of a cell's output when its run starts again (`rerun`)
  "waited-for-restart": "Python se reinició: esta celda esperó a que volviera",
  "rerun-package": ({ name }) => `se cargó ${name}; la celda se ejecutó de nuevo`,
  // added under the traceback of a run that exhausted the memory (worker.js)
  "memory-freed": ({ names }) =>
    `\nMemoria agotada: se deshizo lo que esta celda había asignado${names.length ? ` (${names.join(", ")})` : ""} y se liberó; Python sigue en marcha.`,
  "memory-restart": ({ gigabytes }) =>
    `\nMemoria agotada (Python ocupaba ${gigabytes.toLocaleString("es", { maximumFractionDigits: 1 })} GB): se reinicia Python para liberarla y se vuelven a correr las demás celdas; esta no.`,
};

/**
 * The Spanish of ``p``.
 * @param {Phrase} p
 * @returns {string}
 */
export function say(p) {
  const entry = /** @type {string | ((p: Phrase) => string)} */ (PHRASES[p.code]);
  return typeof entry === "function" ? entry(p) : entry;
}

/** @param {number} seconds */
const fmtSeconds = (seconds) => `${seconds.toLocaleString("es", { maximumFractionDigits: 2 })} s`;
/** @param {number} at  milliseconds since the epoch */
const clock = (at) => new Date(at).toLocaleTimeString("es", { hour12: false });

/**
 * The text beside a cell's buttons (`.cell-meta`) in ``state``. PROTOCOL.md, "A cell's state".
 * @param {CellState} state
 * @returns {string}
 */
export function cellMeta(state) {
  switch (state.phase) {
    case "idle": return "";
    case "waiting": return "esperando a Python…";
    case "running": return "ejecutando…";
    case "done":
    case "error":
      return state.seconds == null ? `error ${clock(state.at)}` : `calculado ${clock(state.at)} · ${fmtSeconds(state.seconds)}`;
    case "stopped": return `detenida ${clock(state.at)}`;
    case "crashed": return `Python se reinició ${clock(state.at)}`;
    case "suspect": return "Python dejó de responder después de esta celda: no se volvió a correr";
    case "not-replayed": return "no se volvió a correr al reiniciar Python (▶ para ejecutarla)";
    default: return assertNever(state);
  }
}

/**
 * CodeMirror's own words in Spanish (its `EditorState.phrases` facet, editor.js): the search
 * panel (Ctrl+F), the go-to-line box, the fold markers, the lint and completion panels. Keys are
 * CodeMirror's English phrases (node_modules/@codemirror/*: `state.phrase("…")`).
 * @type {Record<string, string>}
 */
export const EDITOR_PHRASES = {
  // @codemirror/search
  "Find": "Buscar",
  "Replace": "Reemplazar",
  "next": "siguiente",
  "previous": "anterior",
  "all": "todas",
  "match case": "mayúsculas",
  "regexp": "expresión regular",
  "by word": "palabra completa",
  "replace": "reemplazar",
  "replace all": "reemplazar todas",
  "close": "cerrar",
  "current match": "coincidencia actual",
  "replaced $ matches": "se reemplazaron $ coincidencias",
  "replaced match on line $": "se reemplazó la coincidencia de la línea $",
  "on line": "en la línea",
  "Go to line": "Ir a la línea",
  "go": "ir",
  // @codemirror/language: the fold gutter and a folded block
  "Fold line": "Plegar",
  "Unfold line": "Desplegar",
  "folded code": "código plegado",
  "unfold": "desplegar",
  "Folded lines": "Líneas plegadas",
  "Unfolded lines": "Líneas desplegadas",
  // @codemirror/lint, @codemirror/autocomplete, @codemirror/view
  "Diagnostics": "Diagnósticos",
  "No diagnostics": "Sin diagnósticos",
  "Completions": "Sugerencias",
  "Selection deleted": "Selección borrada",
  "Control character": "Carácter de control",
  "to": "a",
};
