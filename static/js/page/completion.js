// The editor's knowledge of Python and of the deck's package: completion, signature help,
// docs on hover (and on Ctrl/Cmd+K) and a failed run's line marked in place. Asks the worker's
// jedi (runtime.query → engine.js → pyodide_pkg/completion.py) when no cell runs; while one does,
// or before the engine is loaded, answers from static names: the build's API index
// (api-index.json, Spanish summaries), the cell's own names and Python's keywords
// (CodeMirror's Python language). Nothing loads before an editor is focused.
import { autocompletion, startCompletion, acceptCompletion, completionStatus } from "@codemirror/autocomplete";
import { setDiagnostics } from "@codemirror/lint";
import { EditorView, hoverTooltip, keymap, showTooltip } from "@codemirror/view";
import { StateEffect, StateField, Prec } from "@codemirror/state";
import { globalCompletion, localCompletionSource } from "@codemirror/lang-python";
import { errorLine, explain } from "./diagnostics.js";
import { say } from "../shared/phrases.js";

/** @typedef {import("./workers.js").Python} Runtime */
/** @typedef {import("../shared/types.js").DeckConfig} DeckConfig */

const QUERY_MS = 1500;   // a query not answered by then (the worker is busy): static names

/**
 * A name of the API index (dpdeck/build/editor_assets.py, ``_entry``): ``params`` is null for a constant.
 * @typedef {{name: string, module?: string, kind?: string, summary?: string, doc?: string,
 *            params: {name: string, default?: string | null}[] | null}} IndexEntry
 * @typedef {{package: string, params?: Record<string, string>, names: IndexEntry[],
 *            members?: IndexEntry[], globals?: Record<string, string>,
 *            byName: Map<string, IndexEntry>, byMember: Map<string, IndexEntry>}} ApiIndex
 */

/** Loaded once, on the first focus of an editor.
 *  @type {{index: ApiIndex | null, indexPromise: Promise<void> | null, warmed: boolean}} */
const shared = { index: null, indexPromise: null, warmed: false };

/** The API index: ``{package, params, names, members, globals, byName, byMember}`` (``byName``
 *  also holds ``Class.member``; ``byMember``: a member by its own name, for ``census.where``);
 *  null until it has loaded. */
function loadIndex(config, base) {
  shared.indexPromise ??= fetch(new URL(config.editor.index, base))
    .then((r) => r.json())
    .then((index) => {
      const members = index.members ?? [];
      index.byName = new Map([...index.names, ...members].map((e) => [e.name, e]));
      index.byMember = new Map(members.map((e) => [e.name.split(".").pop(), e]).reverse());   // the first wins
      shared.index = index;
    })
    .catch(() => {});
  return shared.indexPromise;
}

/** The cursor's position as jedi counts it: line 1-based, column 0-based. */
function position(state, pos) {
  const line = state.doc.lineAt(pos);
  return { line: line.number, column: pos - line.from };
}

const TYPES = { function: "function", class: "class", module: "namespace", instance: "variable",
                statement: "variable", param: "property", keyword: "keyword", property: "property" };

/** A parameter as a signature shows it. */
const paramText = (p) => (p.default == null ? p.name : `${p.name}=${p.default}`);

/** The Spanish doc of a name of the package, as DOM: summary, then the parameters.
 *  @param {IndexEntry} entry */
function indexDoc(entry) {
  const dom = document.createElement("div");
  dom.className = "cm-doc";
  const head = document.createElement("code");
  head.textContent = entry.params ? `${entry.name}(${entry.params.map(paramText).join(", ")})` : entry.name;
  const summary = document.createElement("p");
  summary.textContent = entry.summary || entry.doc || "";
  dom.append(head, summary);
  const glosses = shared.index?.params ?? {};
  const glossed = (entry.params ?? []).filter((p) => glosses[p.name]);
  if (glossed.length) {
    const list = document.createElement("ul");
    for (const p of glossed) {
      const li = document.createElement("li");
      li.textContent = `${p.name}: ${glosses[p.name]}`;
      list.append(li);
    }
    dom.append(list);
  }
  return dom;
}

/** A doc from jedi (numpy, matplotlib…): signature and its docstring's first paragraph; the
 *  index's Spanish for the package's names and its classes' members (``dplab.census.Census.where``). */
