// Deck-wide actions beside the status indicator: run all, restart Python, reset all edits,
// and take the cells home (notebook.js: a notebook, a script, the dplab wheel); and where one is
// in the deck (n / 60), which reveal.js's own slide number does not show on a phone.
import { notebookAction } from "./notebook.js";
import { CAPTIONS, say } from "../shared/phrases.js";

/** A deck action's button. @param {string} label @param {string} text @param {() => void} onClick
 *  @param {AbortSignal} [signal]  its click listener goes when this aborts */
function action(label, text, onClick, signal) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "deck-action";
  const glyph = document.createElement("span");
  glyph.className = "glyph";
  glyph.textContent = text;
  b.append(glyph);
  if (CAPTIONS[text]) {
    const caption = document.createElement("span");
    caption.className = "caption";
    caption.setAttribute("aria-hidden", "true");
    caption.textContent = CAPTIONS[text];
    b.append(caption);
  }
  b.title = label;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick, { signal });
  return b;
}

/**
 * ⟲ asks first (issue 50, item 2): restarting Python loses every cell's variables, and one Enter
 * on the focused button did it. A modal <dialog> (focus held in it, Escape cancels, the page's
 * keys do not reach reveal.js meanwhile) whose «Cancelar» has the focus: Enter after Enter
 * cancels; only «Reiniciar Python» restarts. Returns ``ask()``, which opens it.
 * @param {() => void} onConfirm  what «Reiniciar Python» does
 * @param {() => void} onCancel  what closing it otherwise does
 * @param {AbortSignal} signal  its listeners go, and it too, when this aborts
 * @returns {() => void}
 */
function restartDialog(onConfirm, onCancel, signal) {
  const dialog = document.createElement("dialog");
  dialog.className = "deck-confirm";
  dialog.dataset.confirm = "restart";
  const title = document.createElement("h2");
  title.id = "restart-confirm-title";
  title.textContent = say({ code: "restart-confirm-title" });
  const text = document.createElement("p");
  text.id = "restart-confirm-text";
  text.textContent = say({ code: "restart-confirm-text" });
  dialog.setAttribute("aria-labelledby", title.id);
  dialog.setAttribute("aria-describedby", text.id);
  const choice = (/** @type {string} */ label, /** @type {string} */ value) => {
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = label;
    b.dataset.choice = value;
    b.addEventListener("click", () => dialog.close(value), { signal });
    return b;
  };
  const cancel = choice(say({ code: "restart-confirm-cancel" }), "cancel");
  const ok = choice(say({ code: "restart-confirm-ok" }), "restart");
  const buttons = document.createElement("div");
  buttons.className = "deck-confirm-buttons";
  buttons.append(cancel, ok);
  dialog.append(title, text, buttons);
  // the page's shortcuts (reveal.js: Escape opens the overview, keys move slides) wait
  dialog.addEventListener("keydown", (e) => e.stopPropagation(), { signal });
  dialog.addEventListener("close", () => {
    if (dialog.returnValue === "restart") onConfirm(); else onCancel();
  }, { signal });
  document.body.append(dialog);
  signal.addEventListener("abort", () => dialog.remove(), { once: true });
  return () => {
    if (dialog.open) return;
    dialog.returnValue = "";   // Escape closes it with this: a cancel
    dialog.showModal();
    cancel.focus();
  };
}

/** ▶▶: every cell, in order; the button says how far it got ("12/35") until the last ends. */
async function runAll(button, cells, announce) {
  if (button.dataset.progress) return;   // already running all: the one under way goes on
  const glyph = button.querySelector(".glyph");
  const label = button.getAttribute("aria-label");
  announce(say({ code: "run-all-started" }));
  try {
    for (const [i, cell] of cells.entries()) {
      button.dataset.progress = `${i + 1}/${cells.length}`;
      glyph.textContent = button.dataset.progress;
      button.title = say({ code: "run-all-progress", n: i + 1, total: cells.length });
      await cell.run({ background: true });
    }
  } finally {
    delete button.dataset.progress;
    glyph.textContent = "▶▶";
    button.title = label;
  }
  announce(say({ code: "run-all-ended" }));
}

/** ▶▶, ⟲, ↺ and ⤓ in the deck's chrome (#deck-actions), on the context's cells and runtime.
 *  ``unbind()`` removes their listeners (and the ⤓ menu's, on the document): the buttons stay,
 *  and do nothing.
 *  @param {import("./context.js").DeckContext} ctx
 *  @param {{store: import("./storage.js").EditStore}} options  the edits ↺ forgets
 *  @returns {import("./context.js").Bound} */
export function installActions(ctx, { store }) {
  const { cells, runtime, config, base, announce } = ctx;
  const bar = document.getElementById("deck-actions");
  if (!bar || !runtime) return { unbind() {} };
  const listening = new AbortController();
  const { signal } = listening;
  /** @param {string} label @param {string} text @param {() => void} onClick */
  const makeButton = (label, text, onClick) => action(label, text, onClick, signal);
  // a landmark: the status and the actions are content outside the slides (axe-core's "region")
  const chrome = bar.closest(".deck-chrome");
  chrome?.setAttribute("role", "region");
  chrome?.setAttribute("aria-label", say({ code: "actions-region" }));
  const runAllBtn = makeButton(say({ code: "run-all-label" }), "▶▶", () => runAll(runAllBtn, cells, announce));
  const askRestart = restartDialog(() => runtime.restart(say({ code: "restart-manual" })),
                                   () => announce(say({ code: "restart-cancelled" })), signal);
  const restart = makeButton(say({ code: "restart-label" }), "⟲", askRestart);
  restart.setAttribute("aria-haspopup", "dialog");
  const resetAll = makeButton(say({ code: "reset-all-label" }), "↺", () => {
    if (!confirm(say({ code: "reset-all-confirm" }))) return;
    store.clearAll();
    for (const cell of cells) cell.reset();
    announce(say({ code: "reset-all-done" }));
  });
  runAllBtn.dataset.action = "run-all";
  restart.dataset.action = "restart";
  resetAll.dataset.action = "reset-all";
  bar.append(runAllBtn, restart, resetAll);
  if (config?.wheel) bar.append(notebookAction({ cells, config, base, announce, makeButton, signal }));
  return { unbind() { listening.abort(); } };
}

/** "12 / 60" at the start of the deck's chrome, following the current slide. ``unbind()``
 *  removes its reveal.js listeners: the number stays where it was.
 *  @param {import("./context.js").DeckContext} ctx @returns {import("./context.js").Bound} */
export function showWhere(ctx) {
  const { reveal } = ctx;
  const chrome = document.querySelector(".deck-chrome");
  if (!chrome || !reveal) return { unbind() {} };
  const where = document.createElement("span");
  where.id = "deck-where";
  where.className = "deck-where";
  chrome.prepend(where);
  const update = () => {
    // getSlidePastCount() stays 0 in reveal.js's scroll view (it counts the slides marked past)
    const slides = reveal.getSlides();
    const current = reveal.getCurrentSlide();
    const n = (current ? slides.indexOf(current) : -1) + 1, total = slides.length;
    where.textContent = `${n} / ${total}`;
    where.setAttribute("aria-label", say({ code: "slide-of", n, total }));
  };
  reveal.on("slidechanged", update);
  reveal.on("ready", update);
  update();
  return { unbind() { reveal.off("slidechanged", update); reveal.off("ready", update); } };
}
