// Edits are never lost: each edited cell's code is kept in localStorage, per deck and cell,
// keyed also by the authored code, so a new version of a cell does not resurrect stale edits.

const PREFIX = "dpdeck:";

/** FNV-1a over a string, in base 36: enough to tell versions of a cell apart (also lastrun.js's). */
export function hash(/** @type {string} */ text) {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) { h ^= text.charCodeAt(i); h = Math.imul(h, 16777619); }
  return (h >>> 0).toString(36);
}

/** Which exercises this browser has solved (exercise.js): a set of ids, per deck. Not under the
 *  edits' prefix, so "undo all edits" leaves the progress alone. */
export class ProgressStore {
  constructor(deckId) {
    this.key = `${PREFIX}progress:${hash(deckId)}`;
    /** where the exercises whose solution this browser loaded into the editor are kept */
    this.loadedKey = `${PREFIX}solution-loaded:${hash(deckId)}`;
  }

  /** The exercises whose official solution this browser loaded into the editor («Cargar en el
   *  editor»): running that code checks it, and counts for nothing. @returns {Set<string>} */
  loadedSolutions() {
    try {
      const ids = JSON.parse(localStorage.getItem(this.loadedKey) || "[]");
      return new Set(Array.isArray(ids) ? ids.filter((x) => typeof x === "string") : []);
    } catch { return new Set(); }
  }

  /** @param {string} id an exercise whose solution was loaded into the editor */
  markLoaded(id) {
    const ids = this.loadedSolutions().add(id);
    try { localStorage.setItem(this.loadedKey, JSON.stringify([...ids])); } catch { /* page only */ }
  }

  load() {
    try {
      const ids = JSON.parse(localStorage.getItem(this.key) || "[]");
      return new Set(Array.isArray(ids) ? ids.filter((x) => typeof x === "string") : []);
    } catch { return new Set(); }
  }

  save(ids) {
    try { localStorage.setItem(this.key, JSON.stringify([...ids])); } catch { /* page only */ }
  }
}

export class EditStore {
  constructor(deckId) {
    this.deck = PREFIX + hash(deckId) + ":";
  }

  key(cellId, authored) { return `${this.deck}${cellId}:${hash(authored)}`; }

  load(cellId, authored) {
    try { return localStorage.getItem(this.key(cellId, authored)); } catch { return null; }
  }

  save(cellId, authored, code) {
    try {
      if (code === authored) localStorage.removeItem(this.key(cellId, authored));
      else localStorage.setItem(this.key(cellId, authored), code);
    } catch { /* storage full or disabled: the edit lives in the page only */ }
  }

  clearAll() {
    try {
      for (const k of Object.keys(localStorage)) if (k.startsWith(this.deck)) localStorage.removeItem(k);
    } catch { /* nothing to clear */ }
  }
}
