// What the live hall shows (only where a hall server answered): a small indicator in the deck's
// chrome (following or not, devices connected) with «Volver con el profesor (diapositiva N)»,
// and the audience URL as a QR code and as text on the title slide and under the `J` key.
// Every text is set with textContent: nothing that crosses the network is read as HTML.

import { sayDelivery, sayHall } from "../shared/phrases.js";

/** @typedef {import("./live.js").Hall} Hall */

const J_KEY = 74;

function el(tag, className, text = "") {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text) node.textContent = text;
  return node;
}

/** The slide number reveal.js shows (1-based, in the order of the deck) of a position. */
function slideNumber(reveal, h, v) {
  const slide = reveal.getSlide(h, v);
  const index = slide ? reveal.getSlides().indexOf(slide) : -1;
  return index >= 0 ? index + 1 : h + 1;
}

/** The «Volver» button's text: the presenter's slide, or, when the page is on that slide but
 *  not on the presenter's fragment, where on it the presenter is.
 *  @param {any} reveal @param {{indexh: number, indexv: number, indexf: number}} t */
function returnText(reveal, t) {
  const i = reveal.getIndices();
  if (i.h === t.indexh && (i.v || 0) === t.indexv) {
    return sayHall({ code: "hall-return-here", ahead: (i.f ?? -1) < t.indexf });
  }
  return sayHall({ code: "hall-return-slide", slide: slideNumber(reveal, t.indexh, t.indexv) });
}

/** The QR code and the URL, as a figure (the title slide's, or the J key's overlay). */
function joinFigure(hall, className) {
  const figure = el("figure", className);
  const img = /** @type {HTMLImageElement} */ (el("img", "hall-qr"));
  if (hall.crossOrigin) img.crossOrigin = "anonymous";   // the deck's COEP: a CORS image from the hall
  img.src = hall.url("qr.svg");
  img.alt = sayHall({ code: "hall-qr-alt" });
  const caption = el("figcaption", "hall-url");
  caption.append(el("span", "hall-url-lead", sayHall({ code: "hall-join-lead" })), breakableUrl(hall.audience[0] ?? ""));
  figure.append(img, caption);
  return figure;
}

/** A URL that wraps only between its parts (after `//`, `/` and `.`, before `:port`), never
 *  inside a name or a port number, as a <strong>. */
function breakableUrl(url) {
  const strong = el("strong", "");
  for (const part of url.split(/(?<=\/\/|[^/:]\/|\.)|(?=:\d)/)) {
    if (strong.childNodes.length) strong.append(document.createElement("wbr"));
    strong.append(part);
  }
  return strong;
}

/** @param {Hall} hall */
function installJoinOverlay(hall) {
  const overlay = el("div", "hall-join-overlay");
  overlay.setAttribute("role", "dialog");
  overlay.setAttribute("aria-label", sayHall({ code: "hall-join-label" }));
  overlay.hidden = true;
  overlay.append(joinFigure(hall, "hall-join-big"), el("p", "hall-join-close", sayHall({ code: "hall-join-close" })));
  document.body.append(overlay);
  const toggle = (show = overlay.hidden) => { overlay.hidden = !show; };
  overlay.addEventListener("click", () => toggle(false));
  hall.reveal.addKeyBinding({ keyCode: J_KEY, key: "J", description: sayHall({ code: "hall-qr-key" }) }, () => toggle());
  document.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && !overlay.hidden) { toggle(false); e.stopImmediatePropagation(); e.preventDefault(); }
  }, true);
  return overlay;
}

/** Mark each slide that is longer than its page (``data-long``: it scrolls within its page, as
 *  phone.css lays slides out on a phone), kept up to date as its content grows or shrinks (an
 *  output drawn, a figure loaded): hall.css keeps a follower's scrolling inside such a slide.
 *  A slide that fits its page is not marked: a swipe on it still moves the page to the next.
 *  @param {Element | undefined} root reveal.js's element */
