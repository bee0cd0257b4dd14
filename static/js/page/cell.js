// One code cell on a slide: editor, buttons, live parameters, noise controls, output.
import { Output } from "./output.js";
import { buildControls } from "./params.js";
import { cellMeta, say } from "../shared/phrases.js";
import { IDLE, activeRun, afterRun, dataState } from "./cellstate.js";
import { paintCode, staticCode } from "./static-code.js";
import { label as lastVisitLabel } from "./lastrun.js";
import { required } from "./dom.js";
import { Provenance } from "./provenance.js";

// While Python first loads (a cold deep link on a hall's Wi-Fi: docs/benchmark.md's start-up
// table), a cell with nothing to show says what it waits for and for how long so far.
const BOOT_SECONDS = 10;
const booting = new Set();   // the cells showing the note
const booted = new WeakSet();   // runtimes that have been ready once: no note after that
let bootTimer = 0;

function bootText(runtime) {
  const what = (runtime.detail || say({ code: "boot-wait-default" })).replace(/^Python:\s*/, "").replace(/…$/, "");
  return say({ code: "boot-wait", what, seconds: Math.round(performance.now() / 1000), usual: BOOT_SECONDS });
}

/** Show (or refresh) the note in ``cell``'s empty output; the first status after boot removes it. */
function showBootNote(cell) {
  const runtime = cell.runtime;
  if (!runtime || runtime.state !== "loading" || booted.has(runtime)) return;
  let note = cell.output.el.querySelector(".out-wait");
  if (!note) {
    if (cell.output.el.childElementCount) return;
    note = document.createElement("p");
    note.className = "out-wait";
    cell.output.el.append(note);
  }
  note.textContent = bootText(runtime);
  booting.add(cell);
  if (bootTimer) return;
  const onStatus = () => {
    if (runtime.state !== "loading") booted.add(runtime);
    for (const c of booting) {
      const el = c.output.el.querySelector(".out-wait");
      if (!el || booted.has(runtime)) { el?.remove(); booting.delete(c); } else el.textContent = bootText(runtime);
    }
    if (!booting.size) { clearInterval(bootTimer); bootTimer = 0; runtime.removeEventListener("status", onStatus); }
  };
  runtime.addEventListener("status", onStatus);
  bootTimer = setInterval(onStatus, 1000);
}

// Editors are built when their slide comes near (deck.js), or when something needs one (a
// click or Tab into the code, a change of ``cell.code``), one per task so that no task is long:
// building one takes ~30 ms here and 4× that on a slow laptop. editor.js (CodeMirror) is
// loaded on the first request.
/** @type {Promise<typeof import("./editor.js")> | null} */
let editorModule = null;
const loadEditor = () => (editorModule ??= import("./editor.js"));
const wanted = new Set();   // cells waiting for their editor, in the order asked
let building = false;

/** Build the waiting editors, one per task, until none waits. */
async function buildEditors() {
  if (building) return;
  building = true;
  const { createEditor } = await loadEditor();
  for (const cell of wanted) {
    wanted.delete(cell);
    cell.buildEditor(createEditor);
    await new Promise((resolve) => setTimeout(resolve, 0));   // let the page answer in between
  }
  building = false;
  if (wanted.size) buildEditors();
}

/** @typedef {ReturnType<typeof import("./editor.js").createEditor>} Editor */

function button(label, text, cls, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `cell-btn ${cls}`;
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.title = label;
  b.addEventListener("click", onClick);
  return b;
}

/**
 * This browser's last outputs (lastrun.js) and the key of a run's inputs (deck.js adds the
 * deck's version and wheel).
 * @typedef {{store: import("./lastrun.js").LastRunStore,
 *            key: (cellId: string, code: string, seed: number | null) => string}} LastRuns
 */

