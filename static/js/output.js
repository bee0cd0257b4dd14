// A cell's output as plain data (so it can be mirrored to the speaker view and re-drawn),
// and its rendering: always as text nodes or <img> of SVG blobs, never as HTML.

export class Output {
  constructor(el) {
    this.el = el;
    this.items = [];     // {kind: "stdout"|"stderr"|"value"|"error", text} | {kind: "figure", svg, alt}
    this.textBlock = null;
  }

  clear() {
    this.items = [];
    this.el.replaceChildren();
    this.textBlock = null;
  }

  add(item) {
    const last = this.items[this.items.length - 1];
    if (item.kind !== "figure" && last && last.kind === item.kind) last.text += item.text;
    else this.items.push({ ...item });
    this.draw(item);
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
    this.textBlock.scrollTop = this.textBlock.scrollHeight;   // follow a long print
  }

  /** Replace everything by ``items`` (a mirror, or a restored snapshot). */
  replace(items) {
    this.clear();
    for (const item of items) this.add(item);
  }
}
