// Deck-wide actions beside the status indicator: run all, restart Python, reset all edits,
// and take the cells home (notebook.js: a notebook, a script, the dplab wheel); and where one is
// in the deck (n / 60), which reveal.js's own slide number does not show on a phone.
import { notebookAction } from "./notebook.js";
import { say } from "./phrases.js";

// a word under each sign (shown on phones, where there is no hover for the tooltip): ⟲ and ↺
// look alike, "Python" and "código" do not
const CAPTIONS = { "▶▶": "todas", "⟲": "Python", "↺": "código", "⤓": "llevar" };

function action(label, text, onClick) {
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
  b.addEventListener("click", onClick);
  return b;
}

/** ▶▶: every cell, in order; the button says how far it got ("12/35") until the last ends. */
async function runAll(button, cells, announce) {
  if (button.dataset.progress) return;   // already running all: the one under way goes on
  const glyph = button.querySelector(".glyph");
  const label = button.getAttribute("aria-label");
  announce("Ejecutando todas las celdas");
  try {
    for (const [i, cell] of cells.entries()) {
      button.dataset.progress = `${i + 1}/${cells.length}`;
      glyph.textContent = button.dataset.progress;
      button.title = `Ejecutando la celda ${i + 1} de ${cells.length}`;
      await cell.run({ background: true });
    }
  } finally {
    delete button.dataset.progress;
    glyph.textContent = "▶▶";
    button.title = label;
  }
  announce("Todas las celdas terminaron");
}

export function installActions({ cells, runtime, store, announce }) {
  const config = JSON.parse(document.getElementById("deck-config")?.textContent || "{}");
  const base = new URL(".", document.baseURI).href;
  const bar = document.getElementById("deck-actions");
  if (!bar) return;
  // a landmark: the status and the actions are content outside the slides (axe-core's "region")
  const chrome = bar.closest(".deck-chrome");
  chrome?.setAttribute("role", "region");
  chrome?.setAttribute("aria-label", "Estado de Python y acciones de la presentación");
  const runAllBtn = action("Ejecutar todas las celdas, en orden", "▶▶", () => runAll(runAllBtn, cells, announce));
  const restart = action("Reiniciar Python (se vuelven a correr las celdas originales ya ejecutadas; las editadas, al pulsar ▶)", "⟲",
                         () => runtime.restart(say({ code: "restart-manual" })));
  const resetAll = action("Deshacer todas las ediciones (volver al código original)", "↺", () => {
    if (!confirm("¿Volver al código original en todas las celdas?")) return;
    store.clearAll();
    for (const cell of cells) cell.reset();
    announce("Se restauró el código original de todas las celdas");
  });
  runAllBtn.dataset.action = "run-all";
  restart.dataset.action = "restart";
  resetAll.dataset.action = "reset-all";
  bar.append(runAllBtn, restart, resetAll);
  if (config?.wheel) bar.append(notebookAction({ cells, config, base, announce, makeButton: action }));
}

/** "12 / 60" at the start of the deck's chrome, following the current slide. */
export function showWhere(reveal) {
  const chrome = document.querySelector(".deck-chrome");
  if (!chrome) return;
  const where = document.createElement("span");
  where.id = "deck-where";
  where.className = "deck-where";
  chrome.prepend(where);
  const update = () => {
    // getSlidePastCount() stays 0 in reveal.js's scroll view (it counts the slides marked past)
    const slides = reveal.getSlides();
    const n = slides.indexOf(reveal.getCurrentSlide()) + 1, total = slides.length;
    where.textContent = `${n} / ${total}`;
    where.setAttribute("aria-label", `Diapositiva ${n} de ${total}`);
  };
  reveal.on("slidechanged", update);
  reveal.on("ready", update);
  update();
}
