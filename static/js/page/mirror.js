// One interpreter, even in speaker view: reveal.js's speaker view loads the deck again in
// iframes (URL with ?receiver). Those copies boot no Python; the main window mirrors every
// cell's code and output to them over a BroadcastChannel. The copies' buttons for a slide's
// suggested edits (``try:``) ask the main window, over the same channel, to apply and run them.
// Messages: PROTOCOL.md, "Speaker view ⇄ main window".

import { assertNever } from "../shared/never.js";

const THROTTLE_MS = 100;

/** @typedef {import("../shared/types.js").CopyToMain} CopyToMain */
/** @typedef {import("../shared/types.js").MainToCopies} MainToCopies */
/** @typedef {import("./cell.js").Cell} Cell */
/** @typedef {import("./exercise.js").ExerciseHub} ExerciseHub */
/** @typedef {import("./context.js").DeckContext} DeckContext */
/** @typedef {import("./context.js").Bound} Bound */

export function isReceiver() {
  return /(^|[?&])receiver\b/i.test(location.search);
}

/** In the main window: publish cells and runtime status; answer a copy's "hello".
 *  ``unbind()`` closes the channel, removes the cells', the runtime's and the exercises'
 *  listeners, and drops the changes still waiting for their throttle.
 *  @param {DeckContext} ctx  its config's version names the channel
 *  @param {{exercises?: ExerciseHub | null}} [options]
 *  @returns {Bound} */
export function publish(ctx, { exercises = null } = {}) {
  const { cells, runtime } = ctx;
  if (!runtime || !("BroadcastChannel" in self)) return { unbind() {} };
  const channel = new BroadcastChannel(`dpdeck:${ctx.config.version}`);
  const listening = new AbortController();
  const { signal } = listening;
  /** @param {MainToCopies} msg */
  const post = (msg) => channel.postMessage(msg);
  /** @type {Map<Cell, ReturnType<typeof setTimeout>>} */
  const timers = new Map();
  /** @param {Cell} cell */
  const send = (cell) => post({ type: "cell", snap: cell.snapshot() });
  for (const cell of cells) {
    cell.addEventListener("change", () => {
      if (timers.has(cell)) return;
      timers.set(cell, setTimeout(() => { timers.delete(cell); send(cell); }, THROTTLE_MS));
    }, { signal });
  }
  runtime.addEventListener("status", (/** @type {CustomEvent} */ e) => post({ type: "status", ...e.detail }), { signal });
  /** @param {ExerciseHub} hub */
  const sendExercises = (hub) => post({ type: "exercises", ...hub.summary() });
  exercises?.addEventListener("change", () => sendExercises(exercises), { signal });
  const byId = new Map(cells.map((c) => [c.id, c]));
  channel.onmessage = (/** @type {MessageEvent<CopyToMain>} */ e) => {
    const msg = e.data;
    switch (msg?.type) {
      case "hello":
        post({ type: "status", state: runtime.state, detail: runtime.detail });
        for (const cell of cells) send(cell);
        if (exercises) sendExercises(exercises);
        return;
      case "try": {
        const cell = byId.get(msg.id);
        if (cell && (msg.index === null || Number.isInteger(msg.index))) cell.applyTry(msg.index);
        return;
      }
      default:   // not a message of ours: dropped
        assertNever(msg, { ignore: true });
    }
  };
  return {
    unbind() {
      listening.abort();
      for (const timer of timers.values()) clearTimeout(timer);
      timers.clear();
      channel.close();
    },
  };
}

/** In a speaker-view copy: reveal.js writes the notes into the speaker view's own document,
 *  which has none of the deck's styles; without KaTeX's stylesheet every formula in the notes
 *  shows twice (its MathML copy, which that stylesheet hides, too). Link it there, once. */
export function styleSpeakerNotes(href) {
  let doc;
  try { doc = window.parent !== window ? window.parent.document : null; } catch { return; }
  if (!doc?.querySelector(".speaker-controls-notes") || doc.getElementById("dpdeck-katex")) return;
  const link = doc.createElement("link");
  link.id = "dpdeck-katex";
  link.rel = "stylesheet";
  link.href = href;
  doc.head.append(link);
}

/** In a speaker-view copy: show what the main window computes. ``unbind()`` closes the
 *  channel and removes the cells' "try" listeners.
 *  @param {DeckContext} ctx  its config's version names the channel
 *  @param {{onStatus: (status: import("../shared/types.js").StatusMessage) => void,
 *           exercises?: ExerciseHub | null}} options
 *  @returns {Bound} */
export function subscribe(ctx, { onStatus, exercises = null }) {
  if (!("BroadcastChannel" in self)) return { unbind() {} };
  const { cells } = ctx;
  const channel = new BroadcastChannel(`dpdeck:${ctx.config.version}`);
  const listening = new AbortController();
  /** @param {CopyToMain} msg */
  const post = (msg) => channel.postMessage(msg);
  const byId = new Map(cells.map((c) => [c.id, c]));
  channel.onmessage = (/** @type {MessageEvent<MainToCopies>} */ e) => {
    const msg = e.data;
    switch (msg?.type) {
      case "cell": byId.get(msg.snap.id)?.restore(msg.snap); return;
      case "status": onStatus(msg); return;
      case "exercises": exercises?.restore(msg); return;
      default: assertNever(msg, { ignore: true });   // not a message of ours: dropped
    }
  };
  for (const cell of cells) {
    cell.addEventListener("try", (/** @type {CustomEvent} */ e) => post({ type: "try", id: cell.id, index: e.detail.index }),
                          { signal: listening.signal });
  }
  post({ type: "hello" });
  return { unbind() { listening.abort(); channel.close(); } };
}
