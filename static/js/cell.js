// One code cell on a slide: editor, buttons, output. Talks to Python through the Runtime.
import { createEditor } from "./editor.js";

const fmtSeconds = (s) => s == null ? "" : `${s.toLocaleString("es", { maximumFractionDigits: 2 })} s`;

function button(label, text, cls, onClick) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `cell-btn ${cls}`;
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.title = label;
  b.addEventListener("click", onClick);
  return b;
}

export class Cell {
  constructor(root, runtime, announce) {
    this.root = root;
    this.runtime = runtime;
    this.announce = announce;
    this.id = root.dataset.cellId;
    const source = root.querySelector(".cell-source");
    this.authored = source.textContent.replace(/\n$/, "");
    this.output = root.querySelector(".cell-output");
    this.running = null;     // the id of the run under way
    this.runs = 0;

    const input = root.querySelector(".cell-input");
    source.remove();
    this.editor = createEditor(input, this.authored, {
      onRun: () => this.run(),
      onChange: () => this.markEdited(),
      label: `Código de la celda ${this.id}`,
    });
    const bar = document.createElement("div");
    bar.className = "cell-toolbar";
    this.runBtn = button("Ejecutar la celda (Mayús+Enter)", "▶ Ejecutar", "run", () => this.run());
    this.stopBtn = button("Detener la ejecución", "■ Detener", "stop", () => this.stop());
    this.resetBtn = button("Restaurar el código original", "↺ Restaurar", "reset", () => this.reset());
    this.stopBtn.disabled = true;
    this.meta = document.createElement("span");
    this.meta.className = "cell-meta";
    bar.append(this.runBtn, this.stopBtn, this.resetBtn, this.meta);
    input.append(bar);
  }

  get code() { return this.editor.code; }
  set code(text) { this.editor.code = text; }

  markEdited() {
    this.root.classList.toggle("edited", this.code !== this.authored);
  }

  reset() {
    this.code = this.authored;
    this.markEdited();
  }

  stop() {
    if (this.running !== null) this.runtime.stop(this.running);
  }

  clearOutput() {
    this.output.replaceChildren();
    this.textBlock = null;
  }

  appendText(kind, text) {
    // consecutive chunks of the same stream go in one <pre>; always as text, never as HTML
    if (!this.textBlock || this.textBlock.dataset.kind !== kind) {
      this.textBlock = document.createElement("pre");
      this.textBlock.className = `out-${kind}`;
      this.textBlock.dataset.kind = kind;
      this.output.append(this.textBlock);
    }
    this.textBlock.append(document.createTextNode(text));
  }

  appendFigure(svg, alt) {
    const img = document.createElement("img");
    img.className = "out-figure";
    img.alt = alt || "Figura";
    img.src = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    img.addEventListener("load", () => URL.revokeObjectURL(img.src), { once: true });
    this.output.append(img);
    this.textBlock = null;
  }

  /** Run the cell's current code; resolves with the worker's result. */
  async run() {
    if (this.running !== null) return this.pendingRun;
    this.clearOutput();
    this.root.classList.remove("has-error");
    this.root.classList.add("is-running");
    this.runBtn.disabled = true;
    this.stopBtn.disabled = false;
    this.meta.textContent = this.runtime.state === "loading" ? "esperando a Python…" : "ejecutando…";
    const onStatus = (e) => {
      if (e.detail.state === "running" && this.meta.textContent === "esperando a Python…") this.meta.textContent = "ejecutando…";
    };
    this.runtime.addEventListener("status", onStatus);
    this.pendingRun = this.runtime.run(this.id, this.code, {
      onQueued: (id) => { this.running = id; },
      onText: (kind, text) => this.appendText(kind, text),
      onFigure: (svg, alt) => this.appendFigure(svg, alt),
    });
    const result = await this.pendingRun;
    this.runtime.removeEventListener("status", onStatus);
    this.running = null;
    this.runs += 1;
    this.root.classList.remove("is-running");
    this.runBtn.disabled = false;
    this.stopBtn.disabled = true;
    if (result.ok) {
      if (result.value != null) this.appendText("value", result.value);
    } else {
      this.root.classList.add("has-error");
      this.appendText("error", result.error.traceback || `${result.error.type}: ${result.error.message}`);
    }
    const when = new Date().toLocaleTimeString("es", { hour12: false });
    this.meta.textContent = result.seconds == null ? `detenida ${when}` : `calculado ${when} · ${fmtSeconds(result.seconds)}`;
    this.root.dataset.state = result.ok ? "done" : "error";
    this.announce?.(result.ok ? `Celda ${this.id}: resultado listo` : `Celda ${this.id}: error ${result.error.type}`);
    return result;
  }
}
