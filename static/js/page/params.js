// Live parameters: sliders (or selects) bound to a name the cell's code assigns. Moving one
// rewrites that assignment in the editor (the audience sees what runs) and re-runs the cell;
// editing the code by hand moves the control to what the code now says (the code governs).
// What is bindable, and where the control writes, the build alone decides (dpdeck/build/cellcode.py
// ``binding``: the one top-level ``name = <literal>``); the page replaces exactly that literal.
import { say } from "../shared/phrases.js";

const DEBOUNCE_MS = 120;

function formatNumber(value, step) {
  if (Number.isInteger(step) && Number.isInteger(value)) return String(value);
  const text = Number(value.toPrecision(3)).toString();
  return text.includes(".") || text.includes("e") ? text : `${text}.0`;
}

function pythonLiteral(value) {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  return String(value);
}

/**
 * The index of the line a control writes in ``lines``: the line the build found (``p.line``,
 * 1-based) while it still reads ``prefix + literal + suffix``; after an edit moved it, the one
 * line that does; -1 when none or several do (the control then changes nothing and says so).
 * The build alone decides what is bindable (dpdeck/build/cellcode.py ``binding``).
 */
export function bindingLine(lines, p) {
  const fits = (line) => line.length > p.prefix.length + p.suffix.length
    && line.startsWith(p.prefix) && line.endsWith(p.suffix);
  if (fits(lines[p.line - 1] ?? "")) return p.line - 1;
  const found = lines.flatMap((line, i) => (fits(line) ? [i] : []));
  return found.length === 1 ? found[0] : -1;
}

/** The literal's text on the control's line of ``code``, or undefined. */
function literalText(code, p) {
  const lines = code.split("\n");
  const i = bindingLine(lines, p);
  return i < 0 ? undefined : lines[i].slice(p.prefix.length, lines[i].length - p.suffix.length);
}

