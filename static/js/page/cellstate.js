// A cell's state (types.js, `CellState`): the one notion the page has of where a cell is, and
// what follows from it. cell.js keeps it (`Cell.state`) and shows it; the DOM's `data-state`
// and the run id Stop needs are derived here, the text beside the buttons in phrases.js
// (`cellMeta`). Pure, tested under node (tests/js/cellstate.test.mjs). PROTOCOL.md, "A cell's
// state", has the table.
import { assertNever } from "../shared/never.js";

/** @typedef {import("../shared/types.js").CellState} CellState */
/** @typedef {import("../shared/types.js").RunResult} RunResult */

/** @type {CellState} */
export const IDLE = { phase: "idle" };

/**
 * The state a finished run leaves its cell in.
 * @param {RunResult} result
 * @param {number} at  when it ended, in milliseconds since the epoch
 * @returns {CellState}
 */
export function afterRun(result, at) {
  if (result.crashed) return { phase: "crashed", at };
  if (result.restarted || result.cancelled) return { phase: "stopped", at };
  return { phase: result.ok ? "done" : "error", at, seconds: result.seconds };
}

/**
 * The cell's `data-state` attribute (what deck.css and the tests read): "" before any run,
 * "running" while one is asked for, then "done" or "error".
 * @param {CellState} state
 * @returns {"" | "running" | "done" | "error"}
 */
export function dataState(state) {
  switch (state.phase) {
    case "idle": return "";
    case "waiting":
    case "running": return "running";
    case "done": return "done";
    case "error":
    case "stopped":
    case "crashed":
    case "suspect": return "error";
    case "not-replayed": return state.ok ? "done" : "error";
    default: return assertNever(state);
  }
}

/**
 * The runtime's id of the run under way (what Stop stops), or null when none is.
 * @param {CellState} state
 * @returns {number | null}
 */
export function activeRun(state) {
  return state.phase === "waiting" || state.phase === "running" ? state.runId : null;
}
