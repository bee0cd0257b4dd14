// The page's components take the context (static/js/page/context.js) and hand back `unbind()`, as
// reveal.js's controllers bind and unbind: bound, each reacts to the keyboard, reveal.js's
// events, the runtime or the speaker view's channel; unbound, the same event does nothing.
// Stand-ins: a reveal.js deck exposing on/off, a document and a window as bare EventTargets.
import { test } from "node:test";
import assert from "node:assert/strict";
import { stub } from "./stub.mjs";
import { HallHolder } from "../../static/js/page/context.js";
import { installZoom } from "../../static/js/page/zoom.js";
import { installSpanishHelp } from "../../static/js/page/help.js";
import { AHEAD_PER_WORKER, startPrerun } from "../../static/js/page/prerun.js";
import { publish, subscribe } from "../../static/js/page/mirror.js";
import { installExercises } from "../../static/js/page/exercise.js";

/** reveal.js's deck, reduced to its events (on/off) and what the components read. */
function fakeReveal({ current = null } = {}) {
  const events = new EventTarget();
  const reveal = {
    current, helpToggles: 0, keyBindings: [],
    on: (type, fn) => events.addEventListener(type, fn),
    off: (type, fn) => events.removeEventListener(type, fn),
    emit: (type) => events.dispatchEvent(new Event(type)),
    getCurrentSlide: () => reveal.current,
    getSlides: () => [],
    getRevealElement: () => ({ querySelector: () => null }),
    toggleHelp: () => { reveal.helpToggles += 1; },
    addKeyBinding: (binding) => reveal.keyBindings.push(binding.keyCode),
  };
  return reveal;
}

/** A context as deck.js makes it, with stand-ins. */
function context(overrides = {}) {
  return { runtime: null, hall: new HallHolder(), reveal: fakeReveal(), config: { version: "v-test" },
           receiver: false, base: "http://127.0.0.1/", announce: () => {}, cells: [], ...overrides };
}

/** A key pressed: an Event carrying what a KeyboardEvent has that the components read. */
function key(k) {
  const e = new Event("keydown", { cancelable: true });
  Object.assign(e, { key: k, ctrlKey: false, altKey: false, metaKey: false });
  return e;
}

/** <html> as zoom.js writes it: its dataset and its --code-zoom. */
function fakeRoot() {
  const props = new Map();
  return { dataset: {}, props, style: { setProperty: (name, value) => props.set(name, value) } };
}

test("zoom: + zooms and announces while bound; after unbind() neither keys nor resize do anything", (t) => {
  const doc = Object.assign(new EventTarget(), { documentElement: fakeRoot() });
  const stored = new Map();
  stub(t, { document: doc, localStorage: { getItem: (k) => stored.get(k) ?? null, setItem: (k, v) => stored.set(k, v) } });
  const said = [];
  let changes = 0;
  const reveal = fakeReveal();
  const { unbind } = installZoom(context({ reveal, announce: (text) => said.push(text) }), { changed: () => { changes += 1; } });
  assert.equal(doc.documentElement.props.get("--code-zoom"), "1.000");
  const plus = key("+");
  doc.dispatchEvent(plus);
  assert.equal(plus.defaultPrevented, true);
  assert.equal(doc.documentElement.props.get("--code-zoom"), "1.100");
  assert.equal(stored.get("dpdeck:code-zoom"), "1.1");
  assert.equal(said.length, 1);
  assert.equal(said[0], "Tamaño del código: 110 %");
  assert.equal(changes, 2);                     // the first size, then the zoom
  doc.documentElement.dataset.codeZoom = "stale";
  reveal.emit("resize");                        // bound: reveal.js's resize applies the zoom again
  assert.equal(doc.documentElement.dataset.codeZoom, "1.1");

  unbind();
  const again = key("+");
  doc.dispatchEvent(again);
  assert.equal(again.defaultPrevented, false);  // the key is no longer the deck's
  assert.equal(doc.documentElement.props.get("--code-zoom"), "1.100");
  assert.equal(said.length, 1);
  doc.documentElement.dataset.codeZoom = "stale";
  reveal.emit("resize");
  reveal.emit("ready");
  assert.equal(doc.documentElement.dataset.codeZoom, "stale");
  assert.equal(changes, 2);
});

/** A stand-in element: enough for help.js's tables. */
function element() {
  return { children: [], textContent: "", className: "", scope: "", attributes: {},
           append(...nodes) { this.children.push(...nodes); },
           replaceChildren(...nodes) { this.children = nodes; },
           setAttribute(name, value) { this.attributes[name] = value; } };
}

