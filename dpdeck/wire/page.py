"""Every message of the page's wires, declared once: who sends it, its fields and their types,
what it means; and the JSON objects the build hands the page (:data:`SHAPES`: ``live.json``, a
poll slide's ``data-poll``, the privacy-budget payload). The wires: ``worker`` (the page and its
Python worker, ``runtime.js`` ⇄ ``worker.js``), ``mirror`` (the main window and the speaker
view's copies, one BroadcastChannel, ``mirror.js``) and ``service-worker`` (``isolation.js`` ⇄
``sw.js``, the deck without a network).

``python -m dpdeck.wire.generate`` writes their typedefs and unions in ``static/js/shared/types.js``
and their tables in ``static/js/shared/PROTOCOL.md``; ``tsc`` then proves that the page sends only these
and handles each one (``test_js_types.py``). A new message: one :class:`Message` here, the
generator, the code that sends it, and the ``case`` that ``tsc`` then asks for where it is received.
"""

from __future__ import annotations

from dataclasses import dataclass

from .rules import F, Shape


@dataclass(frozen=True)
class Message:
    """One message: its typedef ``name`` and one line on it, its ``wire`` and ``direction`` (``"page → worker"``),
    its ``type`` tags (two for one shape, as ``stdout``/``stderr``), its fields, what it means
    (Markdown, the table's column), the unions it belongs to, a typedef it ``extends`` (its
    fields are that typedef's too), and rows of other wires' tables it also stands in."""

    name: str
    summary: str  # one line: the typedef's
    wire: str
    direction: str
    tags: tuple[str, ...]
    fields: tuple[F, ...]
    doc: str
    unions: tuple[str, ...] = ()
    extends: str = ""
    also: tuple[tuple[str, str, str], ...] = ()  # (wire, direction, doc)

    def js_type(self) -> str:
        tag = " | ".join(f'"{t}"' for t in self.tags)
        parts = [f"type: {tag}"] + [f"{f.name}: {f.js}" for f in self.fields]
        shape = "{" + ", ".join(parts) + "}"
        return f"{shape} & {self.extends}" if self.extends else shape

    def shown(self) -> str:
        """The table's first column: ``{type: "run", id, cellId, …}``."""
        keys = [f.name for f in self.fields] + ([f"…{self.extends}"] if self.extends else [])
        return " / ".join("`{" + ", ".join([f'type: "{t}"', *keys]) + "}`" for t in self.tags)