function engineDoc(answer) {
  const member = (answer.fullName ?? "").split(".").slice(-2).join(".");
  const index = shared.index;
  const entry = index && answer.module === index.package
    && (index.byName.get(answer.name) ?? index.byName.get(member));
  if (entry) return indexDoc(entry);
  const dom = document.createElement("div");
  dom.className = "cm-doc";
  const head = document.createElement("code");
  head.textContent = answer.signature || answer.fullName;
  const body = document.createElement("p");
  // a keyword argument of the package's functions (epsilon=…): its Spanish gloss
  body.textContent = answer.doc || shared.index?.params?.[answer.name] || say({ code: "no-doc" });
  dom.append(head, body);
  return dom;
}

/** The index's names as completions, for a word (not an attribute) being typed. */
function staticOptions() {
  return (shared.index?.names ?? []).map((e) => ({
    label: e.name, type: e.kind === "constant" ? "constant" : e.kind,
    detail: e.params ? "(…)" : undefined, info: () => indexDoc(e), boost: -1,
  }));
}

/** ``options`` and then those of ``more`` whose label is not among them yet. */
function merged(options, more) {
  const seen = new Set(options.map((o) => o.label));
  return options.concat(more.filter((o) => !seen.has(o.label) && seen.add(o.label)));
}

/** The cell's own names (CodeMirror's Python language), for a word: ``[]`` in a string or a comment. */
const localOptions = (context) => localCompletionSource(context)?.options ?? [];

/**
 * The editor's one completion source (it overrides the Python language's own two, whose list of
 * globals would also answer after a ".": Ctrl+Space after ``census.`` listed ``__annotations__``).
 * After a ".", the live object's attributes or nothing; for a word, the live names, the cell's own
 * and, while Python is busy, the index's, Python's builtins and keywords.
 * @param {Runtime} runtime
 */
function completionSource(runtime) {
  return async (context) => {
    const word = context.matchBefore(/[\w.]*$/);
    if (!word || (word.from === word.to && !context.explicit)) return null;
    const dot = word.text.lastIndexOf(".");
    const from = word.from + dot + 1;
    const code = context.state.doc.toString();
    const { line, column } = position(context.state, context.pos);
    const reply = runtime.busy ? null : await runtime.query("complete", code, line, column, QUERY_MS);
    if (reply?.ready && reply.answer) {
      const index = shared.index;
      const options = reply.answer.items.map((item) => ({
        label: item.label, type: TYPES[item.type] ?? item.type,
        info: index && item.module === index.package ? () => {
          const entry = dot >= 0 ? index.byMember.get(item.label) : index.byName.get(item.label);
          return entry ? indexDoc(entry) : null;
        } : undefined,
      }));
      return { from, validFor: /^\w*$/, options: dot >= 0 ? options : merged(options, localOptions(context)) };
    }
    if (dot >= 0) return null;   // an attribute needs the live objects: nothing static to say
    const builtins = /** @type {import("@codemirror/autocomplete").CompletionResult | null} */ (globalCompletion(context))?.options ?? [];   // synchronous
    return { from, validFor: /^\w*$/, options: merged(merged(staticOptions(), localOptions(context)), [...builtins]) };
  };
}

// --- signature help and the doc on a key: one tooltip at the cursor -------------------------

/** @typedef {{pos: number, dom: HTMLElement} | null} Info  the tooltip at the cursor, if any */
/** @type {import("@codemirror/state").StateEffectType<Info>} */
const setInfo = StateEffect.define();
/** @type {StateField<Info>} */
const infoField = StateField.define({
  create: () => /** @type {Info} */ (null),
  update(value, tr) {
    for (const e of tr.effects) if (e.is(setInfo)) return e.value;
    if (!value) return null;
    if (tr.docChanged) return { ...value, pos: tr.changes.mapPos(value.pos) };   // typing on
    return tr.selection ? null : value;   // the cursor moved away: gone
  },
  provide: (f) => showTooltip.from(f, (v) => v && {
    pos: v.pos, above: true, strictSide: false,
    create: () => { const dom = document.createElement("div"); dom.className = "cm-info"; dom.setAttribute("role", "status");
                    dom.setAttribute("aria-live", "polite"); dom.append(v.dom); return { dom }; },
  }),
});

/** The call around ``pos``: the callee's name and which argument the cursor is in (static). */
function callAt(text) {
  let depth = 0;
  let commas = 0;
  for (let i = text.length - 1; i >= 0; i--) {
    const ch = text[i];
    if (ch === ")" || ch === "]" || ch === "}") depth += 1;
    else if (ch === "[" || ch === "{") depth -= 1;
    else if (ch === "(") {
      if (depth === 0) return { name: /([\w.]+)\s*$/.exec(text.slice(0, i))?.[1]?.split(".").pop(), index: commas };
      depth -= 1;
    } else if (ch === "," && depth === 0) commas += 1;
  }
  return null;
}

