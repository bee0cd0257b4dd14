// The last visit's results, shown at once on the next visit until the live run lands (issue 32,
// item 2). A cell's last finished output is kept in the browser under a key made of everything
// that decides it: the deck's version (a digest of static/, the package and the runner), the
// package's wheel, the cell, its code as run, its slider values and its noise seed (a fixed
// seed; null for fresh noise). An edited or reset cell, moved sliders, another seed or a new deck
// version make another key, so a stale output is never found as current; entries of another
// deck version are dropped when the store opens. Figures are images (tens of kB of SVG each):
// the store keeps at most `maxChars` in all and evicts the oldest first; a browser that refuses
// storage (quota, private mode, disabled) simply gets nothing shown early.
//
// Pure apart from the storage object it is given (localStorage on the page, a Map-backed shim in
// tests/js/lastrun.test.mjs). cell.js shows `load()`'s items under `label(at)` before the first
// live run (when: lastvisits.js) and `save()`s what each finished run shows.

import { hash } from "./storage.js";
import { say } from "../shared/phrases.js";

const PREFIX = "dpdeck:lastrun:";
const INDEX = `${PREFIX}index`;
export const MAX_CHARS = 2_000_000;   // ~4 MB of UTF-16 at most: under half a 5 MB origin quota


/**
 * What decides a cell's output.
 * @typedef {object} RunInputs
 * @property {string} version   the deck's version (DeckConfig.version)
 * @property {string} wheel     the package's wheel (DeckConfig.wheel: its name carries its version)
 * @property {string} cellId
 * @property {string} code      the code as run (an edit or a slider changes it)
 * @property {Record<string, number | string>} params  slider values, by name
 * @property {number | null} seed  the fixed noise seed, or null for fresh noise
 */

/** The storage key of one run's inputs (two hashes: a collision must match both). */
export function runKey(/** @type {RunInputs} */ inputs) {
  const params = Object.keys(inputs.params).sort().map((k) => [k, inputs.params[k]]);
  const text = JSON.stringify([inputs.wheel, inputs.cellId, inputs.code, params, inputs.seed]);
  return `${PREFIX}${hash(inputs.version)}:${hash(text)}${hash(text.split("").reverse().join(""))}`;
}

/** «calculado en su visita anterior, hh:mm», in the viewer's local time. */
export function label(/** @type {number} */ at) {
  const d = new Date(at);
  const two = (/** @type {number} */ n) => String(n).padStart(2, "0");
  return say({ code: "last-visit", time: `${two(d.getHours())}:${two(d.getMinutes())}` });
}

/**
 * @typedef {{key: string, at: number, chars: number}} IndexEntry
 * @typedef {{getItem(k: string): string | null, setItem(k: string, v: string): void,
 *            removeItem(k: string): void}} StorageLike
 */

export class LastRunStore {
  /**
   * @param {StorageLike | null} storage  null (or one that throws) when the browser refuses it
   * @param {string} version  the deck's version: entries of any other are dropped now
   * @param {number} [maxChars]
   */
  constructor(storage, version, maxChars = MAX_CHARS) {
    this.storage = storage;
    this.prefix = `${PREFIX}${hash(version)}:`;
    this.maxChars = maxChars;
    /** @type {IndexEntry[]} */
    this.index = this.readIndex();
    const stale = this.index.filter((e) => !e.key.startsWith(this.prefix));
    if (stale.length) {
      for (const e of stale) this.remove(e.key);
      this.index = this.index.filter((e) => e.key.startsWith(this.prefix));
      this.writeIndex();
    }
  }

  /** @returns {IndexEntry[]} */
  readIndex() {
    try {
      const list = JSON.parse(this.storage?.getItem(INDEX) ?? "[]");
      return Array.isArray(list)
        ? list.filter((e) => e && typeof e.key === "string" && typeof e.at === "number"
          && typeof e.chars === "number")
        : [];
    } catch { return []; }
  }

  writeIndex() {
    try { this.storage?.setItem(INDEX, JSON.stringify(this.index)); } catch { /* page only */ }
  }

  /** @param {string} key */
  remove(key) {
    try { this.storage?.removeItem(key); } catch { /* nothing to remove */ }
  }

  /**
   * The output last saved under `key` and when it was computed, or null.
   * @param {string} key
   * @returns {{items: import("../shared/types.js").OutputItem[], at: number} | null}
   */
  load(key) {
    if (!key.startsWith(this.prefix)) return null;   // another deck version's: never current
    try {
      const saved = JSON.parse(this.storage?.getItem(key) ?? "null");
      if (saved && Array.isArray(saved.items) && typeof saved.at === "number") return saved;
    } catch { /* unreadable: as if absent */ }
    return null;
  }

  /**
   * Keep a finished run's output under `key`, evicting the oldest entries to stay under
   * `maxChars`; an output bigger than that, or a storage that refuses it, is not kept.
   * @param {string} key
   * @param {import("../shared/types.js").OutputItem[]} items
   * @param {number} at  when it was computed (ms since the epoch)
   * @returns {boolean} whether it was kept
   */
  save(key, items, at) {
    if (!this.storage || !key.startsWith(this.prefix)) return false;
    const text = JSON.stringify({ items, at });
    if (text.length > this.maxChars) return false;
    this.index = this.index.filter((e) => e.key !== key);
    const evictTo = (/** @type {number} */ limit) => {
      let total = this.index.reduce((sum, e) => sum + e.chars, 0);
      this.index.sort((a, b) => a.at - b.at);
      while (this.index.length && total > limit) {
        const oldest = /** @type {IndexEntry} */ (this.index.shift());
        this.remove(oldest.key);
        total -= oldest.chars;
      }
    };
    evictTo(this.maxChars - text.length);
    for (;;) {
      try {
        this.storage.setItem(key, text);
        break;
      } catch {   // over the browser's quota: drop the oldest and try again, or give up
        if (!this.index.length) { this.writeIndex(); return false; }
        evictTo(this.index.reduce((sum, e) => sum + e.chars, 0) - 1);
      }
    }
    this.index.push({ key, at, chars: text.length });
    this.writeIndex();
    return true;
  }
}
