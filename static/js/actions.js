// Deck-wide actions beside the status indicator: run all, restart Python, reset all edits,
// and take the cells home (notebook.js: a notebook, a script, the dplab wheel).
import { notebookAction } from "./notebook.js";

function action(label, text, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "deck-action";
  b.textContent = text;
  b.title = label;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

export function installActions({ cells, runtime, store, announce }) {
  const config = JSON.parse(document.getElementById("deck-config")?.textContent || "{}");
  const base = new URL(".", document.baseURI).href;
  const bar = document.getElementById("deck-actions");
  if (!bar) return;
  const runAll = action("Ejecutar todas las celdas, en orden", "▶▶", async () => {
    announce("Ejecutando todas las celdas");
    for (const cell of cells) await cell.run({ background: true });
    announce("Todas las celdas terminaron");
  });
  const restart = action("Reiniciar Python (las celdas ya ejecutadas se vuelven a correr)", "⟲",
                         () => runtime.restart("Python reiniciado a pedido"));
  const resetAll = action("Deshacer todas las ediciones (volver al código original)", "↺", () => {
    if (!confirm("¿Volver al código original en todas las celdas?")) return;
    store.clearAll();
    for (const cell of cells) cell.reset();
    announce("Se restauró el código original de todas las celdas");
  });
  runAll.dataset.action = "run-all";
  restart.dataset.action = "restart";
  resetAll.dataset.action = "reset-all";
  bar.append(runAll, restart, resetAll);
  if (config?.wheel) bar.append(notebookAction({ cells, config, base, announce, makeButton: action }));
}
