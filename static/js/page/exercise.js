// Exercises that check themselves (slide kind "exercise"; dpdeck/build/exercise.py).
//
// An exercise's editor is an ordinary Cell (edits kept, Stop, watchdog, mirrored to the speaker
// view). When the presenter or a student runs it (▶ Ejecutar, Shift+Enter: not the background
// pre-runs, "run all" or the replay after a restart), the build's check program is appended to
// the code: one run, so Stop and the watchdog apply to the check too. The check ends with the
// verdict, which the worker sends as a message of its own ({type: "verdict", ok, message}: the
// Cell's "verdict" event) before the run's result; it is shown under the exercise as ✓ or ✗
// with the check's Spanish message. Solved exercises are remembered in the browser
// (ProgressStore), and the speaker view shows how many the main window has solved.

import { required } from "./dom.js";
import { say, sayDelivery } from "../shared/phrases.js";

/** @typedef {import("../shared/types.js").Feedback} Feedback */
/** @typedef {{ok: boolean, message: string}} Verdict */
/** @typedef {import("../shared/types.js").ExerciseSnapshot} ExerciseSnapshot */
/** @typedef {import("../shared/types.js").ExerciseSummary} ExerciseSummary */
/**
 * The page's exercises, and a "change" event for the mirror.
 * @typedef {EventTarget & {exercises: Exercise[], summary: () => ExerciseSummary,
 *                          restore: (summary: ExerciseSummary) => void} & import("./context.js").Bound} ExerciseHub
 */

/** @param {string} label @param {string} text @param {string} cls @param {() => void} onClick
 *  @param {AbortSignal} signal  its click listener goes when this aborts */
function button(label, text, cls, onClick, signal) {
  const b = document.createElement("button");
  b.type = "button";
  b.className = `cell-btn exercise-btn ${cls}`;
  b.textContent = text;
  b.title = label;
  b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick, { signal });
  return b;
}

/** What to show under the exercise after a judged run: {state, message}.
 *  @param {import("../shared/types.js").RunResult} result
 *  @param {Verdict | null} verdict  the run's verdict message, if it sent one
 *  @returns {Feedback} */
export function feedbackFor(result, verdict) {
  if (result.restarted || result.cancelled) {
    return { state: "stopped", message: say({ code: "exercise-stopped" }) };
  }
  if (result.crashed) return { state: "stopped", message: say({ code: "exercise-crashed" }) };
  if (!result.ok) {
    const type = result.error?.type || "Error";
    if (type === "KeyboardInterrupt") return { state: "stopped", message: say({ code: "exercise-stopped" }) };
    return { state: "error", message: say({ code: "exercise-raised", type }) };
  }
  if (!verdict) return { state: "error", message: say({ code: "exercise-unchecked" }) };
  return { state: verdict.ok ? "ok" : "wrong", message: verdict.message };
}

/** Text with `code` spans, as safe DOM nodes. */
function richText(el, text) {
  el.replaceChildren();
  text.split(/(`[^`]+`)/).forEach((part) => {
    if (/^`[^`]+`$/.test(part)) {
      const code = document.createElement("code");
      code.textContent = part.slice(1, -1);
      el.append(code);
    } else if (part) el.append(document.createTextNode(part));
  });
}

/** Whether two programs are the same, but for trailing spaces and blank lines. */
function sameCode(a, b) {
  const lines = (/** @type {string} */ s) => s.split("\n").map((l) => l.trimEnd()).filter(Boolean).join("\n");
  return Boolean(b) && lines(a) === lines(b);
}

const ICONS = { ok: "✓", wrong: "✗", error: "✗", stopped: "■" };

