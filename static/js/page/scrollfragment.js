// Where a fragment is in the phones' scroll view (reveal.js `view: "scroll"`), so that a hall
// follower on a phone shows the presenter's fragment, not only the slide.
//
// In the scroll view, reveal.js shows a slide's fragments by scroll position: every page (a
// slide) gets one scroll trigger for "no fragment yet" plus one per fragment group, or a single
// trigger when it has no fragments, and the triggers share the viewport's scroll progress
// (scrollTop / (scrollHeight - clientHeight)) in equal parts, in document order (reveal.js 6,
// js/controllers/scrollview.js, `createFragmentTriggersForPage` and `setTriggerRanges`). Scrolling
// to the middle of a trigger's part activates it, and reveal.js then shows those fragments.

/**
 * The scroll progress (0..1) at the middle of fragment group ``fragment``'s part of page ``page``.
 * @param {number[]} groups fragment groups of every page of the scroll view, in order
 * @param {number} page which page (0-based)
 * @param {number} fragment the fragment group (0-based; -1: none shown)
 * @returns {number}
 */
export function fragmentProgress(groups, page, fragment) {
  const weight = (/** @type {number} */ g) => (g > 0 ? g + 1 : 1);
  const total = groups.reduce((sum, g) => sum + weight(g), 0);
  const start = groups.slice(0, page).reduce((sum, g) => sum + weight(g), 0);
  const step = groups[page] > 0 ? Math.min(Math.max(fragment, -1), groups[page] - 1) + 1 : 0;
  return (start + step + 0.5) / total;
}

/** How many fragment groups a slide has (reveal.js numbers them in `data-fragment-index`). */
function groupsOf(/** @type {Element} */ slide) {
  const indices = new Set();
  for (const el of slide.querySelectorAll(".fragment")) indices.add(el.getAttribute("data-fragment-index"));
  return indices.size;
}

/**
 * Scroll the scroll view to slide (``h``, ``v``) showing its fragment group ``fragment`` (reveal.js
 * then shows the fragments). In the scroll view every slide is wrapped in a `.scroll-page` and
 * carries `data-index-h`/`data-index-v` (reveal.js's own `getSlide` no longer finds it). Group -1
 * (none shown) is the slide's own first part: a follower whose presenter stepped back hides the
 * fragments again. Returns false (and does nothing) when ``root`` is not in the scroll view, has
 * no such slide, or the slide has no fragments (reveal.js's move to the slide is all it takes).
 * @param {Element} root reveal.js's element (`.reveal`)
 * @param {number} h
 * @param {number} v
 * @param {number} fragment
 */
export function scrollToFragment(root, h, v, fragment) {
  const viewport = root.closest(".reveal-viewport");
  const pages = [...root.querySelectorAll(".scroll-page")];
  const here = `section[data-index-h="${h}"][data-index-v="${v}"]`;
  const page = pages.findIndex((p) => p.querySelector(here));
  if (!viewport || page < 0) return false;
  const groups = pages.map((p) => groupsOf(p.querySelector("section") ?? p));
  if (!groups[page]) return false;   // no fragments: reveal.js's own move shows the slide whole
  const progress = fragmentProgress(groups, page, fragment);
  viewport.scrollTop = progress * (viewport.scrollHeight - viewport.clientHeight);
  return true;
}
