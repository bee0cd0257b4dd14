// Code legible at the back of a hall: the code's type size (editor, output text) answers a
// zoom key.
//
// reveal.js draws the 1280×720 slide scaled to the window: on a 1024×768 projector at ×0.78,
// the editor's 19 px become 15 px on the wall, a side-by-side cell's 17 px 13 px. The code is
// not grown by itself to make up for the scale: every slide is authored to fit the slide at its
// size (tests/browser/test_full_deck.py), and even ×1.06 (a 1280×720 window's scale) pushes the
// longest cells into a scrollbar. The presenter chooses: `+` and `-` (outside the editor; `=`
// too, the `+` key of a US keyboard without Shift) zoom from ZOOM_MIN to ZOOM_MAX, and the zoom
// is kept in the browser (localStorage) for the next lecture in the same hall.
// deck.css multiplies the code's sizes by --code-zoom.
import { say } from "../shared/phrases.js";

const STEP = 0.1;
const ZOOM_MIN = 0.8;
const ZOOM_MAX = 1.6;
const KEY = "dpdeck:code-zoom";

/** The user's zoom after one key press (``+1`` or ``-1``), within [ZOOM_MIN, ZOOM_MAX]. */
export function stepZoom(zoom, direction) {
  const next = Math.round((zoom + direction * STEP) * 10) / 10;
  return Math.min(ZOOM_MAX, Math.max(ZOOM_MIN, next));
}

function loadZoom() {
  try {
    const z = Number(localStorage.getItem(KEY));
    return z >= ZOOM_MIN && z <= ZOOM_MAX ? z : 1;
  } catch { return 1; }
}

/** A key typed where it means text (the editor, a field) is not a deck key. */
function typing(target) {
  const el = /** @type {HTMLElement} */ (target);
  return Boolean(el?.isContentEditable || /^(input|textarea|select)$/i.test(el?.tagName ?? ""));
}

/**
 * Keep --code-zoom on <html> = the user's zoom; `+`/`=` and `-` change it (announced with the
 * context's ``announce``). ``unbind()`` removes the key listener and reveal.js's resize and
 * ready listeners: the keys then zoom nothing.
 * @param {import("./context.js").DeckContext} ctx
 * @param {{changed?: () => void}} [hooks]  ``changed``: the size changed (CodeMirror measures
 *   its lines itself: the editors must measure again)
 * @returns {import("./context.js").Bound}
 */
export function installZoom(ctx, { changed } = {}) {
  const { reveal, announce } = ctx;
  let user = loadZoom();
  let shown = "";
  const apply = () => {
    const zoom = user.toFixed(3);
    document.documentElement.dataset.codeZoom = String(user);
    if (zoom === shown) return;
    shown = zoom;
    document.documentElement.style.setProperty("--code-zoom", zoom);
    changed?.();
  };
  reveal?.on("resize", apply);
  reveal?.on("ready", apply);
  apply();
  const onKey = (/** @type {KeyboardEvent} */ e) => {
    if (typing(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
    const direction = e.key === "+" || e.key === "=" ? 1 : e.key === "-" ? -1 : 0;
    if (!direction) return;
    e.preventDefault();
    user = stepZoom(user, direction);
    try { localStorage.setItem(KEY, String(user)); } catch { /* private mode: this visit only */ }
    apply();
    announce(say({ code: "code-size", percent: Math.round(user * 100) }));
  };
  document.addEventListener("keydown", onKey);
  return {
    unbind() {
      document.removeEventListener("keydown", onKey);
      reveal?.off("resize", apply);
      reveal?.off("ready", apply);
    },
  };
}

/** Make a CodeMirror view measure its lines again after its font size changed: what CodeMirror
 *  itself does once web fonts load (its line heights are cached, so the gutter would drift). */
export function remeasure(view) {
  const v = /** @type {any} */ (view);
  if (v.viewState) v.viewState.mustMeasureContent = "refresh";
  v.requestMeasure();
}

/** The code's zoom as the page's plugin (plugins.js): the built editors measure again after
 *  each change. @type {import("./plugins.js").DeckPlugin} */
export const plugin = {
  id: "zoom",
  init: (ctx) => installZoom(ctx, { changed: () => { for (const c of ctx.cells) if (c.editor) remeasure(c.editor.view); } }),
};
