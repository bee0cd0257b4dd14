// A failed run's error as a diagnostic in the editor: which line of the cell failed, and what
// to tell a student, in Spanish, where Python's own message is obscure (a NameError, a wrong
// keyword of a package function, a privacy parameter out of range). Pure: no DOM, no
// CodeMirror (tests/js/diagnostics.test.mjs). completion.js shows what this returns.

import { PRIVACY_PARAMS, say } from "../shared/phrases.js";

/** @typedef {import("../shared/types.js").ErrorRecord} ErrorRecord */

/** A number in Python's text as a Spanish reader writes it (decimal comma). */
function spanishNumber(text) {
  return /^-?\d+\.\d+(e[-+]?\d+)?$/i.test(text) ? text.replace(".", ",") : text;
}

/** The line (1-based) of the cell ``cellId`` where ``error`` was raised, or null: the last
 *  frame of the cell's own file in the traceback (cellrunner names it ``<celda id>``). */
export function errorLine(error, cellId) {
  const file = `"<celda ${cellId}>", line `;
  const text = error?.traceback ?? "";
  const at = text.lastIndexOf(file);
  if (at < 0) return null;
  const line = Number.parseInt(text.slice(at + file.length), 10);
  return Number.isFinite(line) && line > 0 ? line : null;
}

/** Levenshtein distance, for «¿quiso decir…?» among a few names. */
function distance(a, b) {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    row = next;
  }
  return row[b.length];
}

/** The closest of ``names`` to ``word`` (a prefix counts as close), or null. */
export function closest(word, names) {
  let best = null;
  let bestScore = Infinity;
  for (const name of names) {
    const score = name.startsWith(word) || word.startsWith(name) ? 0.5 : distance(word, name);
    if (score < bestScore) { best = name; bestScore = score; }
  }
  return bestScore <= Math.max(2, word.length / 2) ? best : null;
}

/** Python's own line of the error (``Type: message``, with its «Did you mean» hint): the last
 *  line of the traceback but for the Spanish one cellrunner writes under it. */
function lastLine(error) {
  const lines = (error.traceback ?? "").trim().split("\n");
  return [...lines].reverse().find((line) => line.startsWith(`${error.type}:`)) ?? lines[lines.length - 1] ?? "";
}

function nameError(error) {
  const name = /name '([^']+)' is not defined/.exec(error.message)?.[1];
  if (!name) return null;
  const hint = /Did you mean: '([^']+)'/.exec(lastLine(error))?.[1];
  return say({ code: "name-undefined", name, hint: hint ?? null });
}

function keywordError(error, index) {
  const match = /^(\w+)\(\) got an unexpected keyword argument '([^']+)'/.exec(error.message);
  if (!match) return null;
  const [, fn, word] = match;
  const entry = index?.byName?.get(fn);
  const params = (entry?.params ?? []).map((p) => p.name).filter((n) => !n.startsWith("*"));
  const hint = params.length ? closest(word, params) : null;
  return say({ code: "keyword-unknown", fn, word, hint, params });
}

function privacyError(error) {
  const match = /^(\w+) must be (.+?), got (.+)$/.exec(error.message);
  if (!match) return null;
  const [, name, , value] = match;
  const what = PRIVACY_PARAMS[name] ?? say({ code: "param-out-of-range", name, range: match[2] });
  return say({ code: "param-invalid", name, what, value: spanishNumber(value) });
}

/**
 * What to tell a student about ``error``: Spanish where we know the case, else Python's own
 * ``Type: message``.
 * @param {ErrorRecord} error
 * @param {{byName: Map<string, {params: {name: string}[] | null}>} | null} index the API index
 * @returns {string}
 */
export function explain(error, index = null) {
  const spanish = (error.type === "NameError" && nameError(error))
    || (error.type === "TypeError" && keywordError(error, index))
    || (error.type === "ValueError" && privacyError(error));
  return spanish || `${error.type}: ${error.message}`;
}
