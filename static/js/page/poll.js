// Poll slides (kind "poll"; dpdeck/build/live.py, docs/live-hall-protocol.md): a sensitive question
// that each device answers under randomized response, computed by dplab in the device's own
// Python (Runtime.call("poll.randomize"): dplab.polls, with JSON arguments, no Python source),
// so that only the randomized answer leaves it (hall.answer). The true answer is read from the
// form when Send is pressed, the form is cleared at once, and the call's arguments are the only
// copy (cellrunner keeps none): it is never sent, never stored, and not kept after. What a
// device stores (localStorage, and this page's memory where storage is refused) is the
// randomized answer and the poll's token (random, for this poll alone: the server stores no id
// that links two polls), so that it answers once: a second
// randomization would compose with the first (2ε). Before randomizing, the page checks that no
// other tab of this browser answered (under a Web Lock where the browser has them), and a
// `storage` event closes the form of every other tab at once.
//
// Modes, from the hall object (live.js; the context's holder, context.js) as it is now:
//   presenter  the hall's tallies, live: n, raw share, the unbiased estimate and its interval,
//              a figure, and what one report reveals (all computed by dplab from the counts);
//   student    the form, then the hall's numbers (no figure: a phone's Python has enough to do);
//   simulated  no hall (a static host, file://, offline): the form, and a simulated hall of
//              SIMULATED_HALL students randomized by dplab too, arriving in small batches;
//   copy       a speaker-view copy (no Python): the question only.
// A change of mode clears the numbers, and a computation begun before it draws nothing: the
// numbers shown are always the current mode's hall's.
// Numbers are shown the Spanish way (toLocaleString("es-ES"): 0,75; 30 %).
import { Output } from "./output.js";
import { randomId } from "./live.js";
import { sayHall } from "../shared/phrases.js";

const STORE = "dpdeck-poll:";        // + deck id + ":" + poll id → {randomized, sent}
const SIMULATED_HALL = 40;
const SIMULATED_BATCH = 4;           // simulated answers per step,
const SIMULATED_STEP_MS = 400;       // every this long

/** The slide's poll (dpdeck/build/live.py, poll_view): ``epsilonText`` is ε as the slide says it;
 *  ``hold``: a hall's numbers show from this many answers on (drawNumbers says how many are
 *  missing, and why: each change on the projector would point at whoever just answered);
 *  ``heldSpan``: the narrowest and widest 95 % interval one answer short of it.
 * @typedef {import("../shared/types.js").PollData} PollData */
/** The hall's tally (dpdeck/wire/hall.py), or a simulated hall's: its counts alone.
 *  @typedef {Pick<import("../shared/types.js").Tally, "n" | "counts"> & Partial<import("../shared/types.js").Tally>} Tally */
/** What a device keeps of a poll: its randomized answer, whether the hall has it, the poll's
 *  token, the round it answered, and the admission ticket it answered with (a retry sends the
 *  same). @typedef {{randomized: number, sent: boolean, token: string, round: number, ticket: string}} Kept */
/** @typedef {"presenter" | "student" | "simulated" | "copy"} PollMode */
/** @typedef {import("./context.js").DeckContext} DeckContext */
/** @typedef {import("./context.js").Hall} Hall */

/** @param {number} x @param {number} [digits] */
export const pct = (x, digits = 0) => x.toLocaleString("es-ES", {
  style: "percent", minimumFractionDigits: digits, maximumFractionDigits: digits });
/** @param {number} x */
const num = (x) => x.toLocaleString("es-ES", { maximumFractionDigits: 2 });
/** The arguments of dplab.polls' functions for this poll's counts. @param {number[]} counts @param {PollData} data */
const pollArgs = (counts, data) => ({ counts, epsilon: data.epsilon });

/** The true shares of the simulated hall: 30 % «sí»; k options in falling shares. */
export function simulatedShares(k) {
  if (k === 2) return [0.7, 0.3];
  const weights = Array.from({ length: k }, (_, i) => k - i);
  const total = weights.reduce((a, b) => a + b, 0);
  return weights.map((w) => w / total);
}