function signatureDom(name, params, index, doc) {
  const dom = document.createElement("div");
  dom.className = "cm-signature";
  const code = document.createElement("code");
  code.append(`${name}(`);
  params.forEach((p, i) => {
    if (i) code.append(", ");
    const span = document.createElement(i === index ? "strong" : "span");
    span.textContent = p;
    code.append(span);
  });
  code.append(")");
  dom.append(code);
  if (doc) { const p = document.createElement("p"); p.textContent = doc; dom.append(p); }
  return dom;
}

/** Which of ``names`` the cursor is at: a keyword being written, else the position. */
function currentParam(names, before, position) {
  const named = /(\w+)\s*=[^=]*$/.exec(before.split(/[(,]/).pop() ?? "")?.[1];
  return named ? names.indexOf(named) : Math.min(position, names.length - 1);
}

/** Show the signature of the call at the cursor (after "(" or ","). @param {Runtime} runtime */
async function showSignature(view, runtime) {
  const code = view.state.doc.toString();
  const head = view.state.selection.main.head;
  const call = callAt(code.slice(0, head));
  if (!call) return;
  const { line, column } = position(view.state, head);
  const reply = runtime.busy ? null : await runtime.query("signature", code, line, column, QUERY_MS);
  // typing went on meanwhile: show it where the cursor is now, if it is still in that call
  const pos = view.state.selection.main.head;
  const before = view.state.doc.sliceString(0, pos);
  const now = callAt(before);
  if (!now || now.name !== call.name) return;
  /** @type {HTMLElement | null} */
  let dom = null;
  const sig = reply?.answer;
  const index = shared.index;
  const entry = index?.byName.get(sig?.name ?? call.name);
  if (sig && !(entry && sig.module === index?.package)) {
    const names = sig.params.map((p) => p.split("=")[0].replace(/^\*+/, ""));
    dom = signatureDom(sig.name, sig.params, currentParam(names, before, now.index), sig.doc);
  } else if (entry?.params) {
    const names = entry.params.map((p) => p.name);
    dom = signatureDom(entry.name, entry.params.map(paramText), currentParam(names, before, now.index), entry.summary);
  }
  view.dispatch({ effects: setInfo.of(dom && { pos, dom }) });
}

/** The doc of the name under ``pos``: the index's Spanish one, else jedi's. */
async function docAt(state, pos, runtime) {
  const word = state.wordAt(pos);
  if (!word) return null;
  const name = state.sliceDoc(word.from, word.to);
  const before = state.sliceDoc(Math.max(0, word.from - 1), word.from);
  const entry = before !== "." && shared.index?.byName.get(name);
  if (entry) return { from: word.from, to: word.to, dom: indexDoc(entry) };
  const global = before !== "." && shared.index?.globals?.[name];   // np, census: the prelude's
  if (global) return { from: word.from, to: word.to, dom: indexDoc({ name, params: null, summary: global }) };
  if (runtime.busy) return null;
  const { line, column } = position(state, word.from);
  const reply = await runtime.query("hover", state.doc.toString(), line, column, QUERY_MS);
  return reply?.answer ? { from: word.from, to: word.to, dom: engineDoc(reply.answer) } : null;
}

/** @param {Runtime} runtime */
function extensions(runtime) {
  const hover = hoverTooltip(async (view, pos) => {
    const doc = await docAt(view.state, pos, runtime);
    return doc && { pos: doc.from, end: doc.to, above: true, create: () => ({ dom: doc.dom }) };
  }, { hoverTime: 400 });
  const keys = Prec.high(keymap.of([
    { key: "Tab", run: (view) => {   // Tab completes after a word or a "."; elsewhere it leaves
      if (completionStatus(view.state) === "active") return acceptCompletion(view);
      const pos = view.state.selection.main.head;
      return /[\w.]$/.test(view.state.sliceDoc(Math.max(0, pos - 1), pos)) && startCompletion(view);
    } },
    { key: "Mod-k", run: (view) => {   // the doc of the name at the cursor, for the keyboard
      const pos = view.state.selection.main.head;
      docAt(view.state, pos, runtime).then((doc) => view.dispatch({ effects: setInfo.of(doc && { pos, dom: doc.dom }) }));
      return true;
    } },
  ]));
  const signatures = EditorView.updateListener.of((u) => {
    if (!u.docChanged || !u.transactions.some((t) => t.isUserEvent("input.type"))) return;
    const typed = u.state.sliceDoc(u.state.selection.main.head - 1, u.state.selection.main.head);
    if (typed === "(" || typed === ",") showSignature(u.view, runtime);
    else if (typed === ")") u.view.dispatch({ effects: setInfo.of(null) });
  });
  // the signature and the Ctrl+K doc go when the editor is left (their tooltip lets clicks
  // through to ▶ Ejecutar: deck.css), or on Escape
  const leave = EditorView.domEventHandlers({
    blur: (_e, view) => { if (view.state.field(infoField)) view.dispatch({ effects: setInfo.of(null) }); return false; },
    keydown: (e, view) => {
      if (e.key !== "Escape" || !view.state.field(infoField)) return false;
      e.stopPropagation();   // the deck (reveal.js) never sees keys typed here (editor.js)
      view.dispatch({ effects: setInfo.of(null) });
      return true;
    },
  });
  const aboveOnPhone = window.matchMedia?.("(pointer: coarse)").matches;   // keep ▶ Ejecutar visible
  return [
    autocompletion({ override: [completionSource(runtime)], aboveCursor: aboveOnPhone, activateOnTypingDelay: 150 }),
    keys, hover, infoField, signatures, Prec.highest(leave),
  ];
}

/** Mark the failing line of ``cell`` after a run (and clear it after a good one), until
 *  ``signal`` aborts. @param {AbortSignal} signal */
function markErrors(cell, signal) {
  cell.addEventListener("ran", (/** @type {CustomEvent} */ e) => { if (cell.editor) markLine(cell, e.detail); }, { signal });
}

/** Mark (or clear) the failing line of ``result`` in ``cell``'s editor. */
function markLine(cell, result) {
  const view = cell.editor.view;
  const line = !result.ok && !result.restarted && !result.cancelled && errorLine(result.error, cell.id);
  const diagnostics = [];
  if (line && line <= view.state.doc.lines) {
    const at = view.state.doc.line(line);
    const from = at.from + (at.text.length - at.text.trimStart().length);
    diagnostics.push({ from, to: Math.max(at.to, from), severity: "error", source: result.error.type,
                       message: explain(result.error, shared.index), markClass: "cm-failing-line" });
  }
  view.dispatch(setDiagnostics(view.state, diagnostics));
}

/**
 * Give every cell's editor (the context's cells) completion, signatures, docs and marked errors.
 * Not for the speaker view's copies (no runtime): they run no Python. ``unbind()`` removes the
 * listeners it added (the cells' "editor" and "ran", the editors' first focus, the runtime's
 * "restart"): an editor built after it gets none of this, a run marks no line. The editors
 * already equipped keep their completion (it is part of their CodeMirror state).
 * @param {import("./context.js").DeckContext} ctx
 * @returns {import("./context.js").Bound}
 */
export function installCompletion(ctx) {
  const { cells, runtime, config, base } = ctx;
  if (!runtime || !config.editor) return { unbind() {} };
  const listening = new AbortController();
  const { signal } = listening;
  const warm = () => {   // the first focus: the index, and the engine in the worker's gaps
    loadIndex(config, base);
    if (!shared.warmed) { shared.warmed = true; runtime.query("load", "", 1, 0, QUERY_MS); }
  };
  const equip = (cell) => {   // the editors are built when their slide comes near (cell.js)
    cell.editor.view.dispatch({ effects: StateEffect.appendConfig.of(extensions(runtime)) });
    cell.editor.view.contentDOM.addEventListener("focus", warm, { once: true, signal });
    if (cell.editor.view.hasFocus) warm();   // focused before this module had loaded
    if (cell.lastResult) markLine(cell, cell.lastResult);   // a run before the editor was built
  };
  for (const cell of cells) {
    if (cell.editor) equip(cell); else cell.addEventListener("editor", () => equip(cell), { once: true, signal });
    markErrors(cell, signal);
  }
  // a new worker has no engine: it loads again in that worker's gaps (after the replay)
  runtime.addEventListener("restart", () => { if (shared.warmed) runtime.query("load", "", 1, 0, QUERY_MS); }, { signal });
  return { unbind() { listening.abort(); } };
}