export class Cell extends EventTarget {
  /**
   * @param {HTMLElement} root  the .cell element of the slide
   * @param {{runtime?: import("./workers.js").Python | null, store?: import("./storage.js").EditStore | null,
   *          announce?: (text: string) => void, readOnly?: boolean, lastRuns?: LastRuns | null}} options
   *   readOnly cells (the speaker view's copies) show what the main window mirrors to them
   *   and run nothing. lastRuns: this browser's last outputs (lastrun.js), shown until a run lands.
   */
  constructor(root, { runtime, store, announce, readOnly = false, lastRuns = null }) {
    super();
    this.root = root;
    this.runtime = runtime;
    this.store = store;
    this.announce = announce;
    this.readOnly = readOnly;
    // the build writes data-cell-id on every .cell (dpdeck), and deck.js builds a Cell only for those
    this.id = /** @type {string} */ (root.dataset.cellId);
    this.slide = root.closest("section");
    const source = required(root, ".cell-source");
    this.authored = (source.textContent ?? "").replace(/\n$/, "");
    this.output = new Output(required(root, ".cell-output"));
    /** @type {import("../shared/types.js").CellState} the one notion of where the cell is (cellstate.js) */
    this.state = IDLE;
    this.runs = 0;
    /** @type {Partial<import("../shared/types.js").RunResult> | null} the last run's result (or what is known of it) */
    this.lastResult = null;
    this.seed = null;          // a locked seed, or null for fresh noise
    this.rerun = false;        // a parameter moved while running: run again when done
    this.stopAsked = false;    // the viewer stopped the run under way (■, Escape): the pre-run leaves it
    /** @type {import("./exercise.js").Exercise | null} set by the cell's Exercise, if any */
    this.exercise = null;
    this.lastRuns = lastRuns;
    this.fromLastVisit = false;   // the output shown is the last visit's, labelled, not a run's
    this.lastVisitCode = "";      // the code it was computed from
    /** which code the output on screen belongs to (provenance.js); marked when not the code shown */
    this.provenance = new Provenance();
    /** @type {boolean | null} a speaker-view copy's mark, as the main window says (``restore``) */
    this.mirroredStale = null;
    /** @type {HTMLElement | null} «Salida de otra versión del código…», at the top of the output */
    this.staleMark = null;

    const input = required(root, ".cell-input");
    /** @type {Editor | null} built when wanted (wantEditor) */
    this.editor = null;
    /** @type {string | null} the code while there is no editor (null once there is one) */
    this.text = store?.load(this.id, this.authored) ?? this.authored;
    /** @type {HTMLElement | null} the code before the editor (null once there is one) */
    this.staticView = staticCode(this.id, this.text);
    this.lastCode = "";   // the code of the last run
    source.replaceWith(this.staticView);
    const now = (/** @type {Event} */ e) => {   // a click or Tab into the code: the editor, focused
      e.preventDefault();
      this.wantEditor({ focus: true });
    };
    this.staticView.addEventListener("mousedown", now);
    this.staticView.addEventListener("focus", now);
    this.markEdited();

    const bar = document.createElement("div");
    bar.className = "cell-toolbar";
    this.runBtn = button(say({ code: "cell-run-label" }), say({ code: "cell-run" }), "run", () => this.run());
    this.stopBtn = button(say({ code: "cell-stop-label" }), say({ code: "cell-stop" }), "stop", () => this.stop());
    this.resetBtn = button(say({ code: "cell-reset-label" }), say({ code: "cell-reset" }), "reset", () => this.reset());
    this.noiseBtn = button(say({ code: "cell-noise-label" }), say({ code: "cell-noise" }), "noise",
                           () => this.resample());
    this.lockBtn = button(say({ code: "cell-lock-label" }), say({ code: "cell-lock" }), "lock", () => this.toggleLock());
    this.lockBtn.setAttribute("aria-pressed", "false");
    this.noiseBtn.hidden = this.lockBtn.hidden = true;
    this.stopBtn.disabled = true;
    this.meta = document.createElement("span");
    this.meta.className = "cell-meta";
    this.meta.setAttribute("aria-live", "off");
    bar.append(this.runBtn, this.stopBtn, this.resetBtn, this.noiseBtn, this.lockBtn, this.meta);
    if (readOnly) for (const b of [this.runBtn, this.stopBtn, this.resetBtn, this.noiseBtn, this.lockBtn]) b.disabled = true;
    input.append(bar);

    const params = JSON.parse(root.dataset.params || "[]");
    if (params.length && !readOnly) input.append(buildControls(this, params));

    // suggested live edits (the slide's ``try:``): buttons in the speaker view only, which ask
    // the main window (event "try", see mirror.js) to apply one to its cell and run it
    this.tries = JSON.parse(root.dataset.try || "[]");
    this.tryButtons = [];
    if (readOnly && this.tries.length) input.append(this.buildTryBar());
    if (!readOnly) showBootNote(this);
  }