/** The devices admitted to a poll's round, less the presenter's own page when it was one of
 *  them: the hall admits every device holding a channel when the poll is shown, the presenter's
 *  too, and the presenter's page knows it by the ticket it was sent for that round.
 *  @param {number | null} admitted the tally's @param {number} round the tally's
 *  @param {import("../shared/types.js").Admit | null} own this page's ticket for the poll, if any */
export function studentsAdmitted(admitted, round, own) {
  if (admitted == null) return null;
  return own && own.round === round ? Math.max(0, admitted - 1) : admitted;
}

/** ``n`` and ``counts`` of a list of answers. @param {number[]} answers @param {number} k @returns {Tally} */
function tallyOf(answers, k) {
  const counts = new Array(k).fill(0);
  for (const a of answers) counts[a] += 1;
  return { n: answers.length, counts };
}

/** What a device remembers of a poll: the randomized answer, whether the hall has it, and the
 *  poll's token. Kept in localStorage, and in this object too, so that a browser refusing
 *  storage still never answers twice from this page. Kept per hall (``hall()``: live.js's
 *  ``session``, "" for none): an answer sent to an earlier hall does not close a fresh hall's
 *  form; a new round of the same hall reopens it (Poll.onTally: the kept round is older). */
export class AnswerStore {
  /** @param {string} deckId @param {string} pollId @param {() => string} [hall] the hall answered now */
  constructor(deckId, pollId, hall = () => "") {
    this.base = `${STORE}${deckId}:${pollId}`;
    this.hall = hall;
    /** @type {{key: string, kept: Kept} | null} */
    this.memory = null;
  }

  /** The storage key of this poll's answer in the hall answered now. */
  get key() {
    const hall = this.hall();
    return hall ? `${this.base}@${hall}` : this.base;
  }

  /** @returns {Kept | null} */
  load() {
    try {
      const v = JSON.parse(localStorage.getItem(this.key) || "null");
      if (v && Number.isInteger(v.randomized)) {
        return { randomized: v.randomized, sent: Boolean(v.sent), token: typeof v.token === "string" ? v.token : "",
          round: Number.isInteger(v.round) ? v.round : 1, ticket: typeof v.ticket === "string" ? v.ticket : "" };
      }
    } catch { /* storage refused: this page's memory */ }
    return this.memory?.key === this.key ? this.memory.kept : null;
  }

  /** @param {number} randomized @param {boolean} sent @param {string} token @param {number} [round] @param {string} [ticket] */
  save(randomized, sent, token, round = 1, ticket = "") {
    const kept = { randomized, sent, token, round, ticket };
    this.memory = { key: this.key, kept };
    try { localStorage.setItem(this.key, JSON.stringify(kept)); } catch { /* page only */ }
  }

  /** Forget the answer (a test's fresh device; a new round the presenter started). */
  forget() {
    this.memory = null;
    try { localStorage.removeItem(this.key); } catch { /* nothing kept */ }
  }

  /** Run ``fn`` alone among this browser's tabs for this poll (a Web Lock, where the browser
   *  has them: a secure context), else just run it. @template T @param {() => Promise<T>} fn
   *  @returns {Promise<T>} */
  exclusive(fn) {
    const locks = /** @type {any} */ (navigator).locks;
    return typeof locks?.request === "function" ? locks.request(this.key, fn) : fn();
  }
}

/** A part of a poll the template always renders (templates/slides/poll.html.j2): a missing one
 *  is a broken build, said at once. @param {HTMLElement} root @param {string} selector @returns {HTMLElement} */
function part(root, selector) {
  const node = root.querySelector(selector);
  if (!(node instanceof HTMLElement)) throw new Error(`poll.js: the poll has no ${selector}`);
  return node;
}

/** @template {keyof HTMLElementTagNameMap} K @param {K} tag @param {string | null} cls @param {string} [text] */
function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

