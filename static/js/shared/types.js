// The shapes of the data that crosses a boundary, written once and checked by `tsc` (checkJs,
// tsconfig.json and tsconfig.worker.json): the build's config (dpdeck/build/config.py, the
// DeckConfig dataclass: the same fields, tests/unit/test_contract.py), the messages between
// the page and the Python worker, and between the main window and the speaker view's copies
// (PROTOCOL.md describes each one; the test checks that every message type is there).
// No code: other modules import these with `@typedef {import("./types.js").Name} Name`.

// --- the build's config (#deck-config) ----------------------------------------------------

/**
 * Where each group of files is, relative to the page (each ends in "/").
 * @typedef {object} Assets
 * @property {string} reveal      reveal.js, in a folder named after its version
 * @property {string} katex       KaTeX (its stylesheet)
 * @property {string} codemirror  CodeMirror's ES modules
 * @property {string} pyodide     the Pyodide distribution
 * @property {string} static      our own static/ (js/, py/, css/, wheels/), named after its content
 */

/**
 * A code or exercise slide, as the downloaded notebook introduces its cell.
 * @typedef {object} NotebookSlide
 * @property {string} title
 * @property {string} body        Markdown ("" when none)
 * @property {boolean} exercise
 */

/**
 * @typedef {object} NotebookInfo
 * @property {string} title
 * @property {string} subtitle    "" when none
 * @property {string} author      "" when none
 * @property {Record<string, NotebookSlide>} slides  cell id → its slide
 */

/**
 * The build's config, embedded in the page as JSON (dpdeck/build/config.py, DeckConfig).
 * @typedef {object} DeckConfig
 * @property {string} version            digest of static/, dplab and the runner; names the mirror's channel
 * @property {string} deckId             keys the edits and progress in localStorage
 * @property {Assets} assets
 * @property {string} pyodideIndex       Pyodide's indexURL, relative to the page
 * @property {string[]} packages         Pyodide packages loaded at boot, before the prelude
 * @property {string[]} deferredPackages loaded after the prelude, in the background
 * @property {Record<string, string>} onDemand  import name → package, loaded when a cell needs it
 * @property {{width: number, height: number}} slideSize  reveal.js's slide size (layout.py)
 * @property {string} wheel              the deck's package's wheel (dplab's or its own), relative to the page
 * @property {string} packageName        that package's import name ("dplab")
 * @property {string} runner             the cell runner's wheel (pyodide_pkg/cellrunner), relative to the page
 * @property {string} prelude            Python run once after boot, before any cell
 * @property {NotebookInfo} notebook     titles and text of the code slides, for the download
 * @property {EditorInfo} editor         what the editor's completion loads on the first request
 * @property {string} hall               the live hall's origin (https://hall.example.edu), or "": the deck's own
 */

/**
 * The editor's completion (dpdeck/build/config.py, EditorInfo).
 * @typedef {object} EditorInfo
 * @property {string} engine   completion.py, relative to the page
 * @property {string} index    api-index.json: the package's public API, Spanish summaries
 * @property {{url: string, sha256: string, bytes: number}[]} wheels  jedi's and parso's wheels
 */

// --- results and errors ---------------------------------------------------------------------

/**
 * An error as the page shows it: built by `errorRecord` (errors.js) in JS and by
 * `cellrunner.format_error` in Python.
 * @typedef {object} ErrorRecord
 * @property {string} type        the exception's class name, or a Spanish word ("Reinicio", …)
 * @property {string} message
 * @property {string} traceback   what is shown under the cell
 * @property {string} [missing]   a module the cell could not import (the worker may load it)
 */

/**
 * How a run ended, as `Runtime.run` resolves it.
 * @typedef {object} RunResult
 * @property {boolean} ok
 * @property {string | null} [value]   the repr of the last expression, or null
 * @property {ErrorRecord} [error]     when not ok
 * @property {number | null} seconds   how long the code ran; null when it never ran to an end
 * @property {boolean} [noise]         the run drew fresh noise
 * @property {string} [seedUsed]       the seed of that noise (decimal)
 * @property {boolean} [crashed]       the interpreter died during the run
 * @property {boolean} [cancelled]     dropped before it started
 * @property {boolean} [restarted]     ended by a restart of the worker
 */