  /** The speaker view's row of edits: one button per ``try:`` entry, and ↺ the authored code. */
  buildTryBar() {
    const bar = document.createElement("div");
    bar.className = "cell-tries";
    bar.setAttribute("role", "group");
    bar.setAttribute("aria-label", say({ code: "cell-tries-label" }));
    const ask = (index) => this.dispatchEvent(new CustomEvent("try", { detail: { index } }));
    this.tries.forEach((edit, index) => {
      const b = button(say({ code: "cell-try-label", label: edit.label }), edit.label, "try", () => ask(index));
      b.dataset.tryIndex = String(index);
      b.setAttribute("aria-pressed", "false");
      this.tryButtons.push(b);
      bar.append(b);
    });
    bar.append(button(say({ code: "cell-try-restore-label" }), "↺",
                      "try-restore", () => ask(null)));
    return bar;
  }

  /** The authored code with the ``try:`` edit ``index`` applied (its one occurrence). */
  triedCode(index) {
    const [old, replacement] = this.tries[index].replace;
    return this.authored.replace(old, () => replacement);
  }

  /** Apply a suggested edit to the authored code (``index``), or restore it (``null``); run. */
  async applyTry(index) {
    if (this.readOnly) return null;
    if (index === null) this.reset();
    else if (Number.isInteger(index) && this.tries[index]) {
      this.code = this.triedCode(index);
      this.markEdited();
    } else return null;
    if (this.running !== null) { this.rerun = true; return this.pendingRun; }
    return this.run();
  }

  /** Build this cell's editor soon (one per task, see buildEditors); ``focus``: now if
   *  CodeMirror is loaded, and give it the keyboard. Resolves with the editor.
   *  @param {{focus?: boolean}} [options] */
  async wantEditor({ focus = false } = {}) {
    if (!this.editor) {
      if (focus) this.buildEditor((await loadEditor()).createEditor);
      else {
        wanted.add(this);
        buildEditors();
        await new Promise((resolve) => this.addEventListener("editor", resolve, { once: true }));
      }
    }
    // built by now: buildEditor above, or the "editor" event, which buildEditor sends once it is set
    const editor = /** @type {Editor} */ (this.editor);
    if (focus) editor.focus();
    return editor;
  }

  /** Replace the static view by the editor, with the code as it is now (edits included);
   *  "editor" tells completion.js and the rest. @param {typeof import("./editor.js").createEditor} createEditor */
  buildEditor(createEditor) {
    if (this.editor) return;
    wanted.delete(this);
    const holder = document.createDocumentFragment();
    this.editor = createEditor(holder, this.text, {
      onRun: () => this.run(),
      onEscape: () => { if (this.running !== null) { this.stop(); return true; } return false; },
      onChange: (code) => { this.store?.save(this.id, this.authored, code); this.markEdited(); },
      label: say({ code: "cell-code-label", id: this.id }),
      readOnly: this.readOnly,
    });
    this.staticView?.replaceWith(this.editor.view.dom);   // set until now: the editor is built once
    this.staticView = null;
    this.text = null;
    this.dispatchEvent(new Event("editor"));
  }