export class Exercise extends EventTarget {
  /**
   * @param {HTMLElement} root  the .exercise element of the slide
   * @param {import("./cell.js").Cell} cell  its Cell (read-only in a speaker-view copy)
   * @param {{progress: import("./storage.js").ProgressStore | null, solved: Set<string>,
   *          announce: ((text: string) => void) | null, readOnly?: boolean,
   *          hall?: import("./context.js").HallHolder | null, signal: AbortSignal}} options
   *   ``hall``: the page's, told of a solved exercise; ``signal``: every listener this exercise
   *   adds (its buttons', its cell's) goes when it aborts
   */
  constructor(root, cell, { progress, solved, announce, readOnly = false, hall = null, signal }) {
    super();
    this.root = root;
    this.cell = cell;
    // the build writes data-exercise-id on every .exercise (templates/)
    this.id = /** @type {string} */ (root.dataset.exerciseId);
    this.progress = progress;
    this.solvedSet = solved;
    this.announce = announce;
    this.readOnly = readOnly;
    this.hall = hall;
    this.program = root.querySelector(".exercise-program")?.textContent ?? "";
    this.hints = /** @type {HTMLElement[]} */ ([...root.querySelectorAll(".exercise-hint")]);
    this.solutionEl = required(root, ".exercise-solution");
    this.solution = root.querySelector(".exercise-solution-code")?.textContent?.replace(/\n$/, "") ?? "";
    this.copied = false;   // the code being judged is the solution as loaded (judgedCode)
    /** this browser loaded the official solution into this editor («Cargar en el editor»):
     *  the same code run then counts for nothing; typed by the student, it counts */
    this.loaded = progress?.loadedSolutions().has(this.id) ?? false;
    this.feedbackEl = required(root, ".exercise-feedback");
    /** what the hall did with this solve, when it is not simply counted: being sent again, or
     *  not received in the end (with «Enviar de nuevo») */
    this.hallEl = document.createElement("p");
    this.hallEl.className = "exercise-hall";
    this.hallEl.setAttribute("role", "status");
    this.hallEl.hidden = true;
    /** @type {Feedback | null} of the last judged run */
    this.feedback = null;
    this.judging = false;
    /** @type {Verdict | null} what the judged run sent (its "verdict" message) */
    this.verdict = null;
    // the editor shows the blank starter again (↺ Restaurar, or a reload after it): the progress
    // is kept (the count), but «resuelto» is not shown under code that solves nothing
    this.restarted = !cell.edited;

    const bar = document.createElement("div");
    bar.className = "exercise-actions";
    this.hintBtn = button("", "", "hint", () => this.nextHint(), signal);
    this.solutionBtn = button(say({ code: "exercise-solution-label" }), say({ code: "exercise-solution" }),
                              "show-solution", () => this.showSolution(), signal);
    this.loadBtn = button(say({ code: "exercise-load-label" }), say({ code: "exercise-load" }), "load-solution",
                          () => this.loadSolution(), signal);
    this.loadBtn.hidden = true;
    this.badge = document.createElement("span");
    this.badge.className = "exercise-badge";
    this.badge.textContent = say({ code: "exercise-solved" });
    bar.append(this.hintBtn, this.solutionBtn, this.loadBtn, this.badge);
    required(root, ".exercise-side").append(bar, this.hallEl);   // the hall's note under the «✓ resuelto» badge
    if (readOnly) this.hintBtn.disabled = this.solutionBtn.disabled = this.loadBtn.disabled = true;
    this.updateHintButton();
    this.showSolved();

    if (!readOnly) {
      // the Cell asks for the program to append (only on a run that is to be judged)
      cell.exercise = this;
      cell.addEventListener("verdict", (/** @type {CustomEvent} */ e) => {
        if (this.judging) this.verdict = e.detail;
      }, { signal });
      cell.addEventListener("ran", (/** @type {CustomEvent} */ e) => {
        if (!this.judging) return;
        this.judging = false;
        this.judge(e.detail);
      }, { signal });
      cell.addEventListener("reset", () => this.forget(), { signal });
    }
  }

  get solved() { return this.solvedSet.has(this.id); }
  get hintsShown() { return this.hints.filter((h) => !h.hidden).length; }

  /** The code a judged run sends: the student's, then the check. Called by Cell.run. */
  judgedCode(code) {
    this.judging = true;
    this.verdict = null;
    this.copied = this.loaded && sameCode(code, this.solution);
    return `${code}\n${this.program}`;
  }