/**
 * What `Runtime.evaluate` resolves with: the expression's value through JSON, or its error.
 * @typedef {{ok: true, value: any} | {ok: false, error: ErrorRecord}} EvalResult
 */

// --- the privacy-budget meter -----------------------------------------------------------------

// AccountantState, the meter's entry: generated below from dpdeck/wire/page.py

// --- a cell's output (output.js), mirrored to the speaker view ------------------------------

/**
 * @typedef {{kind: "stdout" | "stderr" | "value" | "error", text: string}} TextItem
 * @typedef {{kind: "figure", svg?: string, png?: string, alt: string, note?: string}} FigureItem
 * @typedef {{kind: "budget", accountants: AccountantState[], more: number}} BudgetItem
 * @typedef {TextItem | FigureItem | BudgetItem} OutputItem
 */

// --- what the messages carry besides the types above -----------------------------------------

/**
 * @typedef {"load" | "complete" | "signature" | "hover"} QueryKind  a `complete` message's kind
 * @typedef {"loading" | "ready" | "running" | "error"} RuntimeState  a `status` message's state
 */

// --- what the pure modules decide, as codes (their Spanish: phrases.js) ----------------------

/**
 * A sentence about Python the page may show, as a code and its parameters. The pure modules
 * return these (scheduler.js's `status()`); the edge that writes text (the worker's `status`
 * message, the runtime's `restart` event) says it in Spanish with phrases.js's `say`.
 * @typedef {{code: "boot"} | {code: "boot-interpreter"} | {code: "boot-packages", packages: string[]}
 *   | {code: "loading-package", name: string} | {code: "boot-failed"} | {code: "running"}
 *   | {code: "ready"} | {code: "mpl-loading"} | {code: "mpl-failed"} | {code: "fatal"}
 *   | {code: "gave-up"}} StatusPhrase  the status indicator's text (a `status` message's `detail`)
 * @typedef {{code: "restart-manual"} | {code: "restart-crashed", message: string}
 *   | {code: "restart-worker-error", message: string} | {code: "restart-silent"}
 *   | {code: "restart-gave-up"} | {code: "restart-interrupt-ignored"} | {code: "restart-no-interrupt"}
 *   | {code: "restart-memory"}} RestartPhrase  why Python restarted (a `restart` event's `reason`)
 * @typedef {{code: "waited-for-restart"} | {code: "rerun-package", name: string}
 *   | {code: "memory-freed", names: string[]} | {code: "memory-restart", gigabytes: number}} RunPhrase
 *   notes on a run: a `rerun`'s `reason`, the line added to a traceback after a MemoryError
 * @typedef {StatusPhrase | RestartPhrase | RunPhrase | UiLabel | UiPhrase} Phrase
 * @typedef {{state: RuntimeState} & StatusPhrase} SchedulerStatus  what the indicator shows
 */

