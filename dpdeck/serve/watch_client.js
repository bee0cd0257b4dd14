// The page's side of `build.py serve --watch` (dpdeck/serve/watch.py): served only by that server,
// which adds it to the page; a built dist/ never carries it. It listens on the watcher's own
// channel (/_watch/events: never the hall's /_hall/events, so a watching page is no device of
// the hall) for the watcher's two events:
//   built {reload}: the deck was rebuilt. With reload false only slide text changed: the slides
//     whose HTML changed are swapped in place (the fragments shown stay shown) and Python keeps
//     its state; a changed slide with
//     a cell, a changed config (prelude, cells' text) or a change in the slides' order reloads
//     onto the same slide instead (the audience's edits are in localStorage: nothing is lost).
//   failed {message}: the build refused the deck; its message (file, line, slide, field: the
//     terminal's) is shown over the slides until the next good build.

/** The page as it was built: its config text and each slide's authored HTML, by slide id. */
function parse(html) {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const slides = new Map();
  for (const s of doc.querySelectorAll(".reveal .slides > section")) slides.set(s.id, s.innerHTML);
  return { config: doc.getElementById("deck-config")?.textContent ?? "", slides };
}

async function fetchPage() {
  const res = await fetch(location.pathname, { cache: "no-store" });
  return parse(await res.text());
}

/** Swap the slides whose authored HTML changed; false when only a reload can show the change. */
function swap(before, after) {
  if (before.config !== after.config) return false;
  if ([...before.slides.keys()].join("\n") !== [...after.slides.keys()].join("\n")) return false;
  const changed = [...after.slides].filter(([id, html]) => before.slides.get(id) !== html);
  const live = changed.map(([id, html]) => [document.getElementById(id), html]);
  if (live.some(([el]) => !el || el.querySelector(".cell, .exercise, .poll"))) return false;
  const deck = window.deck?.reveal;
  const at = deck?.getIndices();   // the fragment shown: the new HTML's fragments start hidden
  for (const [el, html] of live) el.innerHTML = html;
  if (deck && changed.length) {
    deck.sync();
    deck.layout();
    deck.slide(at.h, at.v, at.f);   // the same slide and fragment (prior slides: all shown)
  }
  return true;
}

function overlay() {
  let el = document.getElementById("watch-error");
  if (!el) {
    el = document.createElement("div");
    el.id = "watch-error";
    el.className = "watch-error";
    el.setAttribute("role", "alert");
    el.style.cssText = "position:fixed;inset:auto 2vw 2vh 2vw;z-index:1000;max-height:60vh;overflow:auto;" +
      "background:#fff5f5;color:#7a0000;border:3px solid #c00;border-radius:8px;padding:1em;" +
      "font:16px/1.4 system-ui,sans-serif;box-shadow:0 4px 24px rgba(0,0,0,.3)";
    const title = document.createElement("strong");
    title.textContent = "La presentación no se pudo construir";
    const pre = document.createElement("pre");
    pre.style.cssText = "white-space:pre-wrap;margin:.5em 0 0;font:15px/1.4 monospace";
    el.append(title, pre);
    document.body.append(el);
  }
  return el;
}

function showError(message) {
  const el = overlay();
  el.querySelector("pre").textContent = message;   // text, never HTML
  el.hidden = false;
}

function hideError() {
  const el = document.getElementById("watch-error");
  if (el) el.hidden = true;
}

let current = await fetchPage();
const source = new EventSource("/_watch/events");
source.addEventListener("failed", (e) => showError(JSON.parse(e.data).message));
source.addEventListener("built", async (e) => {
  hideError();
  const next = await fetchPage();
  if (JSON.parse(e.data).reload || !swap(current, next)) { location.reload(); return; }
  current = next;
});