test("help: «?» opens it and showhelp writes the Spanish tables while bound; nothing after unbind()", (t) => {
  const content = element();
  const doc = { activeElement: null, createElement: element,
                querySelector: (sel) => (sel === ".r-overlay-help-content" ? content : null) };
  stub(t, { window: new EventTarget(), document: doc, HTMLElement: class {} });
  const reveal = fakeReveal();
  const { unbind } = installSpanishHelp(context({ reveal }));
  assert.deepEqual(reveal.keyBindings, [74]);   // J does nothing until the hall binds it
  window.dispatchEvent(key("?"));
  assert.equal(reveal.helpToggles, 1);
  reveal.emit("showhelp");
  assert.equal(content.children[0].textContent, "Atajos de teclado");
  assert.equal(content.children.length, 5);     // the title and four tables

  unbind();
  content.children = [];
  window.dispatchEvent(key("?"));
  assert.equal(reveal.helpToggles, 1);          // reveal.js's own key handling is all that is left
  reveal.emit("showhelp");
  assert.deepEqual(content.children, []);       // reveal.js's English table is left as it is
});

test("help without slides binds nothing", () => {
  installSpanishHelp(context({ reveal: null })).unbind();
});

/** A runtime that is loading until told it is ready (its "status" event). */
function fakeRuntime(state = "loading") {
  return Object.assign(new EventTarget(), { state, detail: "", ready() {
    this.state = "ready";
    this.dispatchEvent(new CustomEvent("status", { detail: { state: "ready", detail: "" } }));
  } });
}