/**
 * The page's own words besides the pure modules' (phrases.js has the Spanish): a fixed text of
 * the interface (a button, a label, a note) is a `UiLabel`; one with parameters a `UiPhrase`.
 * @typedef {{code: "boot-wait-default" | "cell-run" | "cell-run-label" | "cell-stop" | "cell-stop-label"
 *   | "cell-reset" | "cell-reset-label" | "cell-noise" | "cell-noise-label" | "cell-lock" | "cell-lock-label"
 *   | "cell-locked" | "cell-tries-label" | "cell-try-restore-label" | "no-doc"
 *   | "exercise-stopped" | "exercise-crashed" | "exercise-unchecked" | "exercise-copied"
 *   | "exercise-solution" | "exercise-solution-label" | "exercise-load"
 *   | "exercise-load-label" | "exercise-solved" | "exercise-no-more-hints" | "exercise-loaded"
 *   | "actions-region" | "run-all-label" | "run-all-started" | "run-all-ended" | "restart-label"
 *   | "reset-all-label" | "reset-all-confirm" | "reset-all-done" | "restart-confirm-title"
 *   | "restart-confirm-text" | "restart-confirm-cancel" | "restart-confirm-ok" | "restart-cancelled"
 *   | "output-stale" | "output-stale-meta"
 *   | "help-title" | "help-resume" | "help-close" | "help-key" | "help-action" | "help-key-or-notice"
 *   | "help-meaning" | "help-button" | "help-deck" | "help-editor" | "help-hall" | "help-buttons"
 *   | "offline-ready" | "meter-label" | "param-python-literal"
 *   | "notebook-untitled" | "notebook-exercise-note" | "notebook-prelude" | "notebook-figures"
 *   | "notebook-menu" | "notebook-ipynb" | "notebook-py" | "notebook-menu-note"
 *   | "prelude-failed" | "prelude-failed-traceback" | "cancelled-type" | "cancelled-message"
 *   | "cancelled-traceback" | "died-type" | "died-message" | "interrupted-message"
 *   | "load-cell-packages" | "start-python"
 *   | "eval-no-detail" | "nav-left" | "nav-right" | "nav-up" | "nav-down" | "result-stopped"
 *   | "wide-formula" | "wide-table"}} UiLabel
 * @typedef {{code: "boot-wait", what: string, seconds: number, usual: number}
 *   | {code: "cell-code-label", id: string} | {code: "cell-try-label", label: string}
 *   | {code: "cell-locked-label", seed: string} | {code: "result-ready", alts: string}
 *   | {code: "result-error", type: string}
 *   | {code: "exercise-raised", type: string} | {code: "exercise-hint", n: number, total: number}
 *   | {code: "exercise-hint-label", n: number, total: number}
 *   | {code: "output-label", kind: "stdout" | "stderr" | "value" | "error"}
 *   | {code: "exercise-verdict", ok: boolean, message: string}
 *   | {code: "exercise-count", solved: number, total: number}
 *   | {code: "name-undefined", name: string, hint: string | null}
 *   | {code: "keyword-unknown", fn: string, word: string, hint: string | null, params: string[]}
 *   | {code: "param-out-of-range", name: string, range: string}
 *   | {code: "param-invalid", name: string, what: string, value: string}
 *   | {code: "run-all-progress", n: number, total: number} | {code: "slide-of", n: number, total: number}
 *   | {code: "offline-saving", done: number, total: number} | {code: "offline-missing", failed: number}
 *   | {code: "meter-more", more: number} | {code: "meter-budget", symbol: string}
 *   | {code: "meter-spent", symbol: string, text: string} | {code: "code-size", percent: number}
 *   | {code: "param-outside", written: string, min: number, max: number}
 *   | {code: "param-unbound", prefix: string}
 *   | {code: "notebook-intro", packageName: string, wheelName: string}
 *   | {code: "notebook-action-label", packageName: string} | {code: "notebook-wheel", packageName: string}
 *   | {code: "downloading", file: string}
 *   | {code: "died-traceback", message: string} | {code: "no-answer", what: string, seconds: number}
 *   | {code: "load-package", name: string} | {code: "last-visit", time: string}
 *   | {code: "eval-unreadable", reason: string} | {code: "pool-name-elsewhere", name: string, cell: string}} UiPhrase
 */

/**
 * A cell's state: the one notion the page has of where a cell is (`Cell.state`, cell.js). Its
 * `data-state` and `Cell.running` follow from it (cellstate.js), and so does the text beside its
 * buttons (phrases.js, `cellMeta`); PROTOCOL.md, "A cell's state", has the table.
 * `runId`: the runtime's id of the run (null when the runtime refused it at once); `at`: when it
 * ended (ms since the epoch); `seconds`: how long the code ran, null when it never ran to an end.
 * @typedef {{phase: "idle"}
 *   | {phase: "waiting" | "running", runId: number | null}
 *   | {phase: "done" | "error", at: number, seconds: number | null}
 *   | {phase: "stopped" | "crashed", at: number}
 *   | {phase: "suspect"}
 *   | {phase: "not-replayed", ok: boolean}} CellState
 */

// --- speaker view ⇄ main window (mirror.js, one BroadcastChannel) ------------------------------

/**
 * `Cell.snapshot()`: a cell's code and output.
 * @typedef {object} CellSnapshot
 * @property {string} id
 * @property {string} code
 * @property {OutputItem[]} items
 * @property {CellState} state the cell's state: the copy derives its text and `data-state` from it
 * @property {boolean} edited
 * @property {boolean} [stale] the output is another code's than `code` (provenance.js): the copy marks it too
 */

/**
 * The verdict under an exercise.
 * @typedef {{state: "ok" | "wrong" | "error" | "stopped", message: string}} Feedback
 */