  // with no editor, ``text`` and ``staticView`` are set (they are nulled only when it is built)
  /** @returns {string} */
  get code() { return this.editor ? this.editor.code : /** @type {string} */ (this.text); }
  set code(text) {
    if (this.editor) { this.editor.code = text; return; }
    if (text === this.text) return;
    this.text = text;   // as the editor would: kept, stored, marked; shown at once
    paintCode(/** @type {HTMLElement} */ (this.staticView), text);
    this.store?.save(this.id, this.authored, text);
    this.markEdited();
    this.wantEditor();
  }
  get edited() { return this.code !== this.authored; }

  markEdited() {
    // an edit or a reset: the last visit's output is of other code, never shown as this one's
    if (this.fromLastVisit && this.code !== this.lastVisitCode) this.dropLastVisit();
    this.root.classList.toggle("edited", this.edited);
    this.changed();
  }

  reset() {
    this.code = this.authored;
    this.store?.save(this.id, this.authored, this.authored);
    this.markEdited();
    this.dispatchEvent(new Event("reset"));   // an exercise forgets its verdict (exercise.js)
  }

  stop() {
    const running = this.running;   // only a cell with a runtime has a run (``run``)
    if (running === null) return;
    this.stopAsked = true;
    this.runtime?.stop(running);
  }

  /** Freeze the noise of the figure on screen (its seed), or free it again. */
  toggleLock() {
    this.seed = this.seed === null ? (this.lastResult?.seedUsed ?? null) : null;
    this.showNoiseControls(true);
  }

  /** Draw new noise; when the seed is locked, lock onto the new draw. */
  async resample() {
    const locked = this.seed !== null;
    this.seed = null;
    const result = await this.run();
    if (locked && result?.seedUsed) this.seed = result.seedUsed;
    this.showNoiseControls(true);
    return result;
  }

  showNoiseControls(visible) {
    this.noiseBtn.hidden = this.lockBtn.hidden = !visible;
    const locked = this.seed !== null;
    // what it means to a student: the same noise again on every run, or fresh noise each time
    this.lockBtn.textContent = say({ code: locked ? "cell-locked" : "cell-lock" });
    this.lockBtn.setAttribute("aria-pressed", String(locked));
    const label = locked   // starts with the button's text: what a voice user says to press it
      ? say({ code: "cell-locked-label", seed: String(this.seed) })
      : say({ code: "cell-lock-label" });
    this.lockBtn.setAttribute("aria-label", label);
    this.lockBtn.title = label;
  }

  /** A parameter moved: run now, or once more when the current run ends (last value wins). */
  requestRun() {
    if (this.running !== null) { this.rerun = true; return; }
    this.run();
  }

  /** Python went silent right after this cell ran: say so (it is not replayed). */
  markSuspect() {
    this.lastResult = { ...this.lastResult, crashed: true };
    if (!this.active) this.setState({ phase: "suspect" });   // (a run asked for since will say how it went)
    this.changed();
  }

  changed() {
    this.showStale();
    this.dispatchEvent(new Event("change"));
  }

  /** Whether the output on screen is another code's (provenance.js): it shows something and
   *  the code that produced it is not the code on screen. A speaker-view copy shows what the
   *  main window says. */
  get stale() {
    if (this.readOnly) return Boolean(this.mirroredStale);
    return this.provenance.stale(this.code, this.output.items.length > 0);
  }

  /** Mark the output when it is another code's (``stale``): a note at its top, in words a
   *  screen reader reads before the output, the output dimmed (deck.css), and the text beside
   *  the buttons says so; unmark it when it is this code's again. */
  showStale() {
    if (!this.meta) return;   // (the constructor's first markEdited: nothing is shown yet)
    const stale = this.stale;
    const el = this.output.el;
    if (stale) {
      if (!this.staleMark) {
        this.staleMark = document.createElement("p");
        this.staleMark.className = "out-note out-stale";
        this.staleMark.textContent = say({ code: "output-stale" });
      }
      if (el.firstElementChild !== this.staleMark) el.prepend(this.staleMark);   // above a meter too
    } else this.staleMark?.remove();
    if (stale) el.dataset.stale = "true"; else delete el.dataset.stale;
    this.root.classList.toggle("output-stale", stale);
    const meta = cellMeta(this.state);
    this.meta.textContent = stale && meta ? `${meta} ${say({ code: "output-stale-meta" })}` : meta;
  }

