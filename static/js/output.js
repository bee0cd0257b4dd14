// A cell's output as plain data (so it can be mirrored to the speaker view and re-drawn),
// and its rendering: always as text nodes or <img> of SVG blobs, never as HTML.

export class Output {
  constructor(el) {
    this.el = el;
    this.items = [];     // {kind: "stdout"|"stderr"|"value"|"error", text} | {kind: "figure", svg, alt}
    this.textBlock = null;
    this.queue = [];     // items not drawn yet: drawn once per frame, however fast they come
    this.frame = 0;
  }

  clear() {
    this.items = [];
    this.queue = [];
    this.el.replaceChildren();
    this.textBlock = null;
  }

  add(item) {
    const last = this.items[this.items.length - 1];
    if (item.kind !== "figure" && last && last.kind === item.kind) last.text += item.text;
    else this.items.push({ ...item });
    this.queue.push(item);
    if (!this.frame) this.frame = requestAnimationFrame(() => this.flush());
  }

  /** Draw what is queued now (the cell calls it when a run ends). */
  flush() {
    if (this.frame) cancelAnimationFrame(this.frame);
    this.frame = 0;
    const queue = this.queue;
    this.queue = [];
    for (const item of queue) this.draw(item);
    if (this.textBlock) this.textBlock.scrollTop = this.textBlock.scrollHeight;   // follow a long print
  }

  draw(item) {
    if (item.kind === "figure") {
      const img = document.createElement("img");
      img.className = "out-figure";
      img.alt = item.alt || "Figura";
      img.src = URL.createObjectURL(new Blob([item.svg], { type: "image/svg+xml" }));
      img.addEventListener("load", () => URL.revokeObjectURL(img.src), { once: true });
      this.el.append(img);
      this.textBlock = null;
      return;
    }
    if (!this.textBlock || this.textBlock.dataset.kind !== item.kind) {
      this.textBlock = document.createElement("pre");
      this.textBlock.className = `out-${item.kind}`;
      this.textBlock.dataset.kind = item.kind;
      this.el.append(this.textBlock);
    }
    this.textBlock.append(document.createTextNode(item.text));
  }

  /** Replace everything by ``items`` (a mirror, or a restored snapshot). */
  replace(items) {
    this.clear();
    for (const item of items) this.add(item);
    this.flush();
  }
}
