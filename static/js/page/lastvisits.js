// The last visit's outputs on a warm visit (lastrun.js keeps them, Cell.showLastVisit draws one):
// the cells of the slide the page opens at get theirs at once, the others one idle moment at a
// time after page ready. Drawn all before page ready (36 outputs, 14 of them figures), they made
// a warm visit's page ready 0,24 s later under the aula profile (bench/startup.py, A/B in one
// run: docs/benchmark.md), on the thread that also takes Python's messages.
import { whenIdle } from "./dom.js";

const SLICE_MS = 8;   // outputs drawn per idle moment: as many as fit in this much time

/** The slide the URL's fragment opens: reveal.js's `#/<id>` or `#/<h>/<v>` (`hash: true`), the
 *  first slide without one, null when it names none. A guess made before reveal.js starts: a
 *  wrong one only makes that slide's outputs come a moment later.
 *  @param {string} hash @param {ParentNode} root @returns {Element | null} */
export function openingSlide(hash = location.hash, root = document) {
  const decoded = (/** @type {string} */ part) => {
    try { return decodeURIComponent(part); } catch { return part; }   // a malformed %-escape: as typed
  };
  const [first, second] = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decoded);
  const stacks = root.querySelectorAll(".reveal .slides > section");
  if (first === undefined) return stacks[0] ?? null;
  if (!/^\d+$/.test(first)) return root.querySelector(`section[id="${CSS.escape(first)}"]`);
  const stack = stacks[Number(first)] ?? null;
  const below = stack?.querySelectorAll(":scope > section") ?? [];
  return (second !== undefined && below.length ? below[Number(second)] : stack) ?? null;
}

/** Show each cell's last visit's output: those in ``opening`` now, the rest when the page is
 *  idle, in deck order; ``onDone()`` once every cell has had its turn. A cell that has run or
 *  runs by then keeps its own (Cell.showLastVisit). Returns ``flush()``, which draws the ones
 *  still waiting at once (a print does).
 *  @param {{root: Element, showLastVisit(): void}[]} cells @param {Element | null} opening
 *  @param {() => void} [onDone] */
export function showLastVisits(cells, opening, onDone = () => {}) {
  const later = cells.filter((cell) => !opening?.contains(cell.root));
  for (const cell of cells) if (!later.includes(cell)) cell.showLastVisit();
  const next = () => {
    if (!later.length) return;   // a print drew them first
    const until = performance.now() + SLICE_MS;
    do later.shift()?.showLastVisit(); while (later.length && performance.now() < until);
    if (later.length) whenIdle(next); else onDone();
  };
  if (later.length) whenIdle(next); else onDone();
  const flush = () => {
    if (!later.length) return;
    while (later.length) later.shift()?.showLastVisit();
    onDone();
  };
  window.addEventListener("beforeprint", flush);
  return { flush };
}
