// The issue-50 scenario on any engine (test_stale_output.py runs it in Chromium and WebKit), one
// async arrow function called with the options and inpage.js's helpers, as scenario.js is. On
// «ε determina la dispersión»: ε edited to 3.71 and run, then ↺ Restaurar: the output (of 3.71)
// must be marked «Salida de otra versión del código…»; ε edited back to 3.71: unmarked; ↺ and
// ▶: the output is the code's on screen, unmarked. Then ⟲ asks first: its dialog opens, and
// «Cancelar» restarts nothing.
// Report: {engine, steps: [{name, ok, seconds, details, error?}]}, as scenario.js's.
async (options = {}, { now, sleep, waitFor }) => {
  const opt = { readyTimeout: 180, runTimeout: 120, ...options };
  const report = { engine: { userAgent: navigator.userAgent }, steps: [] };
  const MARK = "Salida de otra versión del código: ejecuta ▶ para actualizar";

  async function step(name, body) {
    const entry = { name, ok: false, seconds: null, details: {} };
    report.steps.push(entry);
    const t = now();
    if (report.steps.some((s) => s !== entry && !s.ok)) { entry.error = "not run: a step before failed"; return; }
    try { await body(entry.details); entry.ok = true; } catch (e) { entry.error = String(e && e.message || e); }
    entry.seconds = Math.round(now() - t) / 1000;
  }

  let cell = null;
  const seen = () => {
    const out = cell.output.el;
    const mark = out.querySelector(".out-stale");
    return { stale: out.dataset.stale === "true", mark: mark ? mark.textContent : null,
             first: out.firstElementChild === mark, items: cell.output.items.length, meta: cell.meta.textContent };
  };
  const expect = (what, ok, d) => { if (!ok) throw new Error(`${what}: ${JSON.stringify(seen())}`); Object.assign(d, seen()); };
  async function runIt() {
    const before = cell.runs;
    cell.runBtn.click();
    await waitFor("the run's end", () => cell.runs > before && !cell.active, opt.runTimeout);
  }
  const edited = () => cell.authored.replace("epsilon = 2.0", "epsilon = 3.71");

  await step("ready", async () => {
    await waitFor("the deck", () => window.deck && document.documentElement.dataset.deckReady === "true", 60);
    cell = window.deck.cells.find((c) => c.authored.includes("mueva ε: la tercera curva"));
    if (!cell) throw new Error("no cell «ε determina la dispersión»");
    const at = window.deck.reveal.getIndices(cell.slide);
    window.deck.reveal.slide(at.h, at.v);
    await waitFor("Python", () => ["ready", "running"].includes(window.deck.runtime.state), opt.readyTimeout);
  });
  await step("edited-run", async (d) => {
    cell.code = edited();
    await runIt();
    expect("an output of the code on screen, unmarked", seen().items > 0 && !seen().stale && seen().mark === null, d);
  });
  await step("restored-marked", async (d) => {
    cell.resetBtn.click();
    await sleep(50);
    const s = seen();
    expect("↺ Restaurar: the edit's output marked", cell.code === cell.authored && s.stale && s.mark === MARK && s.first
           && s.meta.includes("de otra versión del código"), d);
  });
  await step("edited-back", async (d) => {
    cell.code = edited();
    expect("the producing code again: unmarked", !seen().stale && seen().mark === null, d);
  });
  await step("run-current", async (d) => {
    cell.resetBtn.click();
    await runIt();
    expect("▶: the code's own output, unmarked", seen().items > 0 && !seen().stale && seen().mark === null, d);
  });
  await step("restart-asks", async (d) => {
    const before = window.deck.runtime.restarts;
    document.querySelector("button[data-action='restart']").click();
    const dialog = document.querySelector("dialog[data-confirm='restart']");
    await waitFor("⟲'s question", () => dialog && dialog.open, 5);
    d.focused = document.activeElement && document.activeElement.dataset.choice;
    if (d.focused !== "cancel") throw new Error(`«Cancelar» is not focused: ${d.focused}`);
    dialog.querySelector("button[data-choice='cancel']").click();
    await waitFor("the dialog closed", () => !dialog.open, 5);
    await sleep(300);
    if (window.deck.runtime.restarts !== before) throw new Error("«Cancelar» restarted Python");
  });
  return report;
}