MESSAGES = (
    Message(
        "InitMessage",
        "boot Python with the build's config",
        "worker",
        "page → worker",
        ("init",),
        (
            F("config", "DeckConfig"),
            F("base", "string"),
            F("interruptBuffer", "Int32Array | null"),
            F("prefetch", "boolean"),
            F("bootPackages", "boolean"),
        ),
        (
            "boot (`base`: the page's folder, which `config`'s paths are relative to): load Pyodide, "
            "`config.packages`, the dplab wheel, the cell runner, run `config.prelude`, then load "
            "`config.deferredPackages` in the background. With `prefetch` (true unless the page was opened "
            "with `?noprefetch`, for A/B measurements) the worker meanwhile downloads, in this order, the "
            "wheels of `config.packages`, the dplab wheel and the runner, then the wheels of "
            "`config.deferredPackages` (`prefetch.js`), so the network works while the interpreter starts; "
            "it keeps each body until Pyodide's `loadPackage` fetches that URL and answers that fetch with "
            "it, once, after checking it against the integrity Pyodide asks (the lock's sha256) with "
            "WebCrypto (without WebCrypto, or on a mismatch, the fetch goes to the network), and forgets "
            "what is left once the deferred packages are loaded or the boot failed (the worker's `fetch` is"
            " `fetchKept`: any other request goes to the network as before). "
            "`interruptBuffer` is an `Int32Array` over a `SharedArrayBuffer` where the browser has one to "
            "share (feature-detected: cross-origin isolation is needed but not enough, WebKitGTK 2.50 is "
            "isolated without it), else `null`. With `bootPackages` (only with `?bootpackages`, for A/B "
            "measurements) nothing is prefetched: `loadPyodide` gets `config.packages`, the dplab wheel "
            "and the runner as its `packages` option, Pyodide's own way to download them while it boots."
        ),
        unions=("ToWorker",),
    ),
    Message(
        "RunMessage",
        "run one cell's code (or the page's own snippet)",
        "worker",
        "page → worker",
        ("run",),
        (
            F("id", "number"),
            F("cellId", "string"),
            F("code", "string"),
            F("seed", "string | number | null"),
            F("background", "boolean"),
        ),
        (
            "run a cell in the shared interpreter, one at a time: the presenter's runs in order first, "
            "background pre-runs in the gaps. `seed`: replay the noise of an earlier run."
        ),
        unions=("ToWorker",),
    ),
    Message(
        "CancelMessage",
        "drop a run that has not started",
        "worker",
        "page → worker",
        ("cancel",),
        (F("id", "number"),),
        (
            "drop a run that has not started (a run that has started is not affected: the page stops it when "
            "its `started` arrives)."
        ),
        unions=("ToWorker",),
    ),
    Message(
        "PingMessage",
        "the watchdog's question",
        "worker",
        "page → worker",
        ("ping",),
        (F("n", "number"),),
        "the watchdog: the worker answers `pong` between actions.",
        unions=("ToWorker",),
    ),
    Message(
        "CompleteMessage",
        "the editor's completion, signature or hover query",
        "worker",
        "page → worker",
        ("complete",),
        (
            F("id", "number"),
            F("kind", "QueryKind"),
            F("code", "string"),
            F("line", "number"),
            F("column", "number"),
        ),
        (
            "the editor's query (`completion.js`, through `runtime.query`): `kind` ∈ `complete` (names at the"
            " cursor), `signature` (the call around it), `hover` (the name under it), `load` (warm the "
            "engine: sent on an editor's first focus); `line` 1-based, `column` 0-based, over the cell's "
            "`code`. The first query fetches jedi's and parso's wheels (`config.editor.wheels`), checks their"
            " sha256 and unpacks them (`engine.js`), answering `ready: false` meanwhile; once unpacked, "
            "queries go to the scheduler (rule 7): the worker's own first one imports jedi, then it queues "
            "one warm-up query per module and data object of the session (`completion.warm_ups`: `np.`, "
            "`census.`), each in a gap of its own, so that a person's first completion does not pay for "
            "parsing stubs."
        ),
        unions=("ToWorker",),
    ),
    Message(
        "CompleteCancelMessage",
        "drop a query that has not started",
        "worker",
        "page → worker",
        ("complete-cancel",),
        (F("id", "number"),),
        "drop a query that has not started (the page gave up waiting: it answers from its static names).",
        unions=("ToWorker",),
    ),
    Message(
        "StatusMessage",
        "the runtime's state and the indicator's Spanish text",
        "worker",
        "worker → page",
        ("status",),
        (
            F("state", "RuntimeState"),
            F("detail", "string"),
            F("downloading?", "boolean"),
            F("at?", "number"),
        ),
        (
            "`state` ∈ `loading`, `ready`, `running`, `error`; `detail` is Spanish text for the indicator: "
            "the scheduler's code (`Scheduler.status()`, `StatusPhrase` in `types.js`) said by `phrases.js`. "
            "`downloading` (the worker's; a copy's mirror leaves it out): whether the worker's prefetch "
            "(`prefetch.js`) is still downloading wheels, matplotlib's last: the worker waits on the network, "
            "with time to spare, and `prerun.js` asks first for the cells that do not draw. "
            "`at` (the worker's, optional): when the worker posted it, in ms since the epoch on the worker's "
            "own clock (`performance.timeOrigin + performance.now()`); the page may hear it later, while its "
            "main thread is busy. `bench/startup.py` compares it with bare Pyodide's marks, taken the same way."
        ),
        unions=("FromWorker", "MainToCopies"),
        also=(("mirror", "main → copies", "the runtime's status (as the worker's `status`)."),),
    ),
    Message(
        "TextMessage",
        "printed text of a running cell",
        "worker",
        "worker → page",
        ("stdout", "stderr"),
        (F("id", "number"), F("text", "string")),
        "printed text of a running cell, in chunks.",
        unions=("FromWorker",),
    ),
    Message(
        "FigureMessage",
        "a figure of a running cell (SVG, or PNG past the caps)",
        "worker",
        "worker → page",
        ("figure",),
        (
            F("id", "number"),
            F("svg?", "string"),
            F("png?", "string"),
            F("alt", "string"),
            F("note?", "string"),
        ),
        (
            "a matplotlib figure (SVG text) and its text alternative; or, once the run's SVG would cost the "
            "page too much to draw (`cellrunner.figures.MAX_SVG_CHARS`, `MAX_SVG_FIGURES`), a PNG as base64 "
            "text with a Spanish `note` saying so, shown under it. At most `MAX_FIGURES` (20) a run, then a "
            "note on stderr."
        ),
        unions=("FromWorker",),
    ),
    Message(
        "BudgetMessage",
        "the privacy budgets the running cell spends from",
        "worker",
        "worker → page",
        ("budget",),
        (F("id", "number"), F("accountants", "AccountantState[]"), F("more", "number")),
        (
            "`accountants`: `[{name, epsilon_spent, epsilon_total, delta_spent, delta_total, releases, epsilon_text, delta_text, refused}]` (`AccountantState`): "
            "the privacy budget of every `dplab.BudgetAccountant` the running cell created or spent from (an "
            "observer registered for the run, `cellrunner.meter.BudgetWatcher`), in order of first use, at "
            "most `cellrunner.meter.MAX_METERS` (`more` counts the others). Sent at the first change, then at"
            " most every `cellrunner.meter.BUDGET_SECONDS` (0,1 s), and the last state before `result`: a "
            "loop of 10 000 releases sends ~10 a second. `name`: the cell's variable bound to it (a global, "
            "else a local of the cell's code seen when it spent), or `null`; `*_text`: Spanish, rounded down "
            '("1 de 1,5", "5·10⁻⁶ de 10⁻⁵"); `delta_text` is `null` when the budget has no δ; `refused`: the '
            "Spanish reason of the run's last refused release (the `BudgetError` message), or `null`. The "
            'page shows it as one output item `{kind: "budget", …}` (replaced by each update; `meter.js`), so'
            " the speaker view mirrors it."
        ),
        unions=("FromWorker",),
    ),
    Message(
        "VerdictMessage",
        "an exercise's verdict",
        "worker",
        "worker → page",
        ("verdict",),
        (F("id", "number"), F("ok", "boolean"), F("message", "string")),
        (
            "an exercise's verdict (the check program's last value, a `cellrunner.Verdict`; "
            "`cellrunner.verdict.VerdictWatcher`): whether the code passed, and the check's Spanish "
            "`message`. At most one a run, before `result`, and never shown as a value; the page hands it to "
            "the run's `onVerdict` (`runtime.js`), the Cell fires `verdict`, `exercise.js` judges with it "
            '(see "An exercise\'s run" below).'
        ),
        unions=("FromWorker",),
    ),
    Message(
        "ResultMessage",
        "how a run ended",
        "worker",
        "worker → page",
        ("result",),
        (F("id", "number"),),
        (
            "`ok: true`: the cell finished; `value` is the repr of its last expression or `null`. `ok: "
            "false`: the cell raised (`seconds`: `null` when it never ran to an end). With `crashed: true`: "
            "the interpreter died during it, or it exhausted the memory and Python is restarted without it (a"
            " `crashed` follows); with `cancelled: true`: a `cancel` dropped it before it started."
        ),
        unions=("FromWorker",),
        extends="RunResult",
    ),
    Message(
        "StartedMessage",
        "a run starts now",
        "worker",
        "worker → page",
        ("started",),
        (F("id", "number"),),
        "the run `id` starts now (a Stop before this cancels it instead).",
        unions=("FromWorker",),
    ),
    Message(
        "RerunMessage",
        "a package was loaded: the cell runs again",
        "worker",
        "worker → page",
        ("rerun",),
        (F("id", "number"), F("reason", "string")),
        (
            "the cell needed a package left out of the cold load (its error's `missing` is in "
            "`config.onDemand`); it was loaded and the cell runs again: clear its output."
        ),
        unions=("FromWorker",),
    ),
    Message(
        "CrashedMessage",
        "the interpreter died or is unfit: restart the worker",
        "worker",
        "worker → page",
        ("crashed",),
        (F("error", "ErrorRecord"), F("reason?", "string"), F("outsideRun?", "boolean")),
        (
            "the interpreter died during a run (e.g. `os._exit`), or is unfit to go on (a run exhausted its "
            'memory: see "Recovery"); the page restarts the worker. `reason` (optional): Spanish text for the'
            " notice beside the status. `outsideRun: true`: it died between runs (a wasm trap while importing"
            " matplotlib, seen in WebKit): no run is answered `crashed`, the runs waiting for matplotlib had"
            " not started and go to the new worker, and the restart counts against the cap of the restarts"
            ' the page decides by itself ("Liveness across the page").'
        ),
        unions=("FromWorker",),
    ),
    Message(
        "FatalMessage",
        "the runtime failed to start",
        "worker",
        "worker → page",
        ("fatal",),
        (F("error", "ErrorRecord"),),
        (
            "the runtime itself failed (boot error); every queued and later run is answered with it; ⟲ "
            "restarts."
        ),
        unions=("FromWorker",),
    ),
    Message(
        "PongMessage",
        "the watchdog's answer",
        "worker",
        "worker → page",
        ("pong",),
        (F("n", "number"),),
        "the answer to `ping`.",
        unions=("FromWorker",),
    ),
    Message(
        "CompletionMessage",
        "the answer to a query",
        "worker",
        "worker → page",
        ("completion",),
        (F("id", "number"), F("ready", "boolean"), F("answer", "any")),
        (
            "the answer to `complete` (also to a cancelled one, with `answer: null`). `ready: false`: the "
            "engine is not loaded (yet, or it failed): the page uses its static names. `answer`: `complete` →"
            " `{items: [{label, type, module}]}` (a keyword argument's label ends in `=`); `signature` → "
            "`{name, module, params, index, doc}` or `null`; `hover` → `{name, module, fullName, type, "
            "signature, doc}` or `null` (`doc`: the docstring's first paragraph; the page shows its Spanish "
            "summary for the deck's package instead)."
        ),
        unions=("FromWorker",),
    ),
    Message(
        "HelloMessage",
        "a copy has loaded",
        "mirror",
        "copy → main",
        ("hello",),
        (),
        "a copy has loaded: send me everything.",
        unions=("CopyToMain",),
    ),
    Message(
        "CellMessage",
        "a cell's code, output and state",
        "mirror",
        "main → copies",
        ("cell",),
        (F("snap", "CellSnapshot"),),
        (
            "`snap`: `{id, code, items, state, edited, stale?}` (`CellSnapshot`): "
            "a cell's code, output and state (`Cell.snapshot()`; `state`: see \"A cell's state\", from which "
            "the copy derives its text and `data-state`; `stale`: the output is another code's, and the copy "
            'marks it too: see "An output and its code"), at most every 100 ms a cell.'
        ),
        unions=("MainToCopies",),
    ),
    Message(
        "TryMessage",
        "the speaker view's suggested edit, for the main window to run",
        "mirror",
        "copy → main",
        ("try",),
        (F("id", "string"), F("index", "number | null")),
        (
            "the speaker view's button of the slide's suggested edit `index` (0-based, in `try:` order) on "
            "cell `id`: the main window applies that edit to the cell's *authored* code, in its editor, and "
            "runs it; `index: null` (↺) restores the authored code and runs it. An unknown `id` or `index` is"
            " ignored. The result comes back as `cell` messages."
        ),
        unions=("CopyToMain",),
    ),
    Message(
        "ExercisesMessage",
        "the exercises' progress and verdicts",
        "mirror",
        "main → copies",
        ("exercises",),
        (),
        (
            "`{total, solved: [id…], states: [{id, solved, feedback, hints, solution}…]}` (`ExerciseSummary`): "
            "the exercises (`exercise.js`): how many there are, which ones the main window has solved (kept "
            'in its `localStorage`), and for each its verdict on screen (`feedback`: `{state: "ok" \\| "wrong"'
            ' \\| "error" \\| "stopped", message}` or `null`), how many hints are shown and whether the '
            'solution is. Sent on every change and in answer to `hello`. The copies show "Ejercicios '
            "resueltos: n de total\" beside the status, and mirror each exercise's verdict, hints and "
            "solution."
        ),
        unions=("MainToCopies",),
        extends="ExerciseSummary",
    ),
    Message(
        "OfflineFill",
        "keep the rest of the deck for use without a network",
        "service-worker",
        "page → worker",
        ("offline-fill",),
        (),
        (
            "fetch every file of `offline.json` the cache lacks, one at a time at low priority (a second "
            "request while one runs joins it)."
        ),
        unions=(),
    ),
    Message(
        "OfflineProgress",
        "how far keeping the deck has got",
        "service-worker",
        "worker → page",
        ("offline-progress",),
        (
            F("version", "string"),
            F("done", "number"),
            F("total", "number"),
            F("failed", "number"),
            F("complete", "boolean"),
        ),
        (
            "how far it got: at the start, at most every 250 ms, and at the end (`complete`: every file "
            'kept). The page shows it only in the status indicator\'s tooltip ("Disponible sin conexión") and '
            "`data-offline` (`partial`, `ready`), `data-offline-version`."
        ),
        unions=(),
    ),
)

