// "Take your work home": every cell as the viewer has it now (edited or not, sliders as shown),
// as a Jupyter notebook (nbformat 4.5) or a .py script with `# %%` cells, and the deck's own
// deck's package wheel (dplab's). Made on the page, with no Python and no network: the notebook is plain JSON.
// The pure functions (notebook, script, …) are tested under node (tests/unit/test_notebook.py).
import { say } from "../shared/phrases.js";

/** A file name from the deck's title: "Privacidad Diferencial" → "privacidad-diferencial". */
export function slug(text) {
  const s = String(text || "").normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase()
    .replace(/[^a-z0-9]+/g, "-").replace(/^-+|-+$/g, "");
  return s || "presentacion";
}

/** ``::: box Title`` … ``:::`` (the deck's boxes) as a bold heading: Jupyter has no boxes. */
export function plainMarkdown(md) {
  return String(md || "").split("\n")
    .map((line) => {
      const m = line.match(/^\s*:::\s*\w*\s*(.*)$/);
      if (!m) return line;
      return m[1] ? `**${m[1].trim()}**` : "";
    }).join("\n").replace(/\n{3,}/g, "\n\n").trim();
}

function lines(text) {
  // nbformat's multiline strings: a list of lines, each but the last ending in "\n"
  const parts = String(text).split("\n");
  return parts.map((l, i) => (i < parts.length - 1 ? l + "\n" : l)).filter((l) => l !== "");
}

function cellId(used, base) {
  // v4.5 ids: 1-64 of [A-Za-z0-9_-], unique in the notebook
  let id = String(base).replace(/[^A-Za-z0-9_-]+/g, "-").slice(0, 56) || "celda";
  const root = id;
  for (let n = 2; used.has(id); n++) id = `${root}-${n}`;
  used.add(id);
  return id;
}

/** What the notebook's first Markdown cell says: what this is, and how to install the wheel. */
export function introMarkdown({ title, subtitle, author, wheelName, packageName = "dplab" }) {
  const head = [`# ${title || say({ code: "notebook-untitled" })}`];
  if (subtitle) head.push("", subtitle);
  if (author) head.push("", `*${author}*`);
  return [...head, "", say({ code: "notebook-intro", packageName, wheelName })].join("\n");
}

/** Under an exercise: the deck checks the answer, the notebook does not. */
export const EXERCISE_NOTE = say({ code: "notebook-exercise-note" });

/**
 * The notebook (nbformat 4.5, as a plain object).
 * @param {{title: string, subtitle: string, author: string, wheelName: string, packageName?: string, prelude: string,
 *          cells: {id: string, title?: string, body?: string, code: string, exercise?: boolean}[]}} doc
 */
export function notebook(doc) {
  const used = new Set();
  const md = (id, text) => ({ cell_type: "markdown", id: cellId(used, id), metadata: {}, source: lines(text) });
  const code = (id, text, metadata = {}) => ({ cell_type: "code", id: cellId(used, id), metadata,
                                               execution_count: null, outputs: [], source: lines(text) });
  const cells = [md("intro", introMarkdown(doc)), code("preludio", doc.prelude.trimEnd())];
  for (const c of doc.cells) {
    const body = plainMarkdown(c.body) + (c.exercise ? `\n\n*${EXERCISE_NOTE}*` : "");
    cells.push(md(`md-${c.id}`, `## ${c.title}\n\n${body.trim()}`.trim()));
    // an exercise left with its blanks (``...``) raises: the tag lets nbconvert/nbclient go on
    cells.push(code(c.id, c.code.trimEnd(), c.exercise ? { tags: ["raises-exception"] } : {}));
  }
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
      language_info: { name: "python" },
    },
    cells,
  };
}

const comment = (text) => String(text).split("\n").map((l) => (l ? `# ${l}` : "#")).join("\n");

/** The same content as a script: `# %%` cells (VS Code, Spyder, jupytext), text as comments. */
export function script(doc) {
  const out = [
    comment(introMarkdown(doc).replace(/```sh\n|```\n?/g, "")), "",
    `# %% ${say({ code: "notebook-prelude" })}`, doc.prelude.trimEnd(), "",
  ];
  for (const c of doc.cells) {
    const body = (plainMarkdown(c.body) + (c.exercise ? `\n\n${EXERCISE_NOTE}` : "")).trim();
    out.push(`# %% ${c.title.replace(/\s*\n\s*/g, " ")}`);
    if (body) out.push(comment(body), "");
    out.push(c.code.trimEnd(), "");
  }
  // run as a script (python archivo.py) the figures would never show: show them at the end
  out.push(`# %% ${say({ code: "notebook-figures" })}`,
           "import matplotlib.pyplot as plt", "plt.show()", "");
  return out.join("\n");
}

/** The wheel's file name (its path's last part). @param {import("../shared/types.js").DeckConfig} config */
const wheelFile = (config) => config.wheel.slice(config.wheel.lastIndexOf("/") + 1);