  /** The runtime's id of the run under way (what Stop stops), or null: from ``state``. A
   *  speaker-view copy runs nothing: its state is the main window's, the id is not its own. */
  get running() { return this.readOnly ? null : activeRun(this.state); }

  /** Whether a run is asked for and not ended (``running`` may not know its id yet). */
  get active() { return this.state.phase === "waiting" || this.state.phase === "running"; }

  /** Enter ``state``; its ``data-state`` and the text beside the buttons follow from it.
   *  @param {import("../shared/types.js").CellState} state */
  setState(state) {
    this.state = state;
    this.root.dataset.state = dataState(state);
    this.showStale();   // the text beside the buttons, and whether the output is marked
  }

  /** After ⟲: the cell is edited, so it was not run again (deck.js, ``replay``); it says so. */
  markNotReplayed() {
    const ok = Boolean(this.lastResult?.ok);
    this.lastResult = { ...this.lastResult, restarted: true };   // its state is gone with Python
    if (!this.active) this.setState({ phase: "not-replayed", ok });   // beside «editada»
    this.changed();
  }

  /** @returns {import("../shared/types.js").CellSnapshot} */
  snapshot() {
    return { id: this.id, code: this.code, items: this.output.items, state: this.state, edited: this.edited,
             stale: this.stale };
  }

  /** Show what another window computed (the speaker view's mirror).
   *  @param {import("../shared/types.js").CellSnapshot} snap */
  restore(snap) {
    if (snap.code !== this.code) this.code = snap.code;
    this.output.replace(snap.items);
    this.mirroredStale = Boolean(snap.stale);
    this.setState(snap.state);
    this.root.classList.toggle("edited", snap.edited);
    this.tryButtons.forEach((b, i) => b.setAttribute("aria-pressed", String(snap.code === this.triedCode(i))));
  }

  /** On a warm visit: the output this browser computed last time for this very code (fresh
   *  noise, the same deck version), labelled with when, until the live run's first output
   *  replaces it (lastrun.js). */
  showLastVisit() {
    // only over nothing: a cell that has run (or runs) in this page keeps its own output
    if (this.state.phase !== "idle" || this.fromLastVisit) return;
    const saved = this.lastRuns?.store.load(this.lastRuns.key(this.id, this.code, null));
    if (!saved) return;
    this.output.replace(saved.items);
    const note = document.createElement("p");
    note.className = "out-note out-last-visit";
    note.textContent = lastVisitLabel(saved.at);
    this.output.el.prepend(note);
    this.root.classList.add("from-last-visit");
    this.fromLastVisit = true;
    this.lastVisitCode = this.code;
    this.provenance.lastVisit(this.code);
    this.showStale();
  }

  /** The live run's first output: the last visit's goes. */
  dropLastVisit() {
    if (!this.fromLastVisit) return;
    this.fromLastVisit = false;
    this.output.clear();   // (nothing shown: nothing marked, whichever code the provenance names)
    this.root.classList.remove("from-last-visit");
  }

