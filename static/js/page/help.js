// reveal.js's «?» help, in Spanish and complete: its own keys, and the deck's (run and stop a
// cell in the editor, complete and document names there, leave it, zoom the code, the speaker
// view, the live hall's key and what its indicator says). reveal.js writes its table in English
// each time it opens the help; on its "showhelp" event this one replaces it.
// reveal.js knows «?» only as Shift and the US key of «/»: on a Spanish keyboard (Shift and «'»)
// it did nothing; here any key that types «?» opens the help. Its pause screen's button says
// «Reanudar la presentación»; J (the hall's QR code) moves no slide where there is no hall.
// Its words, the tables included, are phrases.js's (HELP).

import { HELP, say } from "../shared/phrases.js";

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

/** Replace reveal.js's help table by the Spanish one whenever the help opens; any key that
 *  types «?» opens it. ``unbind()`` removes the «?» key listener and the "showhelp" listener
 *  (reveal.js's own English table is then left as it writes it). The empty J binding stays:
 *  live-view.js may have bound J since, and reveal.js keeps one binding per key.
 *  @param {import("./context.js").DeckContext} ctx @returns {import("./context.js").Bound} */
export function installSpanishHelp(ctx) {
  const { reveal } = ctx;
  if (!reveal) return { unbind() {} };
  const onKey = (/** @type {KeyboardEvent} */ e) => {
    if (e.key !== "?" || e.ctrlKey || e.altKey || e.metaKey || typingInto(document.activeElement)) return;
    e.preventDefault();
    e.stopImmediatePropagation();   // reveal.js would toggle it a second time (US layout) or pause
    reveal.toggleHelp();
  };
  window.addEventListener("keydown", onKey, { capture: true });
  const resume = reveal.getRevealElement().querySelector(".pause-overlay .resume-button");
  if (resume) resume.textContent = say({ code: "help-resume" });
  // the live hall (live-view.js) binds J to its QR code; until then, and without a hall, J is
  // nothing (reveal.js's vim-style J would move a slide, unannounced)
  reveal.addKeyBinding({ keyCode: J_KEY, key: "J", description: "" }, () => {});
  const onShowHelp = () => {
    const content = document.querySelector(".r-overlay-help-content");
    if (!content) return;
    const title = document.createElement("p");
    title.className = "title";
    title.textContent = say({ code: "help-title" });
    const keyAction = [say({ code: "help-key" }), say({ code: "help-action" })];
    content.replaceChildren(
      title,
      table(say({ code: "help-deck" }), HELP.deck, keyAction),
      table(say({ code: "help-editor" }), HELP.editor, keyAction),
      table(say({ code: "help-hall" }), HELP.hall, [say({ code: "help-key-or-notice" }), say({ code: "help-meaning" })]),
      table(say({ code: "help-buttons" }), HELP.buttons, [say({ code: "help-button" }), say({ code: "help-action" })]),
    );
    const close = document.querySelector(".r-overlay-help .r-overlay-close");
    if (close) close.setAttribute("aria-label", say({ code: "help-close" }));
  };
  reveal.on("showhelp", onShowHelp);
  return {
    unbind() {
      window.removeEventListener("keydown", onKey, { capture: true });
      reveal.off("showhelp", onShowHelp);
    },
  };
}

/** The Spanish help as the page's plugin (plugins.js). @type {import("./plugins.js").DeckPlugin} */
export const plugin = { id: "help", init: installSpanishHelp };
