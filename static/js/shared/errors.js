// The error record the page shows under a cell ({type, message, traceback}; types.js,
// ErrorRecord), built in one place on the JS side: the worker (boot failures, a crash, a
// cancelled run) and the runtime (a restart) use these. Python's errors are built by
// cellrunner.format_error, and the worker forwards them as they are.

/** @typedef {import("./types.js").ErrorRecord} ErrorRecord */

/**
 * An error record; ``traceback`` (the text under the cell) defaults to the message.
 * @param {string} type
 * @param {string} message
 * @param {string} [traceback]
 * @returns {ErrorRecord}
 */
export function errorRecord(type, message, traceback = message) {
  return { type, message, traceback };
}

/**
 * The record of an exception thrown in JS (or a PythonError that Pyodide raised into JS: its
 * ``pythonTraceback`` is kept when set).
 * @param {any} e
 * @returns {ErrorRecord}
 */
export function errorFromException(e) {
  return errorRecord(e?.name || "Error", String(e?.message || e),
                     e?.pythonTraceback ?? String(e?.stack || e));
}