  judge(result) {
    const feedback = feedbackFor(result, this.verdict);
    this.setFeedback(feedback);
    this.verdict = null;
    if (feedback.state === "ok" && this.copied) {
      // the solution as the deck gives it («Cargar en el editor»): it passes, but nobody solved
      // anything, so neither this device's progress nor the hall's count hears of it
      const copied = say({ code: "exercise-copied" });
      this.setFeedback({ state: "ok", message: copied });
      this.announce?.(say({ code: "exercise-verdict", ok: true, message: copied }));
      this.changed();
      return;
    }
    if (feedback.state === "ok") {
      this.restarted = false;
      if (!this.solved) {
        this.solvedSet.add(this.id);
        this.progress?.save(this.solvedSet);
      }
      this.showSolved();
    }
    if (feedback.state === "ok") this.tellHall();
    const { state, message } = feedback;
    this.announce?.(say({ code: "exercise-verdict", ok: state === "ok", message }));
    this.changed();
  }

  /** Tell the hall (live.js) of the solve, sent again until it acknowledges it; what the
   *  student sees: nothing when it does, «reintentando…» while it is sent again, and, when it
   *  failed in the end, why and a button to send it again (the same solve, under its token). */
  async tellHall() {
    const hall = this.hall?.get();
    if (!hall) return;
    const el = this.hallEl;
    const onRetry = () => {
      el.hidden = false;
      el.dataset.state = "retrying";
      el.textContent = sayDelivery({ code: "solve-retrying" });
    };
    const result = await hall.solved(this.id, { onRetry });
    if (result === "ok" || result === "absent" || result === "invalid") {
      el.hidden = true;
      el.dataset.state = result;
      el.replaceChildren();
      return;
    }
    el.hidden = false;
    el.dataset.state = "failed";
    el.textContent = result === "refused" ? sayDelivery({ code: "solve-refused" })
      : sayDelivery({ code: "solve-unsent", why: result });
    if (result === "refused") return;
    const again = document.createElement("button");
    again.type = "button";
    again.className = "cell-btn exercise-btn solve-retry";
    again.textContent = sayDelivery({ code: "solve-retry" });
    again.addEventListener("click", () => { again.disabled = true; this.tellHall(); }, { once: true });
    el.append(" ", again);
  }

  /** ↺ Restaurar brought the blank starter back: its ✓ (or ✗) and «resuelto» go with the code
   *  they judged (the progress stays: the exercise was solved once). */
  forget() {
    this.judging = false;
    this.restarted = true;
    this.setFeedback(null);
    this.showSolved();
    this.changed();
  }

  setFeedback(feedback) {
    this.feedback = feedback;
    const el = this.feedbackEl;
    if (!feedback) { el.hidden = true; el.dataset.state = ""; return; }
    el.hidden = false;
    el.dataset.state = feedback.state;
    const icon = document.createElement("span");
    icon.className = "exercise-icon";
    icon.setAttribute("aria-hidden", "true");
    icon.textContent = ICONS[feedback.state] ?? "•";
    const text = document.createElement("span");
    text.className = "exercise-message";
    richText(text, feedback.message);
    el.replaceChildren(icon, text);
  }

  showSolved() {
    const shown = this.solved && !this.restarted;
    this.root.classList.toggle("is-solved", shown);
    this.badge.hidden = !shown;
  }

  updateHintButton() {
    const n = this.hintsShown, total = this.hints.length;
    this.hintBtn.hidden = total === 0;
    this.hintBtn.textContent = n < total ? say({ code: "exercise-hint", n: n + 1, total }) : say({ code: "exercise-no-more-hints" });
    const label = n < total ? say({ code: "exercise-hint-label", n: n + 1, total }) : this.hintBtn.textContent;
    this.hintBtn.setAttribute("aria-label", label);
    this.hintBtn.title = label;
    this.hintBtn.disabled = this.readOnly || n >= total;
  }

  nextHint() {
    const next = this.hints.find((h) => h.hidden);
    if (!next) return;
    next.hidden = false;
    this.updateHintButton();
    this.changed();
  }

  showSolution() {
    this.root.classList.add("solution-shown");   // the hints fold away: the solution needs the room
    this.solutionEl.hidden = false;
    this.solutionBtn.hidden = true;
    this.loadBtn.hidden = false;
    this.changed();
  }