/**
 * `Exercise.snapshot()`.
 * @typedef {object} ExerciseSnapshot
 * @property {string} id
 * @property {boolean} solved
 * @property {Feedback | null} feedback
 * @property {number} hints      how many hints are shown
 * @property {boolean} solution  whether the solution is shown
 */

/**
 * The exercises hub's `summary()`.
 * @typedef {{total: number, solved: string[], states: ExerciseSnapshot[]}} ExerciseSummary
 */

// --- the live hall's page: what poll.js, hallcount.js, live-view.js and live.js say ----------

/**
 * A sentence of the live hall's page, as a code and its parameters; phrases.js's `sayHall`
 * gives its Spanish (`HALL_PHRASES`). Numbers arrive formatted the Spanish way where the
 * module that shows them formats them (`pct`, `num`: "0,75", "30 %"), as numbers otherwise.
 * @typedef {{code: "poll-new-round"} | {code: "poll-csv"} | {code: "poll-csv-title"}
 *   | {code: "poll-round-yes"} | {code: "poll-round-no"} | {code: "poll-round-warning", round: number}
 *   | {code: "poll-round-opened", round: number} | {code: "poll-round-failed"} | {code: "poll-csv-header"}
 *   | {code: "poll-csv-file", poll: string, round: number}} PollControlPhrase  the presenter's controls
 * @typedef {{code: "poll-copy"} | {code: "poll-presenter"} | {code: "poll-presenter-hall"}
 *   | {code: "poll-student-hall"} | {code: "poll-simulated"}
 *   | {code: "poll-simulated-hall", size: number, options: string[], shares: string[]}
 *   | {code: "poll-may-answer", newRound: boolean, round: number} | {code: "poll-not-open"} | {code: "poll-late"}
 *   | {code: "poll-randomizing"} | {code: "poll-randomize-failed", message: string | null}
 *   | {code: "poll-answered-elsewhere", option: string} | {code: "poll-simulated-sent", option: string}
 *   | {code: "poll-sending"} | {code: "poll-duplicate"} | {code: "poll-sent", option: string}
 *   | {code: "poll-refused", option: string}
 *   | {code: "poll-not-sent", option: string, why: "rate" | "invalid" | "busy" | "network"}
 *   | {code: "poll-retry"} | {code: "poll-simulate-failed", message: string}
 *   | {code: "poll-summary-failed", message: string}} PollStatusPhrase  a poll's mode and status line
 * @typedef {{code: "poll-answers"} | {code: "poll-answers-of", n: string, admitted: string, one: boolean}
 *   | {code: "poll-cluster"} | {code: "poll-cluster-of", cluster: string, admitted: string}
 *   | {code: "poll-received", label: string} | {code: "poll-estimate-of", label: string}
 *   | {code: "poll-held", hold: number, n: string, missing: number, narrow: string, wide: string} | {code: "poll-no-answers"}
 *   | {code: "poll-clipped", share: string} | {code: "poll-interval-below"} | {code: "poll-interval-above"}
 *   | {code: "poll-estimate", estimate: string, interval: string}
 *   | {code: "poll-posterior", yesNo: boolean, option: string, prior: string, posterior: string, epsilon: string}
 *   } PollNumbersPhrase  a poll's numbers
 * @typedef {{code: "count-central"} | {code: "count-student"}
 *   | {code: "count-button", released: boolean, epsilon: string} | {code: "count-button-title", released: boolean}
 *   | {code: "count-counting"} | {code: "count-no-answer"} | {code: "count-refused-request", status: number}
 *   | {code: "count-exhausted"}
 *   | {code: "count-shown", value: number, low: number, high: number, clipped: boolean,
 *      admitted: number | null, cluster: number | null, epsilon: string, sd: string, fresh: boolean, reach: number, cover: string}
 *   | {code: "count-failed", message: string}} CountPhrase  the hall's exercise counts (hallcount.js)
 * @typedef {{code: "hall-return-here", ahead: boolean} | {code: "hall-return-slide", slide: number}
 *   | {code: "hall-qr-alt"} | {code: "hall-join-lead"} | {code: "hall-join-label"} | {code: "hall-join-close"}
 *   | {code: "hall-qr-key"}
 *   | {code: "hall-status", state: "absent" | "connecting" | "live" | "offline", role: "presenter" | "following" | "alone", devices: number}
 *   | {code: "hall-short", live: boolean, devices: number}
 *   | {code: "hall-status-title", role: "presenter" | "following" | "alone"}
 *   | {code: "hall-token-refused"}} HallViewPhrase  the hall's indicator, QR code and notices (live-view.js, live.js)
 * @typedef {PollControlPhrase | PollStatusPhrase | PollNumbersPhrase | CountPhrase | HallViewPhrase} HallPhrase
 */

