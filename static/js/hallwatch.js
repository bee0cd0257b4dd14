// Follow the page's hall object (live.js, on window.deck.hall): call back now, whenever its
// status changes (it found a server, lost it, …), and whenever the object itself is replaced
// (live.js may set it after the polls are installed; a test may put its own).

/** @type {WeakMap<object, ((hall: any) => void)[]>} deck → its watchers */
const watchers = new WeakMap();

/** @param {any} deck window.deck @param {(hall: any) => void} onChange */
export function watchHall(deck, onChange) {
  if (!watchers.has(deck)) {
    const list = [];
    watchers.set(deck, list);
    let hall = deck.hall;
    const notify = (h) => { for (const f of list) f(h); };
    const listen = (h) => h?.addEventListener?.("status", () => { if (hall === h) notify(h); });
    listen(hall);
    Object.defineProperty(deck, "hall", {
      configurable: true,
      enumerable: true,
      get: () => hall,
      set: (value) => { hall = value; listen(value); notify(value); },
    });
  }
  watchers.get(deck).push(onChange);
  onChange(deck.hall);
}