  /** Put the solution in the editor (an edit like any other: ↺ Restaurar brings the starter back). */
  loadSolution() {
    if (this.readOnly) return;
    this.loaded = true;
    this.progress?.markLoaded(this.id);
    this.cell.code = this.solution;
    this.cell.markEdited();
    this.announce?.(say({ code: "exercise-loaded" }));
    this.changed();
  }

  changed() { this.dispatchEvent(new Event("change")); }

  /** @returns {ExerciseSnapshot} */
  snapshot() {
    return { id: this.id, solved: this.solved, feedback: this.feedback, hints: this.hintsShown,
             solution: !this.solutionEl.hidden };
  }

  /** A speaker-view copy: show what the main window's exercise shows.
   *  @param {ExerciseSnapshot} snap */
  restore(snap) {
    if (snap.solved) this.solvedSet.add(this.id); else this.solvedSet.delete(this.id);
    this.restarted = !snap.feedback && !this.cell.edited;   // the main window's rule, on the mirrored code
    this.showSolved();
    this.setFeedback(snap.feedback);
    this.hints.forEach((h, i) => { h.hidden = i >= snap.hints; });
    this.updateHintButton();
    this.solutionEl.hidden = !snap.solution;
    this.root.classList.toggle("solution-shown", snap.solution);
    this.solutionBtn.hidden = snap.solution;
    this.loadBtn.hidden = !snap.solution;
  }
}

/** All of the page's exercises (of the context's cells; read-only in a speaker-view copy,
 *  ``ctx.receiver``); {exercises, summary(), restore(), unbind()} with a "change" event for the
 *  mirror. A solved exercise is told to the context's hall. ``unbind()`` removes every listener
 *  the exercises added (their buttons', their cells': a run is then judged no more) and the
 *  hub's own.
 *  @param {import("./context.js").DeckContext} ctx
 *  @param {{progress?: import("./storage.js").ProgressStore | null}} [options]
 *  @returns {ExerciseHub} */
export function installExercises(ctx, { progress = null } = {}) {
  const readOnly = ctx.receiver;
  const announce = readOnly ? null : ctx.announce;
  const listening = new AbortController();
  const { signal } = listening;
  const solved = progress ? progress.load() : new Set();
  const byId = new Map(ctx.cells.map((c) => [c.id, c]));
  const roots = /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".exercise"));
  const exercises = [...roots].flatMap((root) => {
    const cell = byId.get(root.querySelector(".cell")?.getAttribute("data-cell-id") ?? "");
    return cell ? [new Exercise(root, cell, { progress, solved, announce, readOnly, hall: ctx.hall, signal })] : [];
  });
  const hub = /** @type {ExerciseHub} */ (new EventTarget());
  hub.exercises = exercises;
  hub.summary = () => ({ total: exercises.length,
                         solved: exercises.filter((e) => e.solved).map((e) => e.id),
                         states: exercises.map((e) => e.snapshot()) });
  hub.restore = (summary) => {
    const byEx = new Map(exercises.map((e) => [e.id, e]));
    for (const snap of summary.states ?? []) byEx.get(snap.id)?.restore(snap);
    showCount(summary.solved?.length ?? 0, summary.total ?? exercises.length);
  };
  hub.unbind = () => {
    listening.abort();
    for (const e of exercises) {
      e.judging = false;
      if (e.cell.exercise === e) e.cell.exercise = null;   // Cell.run appends no check any more
    }
  };
  for (const e of exercises) e.addEventListener("change", () => hub.dispatchEvent(new Event("change")), { signal });
  if (readOnly && exercises.length) showCount(0, exercises.length);
  return hub;
}

/** The speaker view's count: "Ejercicios resueltos: 2 de 5", beside the status. */
function showCount(solved, total) {
  let el = document.getElementById("exercise-count");
  if (!el) {
    el = document.createElement("div");
    el.id = "exercise-count";
    el.className = "exercise-count";
    el.setAttribute("role", "status");
    document.getElementById("runtime-status")?.after(el);
  }
  el.dataset.solved = String(solved);
  el.dataset.total = String(total);
  el.textContent = say({ code: "exercise-count", solved, total });
}
