// The exercises, as the hall did them: on the presenter's exercise slides, how many solved each
// exercise, as the hall's server releases it (dpdeck/hall/release.py): a count with exact
// discrete Laplace noise of sensitivity 1, drawn by dplab on the server, spent from the hall's
// budget that the server keeps for the hall session (across tabs, devices and restarts), shown
// here with the server's meter (meter.js, through Output). The true counts never leave the
// server: this page gets only the noised one.
// Privacy is central: the server sees every ✓, the noise protects against the room. What is
// counted once is a solve token kept in the browser's storage (live.js), so the unit of privacy
// is a browser profile: a laptop and a phone, or a private window, count twice, and a browser
// that refuses storage draws a new token on each load; a student counted m times pays mε for
// each release, not ε. Students on an exercise slide are told so in one line.
import { Output } from "./output.js";
import { sayHall } from "../shared/phrases.js";
import { resultOf } from "./wire.js";

/** @typedef {import("./context.js").DeckContext} DeckContext */
/** @typedef {import("./context.js").Hall} Hall */

/** @param {number} x */
const es = (x) => x.toLocaleString("es-ES", { maximumFractionDigits: 1 });
/** @param {number} x a share, as «96 %» (floor: the coverage is at least what it says) */
const pct = (x) => `${Math.floor(100 * x).toLocaleString("es-ES")} %`;

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

/** How far discrete Laplace noise of sensitivity 1 at ``epsilon`` strays, at 95 %: the least k
 *  with P(|noise| > k) = 2a^(k+1) / (1 + a) ≤ 0.05, a = e^-ε (6 at ε = 0,5).
 *  @param {number} epsilon */
export function noiseReach(epsilon) {
  const a = Math.exp(-epsilon);
  let k = 0;
  while ((2 * a ** (k + 1)) / (1 + a) > 0.05) k += 1;
  return k;
}

/** How often discrete Laplace noise at ``epsilon`` stays within ±``reach``: 1 - 2a^(reach+1)/(1 + a),
 *  a = e^-ε (0,962 at ε = 0,5 and reach 6: the «IC 95 %» covers at least that).
 *  @param {number} epsilon @param {number} reach */
export function noiseCover(epsilon, reach) {
  const a = Math.exp(-epsilon);
  return 1 - (2 * a ** (reach + 1)) / (1 + a);
}

/** The count as the slide shows it: the noised value and its interval (±``noiseReach``), clipped
 *  only to bounds that are public and true, which is post-processing (no privacy spent) and never
 *  makes the interval miss a true count it held: at least 0, and at most ``admitted``, the devices
 *  the hall admitted to report this exercise, when the release says it (the hall counts no solve
 *  without an admission, so no count exceeds it). The devices connected now are no bound: a solve
 *  stays counted after its device leaves, and with Redis a device is counted once per process.
 *  @param {number} noisy @param {number} epsilon @param {unknown} [admitted] the release's
 *  ``admitted``, if any
 *  @returns {{value: number, low: number, high: number, clipped: boolean, admitted: number | null}} */
export function countShown(noisy, epsilon, admitted) {
  const top = Number.isSafeInteger(admitted) && /** @type {number} */ (admitted) >= 0 ? /** @type {number} */ (admitted) : Infinity;
  const clip = (/** @type {number} */ x) => Math.min(top, Math.max(0, x));
  const k = noiseReach(epsilon);
  const value = clip(noisy), low = clip(noisy - k), high = clip(noisy + k);
  return { value, low, high, clipped: value !== noisy || low !== noisy - k || high !== noisy + k,
           admitted: top === Infinity ? null : top };
}

/** The sentence of a released count ``value`` (``r``: the release's payload, whose
 *  ``admitted``, the devices admitted to report this exercise, bounds it when the hall says it).
 *  @param {number} value @param {import("../shared/types.js").Released} r
 *  @returns {Extract<import("../shared/types.js").HallPhrase, {code: "count-shown"}>} */
export function countSaid(value, r) {
  const { admitted, cluster } = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (r));
  const reach = noiseReach(r.epsilon);
  return { code: "count-shown", ...countShown(value, r.epsilon, admitted), epsilon: es(r.epsilon), sd: es(r.sd),
    fresh: Boolean(r.new), reach, cover: pct(noiseCover(r.epsilon, reach)),
    cluster: Number.isSafeInteger(cluster) ? /** @type {number} */ (cluster) : null };
}

/** What the slide says when a release has no count to show (``answer`` not 200 nor 409): a
 *  4xx is a refusal the hall answers before it releases anything (nothing counted, nothing
 *  spent); no answer, or a 5xx, may come after the release was kept (a reply lost on the way),
 *  so it may have been spent, and asking again without ``again`` shows it at no cost.
 *  @param {{status: number} | null} answer @returns {import("../shared/types.js").HallPhrase} */
