// A cell's output as plain data (so it can be mirrored to the speaker view and re-drawn),
// and its rendering: always as text nodes or <img> of SVG or PNG blobs, never as HTML.
import { drawMeter } from "./meter.js";
import { say } from "../shared/phrases.js";

/** The bytes of a base64 string (a PNG figure travels as one: plain data, clonable). */
function fromBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** A figure item's image: a PNG (``png``, base64) when cellrunner found its SVG too big. */
function figureBlob(item) {
  if (item.png != null) {
    try {
      return new Blob([fromBase64(item.png)], { type: "image/png" });
    } catch {
      return new Blob([], { type: "image/png" });   // not base64: the <img> shows its alt text
    }
  }
  return new Blob([item.svg ?? ""], { type: "image/svg+xml" });
}

/** Lines per piece of a text block. A text block's first PIECE_LINES lines are its own text;
 *  the lines after them go into pieces of PIECE_LINES lines (``span.out-lines``, inline blocks
 *  of the block's width: deck.css), so that what arrives next lays out only the last piece,
 *  not every line above it again. As one text, a million printed lines (cut to 200 000
 *  characters) kept the page's main thread busy for most of the run. */
const PIECE_LINES = 400;

/**
 * Say on a text block whether it hides lines above or below (``data-more``: "above", "below",
 * "both"), and columns to the left or right (``data-wide``: "left", "right", "both": a phone's
 * printed table keeps its columns and scrolls sideways): deck.css then says «↑ más arriba» /
 * «↓ más abajo» / «desliza →» over it and shades the hidden edge, since a scrollbar may not
 * show (overlay scrollbars: a phone's, a projector's browser). Only where something is hidden:
 * a block that fits has neither. Measured once the layout has settled (a later block, an error,
 * may take the room after this one was drawn).
 */
function markHidden(pre) {
  requestAnimationFrame(() => {
    const above = pre.scrollTop > 1;
    const below = pre.scrollTop + pre.clientHeight < pre.scrollHeight - 1;
    if (above || below) pre.dataset.more = above && below ? "both" : above ? "above" : "below";
    else delete pre.dataset.more;
    const left = pre.scrollLeft > 1;
    const right = pre.scrollLeft + pre.clientWidth < pre.scrollWidth - 1;
    if (left || right) pre.dataset.wide = left && right ? "both" : left ? "left" : "right";
    else delete pre.dataset.wide;
  });
}

/** The slides the browser skips for now (phone.css: a slide far from the screen has
 *  `content-visibility: auto`), as its `contentvisibilityautostatechange` says. Kept here, not
 *  asked (`checkVisibility` recomputes the page's style at each call: 1.35 s of the phone's
 *  main thread in one cold visit, bench/diagnose). Where the browser has no such event, none. */
const skippedNow = new WeakSet();

/** Whether ``el`` is on a slide the browser skips for now: measuring it would lay that slide
 *  out at once, for nothing (on a phone's CPU, what every output drawn ahead, the pre-run's,
 *  cost most: F2, docs/benchmark.md). @param {HTMLElement} el */
function skipped(el) {
  for (let x = el.parentElement; x; x = x.parentElement) if (skippedNow.has(x)) return true;
  return false;
}

/** Follow a long print to its last lines (an error shows whole), and say what it hides; for a
 *  block on a skipped page, once its page comes near (``data-follow``: it is owed that).
 *  @param {HTMLElement} pre */
function follow(pre) {
  if (skipped(pre)) {
    pre.dataset.follow = "";
    return;
  }
  delete pre.dataset.follow;
  if (pre.dataset.kind !== "error") pre.scrollTop = pre.scrollHeight;
  markHidden(pre);
}

// a slide the browser stops skipping: what was drawn on it meanwhile is followed and measured now
// (the page's document; none where the page's pure modules are tested, under node)
globalThis.document?.addEventListener("contentvisibilityautostatechange", (event) => {
  const e = /** @type {Event & {skipped: boolean}} */ (event);
  if (!(e.target instanceof Element)) return;
  if (e.skipped) {
    skippedNow.add(e.target);
    return;
  }
  skippedNow.delete(e.target);
  for (const pre of e.target.querySelectorAll("pre[data-follow]")) follow(/** @type {HTMLElement} */ (pre));
}, { capture: true });

/** Text blocks measured again when their box changes size: one drawn while its slide was not laid
 *  out (a phone lays out a page once it is near) has no width to measure until it is; a phone
 *  turned sideways may now show the whole line. */
const resized = typeof ResizeObserver === "function"
  ? new ResizeObserver((entries) => { for (const e of entries) markHidden(e.target); })
  : null;

export class Output {
  constructor(el) {
    this.el = el;
    // {kind: "stdout"|"stderr"|"value"|"error", text} | {kind: "figure", svg | png, alt, note?}
    // | {kind: "budget", accountants, more}: the privacy-budget meter (meter.js), one per run,
    // replaced by each update and drawn above the rest
    /** @type {import("../shared/types.js").OutputItem[]} */
    this.items = [];
    this.meter = null;   // the meter's element, once the run has a budget item
    this.textBlock = null;
    /** @type {HTMLElement | null} */
    this.piece = null;   // where text goes: the text block or its last piece, and the line
    this.pieceLines = 0; // ends it holds
    this.queue = [];     // items not drawn yet: drawn once per frame, however fast they come
    this.frame = 0;
    this.urls = new Set();   // figures' blob URLs not loaded yet (a lazy image may never be)
  }

