// The page's Spanish, in one table (and the few tables below it): the pure modules decide
// with codes (scheduler.js's status, the runtime's restarts, a cell's state: types.js, `Phrase`
// and `CellState`), and the edge that writes text (the worker's `status` message, the runtime's
// events, the cell's DOM) asks this module for the words, like CodeMirror's `phrases`; so does
// every other module for its buttons, labels and notes (types.js, `UiLabel`, `UiPhrase`; a test,
// tests/js/phrases.test.mjs, keeps Spanish literals out of the other modules). Pure: no
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

  // --- the page's own words (types.js, `UiLabel` and `UiPhrase`) ---
  // a cell (cell.js, static-code.js): the note while Python first loads, its buttons, its voice
  "boot-wait-default": "cargando",
  "boot-wait": ({ what, seconds, usual }) => {
    const when = seconds <= usual ? `la primera vez tarda unos ${usual} s; van ${seconds} s`
      : `van ${seconds} s, más que los ${usual} s habituales (red o equipo lentos)`;
    return `Esperando a Python (${what}): ${when}.`;
  },
  "cell-run": "▶ Ejecutar",
  "cell-run-label": "Ejecutar la celda (Mayús+Enter)",
  "cell-stop": "■ Detener",
  "cell-stop-label": "Detener la ejecución (Escape)",
  "cell-reset": "↺ Restaurar",
  "cell-reset-label": "Restaurar el código original",
  "cell-noise": "⚄ Nuevo ruido",
  "cell-noise-label": "Nuevo ruido: volver a correr con ruido nuevo",
  // what it means to a student: the same noise again on every run, or fresh noise each time;
  // a label starts with the button's text: what a voice user says to press it
  "cell-lock": "○ Fijar ruido",
  "cell-lock-label": "Fijar ruido: repetir en cada ejecución el ruido de la figura que se ve (ahora cada ejecución saca ruido nuevo)",
  "cell-locked": "● Ruido fijo",
  "cell-locked-label": ({ seed }) =>
    `Ruido fijo: cada ejecución repite este mismo ruido (semilla …${seed.slice(-4)}); pulse para volver a sacar ruido nuevo`,
  "cell-tries-label": "Ediciones sugeridas: se aplican en la ventana principal",
  "cell-try-label": ({ label }) => `Probar en la ventana principal: ${label}`,
  "cell-try-restore-label": "Volver al código original y ejecutarlo en la ventana principal",
  "cell-code-label": ({ id }) => `Código de la celda ${id}`,
  // a block of a cell's output, focusable (a wide one scrolls sideways with the arrow keys)
  "output-label": ({ kind }) => ({ stdout: "Salida de la celda", stderr: "Avisos de la celda",
    value: "Valor de la celda", error: "Error de la celda" })[kind] ?? "Salida de la celda",
  // on a phone, a formula or a table wider than the screen (deck.js)
  "wide-formula": "Fórmula: se desplaza de lado",
  "wide-table": "Tabla: se desplaza de lado",
  // reveal.js's arrows (deck.js): it labels them in English
  "nav-left": "Diapositiva anterior",
  "nav-right": "Diapositiva siguiente",
  "nav-up": "Diapositiva de arriba",
  "nav-down": "Diapositiva de abajo",
  "result-ready": ({ alts }) => `Resultado listo. ${alts}`,
  "result-error": ({ type }) => `Error: ${type}`,
  "result-stopped": "Ejecución detenida: la celda no terminó",
  // a pool of two workers (workers.js): a name bound by a cell that lives in the other interpreter
  "pool-name-elsewhere": ({ name, cell }) =>
    `«${name}» lo define la celda ${cell}, que corre en el otro intérprete de Python de esta página `
    + "(en este equipo hay dos, y cada celda se queda en el suyo). Para que una celda use nombres de "
    + "otra, abra la presentación con ?workers=1 en la dirección (antes del #): un solo intérprete.",
  // the editor's doc of a name jedi knows nothing about (completion.js)
  "no-doc": "(sin documentación)",
  // an exercise (exercise.js): its verdict, its buttons, the speaker view's count
  "exercise-stopped": "Ejecución detenida: no se comprobó nada.",
  "exercise-crashed": "Python se reinició: vuelva a ejecutar.",
  "exercise-raised": ({ type }) => `Su código lanzó un error (${type}): corríjalo y vuelva a ejecutar.`,
  "exercise-unchecked": "No se pudo comprobar la respuesta.",
  "exercise-copied": "La solución cargada pasa la comprobación. No cuenta como "
    + "resuelto: ↺ Restaurar trae el ejercicio de nuevo para resolverlo con sus palabras.",
  "exercise-verdict": ({ ok, message }) => `${ok ? "Correcto" : "Todavía no"}: ${message}`,
  // a button's accessible name starts with its text (what a voice user says to press it;
  // tests/browser/test_student_a11y.py): «Pista 1 de 2» is not read as something else
  "exercise-hint-label": ({ n, total }) => `Pista ${n} de ${total}: mostrar la siguiente pista`,
  "exercise-hint": ({ n, total }) => `Pista ${n} de ${total}`,
  "exercise-no-more-hints": "Sin más pistas",
  "exercise-solution": "Ver solución",
  "exercise-solution-label": "Ver solución: mostrar una solución del ejercicio",
  "exercise-load": "Cargar en el editor",
  "exercise-load-label": "Cargar en el editor la solución, en lugar del código de la celda",
  "exercise-loaded": "Solución cargada en el editor: ejecútela para comprobarla",
  "exercise-solved": "✓ resuelto",
  "exercise-count": ({ solved, total }) => `Ejercicios resueltos: ${solved} de ${total}`,
  // a failed run explained in the editor (diagnostics.js)
  "name-undefined": ({ name, hint }) => (hint ? `«${name}» no está definido: ¿quiso decir «${hint}»?`
    : `«${name}» no está definido: ¿falta ejecutar la celda que lo define, o está mal escrito?`),
  "keyword-unknown": ({ fn, word, hint, params }) => (!params.length ? `${fn}() no tiene un parámetro llamado «${word}».`
    : `${fn}() no tiene un parámetro llamado «${word}»` + (hint ? `: ¿quiso decir «${hint}»?` : ".")
      + ` Sus parámetros: ${params.join(", ")}.`),
  "param-out-of-range": ({ name, range }) => `el parámetro ${name} está fuera de su rango (${range})`,
  "param-invalid": ({ name, what, value }) => `Parámetro «${name}» no válido: ${what}; se recibió ${value}.`,
  // the deck's actions (actions.js) and where one is in it
  "actions-region": "Estado de Python y acciones de la presentación",
  "run-all-label": "Ejecutar todas las celdas, en orden",
  "run-all-started": "Ejecutando todas las celdas",
  "run-all-progress": ({ n, total }) => `Ejecutando la celda ${n} de ${total}`,
  "run-all-ended": "Todas las celdas terminaron",
  "restart-label": "Reiniciar Python (se vuelven a correr las celdas originales ya ejecutadas; las editadas, al pulsar ▶)",
  // ↺ and ⤓ show «código» and «llevar» under them on a phone (CAPTIONS): their labels say those
  // words, outside parentheses (axe-core's label-content-name-mismatch)
  "reset-all-label": "Deshacer todas las ediciones: volver al código original",
  "reset-all-confirm": "¿Volver al código original en todas las celdas?",
  "reset-all-done": "Se restauró el código original de todas las celdas",
  "restart-confirm-title": "¿Reiniciar Python?",
  "restart-confirm-text": "Se pierden las variables de todas las celdas. Las celdas originales ya ejecutadas se vuelven a correr; las editadas, al pulsar ▶.",
  "restart-confirm-cancel": "Cancelar",
  "restart-confirm-ok": "Reiniciar Python",
  "restart-cancelled": "Python no se reinició",
  "slide-of": ({ n, total }) => `Diapositiva ${n} de ${total}`,
  // the help overlay (help.js; its tables: HELP below)
  "help-title": "Atajos de teclado",
  "help-resume": "Reanudar la presentación",
  "help-close": "Cerrar la ayuda (Esc)",
  "help-deck": "En la presentación",
  "help-editor": "En el editor de una celda",
  "help-hall": "En la sala en vivo (cuando la presentación sigue al profesor)",
  "help-buttons": "Botones de arriba a la derecha",
  "help-key": "Tecla",
  "help-action": "Acción",
  "help-key-or-notice": "Tecla o aviso",
  "help-meaning": "Qué significa",
  "help-button": "Botón",
  // keeping the deck for use without a network (isolation.js)
  "offline-ready": "Disponible sin conexión",
  "offline-saving": ({ done, total }) => `Guardando para usar sin conexión: ${done} de ${total} archivos`,
  "offline-missing": ({ failed }) => `Sin conexión: faltan ${failed} archivos (se reintentará al recargar)`,
  // the privacy-budget meter (meter.js, output.js)
  "meter-label": "Presupuesto de privacidad",
  "meter-budget": ({ symbol }) => `Presupuesto de ${symbol}`,
  "meter-spent": ({ symbol, text }) => `${symbol} gastado: ${text}`,
  "meter-more": ({ more }) => `(y ${more} contadores de presupuesto más)`,
  // the code's size (zoom.js) and a cell's sliders (params.js)
  "code-size": ({ percent }) => `Tamaño del código: ${percent} %`,
  "param-python-literal": "Como se escribe en Python: con punto decimal",
  "param-outside": ({ written, min, max }) =>
    `El código dice ${written}, fuera del rango del control (${min}–${max}): el control queda en el extremo`,
  "param-unbound": ({ prefix }) => `El código ya no tiene la línea «${prefix}…»: ↺ Restaurar la devuelve`,
  // the downloaded notebook and script, and the menu that offers them (notebook.js)
  "notebook-untitled": "Presentación",
  "notebook-intro": ({ packageName, wheelName }) => [
    "Las celdas de la presentación tal como estaban en su navegador al descargarlas " +
    "(con sus ediciones y los valores de los controles deslizantes).", "",
    `**Instalación.** Descargue también el paquete \`${packageName}\` desde la presentación ` +
    `(el archivo \`${wheelName}\`), póngalo en la carpeta de este cuaderno e instálelo, ` +
    "junto con numpy y matplotlib, en el entorno de Python del cuaderno:", "",
    "```sh",
    `pip install ${wheelName} numpy matplotlib`,
    "```", "",
    "(o, desde una celda del cuaderno, `%pip install " + wheelName + " numpy matplotlib`). " +
    "Luego ejecute las celdas en orden: la primera (el preludio) prepara lo que las demás usan.",
  ].join("\n"),
  // under an exercise: the deck checks the answer, the notebook does not
  "notebook-exercise-note": "Ejercicio: complete los `...` y ejecute la celda (aquí no hay " +
    "comprobación automática; mientras queden `...`, la celda puede fallar).",
  "notebook-prelude": "Preludio",
  "notebook-figures": "Las figuras: fuera de Jupyter, matplotlib las muestra al final",
  "notebook-action-label": ({ packageName }) => "Llevar el trabajo: descargar las celdas (con sus ediciones) como " +
    `cuaderno Jupyter o script de Python, y el paquete ${packageName}`,
  "notebook-menu": "Descargas",
  "notebook-ipynb": "Cuaderno Jupyter",
  "notebook-py": "Script de Python",
  "notebook-wheel": ({ packageName }) => `Paquete ${packageName}`,
  "notebook-menu-note": "Las celdas tal como están ahora, con sus ediciones.",
  "downloading": ({ file }) => `Descargando ${file}`,
  // the worker's own errors (worker.js): the prelude, a dead interpreter, a cancelled run, a wait
  "prelude-failed": "el preludio del mazo falló",
  "prelude-failed-traceback": "El preludio del mazo (deck.yaml, prelude) falló:\n",
  "died-type": "Fallo",
  "died-message": "el intérprete de Python terminó",
  "died-traceback": ({ message }) =>
    `El intérprete de Python terminó durante esta celda (${message.split("\n")[0]}).\nSe reinicia y se vuelve a correr el preludio.`,
  "interrupted-message": "ejecución interrumpida",   // as cellrunner says a KeyboardInterrupt
  "cancelled-type": "Cancelada",
  "cancelled-message": "ejecución cancelada",
  "cancelled-traceback": "Ejecución cancelada antes de empezar.",
  "no-answer": ({ what, seconds }) => `${what}: sin respuesta tras ${seconds} s`,
  "start-python": "iniciar Python",
  "load-cell-packages": "cargar los paquetes de la celda",
  "load-package": ({ name }) => `cargar ${name}`,
  // the last visit's output, labelled (lastrun.js); a value the runtime could not read back (runtime.js)
  "last-visit": ({ time }) => `calculado en su visita anterior, ${time}`,
  // an output of other code than the code on screen (cell.js, provenance.js): marked, dimmed
  "output-stale": "Salida de otra versión del código: ejecuta ▶ para actualizar",
  "output-stale-meta": "(de otra versión del código)",
  "eval-no-detail": "sin detalle",
  "eval-unreadable": ({ reason }) => `valor ilegible: ${reason}`,
};

