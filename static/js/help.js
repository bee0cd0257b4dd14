// reveal.js's «?» help, in Spanish and complete: its own keys, and the deck's (run and stop a
// cell in the editor, complete and document names there, leave it, zoom the code, the speaker
// view, the live hall's key and what its indicator says). reveal.js writes its table in English
// each time it opens the help; on its "showhelp" event this one replaces it.
// reveal.js knows «?» only as Shift and the US key of «/»: on a Spanish keyboard (Shift and «'»)
// it did nothing; here any key that types «?» opens the help. Its pause screen's button says
// «Reanudar la presentación»; J (the hall's QR code) moves no slide where there is no hall.

/** [keys, what they do], in the order a presenter needs them. */
export const SHORTCUTS = [
  ["→ · Espacio · N", "Diapositiva siguiente"],
  ["← · Mayús+Espacio · P", "Diapositiva anterior"],
  ["Alt + ← / →", "Saltar los fragmentos (las partes que aparecen una a una)"],
  ["Mayús + ← / →", "Primera / última diapositiva"],
  ["G", "Ir a una diapositiva: escriba su número y Enter"],
  ["O · Esc", "Vista general de todas las diapositivas"],
  ["F", "Pantalla completa"],
  ["S", "Vista del presentador: notas, reloj y la diapositiva siguiente"],
  ["B · .", "Pausa: pantalla en negro"],
  ["+ / −", "Agrandar / achicar el código (fuera del editor; el navegador recuerda el tamaño)"],
  ["? · F1", "Esta ayuda"],
];

export const EDITOR_SHORTCUTS = [
  ["Mayús+Enter · Ctrl+Enter", "Ejecutar la celda"],
  ["Esc (mientras corre)", "Detener la celda"],
  ["Ctrl+Espacio · Tab (tras un nombre o un «.»)", "Completar: nombres, atributos (census.…), parámetros (epsilon=)"],
  ["↑ ↓ · Enter · Tab", "Elegir en la lista de sugerencias y aceptar (Esc la cierra)"],
  ["Ctrl+K · pasar el ratón", "La documentación del nombre bajo el cursor, en español para dplab"],
  ["( · ,", "Al escribirlos en una llamada: la firma de la función, con el parámetro actual en negrita"],
  ["Ctrl+F", "Buscar (y reemplazar) en el código"],
  ["Ctrl+Z · Ctrl+Mayús+Z", "Deshacer / rehacer"],
  ["Esc", "Salir del editor: las flechas vuelven a mover las diapositivas"],
];

/** The live hall (a presentation served with --hall): its key, and what its indicator says. */
export const HALL = [
  ["J", "Mostrar el código QR y la dirección para unirse a la sala (Esc lo cierra)"],
  ["Siguiendo · n dispositivos", "Esta página sigue la diapositiva del profesor; n: los conectados"],
  ["Por su cuenta · n dispositivos", "Se movió a otra diapositiva: ya no sigue al profesor"],
  ["Volver con el profesor (diapositiva N)", "El botón que vuelve a la diapositiva del profesor y a seguirlo"],
  ["Presenta · n dispositivos", "La página del profesor: mueve a toda la sala"],
  ["Conectando… · Sin conexión: reintentando…", "La sala no responde por ahora; la presentación y Python siguen funcionando"],
];

export const BUTTONS = [
  ["▶▶", "Ejecutar todas las celdas, en orden"],
  ["⟲", "Reiniciar Python (se vuelven a correr las celdas originales ya ejecutadas; las editadas, al pulsar ▶)"],
  ["↺", "Volver al código original en todas las celdas"],
  ["⤓", "Llevarse el trabajo: cuaderno Jupyter, script de Python y el paquete dplab"],
];

function table(caption, rows, head) {
  const t = document.createElement("table");
  const c = document.createElement("caption");
  c.textContent = caption;
  const tr = document.createElement("tr");
  for (const h of head) {
    const th = document.createElement("th");
    th.textContent = h;
    th.scope = "col";
    tr.append(th);
  }
  t.append(c, tr);
  for (const [keys, what] of rows) {
    const row = document.createElement("tr");
    for (const text of [keys, what]) {
      const td = document.createElement("td");
      td.textContent = text;
      row.append(td);
    }
    t.append(row);
  }
  return t;
}

const J_KEY = 74;

/** Whether a key typed now goes to an editor or a field (reveal.js's own rule for its keys). */
function typingInto(node) {
  return node instanceof HTMLElement && (node.isContentEditable || /^(input|textarea|select)$/i.test(node.tagName));
}

/** Replace reveal.js's help table by the Spanish one whenever the help opens. */
export function installSpanishHelp(reveal) {
  window.addEventListener("keydown", (e) => {
    if (e.key !== "?" || e.ctrlKey || e.altKey || e.metaKey || typingInto(document.activeElement)) return;
    e.preventDefault();
    e.stopImmediatePropagation();   // reveal.js would toggle it a second time (US layout) or pause
    reveal.toggleHelp();
  }, true);
  const resume = reveal.getRevealElement().querySelector(".pause-overlay .resume-button");
  if (resume) resume.textContent = "Reanudar la presentación";
  // the live hall (live-view.js) binds J to its QR code; until then, and without a hall, J is
  // nothing (reveal.js's vim-style J would move a slide, unannounced)
  reveal.addKeyBinding({ keyCode: J_KEY, key: "J", description: "" }, () => {});
  reveal.on("showhelp", () => {
    const content = document.querySelector(".r-overlay-help-content");
    if (!content) return;
    const title = document.createElement("p");
    title.className = "title";
    title.textContent = "Atajos de teclado";
    content.replaceChildren(
      title,
      table("En la presentación", SHORTCUTS, ["Tecla", "Acción"]),
      table("En el editor de una celda", EDITOR_SHORTCUTS, ["Tecla", "Acción"]),
      table("En la sala en vivo (cuando la presentación sigue al profesor)", HALL, ["Tecla o aviso", "Qué significa"]),
      table("Botones de arriba a la derecha", BUTTONS, ["Botón", "Acción"]),
    );
    const close = document.querySelector(".r-overlay-help .r-overlay-close");
    if (close) close.setAttribute("aria-label", "Cerrar la ayuda (Esc)");
  });
}