/** A cell that records its runs, on ``slide``. */
function fakeCell(id, slide, ran) {
  return Object.assign(new EventTarget(), {
    id, slide, runs: 0, running: null,
    async run() { this.runs += 1; ran.push(id); },
    snapshot() { return { id, runs: this.runs }; },
  });
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

test("prerun: runs the current slide's cell first once Python is ready; unbound, it stops", async (t) => {
  const root = fakeRoot();
  stub(t, { document: Object.assign(new EventTarget(), { documentElement: root }) });
  const ran = [];
  const slides = ["s1", "s2", "s3"];
  const cells = slides.map((s, i) => fakeCell(`c${i + 1}`, s, ran));
  const runtime = fakeRuntime();
  startPrerun(context({ runtime, cells, reveal: fakeReveal({ current: "s2" }) }));
  await settle();
  assert.deepEqual(ran, []);                    // Python is not ready yet
  runtime.ready();
  await settle();
  assert.deepEqual(ran, ["c2", "c1", "c3"]);
  assert.equal(root.dataset.prerunDone, "true");

  const others = [];
  const waiting = fakeRuntime();
  const bound = startPrerun(context({ runtime: waiting, cells: slides.map((s, i) => fakeCell(`d${i + 1}`, s, others)) }));
  bound.unbind();                               // unbound while it waits for Python
  waiting.ready();
  await settle();
  assert.deepEqual(others, []);
});

test("prerun: unbound after a cell, the next one never starts", async (t) => {
  stub(t, { document: Object.assign(new EventTarget(), { documentElement: fakeRoot() }) });
  const ran = [];
  const cells = ["s1", "s2"].map((s, i) => fakeCell(`c${i + 1}`, s, ran));
  /** @type {{unbind(): void}} */
  let bound;
  cells[0].run = async function run() { ran.push("c1"); bound.unbind(); };
  bound = startPrerun(context({ runtime: fakeRuntime("ready"), cells, reveal: fakeReveal({ current: "s1" }) }));
  await settle();
  assert.deepEqual(ran, ["c1"]);
});

test("prerun: unbound with two cells in flight, both finish and no third is asked for", async (t) => {
  const root = fakeRoot();
  stub(t, { document: Object.assign(new EventTarget(), { documentElement: root }) });
  const { cells, ran, finish, flight } = heldCells(["s1", "s2", "s3"]);
  const bound = startPrerun(context({ runtime: fakeRuntime("ready"), cells, reveal: fakeReveal({ current: "s1" }) }));
  await settle();
  assert.deepEqual(ran, ["c1", "c2"]);
  bound.unbind();
  while (finish.length) { finish.shift()?.(); await settle(); }
  assert.equal(flight.now, 0);
  assert.deepEqual(ran, ["c1", "c2"]);
  assert.equal(root.dataset.prerunDone, undefined);
});

/** Cells on ``slides`` whose runs wait until the test ends them (``finish``, oldest first),
 *  counting how many are in flight at once. */
function heldCells(slides) {
  const ran = [];
  /** @type {(() => void)[]} */
  const finish = [];
  const flight = { now: 0, most: 0 };
  const cells = slides.map((s, i) => {
    const cell = fakeCell(`c${i + 1}`, s, ran);
    cell.run = async function run() {
      ran.push(this.id);
      flight.now += 1;
      flight.most = Math.max(flight.most, flight.now);
      await new Promise((resolve) => finish.push(() => resolve(undefined)));
      flight.now -= 1;
      this.runs += 1;
    };
    return cell;
  });
  return { cells, ran, finish, flight };
}

for (const workers of [1, 2]) {
  test(`prerun: ${workers} worker(s), two background cells each in flight, never the same one twice`, async (t) => {
    const root = fakeRoot();
    stub(t, { document: Object.assign(new EventTarget(), { documentElement: root }) });
    const { cells, ran, finish, flight } = heldCells(["s1", "s2", "s3", "s4", "s5", "s6"]);
    const runtime = Object.assign(fakeRuntime("ready"), { workers });
    startPrerun(context({ runtime, cells, reveal: fakeReveal({ current: "s3" }) }));
    await settle();
    assert.equal(flight.now, workers * AHEAD_PER_WORKER, "the one each worker runs, and the next");
    assert.equal(AHEAD_PER_WORKER, 2);
    finish.shift()?.();
    await settle();
    assert.equal(flight.now, workers * AHEAD_PER_WORKER, "a cell ends: the next one is asked for at once");
    while (finish.length) { finish.shift()?.(); await settle(); }
    assert.equal(flight.most, workers * AHEAD_PER_WORKER);
    assert.deepEqual([...ran].sort(), ["c1", "c2", "c3", "c4", "c5", "c6"]);
    assert.equal(ran[0], "c3", "the current slide's cell first");
    assert.equal(root.dataset.prerunDone, "true");
  });
}

test("prerun: while wheels download, the cells that do not draw go next; then deck order", async (t) => {
  stub(t, { document: Object.assign(new EventTarget(), { documentElement: fakeRoot() }) });
  const { cells, ran, finish } = heldCells(["s1", "s2", "s3", "s4", "s5", "s6"]);
  const code = ["fig, ax = plt.subplots()", "plt.hist(x)", "x = laplace_mech(1, 1, 0.5)",
                "plt.plot(x)", "print(len(census))", "y = x + 1"];
  cells.forEach((cell, i) => Object.assign(cell, { code: code[i] }));
  const runtime = Object.assign(fakeRuntime("ready"), { downloading: true });
  startPrerun(context({ runtime, cells, reveal: fakeReveal({ current: "s1" }) }));
  await settle();
  assert.deepEqual(ran, ["c1", "c3"], "the current slide's cell though it draws, then one that does not");
  finish.shift()?.();
  await settle();
  assert.deepEqual(ran, ["c1", "c3", "c5"]);
  runtime.downloading = false;                  // the wheels are in: deck order again
  while (finish.length) { finish.shift()?.(); await settle(); }
  assert.deepEqual(ran, ["c1", "c3", "c5", "c2", "c4", "c6"]);
});

test("prerun: a run a restart ended is asked for again, first, once; one the viewer stopped is not", async (t) => {
  const root = fakeRoot();
  stub(t, { document: Object.assign(new EventTarget(), { documentElement: root }) });
  const ran = [];
  const cells = ["s1", "s2", "s3", "s4", "s5"].map((s, i) => fakeCell(`c${i + 1}`, s, ran));
  const cut = { ok: false, restarted: true };
  // c2: ended by a restart once; c3: stopped by the viewer (Stop restarted Python);
  // c4: ended by a restart every time (asked for again only once)
  const results = { c2: [cut, { ok: true }], c3: [cut], c4: [cut, cut] };
  for (const cell of cells) {
    cell.stopAsked = false;
    cell.run = async function run() {
      this.runs += 1;
      ran.push(this.id);
      await settle();
      if (this.id === "c3") this.stopAsked = true;
      return results[this.id]?.shift() ?? { ok: true };
    };
  }
  const runtime = Object.assign(fakeRuntime("ready"), { workers: 1 });
  startPrerun(context({ runtime, cells, reveal: fakeReveal({ current: "s1" }) }));
  for (let i = 0; i < 20; i++) await settle();
  const count = (id) => ran.filter((x) => x === id).length;
  assert.deepEqual(["c1", "c2", "c3", "c4", "c5"].map(count), [1, 2, 1, 2, 1], ran.join(" "));
  assert.ok(ran.lastIndexOf("c2") < ran.indexOf("c5"), `c2 again before the cells after it: ${ran.join(" ")}`);
  assert.equal(root.dataset.prerunDone, "true");
});

test("prerun: a cell the presenter ran while Python restarted is not asked for again", async (t) => {
  stub(t, { document: Object.assign(new EventTarget(), { documentElement: fakeRoot() }) });
  const ran = [];
  const cell = Object.assign(fakeCell("c1", "s1", ran), { stopAsked: false });
  const runtime = fakeRuntime("ready");
  cell.run = async function run({ background = false } = {}) {
    this.runs += 1;
    ran.push(background ? "background" : "presenter");
    if (!background) return { ok: true };
    runtime.state = "loading";                 // the restart that ends this run
    return { ok: false, restarted: true };
  };
  startPrerun(context({ runtime, cells: [cell], reveal: fakeReveal({ current: "s1" }) }));
  for (let i = 0; i < 5; i++) await settle();
  await cell.run();                            // ▶ while the new Python loads
  runtime.ready();
  for (let i = 0; i < 5; i++) await settle();
  assert.deepEqual(ran, ["background", "presenter"]);
});

/** The messages a copy hears on the deck's channel, until ``close()``. */
function listen(version) {
  const channel = new BroadcastChannel(`dpdeck:${version}`);
  const heard = [];
  channel.onmessage = (e) => heard.push(e.data);
  return { heard, close: () => channel.close(), post: (msg) => channel.postMessage(msg) };
}

const wait = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

test("prerun near: up to the 2nd slide with cells ahead, none while hidden; a move widens it; unbound, no listener left", async (t) => {
  const root = fakeRoot();
  const doc = Object.assign(new EventTarget(), { documentElement: root, hidden: false });
  stub(t, { document: doc });
  const ran = [];
  const slides = ["t", "s1", "x", "s2", "s3", "s4", "s5"];   // "t", "x": slides without cells
  const cells = ["s1", "s2", "s3", "s4", "s5"].map((s, i) => fakeCell(`c${i + 1}`, s, ran));
  const reveal = Object.assign(fakeReveal({ current: "t" }), { getSlides: () => slides });
  const bound = startPrerun(context({ runtime: fakeRuntime("ready"), cells, reveal }), { policy: () => "near" });
  await settle();
  assert.deepEqual(ran, ["c1", "c2"]);                       // s1 and s2 ahead; s3–s5 wait
  assert.equal(root.dataset.prerunIdle, "true");
  assert.equal(root.dataset.prerunDone, undefined);
  doc.hidden = true;
  reveal.current = "s2";
  reveal.emit("slidechanged");
  await settle();
  assert.deepEqual(ran, ["c1", "c2"]);                       // hidden: nothing new
  doc.hidden = false;
  doc.dispatchEvent(new Event("visibilitychange"));
  await settle();
  assert.deepEqual(ran, ["c1", "c2", "c3", "c4"]);           // shown again: up to s4
  reveal.current = "s5";                                     // a jump to the last slide
  reveal.emit("slidechanged");
  await settle();
  assert.deepEqual(ran, ["c1", "c2", "c3", "c4", "c5"]);
  assert.equal(root.dataset.prerunDone, "true");
  bound.unbind();
});

test("prerun near: unbound while it waits for the slide, a move runs nothing", async (t) => {
  const doc = Object.assign(new EventTarget(), { documentElement: fakeRoot(), hidden: false });
  stub(t, { document: doc });
  const ran = [];
  const slides = ["s1", "s2", "s3", "s4"];
  const cells = slides.map((s, i) => fakeCell(`c${i + 1}`, s, ran));
  const reveal = Object.assign(fakeReveal({ current: "s1" }), { getSlides: () => slides });
  const bound = startPrerun(context({ runtime: fakeRuntime("ready"), cells, reveal }), { policy: () => "near" });
  await settle();
  assert.deepEqual(ran, ["c1", "c2", "c3"]);
  bound.unbind();
  reveal.current = "s4";
  reveal.emit("slidechanged");
  doc.dispatchEvent(new Event("visibilitychange"));
  await settle();
  assert.deepEqual(ran, ["c1", "c2", "c3"]);
});

test("mirror: publish sends the runtime's status and a cell's change while bound, nothing after unbind()", async (t) => {
  stub(t, { self: globalThis });               // mirror.js asks ``"BroadcastChannel" in self``
  const version = `publish-${process.pid}`;
  const copy = listen(version);
  t.after(copy.close);
  const runtime = fakeRuntime("ready");
  const cell = fakeCell("c1", "s1", []);
  const { unbind } = publish(context({ runtime, cells: [cell], config: { version } }));
  runtime.dispatchEvent(new CustomEvent("status", { detail: { state: "running", detail: "x" } }));
  cell.dispatchEvent(new Event("change"));
  await wait(250);                              // past the throttle (100 ms)
  assert.deepEqual(copy.heard.map((m) => m.type), ["status", "cell"]);

  cell.dispatchEvent(new Event("change"));      // its throttle's timer is cleared by unbind()
  unbind();
  runtime.dispatchEvent(new CustomEvent("status", { detail: { state: "ready", detail: "" } }));
  cell.dispatchEvent(new Event("change"));
  copy.post({ type: "hello" });                 // nobody answers: the channel is closed
  await wait(250);
  assert.equal(copy.heard.length, 2);
});

test("mirror: a copy's subscribe hears the main window until unbind()", async (t) => {
  stub(t, { self: globalThis });
  const version = `subscribe-${process.pid}`;
  const main = listen(version);
  t.after(main.close);
  const statuses = [];
  const cell = fakeCell("c1", "s1", []);
  const { unbind } = subscribe(context({ receiver: true, cells: [cell], config: { version } }),
                               { onStatus: (s) => statuses.push(s.state) });
  main.post({ type: "status", state: "ready", detail: "" });
  cell.dispatchEvent(new CustomEvent("try", { detail: { index: 0 } }));
  await wait(100);
  assert.deepEqual(statuses, ["ready"]);
  assert.deepEqual(main.heard, [{ type: "hello" }, { type: "try", id: "c1", index: 0 }]);

  unbind();
  main.post({ type: "status", state: "running", detail: "" });
  cell.dispatchEvent(new CustomEvent("try", { detail: { index: 1 } }));
  await wait(100);
  assert.deepEqual(statuses, ["ready"]);
  assert.equal(main.heard.length, 2);
});

/** An element of the stand-in DOM: a real EventTarget (its listeners take a `signal`), with the
 *  few properties and methods exercise.js touches. */
class FakeElement extends EventTarget {
  constructor(parts = {}) {
    super();
    Object.assign(this, { hidden: false, disabled: false, textContent: "", className: "", title: "", type: "",
                          dataset: {}, children: [], classes: new Set() });
    this.parts = parts;
    this.classList = { toggle: (name, on) => (on ? this.classes.add(name) : this.classes.delete(name)),
                       add: (name) => this.classes.add(name) };
  }
  querySelector(sel) { return this.parts[sel] ?? null; }
  querySelectorAll() { return []; }
  getAttribute(name) { return name === "data-cell-id" ? this.cellId : null; }
  setAttribute() {}
  append(...nodes) { this.children.push(...nodes); }
  replaceChildren(...nodes) { this.children = nodes; }
}

test("exercises: a solve is told to the context's hall while bound; after unbind() a run is judged no more", (t) => {
  const cellEl = Object.assign(new FakeElement(), { cellId: "c1" });
  const feedback = new FakeElement();
  const root = new FakeElement({ ".cell": cellEl, ".exercise-solution": new FakeElement(),
                                  ".exercise-feedback": feedback, ".exercise-side": new FakeElement() });
  root.dataset.exerciseId = "ej-1";
  stub(t, { HTMLElement: FakeElement, document: {
    createElement: () => new FakeElement(), createTextNode: (text) => ({ text }),
    querySelectorAll: (sel) => (sel === ".exercise" ? [root] : []),
  } });
  const cell = Object.assign(new EventTarget(), { id: "c1", edited: true, exercise: null });
  const solves = [];
  const hall = new HallHolder(Object.assign(new EventTarget(), { solved: (id) => solves.push(id) }));
  const said = [];
  const hub = installExercises(context({ cells: [cell], hall, announce: (text) => said.push(text) }));
  assert.equal(hub.exercises.length, 1);
  assert.equal(cell.exercise, hub.exercises[0]);
  const judgedRun = () => {
    cell.exercise?.judgedCode("respuesta = 1");
    cell.dispatchEvent(new CustomEvent("verdict", { detail: { ok: true, message: "bien" } }));
    cell.dispatchEvent(new CustomEvent("ran", { detail: { ok: true } }));
  };
  judgedRun();
  assert.deepEqual(solves, ["ej-1"]);           // the context's hall, not window.deck's
  assert.equal(feedback.dataset.state, "ok");
  assert.deepEqual(said, ["Correcto: bien"]);

  hub.unbind();
  assert.equal(cell.exercise, null);            // Cell.run appends no check any more
  feedback.dataset.state = "";
  judgedRun();
  assert.deepEqual(solves, ["ej-1"]);
  assert.equal(feedback.dataset.state, "");
  assert.equal(said.length, 1);
});