export class Poll {
  /** @param {HTMLElement} root the .poll element @param {DeckContext} ctx */
  constructor(root, ctx) {
    this.root = root;
    this.ctx = ctx;
    this.id = root.dataset.pollId ?? "";
    /** @type {PollData} */
    this.data = JSON.parse(root.dataset.poll ?? "");   // the template always writes it
    this.slide = root.closest("section");
    this.radios = /** @type {HTMLInputElement[]} */ ([...root.querySelectorAll(".poll-option input")]);
    this.sendBtn = /** @type {HTMLButtonElement} */ (part(root, ".poll-send"));
    this.statusEl = part(root, ".poll-status");
    this.results = part(root, ".poll-results");
    this.numbers = part(root, ".poll-numbers");
    this.posterior = part(root, ".poll-posterior");
    this.form = part(root, ".poll-form");
    this.figure = new Output(part(root, ".poll-figure"));
    this.hallLine = el("p", "poll-hall");
    this.results.prepend(this.hallLine);
    this.controls = this.presenterControls();
    this.results.append(this.controls);
    this.store = new AnswerStore(ctx.config?.deckId ?? "", this.id, () => this.hall?.session ?? "");
    /** @type {PollMode | null} */
    this.mode = null;
    /** the store's key when the mode was entered: another hall's (a new session) enters it again */
    this.modeKey = "";
    /** @type {Tally} */
    this.tally = { n: 0, counts: new Array(this.data.k).fill(0) };
    this.computing = false;
    this.stale = false;        // new counts arrived while computing
    this.epoch = 0;            // a new mode's: a computation of an earlier mode draws nothing
    this.sending = false;
    this.newRound = false;     // this device answered an earlier round: a new answer is a second release
    this.simulation = null;    // {answers, shown, timer, own} of the simulated hall
    this.radios.forEach((r) => r.addEventListener("change", () => this.syncForm()));
    this.sendBtn.addEventListener("click", () => this.send());
  }

  /** The presenter's «Nueva ronda» (asks first: a new round is a second release) and the
   *  tally as CSV. Shown in presenter mode only. */
  presenterControls() {
    const box = el("div", "poll-controls");
    box.hidden = true;
    const round = el("button", "cell-btn poll-new-round", sayHall({ code: "poll-new-round" }));
    const csv = el("button", "cell-btn poll-csv", sayHall({ code: "poll-csv" }));
    csv.title = sayHall({ code: "poll-csv-title" });
    const confirm = el("div", "poll-round-confirm");
    confirm.hidden = true;
    confirm.setAttribute("role", "alertdialog");
    const yes = el("button", "cell-btn poll-round-yes", sayHall({ code: "poll-round-yes" }));
    const no = el("button", "cell-btn poll-round-no", sayHall({ code: "poll-round-no" }));
    const warning = el("p", null);
    confirm.append(warning, yes, no);
    for (const b of [round, csv, yes, no]) b.type = "button";
    round.addEventListener("click", () => {
      warning.textContent = sayHall({ code: "poll-round-warning", round: (this.tally.round ?? 1) + 1 });
      confirm.hidden = false; round.disabled = true; yes.focus();
    });
    no.addEventListener("click", () => { confirm.hidden = true; round.disabled = false; });
    yes.addEventListener("click", async () => {
      yes.disabled = true;
      const hall = this.hall;
      const next = (this.tally.round ?? 1) + 1;
      const ok = hall ? await hall.reset(this.id) : false;
      yes.disabled = false;
      confirm.hidden = true;
      round.disabled = false;
      this.say(sayHall(ok ? { code: "poll-round-opened", round: next } : { code: "poll-round-failed" }));
    });
    csv.addEventListener("click", () => this.downloadCsv());
    box.append(round, csv, confirm);
    return box;
  }

  /** The tally as CSV (``;`` and decimal comma, as a Spanish spreadsheet reads it): per option,
   *  the randomized answers counted; the round, ε and the devices admitted. Nothing else. */
  tallyCsv() {
    const round = this.tally.round ?? 1;
    const admitted = this.studentsAdmitted() ?? "";
    const eps = String(this.data.epsilon).replace(".", ",");
    const quote = (/** @type {string} */ t) => `"${t.replace(/"/g, '""')}"`;
    const rows = [sayHall({ code: "poll-csv-header" })];
    this.data.options.forEach((option, i) => {
      const count = this.held(this.tally) ? "" : this.tally.counts[i] ?? 0;   // held: the hall sent none
      rows.push([quote(this.id), round, eps, admitted, quote(option), count].join(";"));
    });
    return rows.join("\r\n") + "\r\n";
  }