// --- every message of the page's wires: page ⇄ worker, main window ⇄ speaker view (mirror.js),
// page ⇄ Service Worker (isolation.js ⇄ sw.js); declared in dpdeck/wire --------------------

// wire: begin (generated by `python -m dpdeck.wire.generate` from dpdeck/wire; do not edit)
/**
 * @typedef {{type: "init", config: DeckConfig, base: string, interruptBuffer: Int32Array | null, prefetch: boolean, bootPackages: boolean}} InitMessage  boot Python with the build's config
 * @typedef {{type: "run", id: number, cellId: string, code: string, seed: string | number | null, background: boolean}} RunMessage  run one cell's code (or the page's own snippet)
 * @typedef {{type: "cancel", id: number}} CancelMessage  drop a run that has not started
 * @typedef {{type: "ping", n: number}} PingMessage  the watchdog's question
 * @typedef {{type: "complete", id: number, kind: QueryKind, code: string, line: number, column: number}} CompleteMessage  the editor's completion, signature or hover query
 * @typedef {{type: "complete-cancel", id: number}} CompleteCancelMessage  drop a query that has not started
 * @typedef {{type: "status", state: RuntimeState, detail: string, downloading?: boolean, at?: number}} StatusMessage  the runtime's state and the indicator's Spanish text
 * @typedef {{type: "stdout" | "stderr", id: number, text: string}} TextMessage  printed text of a running cell
 * @typedef {{type: "figure", id: number, svg?: string, png?: string, alt: string, note?: string}} FigureMessage  a figure of a running cell (SVG, or PNG past the caps)
 * @typedef {{type: "budget", id: number, accountants: AccountantState[], more: number}} BudgetMessage  the privacy budgets the running cell spends from
 * @typedef {{type: "verdict", id: number, ok: boolean, message: string}} VerdictMessage  an exercise's verdict
 * @typedef {{type: "result", id: number} & RunResult} ResultMessage  how a run ended
 * @typedef {{type: "started", id: number}} StartedMessage  a run starts now
 * @typedef {{type: "rerun", id: number, reason: string}} RerunMessage  a package was loaded: the cell runs again
 * @typedef {{type: "crashed", error: ErrorRecord, reason?: string, outsideRun?: boolean}} CrashedMessage  the interpreter died or is unfit: restart the worker
 * @typedef {{type: "fatal", error: ErrorRecord}} FatalMessage  the runtime failed to start
 * @typedef {{type: "pong", n: number}} PongMessage  the watchdog's answer
 * @typedef {{type: "completion", id: number, ready: boolean, answer: any}} CompletionMessage  the answer to a query
 * @typedef {{type: "hello"}} HelloMessage  a copy has loaded
 * @typedef {{type: "cell", snap: CellSnapshot}} CellMessage  a cell's code, output and state
 * @typedef {{type: "try", id: string, index: number | null}} TryMessage  the speaker view's suggested edit, for the main window to run
 * @typedef {{type: "exercises"} & ExerciseSummary} ExercisesMessage  the exercises' progress and verdicts
 * @typedef {{type: "offline-fill"}} OfflineFill  keep the rest of the deck for use without a network
 * @typedef {{type: "offline-progress", version: string, done: number, total: number, failed: number, complete: boolean}} OfflineProgress  how far keeping the deck has got
 * @typedef {InitMessage | RunMessage | CancelMessage | PingMessage | CompleteMessage | CompleteCancelMessage} ToWorker
 * @typedef {StatusMessage | TextMessage | FigureMessage | BudgetMessage | VerdictMessage | ResultMessage | StartedMessage | RerunMessage | CrashedMessage | FatalMessage | PongMessage | CompletionMessage} FromWorker
 * @typedef {HelloMessage | TryMessage} CopyToMain
 * @typedef {StatusMessage | CellMessage | ExercisesMessage} MainToCopies
 * @typedef {{seq: number, indexh: number, indexv: number, indexf: number}} HallState  the presenter's position
 * @typedef {{n: number}} DevicesCount  how many devices the hall holds
 * @typedef {{poll: string, n: number, counts: number[], round: number, admitted: number | null, cluster: number | null}} Tally  a poll's randomized answers so far
 * @typedef {{poll: string, round: number, ticket: string}} Admit  this device's ticket for a poll's round
 * @typedef {{exercises: {[exercise: string]: string}}} ExerciseTickets  this device's tickets for the exercises
 * @typedef {{reload: boolean}} Built  the deck was rebuilt
 * @typedef {{message: string}} BuildFailed  the build refused the deck
 * @typedef {{state: HallState, devices: DevicesCount, tally: Tally, admit: Admit, tickets: ExerciseTickets}} HallEvents  the events of /_hall/events, by name
 * @typedef {{built: Built, failed: BuildFailed}} WatchEvents  the events of /_watch/events, by name
 * @typedef {{device: string}} StreamQuery  the live channel's query: GET /_hall/events
 * @typedef {{seq: number, indexh: number, indexv: number, indexf: number}} StateBody  the presenter's position, posted: POST /_hall/state
 * @typedef {{token: string, poll: string, answer: number, ticket?: string | null}} AnswerBody  a randomized answer to a poll: POST /_hall/answer
 * @typedef {{token: string, exercise: string, ticket?: string | null}} SolvedBody  a solved exercise: POST /_hall/solved
 * @typedef {{exercise: string, again?: boolean}} ReleaseBody  the presenter asks for an exercise's noised count: POST /_hall/release
 * @typedef {{poll: string}} ResetBody  a new round of a poll: POST /_hall/reset
 * @typedef {{state: StateBody, answer: AnswerBody, solved: SolvedBody, release: ReleaseBody, reset: ResetBody}} HallPosts  the bodies of the hall's POSTs, by route (/_hall/<name>)
 * @typedef {{"events": StreamQuery}} HallQueries  the queries of the hall's GETs, by route
 * @typedef {"hello" | "events" | "state" | "answer" | "solved" | "release" | "reset" | "qr.svg"} HallRoute  the hall's routes, by name (/_hall/<name>)
 * @typedef {{"hello": "hall" | "absent", "events": "stream" | "invalid" | "rate" | "busy", "state": "ok" | "invalid" | "refused" | "busy", "answer": "ok" | "invalid" | "refused" | "duplicate" | "rate" | "busy", "solved": "ok" | "invalid" | "refused" | "rate" | "busy", "release": "released" | "invalid" | "refused" | "spent" | "busy", "reset": "ok" | "invalid" | "refused" | "busy", "qr.svg": "ok"}} HallResults  what each route's answers mean, by route
 * @typedef {{}} HallBroadcasts  the presenter's broadcasts: kept event → body
 * @typedef {{hall: 1, audience: string[], devices: number, counts: {epsilon: number, budget: number}, session: string}} HelloReply  the hall's `GET /_hall/hello`
 * @typedef {{ok: boolean, counted?: boolean}} Recorded  an answer or a solve kept (`counted`: a solve's, false when its token was counted already)
 * @typedef {{exercise: string, value: number | null, new: boolean, epsilon: number, sd: number, budget: BudgetPayload, refused: string | null, admitted: number, cluster: number}} Released  an exercise's noised count, or why the hall's budget refused it (`POST /_hall/release`)
 * @typedef {{name: string | null, epsilon_spent: number, epsilon_total: number, delta_spent: number, delta_total: number, releases: number, epsilon_text: string, delta_text: string | null, refused: string | null}} AccountantState  one `dplab.BudgetAccountant` as the meter shows it
 * @typedef {{accountants: AccountantState[], more: number}} BudgetPayload  the meter's payload: the budgets, in order of first use, and how many more were left out
 * @typedef {{k: number, epsilon: number, slide: number}} LivePoll  a poll of `live.json`: its options, its ε and its slide's `indexh`
 * @typedef {{polls: {[id: string]: LivePoll}, exercises: string[]}} LiveManifest  `dist/live.json`: the deck's polls by slide id, and its exercises
 * @typedef {{k: number, epsilon: number, epsilonText: string, prior: number, options: string[], yesNo: boolean, hold: number, heldSpan: number[]}} PollData  a poll slide's `data-poll`
 */
// wire: end

export {};
