// The exercises, as the hall did them: on the presenter's exercise slides, how many devices
// solved each exercise, released as a Laplace-noised count (sensitivity 1: one device moves a
// count by at most 1) that dplab draws in the presenter's Python, spent from the hall's own
// privacy budget (a dplab.BudgetAccountant) and shown on its meter (meter.js, through Output).
// The true counts come from the hall (hall.exerciseCounts(), live.js); they are read only by the
// snippet that noises them, and never shown. The budget's releases are kept in sessionStorage,
// so a reload of the presenter's tab does not refill it; once spent, no more counts.
import { Output } from "./output.js";
import { watchHall } from "./hallwatch.js";

export const HALL_BUDGET = 4;        // ε of the whole lecture's exercise counts
export const RELEASE_EPSILON = 0.5;  // ε of one count (Laplace scale 1/ε = 2 devices)
const SPENT = "dpdeck-hall-budget";  // sessionStorage: [{epsilon, label}, …]

/** @typedef {{epsilon: number, label: string}} HallRelease */

/** @returns {HallRelease[]} */
function spentSoFar() {
  try {
    const list = JSON.parse(sessionStorage.getItem(SPENT) || "[]");
    return Array.isArray(list) ? list.filter((r) => Number.isFinite(r?.epsilon) && typeof r.label === "string") : [];
  } catch { return []; }
}

/** @param {HallRelease[]} releases */
function saveSpent(releases) {
  try { sessionStorage.setItem(SPENT, JSON.stringify(releases)); } catch { /* page only */ }
}

/** Python: the hall's accountant with its past releases, then one more: the noised count.
 *  A refused release (BudgetError) draws no noise. @param {number} count @param {string} label
 *  @param {HallRelease[]} past */
export function noisedCountExpression(count, label, past) {
  if (!Number.isInteger(count) || count < 0) throw new Error(`conteo inválido: ${count}`);
  const replay = JSON.stringify(past.map((r) => [r.epsilon, r.label]));
  return `(lambda sala: ([sala.spend(e, label=l) for e, l in ${replay}], `
    + `__import__("dplab").laplace_mech(${count}, 1, ${RELEASE_EPSILON}, accountant=sala, label=${JSON.stringify(label)}))[1])`
    + `(__import__("dplab").BudgetAccountant(${HALL_BUDGET}))`;
}

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

/** One exercise's box on the presenter's slide. */
class HallCount {
  /** @param {HTMLElement} exercise the .exercise element @param {any} deck */
  constructor(exercise, deck) {
    this.id = exercise.dataset.exerciseId;
    this.title = exercise.closest("section")?.querySelector("h2")?.textContent ?? this.id;
    this.deck = deck;
    this.box = el("div", "hall-count");
    this.button = /** @type {HTMLButtonElement} */ (el("button", "cell-btn hall-count-btn",
      `¿Cuántos lo resolvieron? (ε = ${RELEASE_EPSILON.toLocaleString("es-ES")})`));
    this.button.type = "button";
    this.button.title = "Un conteo con ruido de Laplace, pagado con el presupuesto de la sala";
    this.text = el("p", "hall-count-text");
    this.text.setAttribute("role", "status");
    const meter = el("div", "hall-count-meter");
    this.output = new Output(meter);
    this.box.append(this.button, this.text, meter);
    this.box.hidden = true;
    exercise.querySelector(".exercise-side")?.append(this.box);
    this.button.addEventListener("click", () => this.release());
  }

  /** Ask the hall for the true count, noise it in Python, show the noised count and the budget. */
  async release() {
    const hall = this.deck.hall;
    if (!hall?.presenter || typeof hall.exerciseCounts !== "function") return;
    this.button.disabled = true;
    this.text.textContent = "Contando en la sala…";
    try {
      const counts = await hall.exerciseCounts();
      if (!counts) { this.text.textContent = "La sala no respondió: no se contó nada (ni se gastó presupuesto)."; return; }
      const past = spentSoFar();
      const label = `resolvieron «${this.title}»`;
      const result = await this.deck.runtime.evaluate(noisedCountExpression(Number(counts?.[this.id] ?? 0), label, past), {
        onBudget: ({ accountants, more }) => { this.output.replace([{ kind: "budget", accountants, more }]); },
      });
      if (!result.ok) {   // the meter says why in full
        this.text.textContent = result.error.type === "BudgetError"
          ? "El presupuesto de la sala se agotó: este conteo no se publicó." : result.error.message;
        return;
      }
      saveSpent([...past, { epsilon: RELEASE_EPSILON, label }]);
      const shown = Math.max(0, Math.round(result.value));   // post-processing: free
      this.box.dataset.noisy = String(result.value);
      this.text.textContent = `≈ ${shown.toLocaleString("es-ES")} dispositivos lo resolvieron `
        + `(conteo con ruido de Laplace, ε = ${RELEASE_EPSILON.toLocaleString("es-ES")}; desvío típico ≈ `
        + `${(Math.SQRT2 / RELEASE_EPSILON).toLocaleString("es-ES", { maximumFractionDigits: 1 })}).`;
    } catch (e) {
      this.text.textContent = `No se pudo contar: ${e instanceof Error ? e.message : String(e)}`;
    } finally {
      this.button.disabled = false;
    }
  }
}

/** The presenter's hall counts, on every exercise slide; shown only while this page holds the
 *  hall's token. @param {any} deck window.deck */
export function installHallCounts(deck) {
  if (deck.receiver || !deck.runtime) return [];
  const exercises = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".exercise"));
  const boxes = [...exercises].map((e) => new HallCount(e, deck));
  const update = () => {
    const on = Boolean(deck.hall?.present && deck.hall.presenter && typeof deck.hall.exerciseCounts === "function");
    for (const b of boxes) b.box.hidden = !on;
  };
  watchHall(deck, update);
  return boxes;
}