function markLongSlides(root) {
  if (!root || typeof ResizeObserver !== "function") return;
  const measure = (/** @type {HTMLElement} */ slide) => {
    const long = slide.scrollHeight > slide.clientHeight + 1;
    if (long !== (slide.dataset.long === "true")) slide.dataset.long = String(long);
  };
  const observer = new ResizeObserver((entries) => {
    const slides = new Set(entries.map((e) => /** @type {HTMLElement | null} */ (e.target.closest("section"))));
    for (const slide of slides) if (slide) measure(slide);
  });
  for (const slide of root.querySelectorAll(".slides section")) {
    observer.observe(slide);   // its page's size (a phone turned, the way back's strip)
    for (const part of slide.children) observer.observe(part);   // its content's
  }
}

/** @param {Hall} hall */
export function installHallView(hall) {
  const box = el("div", "hall-status");
  box.id = "hall-status";
  box.setAttribute("role", "status");
  const dot = el("span", "dot");
  dot.setAttribute("aria-hidden", "true");
  const label = el("span", "label");
  // short: a phone's bar, beside Python's status and four buttons, has room for the dot (its
  // colour says following or not) and «3 en sala»; a tap on it (or on Python's dot) shows the
  // full text of both under the bar
  const long = el("span", "long"), short = el("span", "short");
  label.append(long, short);
  const detail = el("div", "hall-detail");
  detail.hidden = true;
  detail.setAttribute("role", "status");
  const runtime = document.getElementById("runtime-status");
  const toggleDetail = (/** @type {Event} */ e) => {
    if (!document.querySelector(".reveal-viewport.reveal-scroll") || e.target === back) return;
    detail.hidden = !detail.hidden;
    if (!detail.hidden) {
      const python = runtime?.querySelector(".label")?.textContent ?? "";
      detail.replaceChildren(el("p", "", box.title), ...(python ? [el("p", "", python + (runtime?.title ? ` — ${runtime.title}` : ""))] : []));
    }
  };
  box.addEventListener("click", toggleDetail);
  runtime?.addEventListener("click", toggleDetail);
  detail.addEventListener("click", () => { detail.hidden = true; });
  const back = /** @type {HTMLButtonElement} */ (el("button", "hall-return"));
  back.type = "button";
  back.hidden = true;
  back.addEventListener("click", () => hall.rejoin());
  box.append(dot, label, back);
  (document.querySelector(".deck-chrome") ?? document.body).prepend(box);
  const note = el("div", "hall-notice");
  note.hidden = true;
  box.after(note, detail);

  const title = document.querySelector('.reveal .slides section[data-kind="title"]');
  title?.append(joinFigure(hall, "hall-join"));
  const overlay = installJoinOverlay(hall);

  markLongSlides(hall.reveal.getRevealElement?.());

  let noteTimer = 0;
  const view = {
    overlay,
    render() {
      box.dataset.state = hall.state;
      box.dataset.following = String(hall.presenter || hall.following);
      box.dataset.role = hall.presenter ? "presenter" : "audience";
      const role = hall.presenter ? "presenter" : hall.following ? "following" : "alone";
      // the presenter's latest position not acknowledged yet: the room may be a slide behind
      const unsent = hall.presenter && hall.unsent;
      box.dataset.unsent = String(unsent);
      const what = unsent ? sayDelivery({ code: "position-unsent" })
        : sayHall({ code: "hall-status", state: hall.state, role, devices: hall.devices });
      long.textContent = what;
      short.textContent = sayHall({ code: "hall-short", live: hall.state === "live" && !unsent, devices: hall.devices });
      box.title = what + " — " + sayHall({ code: "hall-status-title", role });
      const t = hall.target;
      back.hidden = hall.presenter || hall.following || !t;
      if (t) back.textContent = returnText(hall.reveal, t);
      // for hall.css, on the viewport: a follower's long slide keeps its scrolling to itself
      // (reading to its end does not scroll on to the next slide, which would stop following),
      // and a phone keeps the strip at the foot of its slides free for the way back
      const viewport = hall.reveal.getViewportElement?.();
      if (viewport) {
        viewport.dataset.hallFollowing = String(!hall.presenter && hall.following);
        viewport.dataset.hallBack = String(!back.hidden);
      }
    },
    notice(text) {
      note.textContent = text;
      note.hidden = false;
      clearTimeout(noteTimer);
      noteTimer = setTimeout(() => { note.hidden = true; }, 10_000);
    },
  };
  // the button's text says where the presenter is from where the page is: redrawn on every move
  for (const event of ["slidechanged", "fragmentshown", "fragmenthidden"]) hall.reveal.on(event, () => view.render());
  return view;
}