  /** Run the cell's current code; resolves with the worker's result. */
  async run({ background = false, replay = false } = {}) {
    if (this.readOnly) return null;
    // every cell that is not read-only is given the runtime (deck.js); only the speaker view's copies have none
    const runtime = /** @type {import("./workers.js").Python} */ (this.runtime);
    if (this.active) return this.pendingRun;
    if (this.fromLastVisit && (this.code !== this.lastVisitCode || this.seed !== null)) this.dropLastVisit();
    if (!this.fromLastVisit) this.output.clear();
    this.stopAsked = false;
    this.root.classList.remove("has-error");
    this.root.classList.add("is-running");
    this.runBtn.disabled = true;
    this.stopBtn.disabled = false;
    const waiting = runtime.state === "loading";
    this.setState({ phase: waiting ? "waiting" : "running", runId: null });
    if (waiting) showBootNote(this);
    const onStatus = (e) => {
      if (e.detail.state === "running" && this.state.phase === "waiting") this.setState({ phase: "running", runId: this.state.runId });
    };
    runtime.addEventListener("status", onStatus);
    this.lastCode = this.code;
    this.provenance.started(this.lastCode);   // the output is this code's from now on
    this.showStale();
    // an exercise (exercise.js) is judged when asked for: its check runs after the code, in this run
    const exercise = background || replay ? null : this.exercise;
    const judged = Boolean(exercise);
    const code = exercise ? exercise.judgedCode(this.code) : this.code;
    const seed = this.seed;
    this.pendingRun = runtime.run(this.id, code, {
      onQueued: (id) => { if (this.state.phase === "waiting" || this.state.phase === "running") this.state = { ...this.state, runId: id }; },
      onRerun: (reason) => { this.dropLastVisit(); this.output.clear(); this.output.add({ kind: "stderr", text: `(${reason})\n` }); },
      onText: (kind, text) => { this.dropLastVisit(); this.output.add({ kind, text }); this.changed(); },
      onFigure: ({ svg, png, alt, note }) => {   // SVG, or PNG (base64) with a note saying why
        this.dropLastVisit();
        this.output.add(png != null ? { kind: "figure", png, alt, note } : { kind: "figure", svg, alt, note });
        this.changed();
      },
      onBudget: ({ accountants, more }) => {   // the privacy-budget meter (meter.js)
        this.dropLastVisit();
        this.output.add({ kind: "budget", accountants, more });
        this.changed();
      },
      // an exercise's verdict (exercise.js listens): before the run's result, never a value
      onVerdict: ({ ok, message }) => this.dispatchEvent(new CustomEvent("verdict", { detail: { ok, message } })),
    }, { seed: this.seed, background });
    const result = await this.pendingRun;
    runtime.removeEventListener("status", onStatus);
    const endedAt = Date.now();
    this.runs += 1;
    this.lastResult = result;
    this.lastRunAt = performance.now();
    this.root.classList.remove("is-running");
    this.runBtn.disabled = false;
    this.stopBtn.disabled = true;
    this.dropLastVisit();
    // a result that is not ok carries its error (types.js, RunResult; runtime.js, worker.js)
    const error = result.ok ? null : /** @type {import("../shared/types.js").ErrorRecord} */ (result.error);
    if (!error) {
      if (result.value != null && !judged) this.output.add({ kind: "value", text: result.value });
    } else {
      this.root.classList.add("has-error");
      this.output.add({ kind: "error", text: error.traceback || `${error.type}: ${error.message}` });
    }
    this.output.flush();
    if (result.ok && !judged && !result.restarted) {   // for the next visit (lastrun.js)
      this.lastRuns?.store.save(this.lastRuns.key(this.id, this.lastCode, seed), this.output.items, endedAt);
    }
    if (result.noise) this.showNoiseControls(true);
    this.setState(afterRun(result, endedAt));
    this.changed();
    if (!background && !replay) {
      const alts = this.output.items.filter((i) => i.kind === "figure").map((i) => i.alt).join(". ");
      this.announce?.(!error ? say({ code: "result-ready", alts })
        : error.type === "KeyboardInterrupt" ? say({ code: "result-stopped" })   // ■ Detener: not "Error: KeyboardInterrupt"
          : say({ code: "result-error", type: error.type }));
    }
    this.dispatchEvent(new CustomEvent("ran", { detail: result }));
    if (this.rerun) { this.rerun = false; return this.run(); }
    return result;
  }
}
