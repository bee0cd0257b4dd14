// Minimal types for what the page uses of reveal.js (loaded through the import map as "reveal"
// and "reveal-notes"; see dpdeck/build/site.py): reveal.js 6's own dist/reveal.d.ts covers only its
// public API, without isScrollView() or the scroll and location controllers deck.js patches.
// And the page's own globals. Only what static/js calls: a wrong call here is a type error there.

declare module "reveal" {
  /** A reveal.js plugin: an object with an id and an init, or a function returning one. */
  export type RevealPlugin = { id: string; init?(deck: RevealDeck): unknown } | (() => unknown);

  export interface RevealDeck {
    initialize(): Promise<unknown>;
    getConfig(): { hash?: boolean } & Record<string, unknown>;
    getCurrentSlide(): HTMLElement | undefined;
    isScrollView(): boolean;
    on(type: string, listener: (event: Event) => void): void;
    off(type: string, listener: (event: Event) => void): void;
    slide(h?: number, v?: number, f?: number): void;
    getIndices(slide?: HTMLElement): { h: number; v?: number; f?: number };
    getSlide(h: number, v?: number): HTMLElement | undefined;
    getSlides(): HTMLElement[];
    getRevealElement(): HTMLElement;
    getViewportElement(): HTMLElement;
    toggleHelp(show?: boolean): void;
    addKeyBinding(binding: { keyCode: number; key: string; description: string }, callback: () => void): void;
    /** reveal.js's scroll-view controller (its internals, patched by deck.js) */
    scroll: any;
    /** reveal.js's location controller: getIndicesFromHash, writeURL */
    location: any;
  }

  const Reveal: new (options?: Record<string, unknown> & { plugins?: RevealPlugin[] }) => RevealDeck;
  export default Reveal;
}

declare module "reveal-notes" {
  const RevealNotes: import("reveal").RevealPlugin;
  export default RevealNotes;
}

interface Window {
  /** deck.js: the deck for the tests and for curious students (window.deck.cells[0].run()) */
  deck?: unknown;
}

interface Uint8ArrayConstructor {
  /** ES2025's base64 decoder, where the browser has it (output.js feature-detects it). */
  fromBase64?(text: string): Uint8Array<ArrayBuffer>;
}