# The unions, in the order types.js states them: name → the wire it belongs to.
UNIONS = {
    "ToWorker": "page → worker",
    "FromWorker": "worker → page",
    "CopyToMain": "copy → main",
    "MainToCopies": "main → copies",
}
# The tables of PROTOCOL.md: (wire, direction or None for a table of both ways).
TABLES = (
    ("worker", "page → worker"),
    ("worker", "worker → page"),
    ("mirror", None),
    ("service-worker", None),
)


def by_name(name: str) -> Message:
    return next(m for m in MESSAGES if m.name == name)


SHAPES = (
    Shape(
        "AccountantState",
        "one `dplab.BudgetAccountant` as the meter shows it",
        (
            F("name", "string | null"),
            F("epsilon_spent", "number"),
            F("epsilon_total", "number"),
            F("delta_spent", "number"),
            F("delta_total", "number"),
            F("releases", "number"),
            F("epsilon_text", "string"),
            F("delta_text", "string | null"),
            F("refused", "string | null"),
        ),
        "cellrunner.meter.budget_entry (a cell's run, the hall's release) → meter.js",
    ),
    Shape(
        "BudgetPayload",
        "the meter's payload: the budgets, in order of first use, and how many more were left out",
        (F("accountants", "AccountantState[]"), F("more", "number")),
        "cellrunner.meter, dpdeck/hall/release.py → meter.js",
    ),
    Shape(
        "LivePoll",
        "a poll of `live.json`: its options, its ε and its slide's `indexh`",
        (F("k", "number"), F("epsilon", "number"), F("slide", "number")),
        "dpdeck/build/live.py → dpdeck/hall/messages.py",
    ),
    Shape(
        "LiveManifest",
        "`dist/live.json`: the deck's polls by slide id, and its exercises",
        (F("polls", "{[id: string]: LivePoll}"), F("exercises", "string[]")),
        "dpdeck/build/live.py → dpdeck/hall/messages.py",
    ),
    Shape(
        "PollData",
        "a poll slide's `data-poll`",
        (
            F("k", "number"),
            F("epsilon", "number"),
            F("epsilonText", "string"),
            F("prior", "number"),
            F("options", "string[]"),
            F("yesNo", "boolean"),
            F("hold", "number"),
            F("heldSpan", "number[]"),
        ),
        "dpdeck/build/live.py (templates/slides/poll.html.j2) → poll.js",
    ),
)
