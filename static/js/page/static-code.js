// A cell's code as the viewer first sees it: highlighted, with line numbers, drawn like the
// CodeMirror editor (editor.js) that replaces it when its slide comes near (cell.js), so that
// the 30 editors are not all built while the page loads. Only Lezer's Python parser and its
// highlighter are loaded here; deck.css gives the ``tok-*`` classes the colours of CodeMirror's
// default highlight style, and the ``cs-*`` grid the editor's gutters.
// A new view shows its lines plain at once (the same rows, so the same size) and is highlighted
// when the page is idle, one view per idle moment: parsing and highlighting all 31 cells inside
// ``new Cell`` took about 275 ms of a 1,8 s cold start here (docs/startup-main-thread.md). A print,
// or an edit, paints at once.
import { parser } from "@lezer/python";
import { classHighlighter, highlightCode } from "@lezer/highlight";
import { say } from "../shared/phrases.js";
import { whenIdle } from "./dom.js";

/** A line that opens a block (``def f():``, ``for …:``): the editor's fold gutter marks it. */
const opensBlock = (/** @type {string} */ line) => /:\s*(#.*)?$/.test(line);

/** One grid row of the view: line number, fold mark, the highlighted line. */
function row(number, foldable, first) {
  const active = first ? " cm-activeLineGutter" : "";
  const num = document.createElement("div");
  num.className = `cs-num${active}`;
  num.textContent = String(number);
  const fold = document.createElement("div");
  fold.className = `cs-fold${active}`;
  fold.textContent = foldable ? "⌄" : "";
  const line = document.createElement("div");
  line.className = first ? "cs-line cm-activeLine" : "cs-line";
  return [num, fold, line];
}

/** The top and bottom padding of the editor's content (4 px), gutters included. */
function pad() {
  return ["cs-num", "cs-fold", "cs-line"].map((cls) => {
    const el = document.createElement("div");
    el.className = `${cls} cs-pad`;
    return el;
  });
}

/** The views still shown plain, with the code each is to be highlighted with. */
const plain = new Map();
let idleScheduled = false;

function highlightNextWhenIdle() {
  if (idleScheduled || !plain.size) return;
  idleScheduled = true;
  whenIdle(() => {
    idleScheduled = false;
    for (const [view, code] of plain) {
      if (view.isConnected) { paintCode(view, code); break; }
      plain.delete(view);   // an editor took its place: nothing left to highlight
    }
    highlightNextWhenIdle();
  });
}

/** Highlight now every view still shown plain (a print: `build.py pdf`, or the browser's). */
export function paintPending() {
  for (const [view, code] of [...plain]) paintCode(view, code);
}
window.addEventListener("beforeprint", paintPending);

/** Fill ``view`` with ``code``'s rows: ``fill(lines, rows)`` writes each line's text into its row. */
function fillRows(/** @type {HTMLElement} */ view, /** @type {string} */ code,
                  /** @type {(lines: string[], rows: HTMLElement[][]) => void} */ fill) {
  const lines = code.split("\n");
  const rows = lines.map((text, i) => row(i + 1, opensBlock(text) && i + 1 < lines.length, i === 0));
  fill(lines, rows);
  for (const [, , line] of rows) if (!line.firstChild) line.append(document.createElement("br"));
  view.replaceChildren(...pad(), ...rows.flat(), ...pad());
}

/**
 * Fill ``view`` (a ``.cell-static`` element) with ``code``, highlighted, now.
 * @param {HTMLElement} view @param {string} code
 */
export function paintCode(view, code) {
  plain.delete(view);
  fillRows(view, code, (_, rows) => {
    let at = 0;
    highlightCode(code, parser.parse(code), classHighlighter, (text, classes) => {
      const target = rows[at][2];
      if (!classes) { target.append(text); return; }
      const span = document.createElement("span");
      span.className = classes;
      span.textContent = text;
      target.append(span);
    }, () => { at += 1; });
  });
}

/** Fill ``view`` with ``code`` plain now, and highlight it when the page is idle.
 *  @param {HTMLElement} view @param {string} code */
function paintPlainThenHighlight(view, code) {
  fillRows(view, code, (lines, rows) => { lines.forEach((text, i) => { if (text) rows[i][2].append(text); }); });
  plain.set(view, code);
  highlightNextWhenIdle();
}

/**
 * A new static view of ``code`` for the cell ``id``: focusable, read as the code it shows.
 * @param {string} id @param {string} code
 * @returns {HTMLElement}
 */
export function staticCode(id, code) {
  const view = document.createElement("div");
  view.className = "cm-editor cell-static";
  view.tabIndex = 0;
  view.setAttribute("role", "textbox");
  view.setAttribute("aria-multiline", "true");
  view.setAttribute("aria-label", say({ code: "cell-code-label", id }));
  paintPlainThenHighlight(view, code);
  return view;
}