  clear() {
    for (const url of this.urls) URL.revokeObjectURL(url);
    this.urls.clear();
    this.items = [];
    this.queue = [];
    for (const pre of this.el.querySelectorAll("pre")) resized?.unobserve(pre);
    this.el.replaceChildren();
    this.textBlock = null;
    this.meter = null;
  }

  /** @param {import("../shared/types.js").OutputItem} item */
  add(item) {
    if (item.kind === "budget") {   // an update replaces the meter: in the items, and queued
      const copy = { ...item };
      const at = this.items.findIndex((i) => i.kind === "budget");
      if (at >= 0) this.items[at] = copy; else this.items.push(copy);
      this.queue = this.queue.filter((i) => i.kind !== "budget");
      this.queue.push(copy);
      if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
      return;
    }
    const last = this.items[this.items.length - 1];
    if (item.kind !== "figure" && last && last.kind === item.kind) {
      /** @type {import("../shared/types.js").TextItem} */ (last).text += item.text;
    } else this.items.push({ ...item });
    this.queue.push(item);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Draw what is queued now (the cell calls it when a run ends). */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const queue = this.queue;
    this.queue = [];
    for (const item of queue) this.draw(item);
    // follow a long print (its last lines lead to an error drawn under it); an error shows whole
    for (const pre of this.el.querySelectorAll("pre")) follow(/** @type {HTMLElement} */ (pre));
  }

  draw(item) {
    if (item.kind === "budget") {   // at the top of the output: a long print cannot hide it
      if (!this.meter) {
        this.meter = document.createElement("div");
        this.meter.className = "out-budget";
        this.meter.setAttribute("role", "group");
        this.meter.setAttribute("aria-label", say({ code: "meter-label" }));
        this.el.prepend(this.meter);
      }
      drawMeter(this.meter, item);
      return;
    }
    if (item.kind === "figure") {
      const img = document.createElement("img");
      img.className = "out-figure";
      img.alt = item.alt || "Figura";
      img.decoding = "async";
      // parsed and drawn only once its slide is shown or near: an SVG image is parsed and
      // styled on the main thread, which a run of every cell must not fill (figures of slides
      // far away, e.g. the background pre-run's)
      img.loading = "lazy";
      const url = URL.createObjectURL(figureBlob(item));
      const revoke = () => { URL.revokeObjectURL(url); this.urls.delete(url); };
      this.urls.add(url);
      img.addEventListener("load", revoke, { once: true });
      img.addEventListener("error", revoke, { once: true });
      img.src = url;
      this.el.append(img);
      if (item.note) {   // e.g. why this figure is a PNG: under it, as text
        const note = document.createElement("p");
        note.className = "out-note";
        note.textContent = item.note;
        this.el.append(note);
      }
      this.textBlock = null;
      return;
    }
    if (!this.textBlock || this.textBlock.dataset.kind !== item.kind) {
      this.textBlock = document.createElement("pre");
      this.textBlock.className = `out-${item.kind}`;
      this.textBlock.dataset.kind = item.kind;
      const pre = this.textBlock;
      // it may scroll (a long print; a wide table on a phone): the keyboard reaches it, and a
      // screen reader names it (axe-core's scrollable-region-focusable)
      pre.tabIndex = 0;
      pre.setAttribute("role", "group");
      pre.setAttribute("aria-label", say({ code: "output-label", kind: item.kind }));
      pre.addEventListener("scroll", () => markHidden(pre), { passive: true });
      resized?.observe(pre);
      this.el.append(pre);
    }
    this.appendText(item.text);
  }

  /** Append ``text`` to the text block, in pieces of PIECE_LINES lines. A piece ends at a line
   *  end, so a line is never split, and what a reader copies is the text as printed (an inline
   *  block adds no line break of its own). @param {string} text */
  appendText(text) {
    const block = /** @type {HTMLElement} */ (this.textBlock);
    if (this.piece !== block && this.piece?.parentNode !== block) {   // a new text block
      this.piece = block;
      this.pieceLines = 0;
    }
    let rest = text;
    while (rest) {
      if (this.pieceLines >= PIECE_LINES) {   // full: the next lines begin a piece
        this.piece = document.createElement("span");
        this.piece.className = "out-lines";
        this.pieceLines = 0;
        block.append(this.piece);
      }
      let cut = 0;   // through the line end that fills the piece, or all of the rest
      while (this.pieceLines < PIECE_LINES) {
        const end = rest.indexOf("\n", cut);
        if (end < 0) { cut = rest.length; break; }
        cut = end + 1;
        this.pieceLines++;
      }
      let part = rest.slice(0, cut);
      rest = rest.slice(cut);
      const closing = this.pieceLines >= PIECE_LINES && this.piece !== block;
      // a full piece's last line end goes after it, into the block's own text: the next piece
      // then begins a line whatever the block's white-space (a phone's does not wrap)
      if (closing) part = part.slice(0, -1);
      if (part) this.piece.append(document.createTextNode(part));
      if (closing) block.append(document.createTextNode("\n"));
    }
  }

  /** Replace everything by ``items`` (a mirror, or a restored snapshot). */
  replace(items) {
    this.clear();
    for (const item of items) this.add(item);
    this.flush();
  }
}