/**
 * The deck's actions' words under their signs (shown on phones, where there is no hover for
 * the tooltip): ⟲ and ↺ look alike, "Python" and "código" do not (actions.js).
 * @type {Record<string, string>}
 */
export const CAPTIONS = { "▶▶": "todas", "⟲": "Python", "↺": "código", "⤓": "llevar" };

/** What dplab's ValueError about a privacy parameter means to a student (diagnostics.js).
 *  @type {Record<string, string>} */
export const PRIVACY_PARAMS = {
  epsilon: "el presupuesto de privacidad ε debe ser mayor que 0 y finito",
  delta: "la probabilidad de fallo δ debe estar entre 0 y 1 (sin incluirlos)",
  sensitivity: "la sensibilidad debe ser mayor que 0 y finita",
  sigma: "la desviación típica σ del ruido debe ser mayor que 0 y finita",
  clip_bound: "la cota de recorte debe ser mayor que 0 y finita",
};

/**
 * The help overlay's tables (help.js): [keys, what they do], in the order a presenter needs them.
 * @type {{deck: [string, string][], editor: [string, string][], hall: [string, string][], buttons: [string, string][]}}
 */
export const HELP = {
  deck: [
    ["→ · Espacio · N", "Diapositiva siguiente"],
    ["← · Mayús+Espacio · P", "Diapositiva anterior"],
    ["Alt + ← / →", "Saltar los fragmentos (las partes que aparecen una a una)"],
    ["Mayús + ← / →", "Primera / última diapositiva"],
    ["G", "Ir a una diapositiva: escriba su número y Enter"],
    ["O · Esc", "Vista general de todas las diapositivas"],
    ["F", "Pantalla completa"],
    ["S", "Vista del presentador: notas, reloj y la diapositiva siguiente"],
    ["B · .", "Pausa: pantalla en negro"],
    ["+ / −", "Agrandar / achicar el código (fuera del editor; el navegador recuerda el tamaño)"],
    ["? · F1", "Esta ayuda"],
  ],
  editor: [
    ["Mayús+Enter · Ctrl+Enter", "Ejecutar la celda"],
    ["Esc (mientras corre)", "Detener la celda"],
    ["Ctrl+Espacio · Tab (tras un nombre o un «.»)", "Completar: nombres, atributos (census.…), parámetros (epsilon=)"],
    ["↑ ↓ · Enter · Tab", "Elegir en la lista de sugerencias y aceptar (Esc la cierra)"],
    ["Ctrl+K · pasar el ratón", "La documentación del nombre bajo el cursor, en español para dplab"],
    ["( · ,", "Al escribirlos en una llamada: la firma de la función, con el parámetro actual en negrita"],
    ["Ctrl+F", "Buscar (y reemplazar) en el código"],
    ["Ctrl+Z · Ctrl+Mayús+Z", "Deshacer / rehacer"],
    ["Esc", "Salir del editor: las flechas vuelven a mover las diapositivas"],
  ],
  // the live hall (a presentation served with --hall): its key, and what its indicator says
  hall: [
    ["J", "Mostrar el código QR y la dirección para unirse a la sala (Esc lo cierra)"],
    ["Siguiendo · n dispositivos", "Esta página sigue la diapositiva del profesor; n: los conectados"],
    ["Por su cuenta · n dispositivos", "Se movió a otra diapositiva: ya no sigue al profesor"],
    ["Volver con el profesor (diapositiva N)", "El botón que vuelve a la diapositiva del profesor y a seguirlo"],
    ["Presenta · n dispositivos", "La página del profesor: mueve a toda la sala"],
    ["Conectando… · Sin conexión: reintentando…", "La sala no responde por ahora; la presentación y Python siguen funcionando"],
  ],
  buttons: [
    ["▶▶", "Ejecutar todas las celdas, en orden"],
    ["⟲", "Reiniciar Python (se vuelven a correr las celdas originales ya ejecutadas; las editadas, al pulsar ▶)"],
    ["↺", "Volver al código original en todas las celdas"],
    ["⤓", "Llevarse el trabajo: cuaderno Jupyter, script de Python y el paquete dplab"],
  ],
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

// --- the live hall's page (poll.js, hallcount.js, live-view.js, live.js) -----------------------

/** @typedef {import("./types.js").HallPhrase} HallPhrase */

/** @param {number} x an integer, the Spanish way (1.234) */
const whole = (x) => x.toLocaleString("es-ES");

/**
 * The live hall's page: code → Spanish (types.js, `HallPhrase`); `tsc` checks every code has
 * its entry, as for `PHRASES`.
 * @type {{[K in HallPhrase["code"]]: string | ((p: Extract<HallPhrase, {code: K}>) => string)}}
 */
export const HALL_PHRASES = {
  // a poll's presenter controls (poll.js)
  "poll-new-round": "Nueva ronda",
  "poll-csv": "⤓ Recuento (CSV)",
  "poll-csv-title": "Los recuentos de respuestas aleatorizadas de esta ronda, por opción: nada más",
  "poll-round-yes": "Sí, abrir una nueva ronda",
  "poll-round-no": "Cancelar",
  "poll-round-warning": ({ round }) => `Una nueva ronda (la ${whole(round)}.ª) es otra publicación: quien responda de nuevo `
    + `gasta otro ε, y quien responde en r rondas gasta rε por esta pregunta (hasta ${whole(round)}ε tras esta). `
    + "Se borran las respuestas de esta ronda; responden los dispositivos conectados ahora.",
  "poll-round-opened": ({ round }) => `Ronda ${whole(round)} abierta: otra publicación (otro ε para quien responda de nuevo: `
    + `quien responde en r rondas gasta rε, hasta ${whole(round)}ε por esta pregunta).`,
  "poll-round-failed": "No se pudo abrir una nueva ronda: la sala no respondió.",
  "poll-csv-header": "encuesta;ronda;ε;dispositivos admitidos;opción;respuestas aleatorizadas",
  "poll-csv-file": ({ poll, round }) => `${poll}-ronda-${round}.csv`,
  // a poll's mode and status line
  "poll-copy": "Vista del presentador: las respuestas y la estimación, en la ventana principal.",
  "poll-presenter": "Cada estudiante responde en su dispositivo; aquí llegan solo respuestas aleatorizadas. "
    + "Cada ronda nueva es otra publicación: otro ε por estudiante que responda (r rondas, rε).",
  "poll-presenter-hall": "Sala en vivo: las respuestas aleatorizadas llegan de cada dispositivo.",
  "poll-student-hall": "Sala en vivo",
  "poll-simulated": "Sin sala en vivo: su respuesta aleatorizada se suma a una sala simulada y no sale de este dispositivo.",
  "poll-simulated-hall": ({ size, options, shares }) => {
    const truth = options.length === 2 ? `un ${shares[1]} diría «${options[1]}»`
      : options.map((o, i) => `${o} ${shares[i]}`).join(", ");
    return `Sala simulada: ${size} estudiantes (de verdad, ${truth}) y su respuesta.`;   // its count is the size + 1 once this device answers
  },
  "poll-may-answer": ({ newRound, round }) =>
    `${newRound ? `Nueva ronda (la ${whole(round)}.ª): responder de nuevo es otra publicación (otro ε; quien responde en r rondas `
      + `gasta rε por esta pregunta, hasta ${whole(round)}ε en esta). ` : ""}`
    + "Elija su respuesta: su dispositivo la aleatoriza antes de enviarla.",
  "poll-not-open": "La encuesta se abre cuando el profesor llegue a esta diapositiva: responden los dispositivos conectados a la sala en ese momento.",
  "poll-late": "Este dispositivo se conectó a la sala después de que se mostrara la encuesta: en esta ronda no puede "
    + "responder (así nadie envía respuestas por dispositivos que no estaban). Podrá hacerlo si el profesor abre una nueva ronda.",
  "poll-randomizing": "Aleatorizando su respuesta en este dispositivo…",
  "poll-randomize-failed": ({ message }) => `No se pudo aleatorizar (${message ?? "valor inesperado"}): elija de nuevo.`,
  "poll-answered-elsewhere": ({ option }) =>
    `Otra pestaña de este navegador ya respondió («${option}», aleatorizada): la sala guarda solo esa respuesta.`,
  "poll-simulated-sent": ({ option }) =>
    `Su dispositivo aleatorizó su respuesta: «${option}» se sumó a la sala simulada (sin sala en vivo, no sale de aquí).`,
  "poll-sending": "Enviando la respuesta aleatorizada…",
  "poll-duplicate": "Este dispositivo ya había respondido: la sala guarda solo su primera respuesta.",
  "poll-sent": ({ option }) => `Enviada. Su dispositivo envió «${option}»: puede no ser su respuesta, y nadie puede estar seguro de que lo sea (lo es con la probabilidad que dice la regla de la encuesta).`,
  "poll-refused": ({ option }) =>
    `La sala no admitió la respuesta («${option}»): solo responden, una vez, los dispositivos conectados cuando se mostró la encuesta.`,
  "poll-not-sent": ({ option, why }) => {
    const because = why === "rate" ? "la sala pide esperar un momento" : why === "invalid" ? "la sala la rechazó"
      : why === "busy" ? "la sala no puede guardarla en este momento" : "no hay conexión con la sala";
    return `No se pudo enviar (${because}). Su respuesta aleatorizada («${option}») espera: `;
  },
  "poll-retry": "Reintentar el envío",
  "poll-simulate-failed": ({ message }) => `No se pudo simular la sala: ${message}`,
  "poll-summary-failed": ({ message }) => `No se pudo calcular la estimación: ${message}`,
  // a poll's numbers
  "poll-answers": "Respuestas",
  "poll-answers-of": ({ n, admitted, one }) => `${n} de ${admitted} ${one ? "dispositivo" : "dispositivos"}`,
  "poll-cluster": "Desde una misma red",
  "poll-cluster-of": ({ cluster, admitted }) => `hasta ${cluster} de ${admitted} dispositivos (una red con NAT, `
    + "o alguien que simula dispositivos)",
  "poll-received": ({ label }) => `«${label}» recibidos`,
  "poll-estimate-of": ({ label }) => `Estimación de «${label}»`,
  "poll-held": ({ hold, n, missing, narrow, wide }) =>
    `Faltan ${whole(missing)} ${missing === 1 ? "respuesta" : "respuestas"} para mostrar el resultado (van ${n} de ${whole(hold)}). `
    + `Con menos, la estimación diría poco (con ${whole(hold - 1)} respuestas, su intervalo del 95 % mediría `
    + `de ${narrow} a ${wide} puntos de ancho, según las respuestas), y cada cambio en la pantalla `
    + "señalaría a quien acaba de responder: su respuesta aleatorizada lo protege igual, pero no hace falta exhibirla.",
  "poll-no-answers": "Aún no hay respuestas.",
  "poll-clipped": ({ share }) => `${share} (recortado)`,
  "poll-interval-below": "todo por debajo de 0 %, recortado a 0 %",
  "poll-interval-above": "todo por encima de 100 %, recortado a 100 %",
  "poll-estimate": ({ estimate, interval }) => `${estimate} (IC 95 % aproximado: ${interval})`,
  "poll-posterior": ({ yesNo, option, prior, posterior, epsilon }) => {
    const what = yesNo ? `«${option}»` : "una opción dada";
    const seen = yesNo ? what : "esa opción";
    return `Lo que revela una respuesta: si antes se creía un ${prior} de que alguien `
      + `respondería ${what}, tras ver ${seen} en su respuesta se cree a lo sumo un ${posterior} `
      + `(ε = ${epsilon}; k encuestas a la misma persona cuestan kε).`;
  },
  // the hall's exercise counts (hallcount.js)
  "count-central": "Privacidad central: el servidor de la sala ve cada ✓ y publica solo este conteo con ruido; "
    + "el ruido protege de la sala, no del servidor. Cuenta perfiles de navegador: un portátil y un teléfono "
    + "(o una ventana privada) cuentan dos, y un navegador que no guarda datos cuenta de nuevo tras recargar; "
    + "quien cuenta m veces paga mε por conteo.",
  "count-student": "Sala en vivo: su ✓ llega al servidor de la sala, que ve cada ✓ (privacidad central); "
    + "la sala solo ve un conteo con ruido, por navegador.",
  "count-button": ({ released, epsilon }) =>
    (released ? `Contar de nuevo (otro ε = ${epsilon})` : `¿Cuántos lo resolvieron? (ε = ${epsilon})`),
  "count-button-title": ({ released }) => (released
    ? "Un conteo nuevo con ruido: gasta otro ε del presupuesto de esta sesión de la sala"
    : "Un conteo con ruido de Laplace discreto, pagado con el presupuesto de esta sesión de la sala (el servidor lo guarda)"),
  "count-counting": "Contando en la sala…",
  "count-no-answer": "La sala no respondió: puede que haya publicado el conteo (y gastado su ε) sin que la respuesta "
    + "llegara. Pídalo de nuevo: si se publicó, la sala muestra ese mismo conteo sin gastar más, con el presupuesto que queda.",
  "count-refused-request": ({ status }) => `La sala rechazó el pedido (HTTP ${status}): no se contó nada ni se gastó presupuesto.`,
  "count-exhausted": "El presupuesto de esta sesión de la sala se agotó: este conteo no se publicó (no se gastó nada).",
  "count-shown": ({ value, low, high, clipped, admitted, cluster, epsilon, sd, fresh, reach, cover }) => {
    const bound = admitted === 1 ? "el único dispositivo admitido"
      : admitted != null ? `los ${whole(admitted)} dispositivos admitidos` : "";
    return `≈ ${whole(value)} ${value === 1 ? "dispositivo lo resolvió" : "dispositivos lo resolvieron"} `
      + `(IC 95 %: de ${whole(low)} a ${whole(high)}`
      + (clipped ? (bound ? `, recortado a lo público: entre 0 y ${bound}` : ", recortado a 0: un conteo no es negativo") : "")
      + `; conteo con ruido de Laplace discreto, ε = ${epsilon}, desvío típico ≈ ${sd})`
      + (fresh ? "." : "; es el mismo conteo publicado antes: no gastó presupuesto.")
      + ` Si no coincide con lo que ve en la sala (≈ 0 con dos que lo resolvieron), es el ruido funcionando: `
      + `el conteo publicado se aparta del real hasta ±${whole(reach)} el ${cover} de las veces, y por eso dice poco de cada estudiante.`
      + (cluster != null && cluster > 1 && admitted != null
        ? ` De los ${whole(admitted)} dispositivos admitidos, ${whole(cluster)} llegaron desde una misma red `
          + "(una red con NAT, o alguien que simula dispositivos)."
        : "");
  },
  "count-failed": ({ message }) => `No se pudo contar: ${message}`,
  // the hall's indicator, QR code and notices (live-view.js, live.js)
  "hall-return-here": ({ ahead }) => `Volver con el profesor (${ahead ? "más adelante" : "más atrás"} en esta diapositiva)`,
  "hall-return-slide": ({ slide }) => `Volver con el profesor (diapositiva ${slide})`,
  "hall-qr-alt": "Código QR con la dirección de la presentación en vivo",
  "hall-join-lead": "Siga la clase en su dispositivo: ",
  "hall-join-label": "Dirección de la presentación en vivo",
  "hall-join-close": "Pulse J o Esc para cerrar",
  "hall-qr-key": "Mostrar el código QR de la sala",
  "hall-status": ({ state, role, devices }) => {
    const n = devices === 1 ? "1 dispositivo" : `${devices} dispositivos`;
    return state === "offline" ? "Sin conexión con la sala: reintentando…"
      : state === "connecting" ? "Conectando con la sala…"
        : role === "presenter" ? `Presenta · ${n}`
          : role === "following" ? `Siguiendo · ${n}` : `Por su cuenta · ${n}`;
  },
  "hall-short": ({ live, devices }) => (live ? `${devices} en sala` : "…"),
  "hall-status-title": ({ role }) => (role === "presenter" ? "esta página mueve a toda la sala (J muestra el código QR)"
    : role === "following" ? "esta página sigue al profesor; si se mueve, deja de seguirlo"
      : "esta página no sigue al profesor; «Volver con el profesor» la lleva adonde está él y vuelve a seguirlo")
    + ". Los dispositivos en sala son los conectados: uno que se va sin cerrar la página (sin red, con la pantalla "
    + "apagada) sigue contado hasta que la sala lo nota (en las pruebas, de 60 a 90 s).",
  "hall-token-refused": "El enlace de presentador ya no es válido (la sala se abrió con otro): esta página sigue al profesor.",
};

/**
 * The Spanish of ``p``, a sentence of the live hall's page.
 * @param {HallPhrase} p
 * @returns {string}
 */
export function sayHall(p) {
  const entry = /** @type {string | ((p: HallPhrase) => string)} */ (HALL_PHRASES[p.code]);
  return typeof entry === "function" ? entry(p) : entry;
}

// --- the hall's writes sent again until acknowledged (live.js, exercise.js, live-view.js) ------

/**
 * @typedef {{code: "solve-retrying"} | {code: "solve-unsent", why: "rate" | "busy" | "network"}
 *   | {code: "solve-refused"} | {code: "solve-retry"} | {code: "position-unsent"}
 *   | {code: "presenting-now"}} DeliveryPhrase
 */

/** @type {{[K in DeliveryPhrase["code"]]: string | ((p: Extract<DeliveryPhrase, {code: K}>) => string)}} */
export const DELIVERY_PHRASES = {
  "solve-retrying": "La sala todavía no recibió este ejercicio resuelto: reintentando…",
  "solve-unsent": ({ why }) => `La sala no recibió este ejercicio resuelto (${
    why === "rate" ? "demasiados envíos a la vez" : why === "busy" ? "la sala está ocupada" : "sin conexión"
  }): todavía no cuenta en la sala.`,
  "solve-refused": "La sala no admitió este ejercicio resuelto: no cuenta en la sala.",
  "solve-retry": "Enviar de nuevo",
  "position-unsent": "La sala no recibe la posición: reintentando…",
  "presenting-now": "Esta página presenta ahora: sus movimientos mueven a toda la sala.",
};

/** The Spanish of ``p``, a line about a write to the hall. @param {DeliveryPhrase} p @returns {string} */
export function sayDelivery(p) {
  const entry = /** @type {string | ((p: DeliveryPhrase) => string)} */ (DELIVERY_PHRASES[p.code]);
  return typeof entry === "function" ? entry(p) : entry;
}