  downloadCsv() {
    const blob = new Blob(["\ufeff" + this.tallyCsv()], { type: "text/csv;charset=utf-8" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = sayHall({ code: "poll-csv-file", poll: this.id, round: this.tally.round ?? 1 });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  }

  get runtime() { return this.ctx.runtime; }
  /** @returns {Hall | null} the hall as it is now (live.js's, or a test's own) */
  get hall() { return this.ctx.hall.get(); }
  get current() { return this.ctx.reveal?.getCurrentSlide?.() === this.slide; }

  /** Enter ``mode`` (again: a no-op). @param {PollMode} mode */
  setMode(mode) {
    if (mode === this.mode && this.modeKey === this.store.key) return;   // the same mode, the same hall
    this.stopSimulation();
    this.mode = mode;
    this.modeKey = this.store.key;
    this.epoch += 1;
    this.root.dataset.mode = mode;
    this.tally = { n: 0, counts: new Array(this.data.k).fill(0) };
    this.drawNumbers(this.tally, null);   // nothing of the last mode's hall stays on screen
    const answered = mode === "student" ? this.store.load() : null;
    this.root.classList.toggle("is-answered", Boolean(answered));
    this.results.hidden = mode === "copy";
    this.controls.hidden = mode !== "presenter";
    this.figure.clear();
    this.figure.el.classList.remove("is-stale");
    if (mode === "copy") {
      this.say(sayHall({ code: "poll-copy" }));
    } else if (mode === "presenter") {
      this.say(sayHall({ code: "poll-presenter" }));
      this.hallLine.textContent = sayHall({ code: "poll-presenter-hall" });
      this.onTally(this.hall?.tally?.(this.id) ?? null);
    } else if (mode === "student") {
      this.hallLine.textContent = sayHall({ code: "poll-student-hall" });
      if (answered) this.showAnswered(answered.randomized, answered.sent);
      else this.sayAdmission();
      this.onTally(this.hall?.tally?.(this.id) ?? null);
    } else {
      this.say(sayHall({ code: "poll-simulated" }));
      this.hallLine.textContent = this.simulatedLine();
    }
    this.syncForm();
    this.render();
    if (mode === "simulated" && this.current) this.startSimulation();
  }

  simulatedLine() {
    const shares = simulatedShares(this.data.k).map((x) => pct(x));
    return sayHall({ code: "poll-simulated-hall", size: SIMULATED_HALL, options: this.data.options, shares });
  }

  /** This device's ticket for the poll's current round (student mode), or null. */
  admission() {
    const ticket = this.hall?.ticket?.(this.id) ?? null;
    return ticket && ticket.round === (this.tally.round ?? ticket.round) ? ticket : null;
  }

  /** A student who has not answered: may they, and if not, why. */
  sayAdmission() {
    if (this.mode !== "student" || this.store.load()) return;
    if (this.admission()) {
      this.say(sayHall({ code: "poll-may-answer", newRound: this.newRound, round: this.tally.round ?? 1 }));
    } else if (this.tally.admitted == null) {
      this.say(sayHall({ code: "poll-not-open" }));
    } else {
      this.say(sayHall({ code: "poll-late" }));
    }
    this.root.classList.toggle("is-late", this.tally.admitted != null && !this.admission());
  }

  /** The hall sent this device its ticket for this poll's round. */
  onAdmit() {
    if (this.mode !== "student") return;
    this.syncForm();
    this.sayAdmission();
  }

  /** The form is open while this device may answer. */
  syncForm() {
    const open = (this.mode === "student" && !this.store.load() && Boolean(this.admission()))
      || (this.mode === "simulated" && (this.simulation?.own ?? null) === null);
    const canAnswer = open && !this.sending;
    for (const r of this.radios) r.disabled = !canAnswer;
    this.sendBtn.disabled = !canAnswer || !this.radios.some((r) => r.checked);
    this.form.toggleAttribute("hidden", this.mode === "presenter");
  }

  /** @param {string} text */
  say(text) { this.statusEl.textContent = text; }

  /** The slide became current: draw what arrived meanwhile; start a simulated hall. */
  shown() {
    if (this.mode === "simulated") this.startSimulation();
    this.render();
  }

  /** A tally from the hall (or null: none yet). @param {Tally | null} tally */
  onTally(tally) {
    if (!tally || (this.mode !== "presenter" && this.mode !== "student")) return;
    // the counts become part of a Python expression: only k non-negative integers pass
    // (or none: the hall holds them below the poll's hold, and says only how many answered)
    const held = Array.isArray(tally.counts) && tally.counts.length === 0
      && Number.isSafeInteger(tally.n) && tally.n >= 0 && tally.n < this.data.hold;
    const counts = held ? new Array(this.data.k).fill(0) : Array.isArray(tally.counts) ? tally.counts : [];
    if (counts.length !== this.data.k || !counts.every((c) => Number.isSafeInteger(c) && c >= 0)) return;
    const round = typeof tally.round === "number" && Number.isSafeInteger(tally.round) ? tally.round : 1;
    const admitted = typeof tally.admitted === "number" && Number.isSafeInteger(tally.admitted) ? tally.admitted : null;
    const cluster = typeof tally.cluster === "number" && Number.isSafeInteger(tally.cluster) ? tally.cluster : null;
    const n = held ? tally.n : counts.reduce((a, b) => a + b, 0);
    this.tally = { n, counts: [...counts], round, admitted, cluster };
    this.root.dataset.round = String(round);
    if (this.mode === "student") {
      const kept = this.store.load();
      if (kept && kept.round < round) {   // the presenter opened a new round: this device may answer again
        this.store.forget();
        this.root.classList.remove("is-answered");
        this.newRound = true;
      }
      this.syncForm();
      if (!this.store.load() && !this.sending) this.sayAdmission();
    }
    this.render();
  }

  /** Recompute the numbers (and the figure) from the latest counts; coalesced: one
   *  computation at a time, the last counts win, and only while the slide is shown. */
  async render() {
    if (this.mode === "copy" || !this.runtime) return;
    if (this.computing) { this.stale = true; return; }
    if (!this.current && this.ctx.reveal) return;
    this.computing = true;
    try {
      do {
        this.stale = false;
        await this.compute({ n: this.tally.n, counts: [...this.tally.counts] });
      } while (this.stale);
    } finally {
      this.computing = false;
    }
  }

  /** The devices admitted to this round that the slide counts: the presenter's page leaves
   *  itself out (``studentsAdmitted``). */
  studentsAdmitted() {
    const admitted = this.tally.admitted ?? null;
    const own = this.mode === "presenter" ? this.hall?.ticket?.(this.id) ?? null : null;
    return studentsAdmitted(admitted, this.tally.round ?? 1, own);
  }

  /** @param {Tally} tally */
  async compute(tally) {
    const runtime = this.runtime;
    if (!runtime) return;   // render() calls this only with one
    // begun in another mode (a hall joined a simulated poll), it draws nothing: these counts
    // are another hall's, and render() computes the new mode's next
    const epoch = this.epoch;
    if (tally.n === 0 || this.held(tally)) {
      this.drawNumbers(tally, null);
      this.figure.clear();
      return;
    }
    const summary = await runtime.call("poll.summary", { ...pollArgs(tally.counts, this.data), prior: this.data.prior });
    if (epoch !== this.epoch) return;
    if (summary.ok === false) { this.say(sayHall({ code: "poll-summary-failed", message: summary.error.message })); return; }
    this.drawNumbers(tally, summary.value);
    if (this.mode !== "presenter" && this.mode !== "simulated") return;
    /** @type {import("../shared/types.js").FigureItem | null} */
    let figure = null;
    this.figure.el.classList.add("is-stale");   // until it shows these counts
    const labels = this.data.k === 2 ? [this.data.options[1]] : this.data.options;
    const drawn = await runtime.call("poll.figure", { ...pollArgs(tally.counts, this.data), labels }, {
      onFigure: ({ svg, png, alt, note }) => { figure = png != null ? { kind: "figure", png, alt, note } : { kind: "figure", svg, alt, note }; },
    });
    if (epoch !== this.epoch) return;
    if (drawn.ok && figure) this.figure.replace([figure]);
    if (!this.stale) this.figure.el.classList.remove("is-stale");
  }

  /** A hall's tally held back: fewer than the poll's ``hold`` answers (a public fact: the count
   *  of answers, not what they say). @param {Tally} tally */
  held(tally) {
    return (this.mode === "presenter" || this.mode === "student") && tally.n < this.data.hold;
  }

  /** The numbers: answers, the raw share, the estimate (clipped, said so) and its interval,
   *  and the posterior bound. @param {Tally} tally @param {any} summary */
  drawNumbers(tally, summary) {
    this.root.dataset.n = String(tally.n);
    this.root.dataset.counts = JSON.stringify(this.held(tally) ? [] : tally.counts);   // the tests compare with dplab's
    const admitted = this.mode === "simulated" ? null : this.studentsAdmitted();
    this.root.dataset.admitted = admitted == null ? "" : String(admitted);
    const rows = [[sayHall({ code: "poll-answers" }), admitted == null ? num(tally.n)
      : sayHall({ code: "poll-answers-of", n: num(tally.n), admitted: num(admitted), one: admitted === 1 })]];
    const cluster = this.mode === "presenter" ? this.tally.cluster ?? null : null;   // the hall's pool, one network's share
    if (cluster != null && cluster > 1 && admitted != null) {
      rows.push([sayHall({ code: "poll-cluster" }), sayHall({ code: "poll-cluster-of", cluster: num(cluster), admitted: num(admitted) })]);
    }
    if (summary) {
      const [estimate, , low, high, share] = summary.estimate;
      const index = this.data.k === 2 ? [0] : estimate.map((_, i) => i);
      for (const i of index) {
        const label = this.data.k === 2 ? this.data.options[1] : this.data.options[i];
        rows.push([sayHall({ code: "poll-received", label }), pct(share[i])]);
        rows.push([sayHall({ code: "poll-estimate-of", label }), estimateText(estimate[i], low[i], high[i])]);
      }
      this.root.dataset.estimate = JSON.stringify(estimate);
      this.posterior.textContent = posteriorText(this.data, summary.posterior);
    } else {
      delete this.root.dataset.estimate;   // the numbers show none
      this.posterior.textContent = this.held(tally)
        ? heldText(this.data, tally.n)
        : tally.n === 0 ? sayHall({ code: "poll-no-answers" }) : "";
    }
    this.numbers.replaceChildren(...rows.flatMap(([term, value]) => [el("dt", null, term), el("dd", null, value)]));
  }

  /** Send: read the true answer, clear the form, randomize in Python, deliver the result. In a
   *  hall the randomization runs alone among this browser's tabs, and only if none answered. */
  async send() {
    const checked = this.radios.find((r) => r.checked);
    const runtime = this.runtime;
    if (!checked || this.sending || !runtime) return;
    this.sending = true;
    // the true answer lives only in these arguments until Python answers: the form is
    // cleared now, and nothing else holds it
    const args = { truth: Number(checked.value), k: this.data.k, epsilon: this.data.epsilon };
    for (const r of this.radios) r.checked = false;
    this.syncForm();
    const randomize = async () => {
      if (this.mode === "student" && this.store.load()) return null;   // another tab answered
      this.say(sayHall({ code: "poll-randomizing" }));
      const result = await runtime.call("poll.randomize", args);
      if (!result.ok || !Number.isInteger(result.value) || result.value < 0 || result.value >= this.data.k) {
        this.say(sayHall({ code: "poll-randomize-failed", message: result.ok === false ? result.error.message : null }));
        return undefined;
      }
      // kept before the lock is released and before sending: no other tab and no reload draws again
      if (this.mode === "student") this.store.save(result.value, false, randomId(), this.tally.round ?? 1, this.admission()?.ticket ?? "");
      return /** @type {number} */ (result.value);
    };
    const randomized = this.mode === "student" ? await this.store.exclusive(randomize) : await randomize();
    this.sending = false;
    if (randomized === null) { this.answeredElsewhere(); return; }
    if (randomized === undefined) { this.syncForm(); return; }
    await this.deliver(randomized);
  }

  /** Another tab of this browser answered this poll: close the form and say what was sent. */
  answeredElsewhere() {
    if (this.mode !== "student") return;
    const kept = this.store.load();
    this.root.classList.toggle("is-answered", Boolean(kept));
    this.syncForm();
    if (kept) this.say(sayHall({ code: "poll-answered-elsewhere", option: this.optionText(kept.randomized) }));
  }

  /** Hand the randomized answer to the hall (or to the simulated hall). @param {number} randomized */
  async deliver(randomized) {
    if (this.mode === "simulated") {
      this.simulation = this.simulation ?? { answers: [], shown: 0, timer: 0, own: null };
      this.simulation.own = randomized;
      this.say(sayHall({ code: "poll-simulated-sent", option: String(this.data.options[randomized]) }));
      this.syncForm();
      this.updateSimulatedTally();
      return;
    }
    const kept = this.store.load();
    const token = kept?.token || randomId();
    const round = kept?.round ?? this.tally.round ?? 1;
    const ticket = kept?.ticket || this.admission()?.ticket || "";
    this.store.save(randomized, false, token, round, ticket);   // before the send: a reload must not randomize again
    this.root.classList.add("is-answered");
    this.syncForm();
    this.say(sayHall({ code: "poll-sending" }));
    const hall = this.hall;
    const outcome = hall ? await hall.answer(this.id, randomized, token, ticket || this.admission()?.ticket || null) : "absent";
    if (outcome === "ok" || outcome === "duplicate") this.store.save(randomized, true, token, round, ticket);
    this.showAnswered(randomized, outcome === "ok" || outcome === "duplicate", outcome);
  }

  /** An answer as the slide names it: its option, or its number. @param {number} answer */
  optionText(answer) { return String(this.data.options[answer] ?? answer); }

  /** @param {number} randomized @param {boolean} sent @param {string} [outcome] */
  showAnswered(randomized, sent, outcome = "ok") {
    const option = this.optionText(randomized);
    if (sent) {
      this.say(sayHall(outcome === "duplicate" ? { code: "poll-duplicate" } : { code: "poll-sent", option }));
      return;
    }
    if (outcome === "refused") {
      this.say(sayHall({ code: "poll-refused", option }));
      return;
    }
    const why = outcome === "rate" || outcome === "invalid" || outcome === "busy" ? outcome : "network";
    this.say(sayHall({ code: "poll-not-sent", option, why }));
    const retry = el("button", "cell-btn poll-retry", sayHall({ code: "poll-retry" }));
    retry.type = "button";
    retry.addEventListener("click", () => { retry.disabled = true; this.deliver(randomized); });
    this.statusEl.append(retry);   // the same randomized answer again: nothing new is revealed
  }

  /** A simulated hall: its answers randomized by dplab, shown a few at a time. */
  async startSimulation() {
    if (this.simulation?.answers.length || this.simulation?.loading || !this.runtime) return;
    this.simulation = { answers: [], shown: 0, timer: 0, own: this.simulation?.own ?? null, loading: true };
    const result = await this.runtime.call("poll.simulate",
      { n: SIMULATED_HALL, k: this.data.k, epsilon: this.data.epsilon, shares: simulatedShares(this.data.k) });
    if (this.mode !== "simulated" || !this.simulation) return;
    this.simulation.loading = false;
    if (result.ok === false) { this.say(sayHall({ code: "poll-simulate-failed", message: result.error.message })); return; }
    this.simulation.answers = result.value;
    this.simulation.timer = window.setInterval(() => {
      const sim = this.simulation;
      sim.shown = Math.min(sim.answers.length, sim.shown + SIMULATED_BATCH);
      if (sim.shown >= sim.answers.length) window.clearInterval(sim.timer);
      this.updateSimulatedTally();
    }, SIMULATED_STEP_MS);
  }

  updateSimulatedTally() {
    const sim = this.simulation;
    const answers = sim ? sim.answers.slice(0, sim.shown) : [];
    if (sim?.own != null) answers.push(sim.own);
    this.tally = tallyOf(answers, this.data.k);
    this.render();
  }

  stopSimulation() {
    if (this.simulation?.timer) window.clearInterval(this.simulation.timer);
    this.simulation = null;
  }
}

/** A share as the slide shows it: clipped to [0, 1], and «(recortado)» where it was clipped.
 *  @param {number} x */
function clippedPct(x) {
  const clipped = Math.min(1, Math.max(0, x));
  return clipped === x ? pct(x) : sayHall({ code: "poll-clipped", share: pct(clipped) });
}

/** "32 % (IC 95 % aproximado: 10 %–54 %)": the estimate and its interval clipped to [0, 1], each
 *  clipped end saying so; an interval wholly outside [0, 1] says that instead of «0 %–0 %». */
export function estimateText(estimate, low, high) {
  const interval = high < 0 ? sayHall({ code: "poll-interval-below" })
    : low > 1 ? sayHall({ code: "poll-interval-above" })
      : `${clippedPct(low)}–${clippedPct(high)}`;
  return sayHall({ code: "poll-estimate", estimate: clippedPct(estimate), interval });
}

/** Why a hall's numbers are held, and how many answers are missing. @param {PollData} data @param {number} n */
export function heldText(data, n) {
  const [narrow, wide] = data.heldSpan;
  return sayHall({ code: "poll-held", hold: data.hold, n: num(n), missing: data.hold - n,
                   narrow: num(Math.round(100 * narrow)), wide: num(Math.round(100 * wide)) });
}

/** What one answer reveals about the student who sent it. @param {PollData} data @param {number} posterior */
export function posteriorText(data, posterior) {
  return sayHall({ code: "poll-posterior", yesNo: data.k === 2, option: String(data.options[1]), prior: pct(data.prior),
                   posterior: pct(posterior), epsilon: data.epsilonText ?? num(data.epsilon) });
}

/** The page's polls: each follows the hall's mode and tallies (the context's holder), and the
 *  slide shown. ``unbind()`` removes every listener: the polls then follow nothing.
 *  @param {DeckContext} ctx @returns {{polls: Map<string, Poll>} & import("./context.js").Bound} */
export function installPolls(ctx) {
  const roots = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".poll"));
  const polls = new Map([...roots].map((root) => [root.dataset.pollId ?? "", new Poll(root, ctx)]));
  if (!polls.size) return { polls, unbind() {} };
  /** @param {any} hall @returns {PollMode} */
  const modeNow = (hall) => {
    if (ctx.receiver || !ctx.runtime) return "copy";
    if (!hall?.present) return "simulated";
    return hall.presenter ? "presenter" : "student";
  };
  const update = () => { for (const poll of polls.values()) poll.setMode(modeNow(ctx.hall.get())); };
  const onTally = (/** @type {Event} */ e) => {
    const detail = /** @type {CustomEvent} */ (e).detail;
    polls.get(detail?.poll)?.onTally(detail);
  };
  const onAdmit = (/** @type {Event} */ e) => { polls.get(/** @type {CustomEvent} */ (e).detail?.poll)?.onAdmit(); };
  /** @type {any} the hall object whose tallies we hear (only the one held now) */
  let heard = null;
  const hear = (/** @type {any} */ hall) => {
    if (hall === heard) return;
    heard?.removeEventListener?.("tally", onTally);
    heard?.removeEventListener?.("admit", onAdmit);
    heard = hall;
    hall?.addEventListener?.("tally", onTally);
    hall?.addEventListener?.("admit", onAdmit);
  };
  const unsubscribe = ctx.hall.subscribe((hall) => { hear(hall); update(); });
  // another tab of this browser answered (or forgot) a poll: this tab follows at once
  const onStorage = (/** @type {StorageEvent} */ e) => {
    for (const poll of polls.values()) if (e.key === poll.store.key) poll.answeredElsewhere();
  };
  window.addEventListener("storage", onStorage);
  const onSlide = () => {
    update();
    for (const poll of polls.values()) if (poll.current) poll.shown();
  };
  ctx.reveal?.on("slidechanged", onSlide);
  return {
    polls,
    unbind() {
      unsubscribe();
      hear(null);
      window.removeEventListener("storage", onStorage);
      ctx.reveal?.off("slidechanged", onSlide);
      for (const poll of polls.values()) poll.stopSimulation();
    },
  };
}

/** The polls as the page's plugin (plugins.js); deck.js shows its ``polls`` as window.deck.polls.
 *  @type {import("./plugins.js").DeckPlugin<ReturnType<typeof installPolls>>} */
export const plugin = { id: "polls", init: installPolls };