export function countFailure(answer) {
  const status = answer?.status ?? 0;
  return status >= 400 && status < 500 ? { code: "count-refused-request", status } : { code: "count-no-answer" };
}

/** One exercise's box on the presenter's slide, and the students' line. */
class HallCount {
  /** @param {HTMLElement} exercise the .exercise element @param {DeckContext} ctx */
  constructor(exercise, ctx) {
    this.id = exercise.dataset.exerciseId ?? "";
    this.ctx = ctx;
    this.released = false;   // this exercise has a release: the button asks for a new draw
    this.box = el("div", "hall-count");
    this.button = /** @type {HTMLButtonElement} */ (el("button", "cell-btn hall-count-btn"));
    this.button.type = "button";
    this.text = el("p", "hall-count-text");
    this.text.setAttribute("role", "status");
    const central = el("p", "hall-count-central", sayHall({ code: "count-central" }));
    const meter = el("div", "hall-count-meter");
    this.output = new Output(meter);
    this.box.append(this.button, this.text, central, meter);
    this.box.hidden = true;
    this.note = el("p", "hall-count-note", sayHall({ code: "count-student" }));
    this.note.hidden = true;
    exercise.querySelector(".exercise-side")?.append(this.box, this.note);
    this.button.addEventListener("click", () => this.release());
    this.label();
  }

  /** @returns {Hall | null} the hall as it is now (live.js's, or a test's own) */
  get hall() { return this.ctx.hall.get(); }

  get epsilon() { return this.hall?.counts?.epsilon ?? 0.5; }

  label() {
    this.button.textContent = sayHall({ code: "count-button", released: this.released, epsilon: es(this.epsilon) });
    this.button.title = sayHall({ code: "count-button-title", released: this.released });
  }

  /** Ask the hall's server for the noised count (a new draw once one was shown) and show it
   *  with the hall's budget. */
  async release() {
    const hall = this.hall;
    if (!hall?.presenter || typeof hall.releaseCount !== "function") return;
    this.button.disabled = true;
    this.text.textContent = sayHall({ code: "count-counting" });
    try {
      const answer = await hall.releaseCount(this.id, this.released);
      const result = resultOf("release", answer?.status);   // a count, or the budget's refusal
      if (!answer || (result !== "released" && result !== "spent")) {
        const failure = countFailure(answer);
        // the release may have been kept: the next ask, without ``again``, shows the kept one free
        if (failure.code === "count-no-answer") { this.released = false; this.label(); }
        this.text.textContent = sayHall(failure);
        return;
      }
      const r = answer.body;
      if (r.budget) this.output.replace([{ kind: "budget", accountants: r.budget.accountants, more: r.budget.more }]);
      if (r.refused || r.value === null || !Number.isInteger(r.value)) {
        this.text.textContent = sayHall({ code: "count-exhausted" });
        return;
      }
      this.released = true;
      this.label();
      const said = countSaid(r.value, r);
      this.box.dataset.noisy = String(r.value);
      this.box.dataset.shown = JSON.stringify(countShown(r.value, r.epsilon, said.admitted));
      this.text.textContent = sayHall(said);
    } catch (e) {
      this.text.textContent = sayHall({ code: "count-failed", message: e instanceof Error ? e.message : String(e) });
    } finally {
      this.button.disabled = false;
    }
  }
}

/** The presenter's hall counts on every exercise slide, shown only while this page holds the
 *  hall's token; the students' line about what their ✓ tells, while a hall is present. Follows
 *  the context's hall until ``unbind()``.
 *  @param {DeckContext} ctx @returns {{boxes: HallCount[]} & import("./context.js").Bound} */
export function installHallCounts(ctx) {
  if (ctx.receiver || !ctx.runtime) return { boxes: [], unbind() {} };
  const exercises = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".exercise"));
  const boxes = [...exercises].map((e) => new HallCount(e, ctx));
  const update = (/** @type {any} */ hall) => {
    const present = Boolean(hall?.present);
    const presenter = present && Boolean(hall.presenter) && typeof hall.releaseCount === "function";
    for (const b of boxes) {
      b.box.hidden = !presenter;
      b.note.hidden = !present || presenter;
      b.label();
    }
  };
  return { boxes, unbind: ctx.hall.subscribe(update) };
}

/** The hall counts as the page's plugin (plugins.js); deck.js shows its ``boxes`` as
 *  window.deck.hallCounts. @type {import("./plugins.js").DeckPlugin<ReturnType<typeof installHallCounts>>} */
export const plugin = { id: "hallcounts", init: installHallCounts };
