// The engine scenario: one walk through the deck, run inside the page by every engine's driver
// (Playwright for Chromium, puppeteer-core over WebDriver BiDi for Firefox, selenium over W3C
// WebDriver for WebKit), so that the three engines are tested by the very same code.
//
// This file is one async arrow function expression, called with the options and the helpers of
// inpage.js. A driver injects it (drivers.source) through its protocol's evaluate (which the
// page's CSP does not govern) and gets back a JSON report:
//   {engine: {crossOriginIsolated, sharedArrayBuffer, canInterrupt, userAgent, ...},
//    allCellsDoneSeconds,            // navigation start → every cell's first run done
//    steps: [{name, ok, seconds, details, error?}],
//    timeline: [[seconds, state, detail]],   // the runtime's status, from injection on
//    animations: [...], totalSeconds}        // CSS animations still running at the end
// Every step has its own deadline and the scenario always returns: a step that fails says
// why in `error`, and the steps after it still run (a hang never hides the other results).
// Inside the page, so no eval and no `new Function`: the deck's CSP forbids them.
// Steps: load, all-cells, edit-run, completion, slider, exercise, meter, notebook, stop, restart,
// after-restart, sleep-stop, memory, silent-worker (test_engines.STEPS).
async (options = {}, { now, sleep, waitFor, within }) => {
  const opt = {
    // seconds; generous caps (a slow engine on a busy machine), a short stall: see waitCells
    loadTimeout: 120, cellsTimeout: 300, runTimeout: 60, stallTimeout: 30, replayTimeout: 300,
    ...options,
  };
  const started = performance.now();
  const secs = (ms) => Math.round(ms) / 1000;
  const report = { engine: {}, steps: [], allCellsDoneSeconds: null, injectedAtSeconds: secs(started),
                   timeline: [] };

  let loaded = false;   // without the deck there is nothing to drive: the other steps say so at once

  /** Run one step within ``timeout`` seconds. ``requires``: a step whose failure leaves
   *  nothing for this one to check (it is then reported as not run, at once). */
  async function step(name, timeout, body, requires = null) {
    const entry = { name, ok: false, seconds: null, details: {} };
    report.steps.push(entry);
    const t = now();
    const needed = requires && report.steps.find((s) => s.name === requires);
    if ((name !== "load" && !loaded) || (needed && !needed.ok)) {
      entry.error = loaded ? `not run: ${requires} failed` : "not run: the deck or its Python runtime did not start";
      entry.seconds = 0;
      return false;
    }
    try {
      await within(body(entry.details), timeout, `step ${name}`);
      entry.ok = true;
    } catch (e) {
      entry.error = String(e && e.message || e);
    }
    entry.seconds = secs(now() - t);
    return entry.ok;
  }

  const deck = () => window.deck;
  const cells = () => deck().cells;
  const outputText = (cell, kind) => cell.output.items.filter((i) => i.kind === kind).map((i) => i.text).join("");
  // the error's type and message, and where the interpreter itself died (worker.js, postDied),
  // the engine's own reason, which only the traceback's last line names
  const errorHead = (cell) => {
    if (!cell.lastResult || cell.lastResult.ok) return null;
    const { type, message, traceback } = cell.lastResult.error;
    const head = `${type}: ${String(message).slice(0, 300)}`;
    return cell.lastResult.crashed && traceback ? `${head} (${String(traceback).trim().slice(-300)})` : head;
  };
  const runtimeState = () => ({ state: deck().runtime.state, detail: deck().runtime.detail,
                                restarts: deck().runtime.restarts });
  const DRAWS = /\b(plt|figure)\b/;

  /** Run a cell now (the Run button's path) and wait for its result. */
  async function runCell(cell, what) {
    await waitFor(`${cell.id} to be idle`, () => cell.running === null, opt.runTimeout);
    return within(cell.run(), opt.runTimeout, what || `run of ${cell.id}`);
  }

  /** Wait until every cell in ``targets`` ran past its count in ``before`` and no cell runs.
   *  Python may be slow (a loaded machine, a slow engine) but not idle: waiting cells while the
   *  runtime sits neither loading (Python, or matplotlib's wheels) nor running for
   *  ``stallTimeout`` seconds fail at once, naming
   *  what waits (a scheduler that forgot a queue looks exactly like that). */
  async function waitCells(targets, before, what, cap) {
    const deadline = now() + cap * 1000;
    let doneCount = -1;
    let lastProgress = now();
    for (;;) {
      const done = targets.filter((c) => c.runs > before.get(c) && c.running === null);
      if (done.length === targets.length && cells().every((c) => c.running === null)) return done.length;
      const state = runtimeState();
      // "listo · cargando matplotlib…": its wheels are on their way (bounded: 180 s), not idle
      if (done.length !== doneCount || ["loading", "running"].includes(state.state) || state.detail.includes("cargando")) {
        doneCount = done.length;
        lastProgress = now();
      }
      const waiting = targets.filter((c) => !done.includes(c)).map((c) => c.id);
      const tail = `${done.length} of ${targets.length} cells done; still waiting: ` +
                   `${waiting.slice(0, 6).join(", ")}${waiting.length > 6 ? ", …" : ""}; ` +
                   `runtime ${state.state} (${state.detail})`;
      if (now() - lastProgress > opt.stallTimeout * 1000) {
        throw new Error(`${what} stalled: Python idle for ${opt.stallTimeout} s with cells waiting: ${tail}`);
      }
      if (now() > deadline) throw new Error(`${what} not finished after ${cap} s: ${tail}`);
      await sleep(50);
    }
  }

  /** The cells a restart queued for replay (deck.js queues them in the restart event,
   *  synchronously: they are running the moment restart() returns), but ``except``. */
  const queued = (except = null) => cells().filter((c) => c.running !== null && c !== except);

  // 1. The page loads, the runtime starts; the engine's facts.
  await step("load", opt.loadTimeout, async (d) => {
    await waitFor("window.deck", () => window.deck && document.documentElement.dataset.deckReady === "true",
                  opt.loadTimeout);
    Object.assign(report.engine, {
      userAgent: navigator.userAgent,
      crossOriginIsolated: self.crossOriginIsolated === true,
      sharedArrayBuffer: typeof SharedArrayBuffer,
      atomics: typeof Atomics,
      canInterrupt: deck().runtime.canInterrupt,
      serviceWorkerControlled: Boolean(navigator.serviceWorker && navigator.serviceWorker.controller),
      search: location.search,
      // what decides the pool of Python workers (pool.js), and what it decided
      hardwareConcurrency: navigator.hardwareConcurrency ?? null,
      deviceMemory: navigator.deviceMemory ?? null,
      finePointer: matchMedia("(any-pointer: fine)").matches,
      workers: deck().runtime.workers ?? 1,
    });
    d.cells = cells().length;
    // the runtime's status changes, from here on: where a slow engine spends its time
    report.timeline = [[secs(now()), deck().runtime.state, deck().runtime.detail]];
    deck().runtime.addEventListener("status", (e) => {
      const last = report.timeline[report.timeline.length - 1];
      if (report.timeline.length < 400 && (last[1] !== e.detail.state || last[2] !== e.detail.detail)) {
        report.timeline.push([secs(now()), e.detail.state, e.detail.detail]);
      }
    });
    await waitFor("the runtime to be ready", () => ["ready", "running"].includes(deck().runtime.state) && deck().runtime,
                  opt.loadTimeout).catch((e) => { throw new Error(`${e.message}; runtime ${JSON.stringify(runtimeState())}`); });
    d.runtimeReadySeenAt = secs(now());   // navigation → ready, as seen by polling (an upper bound)
    loaded = true;
  });

  // 2. Every cell runs: the deck's own background pre-run, untouched, on a cold load.
  await step("all-cells", opt.cellsTimeout + opt.runTimeout, async (d) => {
    await waitCells(cells(), new Map(cells().map((c) => [c, 0])), "the pre-run of every cell", opt.cellsTimeout);
    await waitFor("prerunDone", () => document.documentElement.dataset.prerunDone === "true", opt.runTimeout);
    // performance.now() counts from the navigation's start: the last cell's end is the time
    // from navigation to all cells done, whenever this poll noticed it
    const last = Math.max(...cells().map((c) => c.lastRunAt));
    report.allCellsDoneSeconds = d.allCellsDoneSeconds = secs(last);
    d.computeSeconds = Math.round(cells().reduce((s, c) => s + (c.lastResult.seconds || 0), 0) * 100) / 100;
    d.figures = cells().reduce((n, c) => n + c.output.items.filter((i) => i.kind === "figure").length, 0);
    // none on a cold load; one the page recovered from by itself is said, not hidden
    d.restarts = deck().runtime.restarts;
    const failed = cells().filter((c) => !c.lastResult.ok).map((c) => `${c.id}: ${errorHead(c)}`);
    const blank = cells().filter((c) => c.lastResult.ok && DRAWS.test(c.code)
                                   && !c.output.items.some((i) => i.kind === "figure")).map((c) => c.id);
    if (failed.length) throw new Error(`cells failed: ${failed.join(" | ")}`);
    if (blank.length) throw new Error(`cells drew no figure: ${blank.join(", ")}`);
  });

  // 3. Edit a cell and run it.
  await step("edit-run", opt.runTimeout, async (d) => {
    const cell = cells()[0];
    cell.code = "x = 6 * 7\nprint('resultado', x)\nx + 1";
    if (!cell.root.classList.contains("edited")) throw new Error("the edited cell is not marked edited");
    const result = await runCell(cell);
    d.stdout = outputText(cell, "stdout");
    d.value = result.value;
    d.cellSeconds = result.seconds;
    if (!result.ok) throw new Error(`the edited cell failed: ${errorHead(cell)}`);
    if (d.stdout.trim() !== "resultado 42" || result.value !== "43") {
      throw new Error(`unexpected output ${JSON.stringify(d.stdout)} / value ${JSON.stringify(result.value)}`);
    }
    // a long print, drawn in pieces of 400 lines (output.js): on its slide, it reads back as
    // printed (innerText: what a reader copies), and each piece begins a line at the block's
    // left edge, below the one before it, whether the block wraps (a slide) or not (phone.css)
    deck().reveal.slide(...Object.values(deck().reveal.getIndices(cell.slide)));
    const printed = Array.from({ length: 1000 }, (_, i) => String(i)).join("\n");
    cell.code = "for i in range(1000):\n    print(i, end='\\n' if i < 999 else '')";
    if (!(await runCell(cell)).ok) throw new Error(`the long print failed: ${errorHead(cell)}`);
    const pre = /** @type {HTMLElement} */ (cell.root.querySelector("pre[data-kind=stdout]"));
    await waitFor("the long print to be laid out", () => pre.getClientRects().length > 0, 10);
    d.pieces = pre.querySelectorAll(".out-lines").length;
    if (d.pieces !== 2) throw new Error(`the long print is in ${d.pieces} pieces, not 2 after its first 400 lines`);
    for (const whiteSpace of ["pre-wrap", "pre"]) {
      pre.style.whiteSpace = whiteSpace;
      if (pre.innerText !== printed) throw new Error(`a long print reads back changed (white-space: ${whiteSpace})`);
      const left = pre.getBoundingClientRect().left + parseFloat(getComputedStyle(pre).paddingLeft);
      let above = -Infinity;
      for (const piece of pre.querySelectorAll(".out-lines")) {
        const box = piece.getBoundingClientRect();
        if (Math.abs(box.left - left) >= 1 || box.top < above - 1) {
          throw new Error(`a long print's piece is out of place (white-space: ${whiteSpace})`);
        }
        above = box.bottom;
      }
    }
    cell.reset();
    if (cell.code !== cell.authored) throw new Error("reset did not restore the authored code");
  });

  // 3b. The editor completes from the live session (issue 22): its first focus loads jedi in the
  //    worker's gaps; then typing "census." lists the census's attributes, as typed by a person.
  await step("completion", opt.runTimeout * 3, async (d) => {
    const cell = cells()[0];
    const view = (await cell.wantEditor()).view;   // built when its slide comes near (cell.js)
    const t = now();
    view.focus();
    view.contentDOM.dispatchEvent(new FocusEvent("focus"));   // what warms the engine
    for (;;) {   // the engine answers once its wheels are fetched, checked and jedi imported
      const reply = await deck().runtime.query("complete", "np.ran", 1, 6, 5000);
      if (reply && reply.ready && reply.answer && reply.answer.items.some((i) => i.label === "random")) break;
      if (now() - t > opt.runTimeout * 2000) throw new Error(`no answer from the engine: ${JSON.stringify(reply)}`);
      await sleep(250);
    }
    d.engineSeconds = secs(now() - t);
    cell.code = "census";
    const end = view.state.doc.length;
    view.focus();
    view.dispatch({ changes: { from: end, insert: "." }, selection: { anchor: end + 1 }, userEvent: "input.type" });
    const labels = () => [...cell.root.querySelectorAll(".cm-tooltip-autocomplete li .cm-completionLabel")]
      .map((e) => e.textContent);
    const t1 = now();
    await waitFor("census's attributes in the completion list", () => labels().includes("columns"), 30);
    d.listSeconds = secs(now() - t1);
    d.options = labels().slice(0, 8);
    cell.reset();
  });

  // 4. A slider: move it as a person would (an input event); the cell re-runs with the value.
  await step("slider", opt.runTimeout, async (d) => {
    const withSlider = cells().filter((c) => c.root.querySelector(".cell-params input[type=range]"));
    if (!withSlider.length) throw new Error("no cell has a slider");
    const cell = withSlider.reduce((a, b) => (a.lastResult.seconds <= b.lastResult.seconds ? a : b));
    const input = cell.root.querySelector(".cell-params input[type=range]");
    const name = input.dataset.param;
    const shown = input.closest("label").querySelector(".param-value");
    await waitFor(`${cell.id} to be idle`, () => cell.running === null, opt.runTimeout);
    const runs = cell.runs;
    const before = shown.textContent;
    const codeBefore = cell.code.split("\n");
    input.value = Number(input.value) < 500 ? "750" : "250";
    input.dispatchEvent(new Event("input", { bubbles: true }));
    Object.assign(d, { cell: cell.id, param: name, from: before, to: shown.textContent });
    if (shown.textContent === before) throw new Error(`the slider's shown value did not change (${before})`);
    const assigned = new RegExp(`^${name}\\s*=\\s*${shown.textContent.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\s*(#.*)?$`, "m");
    if (!assigned.test(cell.code)) throw new Error(`the code does not assign ${name} = ${shown.textContent}`);
    // the control rewrites its one line, and nothing else
    const codeAfter = cell.code.split("\n");
    const changed = codeAfter.map((line, i) => (line !== codeBefore[i] ? i + 1 : 0)).filter(Boolean);
    d.changedLines = changed;
    if (codeAfter.length !== codeBefore.length || changed.length !== 1) {
      throw new Error(`the slider changed lines ${JSON.stringify(changed)} of ${codeBefore.length}, not one`);
    }
    const t = now();
    await waitFor("the slider's re-run", () => cell.runs > runs && cell.running === null, opt.runTimeout);
    d.rerunSeconds = secs(now() - t);   // includes the controls' 120 ms debounce
    if (!cell.lastResult.ok) throw new Error(`the re-run failed: ${errorHead(cell)}`);
    if (cell.lastCode !== cell.code) throw new Error("the re-run did not run the slider's code");
    cell.reset();
  });

  /** Go to the slide that holds ``el`` (reveal.js), as a viewer would before reading it. */
  async function showSlide(el) {
    const reveal = deck().reveal;
    const slide = el.closest("section");
    reveal.slide(...Object.values(reveal.getIndices(slide)));
    await waitFor(`the slide ${slide.id} to be current`, () => reveal.getCurrentSlide() === slide, 10);
  }
  /** Laid out and not hidden: what a viewer would see (on the current slide). */
  const shows = (el) => Boolean(el) && !el.closest("[hidden]") && el.getBoundingClientRect().height > 0
    && getComputedStyle(el).visibility !== "hidden";
  const ERROR_RED = "rgb(164, 22, 26)";   // --error in deck.css
  const home = deck().reveal.getIndices();

  // 5. An exercise: the starter as it is gets ✗; "Ver solución", "Cargar en el editor" (its
  //    buttons, clicked), run: ✓ but not counted as solved; the student's own code: ✓ and the
  //    "resuelto" badge.
  await step("exercise", 2 * opt.runTimeout + 20, async (d) => {
    const ex = deck().exercises[0];
    if (!ex) throw new Error("the deck has no exercise");
    const { cell, root } = ex;
    const feedback = root.querySelector(".exercise-feedback");
    d.exercise = ex.id;
    await showSlide(root);
    if (cell.code !== cell.authored) throw new Error("the exercise's editor does not hold the starter");
    if (!feedback.hidden) throw new Error("feedback shown before any judged run (the pre-run is not judged)");
    const first = await runCell(cell, `the starter of ${ex.id}`);
    d.starter = { ok: first.ok, state: feedback.dataset.state, text: feedback.textContent };
    if (feedback.dataset.state !== "wrong" || !feedback.textContent.includes("✗")
        || !feedback.textContent.includes("Falta completar")) {
      throw new Error(`the starter's feedback: ${JSON.stringify(d.starter)}`);
    }
    await waitFor("the ✗ feedback to show", () => shows(feedback), 5);
    d.starter.color = getComputedStyle(feedback.querySelector(".exercise-icon")).color;
    if (d.starter.color !== ERROR_RED) throw new Error(`the ✗ is ${d.starter.color}, not ${ERROR_RED}`);

    root.querySelector("button.show-solution").click();
    const load = root.querySelector("button.load-solution");
    await waitFor("the solution and «Cargar en el editor» to show",
                  () => shows(root.querySelector(".exercise-solution")) && shows(load), 5);
    load.click();
    d.loaded = cell.code === ex.solution;
    if (!d.loaded) throw new Error(`«Cargar en el editor» left ${JSON.stringify(cell.code)}`);
    if (!cell.root.classList.contains("edited")) throw new Error("the loaded solution is not marked edited");
    const second = await runCell(cell, `the solution of ${ex.id}`);
    d.solution = { ok: second.ok, state: feedback.dataset.state, text: feedback.textContent };
    if (!second.ok || feedback.dataset.state !== "ok" || !feedback.textContent.includes("✓")
        || !feedback.textContent.includes("No cuenta como resuelto")) {
      throw new Error(`the loaded solution's feedback: ${JSON.stringify(d.solution)}`);
    }
    const badge = root.querySelector(".exercise-badge");
    if (ex.solved || shows(badge)) throw new Error("the solution as loaded counted as solved");
    // the student's own code (here: the solution with a line of theirs) is what counts
    cell.code = `${ex.solution.trimEnd()}\nrespuesta = "mía"`;
    const third = await runCell(cell, `an own solution of ${ex.id}`);
    d.own = { ok: third.ok, state: feedback.dataset.state, text: feedback.textContent };
    if (!third.ok || feedback.dataset.state !== "ok" || feedback.textContent.includes("No cuenta")) {
      throw new Error(`an own solution's feedback: ${JSON.stringify(d.own)}`);
    }
    await waitFor("the ✓ feedback and the «resuelto» badge to show", () => shows(feedback) && shows(badge), 5);
    if (!ex.solved) throw new Error("the exercise is not marked solved");
    cell.reset();
  });

  // 6. The privacy-budget meter on «Composición secuencial»: "ε: 1 de 1"; an edit that
  //    overspends is refused, in Spanish and in red, beside the meter.
  await step("meter", 2 * opt.runTimeout + 20, async (d) => {
    const cell = cells().find((c) => c.id === "composicion-secuencial");
    if (!cell) throw new Error("no cell composicion-secuencial");
    await showSlide(cell.root);
    const box = () => cell.root.querySelector(".cell-output .out-budget");
    const row = () => {
      const rows = [...(box()?.querySelectorAll(".budget-row") ?? [])];
      const r = rows[0];
      const refused = r?.querySelector(".budget-refused");
      return { rows: rows.length, name: r?.querySelector(".budget-name")?.textContent,
               texts: r ? [...r.querySelectorAll(".budget-text")].map((e) => e.textContent) : [],
               fill: parseFloat(r?.querySelector(".budget-fill")?.style.width),
               refused: refused ? refused.textContent : null,
               refusedColor: refused ? getComputedStyle(refused).color : null,
               visible: shows(r) };
    };
    const result = await runCell(cell);
    if (!result.ok) throw new Error(`the cell failed: ${errorHead(cell)}`);
    d.after = await waitFor("the meter", () => box() && row().visible && row(), 5);
    if (d.after.rows !== 1 || d.after.name !== "presupuesto" || d.after.texts.join("|") !== "ε: 1 de 1"
        || d.after.fill !== 100 || d.after.refused !== null) {
      throw new Error(`the meter shows ${JSON.stringify(d.after)}`);
    }
    if (box() !== box().parentElement.firstElementChild) throw new Error("the meter is not first in the output");

    // the slide's own overspending edit (its try «pedir una tercera», kept in step with dplab's
    // names by the deck; test_meter.py applies it too), made in the editor and run
    const k = cell.tries.findIndex((t) => t.label === "pedir una tercera");
    if (k < 0) throw new Error("composicion-secuencial has no try «pedir una tercera»");
    cell.code = cell.triedCode(k);
    const over = await runCell(cell, "the overspending edit");
    d.overspend = { ok: over.ok, stdout: outputText(cell, "stdout").trim().split("\n").pop() };
    if (!over.ok || !d.overspend.stdout.includes("rechazada (BudgetError)")) {
      throw new Error(`the overspending edit ended ${JSON.stringify(d.overspend)}: ${errorHead(cell)}`);
    }
    d.refusal = await waitFor("the refusal", () => row().refused && row(), 5);
    const expected = "✗ La publicación «tercera» fue rechazada: cuesta ε = 0,5 y solo quedan 0 de 1. " +
                     "No se gastó nada del presupuesto.";
    if (d.refusal.refused !== expected) throw new Error(`the refusal reads ${JSON.stringify(d.refusal.refused)}`);
    if (d.refusal.refusedColor !== ERROR_RED) throw new Error(`the refusal is ${d.refusal.refusedColor}, not red`);
    if (!d.refusal.visible || d.refusal.texts.join("|") !== "ε: 1 de 1") {
      throw new Error(`the meter beside the refusal: ${JSON.stringify(d.refusal)}`);
    }
    cell.reset();
  });

  // 7. ⤓: the menu opens; its notebook link is a blob: URL of the cells as they are now (an edit
  //    included): JSON, nbformat 4. (No real download: WebDriver cannot see one. The Blob behind
  //    the link is read where the page made it, URL.createObjectURL.)
  await step("notebook", 30, async (d) => {
    const button = document.querySelector("button[data-action='notebook']");
    const menu = document.getElementById("notebook-menu");
    if (!button || !menu) throw new Error("no ⤓ button or menu");
    const cell = cells()[0];
    const mark = `# editado en ${navigator.userAgent.includes("Firefox") ? "Firefox" : "este navegador"}`;
    cell.code = `${cell.authored.trimEnd()}\n${mark}`;
    const blobs = new Map();
    const create = URL.createObjectURL;
    URL.createObjectURL = function (obj) {
      const url = create.call(URL, obj);
      blobs.set(url, obj);
      return url;
    };
    try {
      button.click();
      await waitFor("the menu to open", () => !menu.hidden && shows(menu), 5);
      d.expanded = button.getAttribute("aria-expanded");
      const link = menu.querySelector("a[data-download='ipynb']");
      const py = menu.querySelector("a[data-download='py']");
      const wheel = menu.querySelector("a[data-download='wheel']");
      d.href = link.href.slice(0, 5);
      d.download = [link.download, py.download, wheel.download];
      if (!link.href.startsWith("blob:")) throw new Error(`the notebook link is ${link.href.slice(0, 60)}`);
      if (!link.download.endsWith(".ipynb")) throw new Error(`it downloads as ${JSON.stringify(link.download)}`);
      const blob = blobs.get(link.href);
      if (!blob) throw new Error("the notebook link's Blob was not made by URL.createObjectURL on opening");
      const nb = JSON.parse(await blob.text());
      const code = (nb.cells || []).filter((c) => c.cell_type === "code");
      d.nbformat = [nb.nbformat, nb.nbformat_minor];
      d.cells = [nb.cells.length, code.length];
      if (nb.nbformat !== 4) throw new Error(`nbformat ${nb.nbformat}`);
      if (code.length !== cells().length + 1) throw new Error(`${code.length} code cells for ${cells().length} cells and the prelude`);
      if (!code.every((c) => Array.isArray(c.source) && Array.isArray(c.outputs) && typeof c.id === "string")) {
        throw new Error("a code cell lacks source, outputs or id");
      }
      if (!code[1].source.join("").includes(mark)) throw new Error("the notebook lacks the edit made before opening ⤓");
      const script = await blobs.get(py.href)?.text();
      if (!script || !script.includes(mark) || !script.includes("# %%")) throw new Error("the .py lacks its cells or the edit");
      // the wheel: a file of this origin (the page's CSP lets it be fetched), a zip
      const response = await fetch(wheel.href);
      const head = new Uint8Array(await response.arrayBuffer());
      d.wheel = { status: response.status, bytes: head.length };
      if (!response.ok || head[0] !== 0x50 || head[1] !== 0x4b) throw new Error(`the wheel link: ${JSON.stringify(d.wheel)}`);
      // Esc closes the menu (the menu's key, not reveal.js's), focus back on ⤓
      menu.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", bubbles: true, cancelable: true }));
      if (!menu.hidden) throw new Error("Esc did not close the menu");
      if (document.activeElement !== button) throw new Error("the focus did not return to ⤓");
    } finally {
      URL.createObjectURL = create;
      cell.reset();
    }
  });
  deck().reveal.slide(home.h, home.v, home.f);

  /** Watch the next restart: when deck.js has queued its replay (its listener came first),
   *  note which cells it queued (but ``except``, a cell whose own run the restart ended). */
  function watchRestart(except = null) {
    const seen = { at: null, targets: null, before: null };
    const on = () => {
      seen.at = now();
      seen.targets = queued(except);
      seen.before = new Map(cells().map((c) => [c, c.runs]));
    };
    deck().runtime.addEventListener("restart", on, { once: true });
    seen.cancel = () => deck().runtime.removeEventListener("restart", on);
    return seen;
  }

  // 8. Stop a runaway cell. With SharedArrayBuffer (isolated) Python is interrupted
  //    (KeyboardInterrupt); without (plain; WebKit), the worker is restarted ("se reinició Python").
  let restartByStop = null;
  await step("stop", opt.runTimeout, async (d) => {
    const cell = cells()[0];
    await waitFor(`${cell.id} to be idle`, () => cell.running === null, opt.runTimeout);
    d.canInterrupt = deck().runtime.canInterrupt;
    cell.code = "i = 0\nwhile True:\n    i += 1";
    const run = cell.run();
    await waitFor("the runaway cell to start", () => cell.running !== null && deck().runtime.current === cell.running,
                  opt.runTimeout);
    await sleep(500);
    // with a pool of workers (workers.js: where the engine says ≥ 4 cores), a worker that Stop
    // restarts replays only the cells whose state lived in it: the ones pinned to it now
    const router = deck().runtime.router;
    d.workers = deck().runtime.workers ?? 1;
    d.sameWorker = router ? [...router.pins.values()].filter((w) => w === router.pins.get(cell.id)).length
      : cells().length;
    const watch = watchRestart(cell);
    watch.sameWorker = d.sameWorker;
    const t = now();
    cell.stop();
    const result = await within(run, 10, "the stopped cell's result");
    d.stopSeconds = secs(now() - t);
    d.mode = watch.at !== null ? "restart" : "interrupt";
    if (watch.at !== null) restartByStop = watch; else watch.cancel();
    d.error = String(result.error && (result.error.traceback || result.error.message) || "").slice(-300);
    cell.reset();
    if (result.ok) throw new Error("the stopped cell ended without an error");
    if (d.stopSeconds > 2) throw new Error(`Stop took ${d.stopSeconds} s`);
  });

  // 9. Restart Python after all cells ran: every cell that had run is replayed, in order, and
  //    finishes again. Where Stop restarted Python (after all cells ran) that is the restart
  //    under test, else the ⟲ button's: deck.runtime.restart() (one replay of the deck, not two).
  await step("restart", opt.replayTimeout + opt.stallTimeout, async (d) => {
    let watch = restartByStop;
    d.by = watch ? "stop" : "button";
    if (!watch) {
      await waitFor("every cell idle", () => cells().every((c) => c.running === null), opt.stallTimeout);
      watch = watchRestart();
      deck().runtime.restart("Python reiniciado a pedido");
    }
    if (watch.at === null) throw new Error("restart() did not announce a restart");
    d.queued = watch.targets.length;
    // all that ran (with a pool, on the worker Stop restarted), but the stopped cell
    d.expected = d.by === "stop" ? watch.sameWorker - 1 : cells().length;
    d.replayed = await waitCells(watch.targets, watch.before, "the replay after restarting Python", opt.replayTimeout);
    d.replaySeconds = secs(now() - watch.at);   // boot, prelude, matplotlib, every cell again
    const failed = watch.targets.filter((c) => !c.lastResult.ok).map((c) => `${c.id}: ${errorHead(c)}`);
    if (failed.length) throw new Error(`replayed cells failed: ${failed.join(" | ")}`);
    if (d.queued !== d.expected) throw new Error(`the restart replayed ${d.queued} cells, not ${d.expected}`);
  });

  // 10. After all that, the deck still works: the stopped cell runs, and a cell sees the data
  //    the prelude loaded in the new interpreter.
  await step("after-restart", opt.runTimeout, async (d) => {
    const [first, second] = cells();
    const again = await runCell(first);
    if (!again.ok) throw new Error(`${first.id} failed: ${errorHead(first)}`);
    second.code = "print(len(census))";
    const result = await runCell(second);
    d.stdout = outputText(second, "stdout").trim();
    second.reset();
    if (!result.ok || d.stdout !== "5000") throw new Error(`${second.id}: ${errorHead(second) || d.stdout}`);
  }, "restart");

  // 11. Stop of a sleeping cell (issue 19): where memory is shared, time.sleep waits on the
  //     interrupt buffer, so Stop ends it within 0,5 s by an interrupt, with no restart.
  await step("sleep-stop", opt.runTimeout, async (d) => {
    d.canInterrupt = deck().runtime.canInterrupt;
    if (!d.canInterrupt) { d.skipped = "no shared buffer here: Stop restarts Python (step stop)"; return; }
    const cell = cells()[0];
    await waitFor(`${cell.id} to be idle`, () => cell.running === null, opt.runTimeout);
    const restarts = deck().runtime.restarts;
    cell.code = "import time\ntime.sleep(30)";
    const run = cell.run();
    await waitFor("the sleeping cell to start", () => cell.running !== null && deck().runtime.current === cell.running,
                  opt.runTimeout);
    await sleep(500);
    const t = now();
    cell.stop();
    const result = await within(run, 10, "the stopped cell's result");
    d.stopSeconds = secs(now() - t);
    d.restarted = deck().runtime.restarts !== restarts;
    d.error = result.error && result.error.type;
    cell.reset();
    if (result.ok || d.error !== "KeyboardInterrupt" || d.restarted) throw new Error(`Stop ended the sleep with ${JSON.stringify(d)}`);
    if (d.stopSeconds >= 0.5) throw new Error(`Stop of a sleeping cell took ${d.stopSeconds} s`);
  }, "restart");

  /** Run a cell that draws and one that reads the prelude's data: the deck works. */
  async function deckWorks(d) {
    const [, second] = cells();
    second.code = "print(len(census))";
    const result = await runCell(second);
    d.stdout = outputText(second, "stdout").trim();
    second.reset();
    if (!result.ok || d.stdout !== "5000") throw new Error(`${second.id}: ${errorHead(second) || d.stdout}`);
    const drawing = cells().find((c) => DRAWS.test(c.code) && !c.exercise);
    const drawn = await runCell(drawing);
    d.figure = drawing.output.items.filter((i) => i.kind === "figure").length;
    if (!drawn.ok || !d.figure) throw new Error(`${drawing.id} drew ${d.figure} figures: ${errorHead(drawing)}`);
  }

  // 12. A cell that allocates until memory runs out (issue 19): Python is restarted to hand the
  //     heap back (the cell not replayed), the note under the cell says so, and the deck works.
  await step("memory", opt.replayTimeout + 2 * opt.runTimeout, async (d) => {
    const cell = cells()[0];
    await waitFor("every cell idle", () => cells().every((c) => c.running === null), opt.stallTimeout);
    const watch = watchRestart(cell);
    cell.code = "import numpy\nxs = []\nwhile True:\n    xs.append(numpy.empty(100_000))";
    const result = await within(cell.run(), 3 * opt.runTimeout, "the cell that exhausts memory");
    cell.reset();
    d.error = String(result.error && result.error.traceback || "").slice(-300);
    d.crashed = Boolean(result.crashed);   // the worker asks for a restart just after the result
    if (d.crashed) await waitFor("the restart after exhausting memory", () => watch.at !== null, opt.stallTimeout);
    d.restarted = watch.at !== null;
    if (result.ok || !d.error.includes("MemoryError") || !d.error.includes("Memoria agotada")) {
      throw new Error(`the cell that exhausts memory ended ${JSON.stringify(d)}`);
    }
    if (d.restarted) {
      d.replayed = await waitCells(watch.targets, watch.before, "the replay after exhausting memory", opt.replayTimeout);
    } else watch.cancel();
    await deckWorks(d);
  }, "after-restart");

  // 13. A worker that closes itself (issue 19): the run asked for next waits for the watchdog's
  //     restart and runs (its result, not an error), after the replay.
  await step("silent-worker", opt.replayTimeout + 2 * opt.runTimeout, async (d) => {
    const [first] = cells();
    await waitFor("every cell idle", () => cells().every((c) => c.running === null), opt.stallTimeout);
    first.code = "import js\njs.close()\nprint('adiós')";
    const killed = await runCell(first);
    first.reset();
    if (!killed.ok) throw new Error(`js.close() ended ${errorHead(first)}`);
    // the run that must wait for the restart goes to the worker that went silent: with a pool,
    // a cell pinned to the worker ``first`` ran on (another worker would answer at once)
    const router = deck().runtime.router;
    d.workers = deck().runtime.workers ?? 1;
    const second = cells().find((c) => c !== first && (!router || router.pins.get(c.id) === router.pins.get(first.id)));
    if (!second) throw new Error("no other cell lives on the worker that closed itself");
    const watch = watchRestart(second);
    second.code = "print(len(census))";
    const t = now();
    const result = await within(second.run(), opt.replayTimeout, "the run asked for after the worker closed itself");
    d.waitedSeconds = secs(now() - t);
    d.restarted = watch.at !== null;
    d.stdout = outputText(second, "stdout").trim();
    second.reset();
    if (!d.restarted) throw new Error("the watchdog did not restart the silent worker");
    if (!result.ok || d.stdout !== "5000") throw new Error(`the waiting run ended ${JSON.stringify(result.error || d.stdout)}`);
    d.replayed = await waitCells(watch.targets, watch.before, "the replay after the silent worker", opt.replayTimeout);
  }, "after-restart");

  // at rest: every cell idle, every worker ready with nothing asked of it (a restart reloads
  // the editor's completion engine in the background, seconds of work in a slow engine); only
  // then does the driver measure what still computes, which is then a worker that was not stopped
  if (loaded) {
    const workers = () => deck().runtime.runtimes ?? [deck().runtime];
    const atRest = () => cells().every((c) => c.running === null)
      && workers().every((r) => !r || (r.state === "ready" && r.pending.size === 0 && r.queries.size === 0));
    const t = now();
    try {
      await waitFor("the page at rest", atRest, opt.stallTimeout);
    } catch (e) {
      report.unsettled = String(e && e.message || e);
    }
    report.settleSeconds = secs(now() - t);
    report.atRest = workers().map((r) => r && { state: r.state, pending: r.pending.size, queries: r.queries.size });
  }

  // what still moves on the page at rest (the driver measures what it costs)
  report.animations = (document.getAnimations ? document.getAnimations() : [])
    .filter((a) => a.playState === "running")
    .map((a) => `${a.animationName || a.id || "animation"} on ${a.effect && a.effect.target
                   ? (a.effect.target.id || String(a.effect.target.className)) : "?"}`);
  report.totalSeconds = secs(now());
  return report;
}