/** What the page knows now: each cell's code as in its editor, with its slide's title and text. */
export function collect(cells, config) {
  const info = config.notebook || {};
  const slides = info.slides || {};
  return {
    title: info.title || document.title,
    subtitle: info.subtitle || "",
    author: info.author || "",
    wheelName: wheelFile(config),
    packageName: config.packageName,
    prelude: config.prelude || "",
    cells: cells.map((cell) => ({
      id: cell.id,
      title: slides[cell.id]?.title ?? cell.slide?.querySelector("h2")?.textContent ?? cell.id,
      body: slides[cell.id]?.body ?? "",
      exercise: Boolean(slides[cell.id]?.exercise ?? cell.root?.closest?.(".exercise")),
      code: cell.code,
    })),
  };
}

function item(text, detail) {
  const a = document.createElement("a");
  a.className = "notebook-item";
  a.setAttribute("role", "menuitem");
  const strong = document.createElement("span");
  strong.className = "notebook-item-name";
  strong.textContent = text;
  const small = document.createElement("span");
  small.className = "notebook-item-detail";
  small.textContent = detail;
  a.append(strong, small);
  return a;
}

/** The ⤓ action and its menu of three downloads. Returns the button (for actions.js).
 *  @param {{cells: import("./cell.js").Cell[], config: import("../shared/types.js").DeckConfig, base: string,
 *           announce: (text: string) => void,
 *           makeButton: (label: string, text: string, onClick: () => void) => HTMLButtonElement,
 *           signal?: AbortSignal}} options  ``signal``: the menu's listeners go when it aborts */
export function notebookAction({ cells, config, base, announce, makeButton, signal }) {
  const name = slug(config.notebook?.title || config.deckId);
  const wheelName = wheelFile(config);
  const wrap = document.createElement("div");
  wrap.className = "notebook-wrap";
  const btn = makeButton(say({ code: "notebook-action-label", packageName: config.packageName }), "⤓", () => toggle());
  btn.dataset.action = "notebook";
  btn.setAttribute("aria-haspopup", "menu");
  btn.setAttribute("aria-expanded", "false");
  const menu = document.createElement("div");
  menu.className = "notebook-menu";
  menu.id = "notebook-menu";
  menu.setAttribute("role", "menu");
  menu.setAttribute("aria-label", say({ code: "notebook-menu" }));
  menu.hidden = true;
  btn.setAttribute("aria-controls", menu.id);

  const ipynb = item(say({ code: "notebook-ipynb" }), `${name}.ipynb`);
  ipynb.download = `${name}.ipynb`;
  ipynb.dataset.download = "ipynb";
  const py = item(say({ code: "notebook-py" }), `${name}.py`);
  py.download = `${name}.py`;
  py.dataset.download = "py";
  const whl = item(say({ code: "notebook-wheel", packageName: config.packageName }), wheelName);
  whl.download = wheelName;
  whl.dataset.download = "wheel";
  whl.href = new URL(config.wheel, base).href;
  const note = document.createElement("p");
  note.className = "notebook-note";
  note.textContent = say({ code: "notebook-menu-note" });
  menu.append(ipynb, py, whl, note);

  const urls = new Map();
  const refresh = () => {   // fresh files from the cells' code as it is now
    const doc = collect(cells, config);
    /** @type {[HTMLAnchorElement, string, string][]} */
    const files = [[ipynb, JSON.stringify(notebook(doc), null, 1) + "\n", "application/x-ipynb+json"],
                   [py, script(doc), "text/x-python"]];
    for (const [link, text, type] of files) {
      if (urls.has(link)) URL.revokeObjectURL(urls.get(link));
      const url = URL.createObjectURL(new Blob([text], { type }));
      urls.set(link, url);
      link.href = url;
    }
  };
  // the href is read after the click's listeners: it always holds the code of this moment
  for (const link of [ipynb, py]) link.addEventListener("click", refresh, { signal });
  for (const link of [ipynb, py, whl]) {
    link.addEventListener("click", () => {
      announce(say({ code: "downloading", file: link.download }));
      setTimeout(() => close(false), 0);
    }, { signal });
  }

  function open() {
    refresh();
    menu.hidden = false;
    btn.setAttribute("aria-expanded", "true");
    ipynb.focus();
  }
  function close(focusButton = true) {
    if (menu.hidden) return;
    menu.hidden = true;
    btn.setAttribute("aria-expanded", "false");
    if (focusButton) btn.focus();
  }
  function toggle() { if (menu.hidden) open(); else close(); }

  // keys in the menu are the menu's, not reveal.js's (Esc would open the overview)
  menu.addEventListener("keydown", (e) => {
    const links = [ipynb, py, whl];
    const i = links.indexOf(/** @type {HTMLAnchorElement} */ (document.activeElement));
    if (e.key === "Escape") close();
    else if (e.key === "ArrowDown") links[(i + 1) % links.length].focus();
    else if (e.key === "ArrowUp") links[(i + links.length - 1) % links.length].focus();
    else if (e.key !== "Enter" && e.key !== "Tab") return;
    if (e.key !== "Enter" && e.key !== "Tab") e.preventDefault();
    e.stopPropagation();
  }, { signal });
  document.addEventListener("pointerdown", (e) => { if (!wrap.contains(/** @type {Node} */ (e.target))) close(false); },
                            { capture: true, signal });
  wrap.append(btn, menu);
  return wrap;
}