/** The value the code assigns now to the control's name (a number, or the literal's text). */
export function assignedValue(code, p) {
  const text = literalText(code, p)?.trim();
  if (text === undefined) return undefined;
  if (text === "True" || text === "False") return text === "True";
  const quoted = /^(["'])(.*)\1$/.exec(text);
  if (quoted) return quoted[2];
  const n = Number(text);
  return text !== "" && Number.isFinite(n) ? n : text;
}

/** ``code`` with the control's literal replaced by ``literal`` (unchanged when not found). */
export function replaceAssignment(code, p, literal) {
  const lines = code.split("\n");
  const i = bindingLine(lines, p);
  if (i < 0) return code;
  lines[i] = p.prefix + literal + p.suffix;
  return lines.join("\n");
}

const SWIPE_PX = 10;   // a finger moved this far has said which way it goes

/**
 * A finger that lands on a slider may mean to scroll the page past it. Until the gesture says
 * which (``SWIPE_PX`` one way more than the other), a touch's changes are held: sideways, they
 * apply (``apply``); up or down, or taken over by the browser's scrolling (pointercancel), the
 * slider stays where it was (``revert`` redraws its label). Mouse and keys apply at once.
 * @param {HTMLInputElement} input
 * @returns {{holding: () => boolean}}
 */
export function guardSwipe(input, apply, revert) {
  /** @type {null | "undecided" | "sideways" | "scroll"} the touch under way, if any */
  let mode = null;
  let start = { x: 0, y: 0, value: "" };
  const back = () => { if (input.value !== start.value) { input.value = start.value; revert(); } };
  input.addEventListener("pointerdown", (e) => {
    mode = e.pointerType === "touch" ? "undecided" : null;
    start = { x: e.clientX, y: e.clientY, value: input.value };
  });
  input.addEventListener("pointermove", (e) => {
    if (mode !== "undecided") return;
    const dx = Math.abs(e.clientX - start.x), dy = Math.abs(e.clientY - start.y);
    if (dy >= SWIPE_PX && dy > dx) { mode = "scroll"; back(); }
    else if (dx >= SWIPE_PX) { mode = "sideways"; if (input.value !== start.value) apply(); }
  });
  input.addEventListener("input", () => { if (mode === "scroll") back(); });
  input.addEventListener("pointercancel", () => { if (mode !== "sideways") back(); mode = null; });
  input.addEventListener("pointerup", () => {
    if (mode === "undecided" && input.value !== start.value) apply();   // a tap on the track
    if (mode === "scroll") back();
    mode = null;
  });
  return { holding: () => mode === "undecided" || mode === "scroll" };
}

/**
 * Keep a control on what the code assigns: on every change of the cell (a hand edit, ↺, a
 * restored edit), once the literal's text differs from the last one seen, ``show(value, text)``.
 * The control's own writes come back here too, with the text it wrote: nothing moves.
 */
function follow(cell, p, mark, show) {
  let seen = literalText(cell.code, p)?.trim();
  cell.addEventListener("change", () => {
    const text = literalText(cell.code, p)?.trim();
    if (text === seen) return;
    seen = text;
    if (mark() && text !== undefined) show(assignedValue(cell.code, p), text);
  });
}

/** A select over ``p.options``. @returns {HTMLSelectElement} */
function buildSelect(cell, p, { current, write, mark }) {
  const input = document.createElement("select");
  for (const opt of p.options) {
    const o = document.createElement("option");
    o.value = JSON.stringify(opt);
    o.textContent = String(opt);
    input.append(o);
  }
  const initial = current ?? p.value ?? p.options[0];
  input.value = JSON.stringify(initial);
  input.addEventListener("change", () => {
    const v = JSON.parse(input.value);
    write(pythonLiteral(v));
  });
  follow(cell, p, mark, (value) => {   // a hand edit: the select shows the code's value
    const option = p.options.find((o) => o === value);
    if (option !== undefined) input.value = JSON.stringify(option);
  });
  return input;
}

/** A slider (linear or logarithmic) and the value it shows. @returns {HTMLInputElement} */
function buildSlider(cell, p, control) {
  const { current, write, mark, label, shown } = control;
  const input = document.createElement("input");
  input.type = "range";
  const step = p.step ?? (p.max - p.min) / 100;
  const toValue = p.log
    ? (pos) => p.min * Math.pow(p.max / p.min, pos / 1000)
    : (pos) => p.min + Math.round((pos / 1000) * (p.max - p.min) / step) * step;
  const toPos = p.log
    ? (v) => 1000 * Math.log(v / p.min) / Math.log(p.max / p.min)
    : (v) => 1000 * (v - p.min) / (p.max - p.min);
  input.min = "0"; input.max = "1000"; input.step = "1";
  const initial = typeof (current ?? p.value) === "number" ? (current ?? p.value) : p.min;
  input.value = String(Math.round(toPos(initial)));
  // the value as the code has it (a point for decimals, as Python needs): label and code agree
  const written = literalText(cell.code, p)?.trim();
  shown.textContent = typeof current === "number" && written ? written : formatNumber(initial, step);
  shown.title = say({ code: "param-python-literal" });
  input.setAttribute("aria-label", `${p.label}: ${shown.textContent}`);
  const show = () => {
    const literal = formatNumber(toValue(Number(input.value)), step);
    shown.textContent = literal;
    input.setAttribute("aria-label", `${p.label}: ${literal}`);
    return literal;
  };
  const swipe = guardSwipe(input, () => write(show()), show);
  input.addEventListener("input", () => {
    const literal = show();
    if (!swipe.holding()) write(literal);
  });
  follow(cell, p, mark, (value, written) => {   // a hand edit: the slider shows the code's value
    if (written === control.wrote) return;   // its own write
    control.wrote = null;
    if (typeof value !== "number") return;
    const clamped = Math.min(p.max, Math.max(p.min, value));
    input.value = String(Math.round(toPos(clamped)));
    shown.textContent = written;
    input.setAttribute("aria-label", `${p.label}: ${written}`);
    label.title = clamped === value ? ""
      : say({ code: "param-outside", written, min: p.min, max: p.max });
    label.classList.toggle("param-outside", clamped !== value);
  });
  return input;
}

export function buildControls(cell, params) {
  const box = document.createElement("div");
  box.className = "cell-params";
  /** @type {number | undefined} the pending run's timer */
  let timer;
  const schedule = () => { clearTimeout(timer); timer = setTimeout(() => cell.requestRun(), DEBOUNCE_MS); };

  for (const p of params) {
    const label = document.createElement("label");
    label.className = "param";
    const name = document.createElement("span");
    name.className = "param-name";
    name.textContent = p.label;
    const shown = document.createElement("output");
    shown.className = "param-value";
    const current = assignedValue(cell.code, p);
    /** Say whether the code still has the control's line; true if it has. */
    const mark = () => {
      const bound = assignedValue(cell.code, p) !== undefined;
      label.classList.toggle("param-unbound", !bound);
      label.title = bound ? "" : say({ code: "param-unbound", prefix: p.prefix });
      return bound;
    };
    // ``wrote``: the literal this control wrote last (its own change, not a hand edit)
    const control = { current, mark, label, shown, wrote: null, write: (literal) => {
      if (!mark()) return;   // into the line the build bound, or say it is gone
      label.classList.remove("param-outside");   // the control's own value is in its range
      control.wrote = literal;
      cell.code = replaceAssignment(cell.code, p, literal);
      schedule();
    } };
    const input = p.options ? buildSelect(cell, p, control) : buildSlider(cell, p, control);
    input.dataset.param = p.name;
    label.append(name, input, shown);
    box.append(label);
  }
  return box;
}
