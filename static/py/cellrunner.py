"""Run one deck cell in the shared interpreter and report what it shows.

Loaded by the worker (static/js/worker.js) into Pyodide; also importable under CPython, where
the tests run the whole deck's cells through it. ``emit(kind, payload)`` is the only way out:

- ``emit("stdout", text)`` / ``emit("stderr", text)``: printed text, in chunks, capped per run;
- ``emit("figure", {"svg": text, "alt": text})``: each matplotlib figure the cell left open, or
  ``{"png": base64 text, "alt": text, "note": text}`` when its SVG would be too costly for the
  page to draw (see :data:`MAX_SVG_CHARS`), the note saying so; at most :data:`MAX_FIGURES`;
- ``emit("budget", {"accountants": [...], "more": n})``: the privacy budget of every
  ``dplab.BudgetAccountant`` the cell created or spent from, as it changes (throttled: at most
  one every :data:`BUDGET_SECONDS`, and the last state when the cell ends); see
  :class:`_BudgetMeter` for the fields;
- the return value of :func:`run_cell`: ``{"ok": True, "value": repr-or-None}`` or
  ``{"ok": False, "error": {"type", "message", "traceback"}}``.
"""

from __future__ import annotations

import ast
import base64
import gc
import io
import linecache
import math
import numbers
import os
import re
import secrets
import sys
import time
import traceback
from contextlib import nullcontext, redirect_stderr, redirect_stdout

# Output caps: a student's `print` in a loop must not flood the page or its memory.
MAX_OUTPUT_CHARS = 200_000
MAX_REPR_CHARS = 20_000
MAX_TRACEBACK_CHARS = 12_000
FLUSH_SECONDS = 0.05

# Figure caps: no output may freeze the page. Chromium parses and lays out an <img> of SVG on the
# page's main thread, at a cost that grows with the SVG's elements; a PNG decodes off it.
# Measured on this project's CI machine kind (2 cores, headless Chromium 156, the deck page, the
# deck's style at 10 x 5.2 in), figures given to a cell's Output: main-thread CPU time between
# two animation frames after they arrive (a Chrome trace; median of 3-5; CPU time, because other
# jobs shared the 2 cores: wall-clock frame gaps were 1-4x that, ~15 ms more on an idle machine):
#   SVG of a scatter   69 kB: 30 ms, 122 kB: 53, 175 kB: 80, 207 kB: 68, 229 kB: 96, 335 kB: 177
#   SVG of text       127 kB: 46 ms, 186 kB: 63, 245 kB: 99, 497 kB: 229  (the worst kinds per kB)
#   SVG of lines      145 kB: 17 ms, 276 kB: 29, 537 kB: 31;  bars 213 kB: 39, 415 kB: 76
#   a deck figure (24-46 kB; 32 kB here) 15 ms; 6 at once 47 ms, 20 at once 143 ms (no frame
#   between their loads); 10 small scatters (21 kB) at once 61 ms
#   PNG: a deck figure 5 ms, 20 at once 14 ms; 2000 x 2000 px of noise (1.2 MB) 7 ms
#   wall clock: a 0.5 MB scatter 160-170 ms, 1 MB 0.3-0.5 s, 2 MB 0.9-1.3 s, 8.5 MB 3-5 s, and
#   21 MB (plt.scatter of 200 000 points) froze the deck for 18.8 s (test_hostile, without caps).
# So a run's SVG figures together stay under MAX_SVG_CHARS and MAX_SVG_FIGURES (at most ~70 ms
# of main thread measured, ~120 ms in the worst sample: under the 200 ms within which the page
# must answer a frame after any output); the figures past them are drawn by Agg as PNG.
MAX_SVG_CHARS = 200_000  # per run, all its SVG figures together (matplotlib's SVG is ASCII)
MAX_SVG_FIGURES = 10  # per run
MAX_FIGURES = 20  # per run; the figures after them are closed unseen, with a note
PNG_DPI = 150  # sharp on a projector; lowered for a big figure:
PNG_MAX_SIDE = 2000  # pixels
PNG_MAX_PIXELS = 2_000_000

# The budget meter: a loop of 10 000 releases must not send 10 000 messages.
BUDGET_SECONDS = 0.1  # at most one budget update per this interval (and the last one)
MAX_METERS = 4  # accountants shown per run; more are counted ("more")

# After a MemoryError: how much must be allocatable again for Python to count as usable (else
# the worker restarts it), and the longest one slice of a cell's time.sleep (install_sleep).
MEMORY_PROBE_BYTES = 64 * 2**20
SLEEP_SLICE_SECONDS = 0.25

NAMESPACE: dict = {"__name__": "__main__"}
PAGE_SNIPPET = "__page__"  # the cell id of the page's own snippets (runtime.js, Runtime.evaluate)


class _Stream(io.TextIOBase):
    """A text stream that forwards to ``emit`` in batches and stops at the cap."""

    def __init__(self, kind: str, emit, budget: list[int]):
        self.kind = kind
        self.emit = emit
        self.budget = budget  # shared by stdout and stderr: chars left
        self.buffer: list[str] = []
        self.last = time.monotonic()
        self.truncated = False

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        if self.budget[0] <= 0:
            self.truncated = True
            return len(text)
        if len(text) > self.budget[0]:
            self.buffer.append(text[: self.budget[0]])
            self.budget[0] = 0
            self.truncated = True
        else:
            self.buffer.append(text)
            self.budget[0] -= len(text)
        if time.monotonic() - self.last > FLUSH_SECONDS:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self.buffer:
            self.emit(self.kind, "".join(self.buffer))
            self.buffer.clear()
        self.last = time.monotonic()


def _cell_filename(cell_id: str) -> str:
    return f"<celda {cell_id}>"


def _register_source(filename: str, code: str) -> None:
    """Let tracebacks quote the cell's own lines."""
    lines = code.splitlines(True)
    linecache.cache[filename] = (len(code), None, lines, filename)


def _compile(code: str, filename: str):
    """Compile the cell; its last expression (if any) is evaluated for display."""
    tree = ast.parse(code, filename=filename, mode="exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec")
    tail = compile(last, filename, "eval") if last is not None else None
    return body, tail


# dplab's range errors (dplab._validate.ParameterError) said in Spanish, from the facts they carry
_ES_CONSTRAINTS = {
    "finite": "{p} debe ser un número finito; se recibió {v}",
    "positive": "{p} debe ser mayor que 0 (y finito); se recibió {v}",
    "nonnegative": "{p} debe ser mayor o igual que 0 (y finito); se recibió {v}",
    "interval": "{p} debe estar en el intervalo {interval}; se recibió {v}",
    "integer": "{p} debe ser un número entero mayor o igual que {minimum}; se recibió {v}",
    "max_float": "{p} debe ser un entero que quepa en un número de coma flotante; se recibió {v}",
    "order": "{p} debe ser mayor que 1 (y finito); se recibió {v}",
    "ndim": "{p} debe tener {allowed} dimensión(es); tiene la forma {shape}",
    "finite_entries": "{p} solo puede contener números finitos; contiene {v}",
    "entries_minimum": "todos los valores de {p} deben ser {op} {minimum}; el menor es {v}",
    "integer_valued": "{p} debe tener valores enteros (una consulta entera, como un conteo); se recibió {v}",
    "int64": "todos los valores de {p} deben caber en un entero de 64 bits; se recibió {v}",
    "above": "{p} debe ser mayor que {lower_name} = {lower}; se recibió {v}",
    "float_range": "el cálculo {problem} con {params}: se sale del rango de los números de coma "
    "flotante (el valor calculado: {what})",
}
_ES_PROBLEMS = {"nan": "da NaN", "overflow": "desborda a infinito", "underflow": "se anula (sin ruido)"}
_COMMA_DECIMAL = re.compile(r"(?<![\w.])(\d+),(\d+)(?![\w.])")


def _es_number(value) -> str:
    """A value for a Spanish message: numbers with a decimal comma (``0,5``, ``-1``, ``∞``)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return "NaN"
        if value in (float("inf"), float("-inf")):
            return "∞" if value > 0 else "-∞"
        if value.is_integer() and abs(value) < 1e16:
            value = int(value)
    text = repr(value).replace(".", ",")
    return text if len(text) <= 60 else text[:57] + "…"


def _es_parameter_error(exc) -> str | None:
    """The Spanish message of a ``dplab`` ParameterError, or None for any other exception."""
    template = _ES_CONSTRAINTS.get(getattr(exc, "constraint", None))
    if template is None or not type(exc).__module__.startswith("dplab"):
        return None
    d = dict(getattr(exc, "detail", {}))
    if "params" in d:
        d["params"] = ", ".join(f"{k}={v}" for k, v in d["params"].items())
        d["problem"] = _ES_PROBLEMS.get(d.get("problem"), d.get("problem"))
    if "allowed" in d:
        d["allowed"] = " o ".join(map(str, d["allowed"]))
    if "strict" in d:
        d["op"] = ">" if d["strict"] else "≥"
    for key in ("minimum", "lower"):
        if key in d:
            d[key] = _es_number(d[key])
    try:
        return template.format(p=exc.parameter, v=_es_number(exc.value), **d)
    except (KeyError, IndexError, ValueError):
        return None


def _comma_hint(line: str, value) -> str | None:
    """«0,1» where a number was meant: a decimal comma splits one number into two arguments, and
    the first (``value``, the one refused) is what the parameter got."""
    for found in _COMMA_DECIMAL.finditer(line or ""):
        a, b = found.groups()
        try:
            refused = float(value) == float(a)
        except (TypeError, ValueError):
            refused = False
        if refused:
            return (
                f"en Python los decimales llevan punto: {a}.{b} (la coma de «{a},{b}» separa dos argumentos)"
            )
    return None


def _dplab_frame_count(tb) -> int | None:
    """How many frames to keep so the last is the caller of dplab (None: no dplab frame)."""
    mod = sys.modules.get("dplab")
    folder = os.path.dirname(getattr(mod, "__file__", None) or "") if mod else ""
    if not folder:
        return None
    n = 0
    while tb is not None:
        if tb.tb_frame.f_code.co_filename.startswith(folder + os.sep):
            return n or None
        n += 1
        tb = tb.tb_next
    return None


def _dplab_error(exc: BaseException, tb) -> dict | None:
    """A dplab range error as the student should read it: their line, then the Spanish message
    (and a hint for a decimal comma); dplab's own frames dropped. None for any other error."""
    message = _es_parameter_error(exc)
    keep = _dplab_frame_count(tb)
    if message is None or keep is None:
        return None
    stack = traceback.StackSummary.extract(traceback.walk_tb(tb), limit=keep)
    text = "Traceback (most recent call last):\n" + "".join(stack.format())
    kind = "ValueError"  # what Python calls it: ParameterError is dplab's subclass of it
    text += f"{kind}: {message}\n"
    last = stack[-1] if len(stack) else None
    hint = _comma_hint(last.line if last else "", exc.value)
    if hint:
        text += f"Pista: {hint}\n"
        message += f". Pista: {hint}"
    return {"type": kind, "message": message, "traceback": text}


def format_error(exc: BaseException, filename: str) -> dict:
    """The error as the user should read it: frames from the cell on, runner frames dropped;
    dplab's range errors in Spanish, at the caller's line, without dplab's frames."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) or tb is None:
        tb = None
    elif (spanish := _dplab_error(exc, tb)) is not None:
        return spanish
    te = traceback.TracebackException(type(exc), exc, tb, compact=True)
    text = "".join(te.format())
    if len(text) > MAX_TRACEBACK_CHARS:  # a runaway recursion: keep the start and the end
        half = MAX_TRACEBACK_CHARS // 2
        text = f"{text[:half]}\n… (traceback recortado) …\n{text[-half:]}"
    if isinstance(exc, KeyboardInterrupt):
        message = "ejecución interrumpida"
    else:
        message = str(exc)
    error = {"type": type(exc).__name__, "message": message, "traceback": text}
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        error["missing"] = exc.name.split(".")[0]  # the worker may load it and run again
    return error


def _figure_alt(fig) -> str:
    """A short text alternative: what the figure plots (titles and axis labels)."""
    custom = getattr(fig, "alt_text", None)
    if custom:
        return str(custom)
    parts = []
    if fig._suptitle is not None and fig._suptitle.get_text():
        parts.append(fig._suptitle.get_text())
    for ax in fig.get_axes():
        bits = [ax.get_title()]
        if ax.get_xlabel():
            lo, hi = ax.get_xlim()
            bits.append(f"eje x: {ax.get_xlabel()} (de {lo:.3g} a {hi:.3g})")
        if ax.get_ylabel():
            lo, hi = ax.get_ylim()
            bits.append(f"eje y: {ax.get_ylabel()} (de {lo:.3g} a {hi:.3g})")
        legend = ax.get_legend()
        if legend is not None:
            names = [t.get_text() for t in legend.get_texts() if t.get_text()]
            if names:
                bits.append("series: " + ", ".join(names))
        parts.append(", ".join(b for b in bits if b))
    text = "; ".join(p for p in parts if p)
    return f"Figura: {text}" if text else "Figura"


class _SvgTooBig(Exception):
    """The SVG being written passed its cap (raised from inside ``savefig``, to stop early)."""


class _CappedText(io.StringIO):
    """A text file that refuses to grow past ``cap`` characters: a 200 000-point scatter stops
    after its first few thousand markers instead of writing 21 MB for nothing."""

    def __init__(self, cap: int):
        super().__init__()
        self.cap = cap

    def write(self, text) -> int:
        n = super().write(text)  # TypeError for bytes: matplotlib then knows it takes text
        if self.tell() > self.cap:
            raise _SvgTooBig
        return n


class _FigureBudget:
    """What one run has shown so far: its figures, and the SVG the page will have to draw."""

    def __init__(self):
        self.shown = 0
        self.dropped = 0
        self.svg_chars = 0
        self.svg_figures = 0


def _mb(chars: int) -> str:
    return f"{chars / 1e6:.1f}".replace(".", ",") + " MB"  # the lecture's decimal comma


def _png_base64(fig) -> str:
    """The figure drawn by Agg, at ``PNG_DPI`` unless that makes it too many pixels."""
    width, height = fig.get_size_inches()
    dpi = min(
        PNG_DPI, PNG_MAX_SIDE / max(width, height, 1e-3), (PNG_MAX_PIXELS / max(width * height, 1e-6)) ** 0.5
    )
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=max(dpi, 1), bbox_inches="tight")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _render_figure(fig, budget: _FigureBudget) -> dict:
    """One figure as SVG while the run's SVG budget lasts, else as PNG with a note."""
    alt = _figure_alt(fig)
    room = MAX_SVG_CHARS - budget.svg_chars
    if budget.svg_figures < MAX_SVG_FIGURES and room > 0:
        buf = _CappedText(room)
        try:
            fig.savefig(buf, format="svg", bbox_inches="tight")
        except _SvgTooBig:
            pass
        else:
            budget.svg_chars += buf.tell()
            budget.svg_figures += 1
            return {"svg": buf.getvalue(), "alt": alt}
    if budget.svg_figures >= MAX_SVG_FIGURES:
        note = f"(más de {MAX_SVG_FIGURES} figuras en SVG en esta celda: esta se muestra como PNG)"
    elif budget.svg_figures:
        note = f"(las figuras de esta celda pasan de {_mb(MAX_SVG_CHARS)} en SVG: esta se muestra como PNG)"
    else:
        note = f"(figura de más de {_mb(MAX_SVG_CHARS)} en SVG: se muestra como PNG)"
    return {"png": _png_base64(fig), "alt": alt, "note": note}


def _emit_figures(emit, budget: _FigureBudget) -> None:
    """Send every open matplotlib figure (up to the run's cap), then close them all."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    try:
        for num in pyplot.get_fignums():
            if budget.shown >= MAX_FIGURES:
                budget.dropped += 1
                continue
            emit("figure", _render_figure(pyplot.figure(num), budget))
            budget.shown += 1
    finally:
        pyplot.close("all")


# pyplot's import, cut into steps the worker takes one at a time, so that a cell the presenter
# runs meanwhile waits for one step (the longest is ~0.3 s in Pyodide), never for all (~1.5 s).
MATPLOTLIB_STEPS = (
    "pyparsing",
    "PIL.Image",
    "matplotlib",
    "matplotlib.colors",
    "matplotlib.font_manager",
    "matplotlib.ticker",
    "matplotlib.transforms",
    "matplotlib.path",
    "matplotlib.artist",
    "matplotlib.lines",
    "matplotlib.patches",
    "matplotlib.text",
    "matplotlib.collections",
    "matplotlib.image",
    "matplotlib.axis",
    "matplotlib.axes",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    "matplotlib.pyplot",
)

# matplotlib's backend, set here once for the whole interpreter (the worker loads this module
# before anything can import matplotlib): Agg, never a GUI backend. A value already set wins.
MPL_BACKEND = "agg"
os.environ.setdefault("MPLBACKEND", MPL_BACKEND)


def import_step(name: str) -> None:
    """One step of :data:`MATPLOTLIB_STEPS` (with the Agg backend, never a GUI one)."""
    import importlib

    importlib.import_module(name)


def prepare_matplotlib() -> None:
    """Import pyplot with the Agg backend; ``plt.show()`` shows the figures under the cell."""
    import matplotlib

    matplotlib.use(MPL_BACKEND)
    import matplotlib.pyplot as plt

    try:
        from dplab import plots

        plots.apply_style()
    except ImportError:
        pass

    def show(*args, **kwargs):
        if _current_run:
            emit, streams, budget = _current_run[-1]
            for stream in streams:  # what was printed before the figure comes before it
                stream.flush()
            _emit_figures(emit, budget)

    plt.show = show


_current_run: list = []  # (emit, streams, figure budget) of the cell being run, for plt.show()


class _BudgetMeter:
    """What the privacy budgets of one run look like: registered with
    ``dplab.accountant.add_observer`` for the run, it hears every accountant created, spending
    or refusing during it, and sends ``emit("budget", payload)``: the first change at once, then
    at most one every :data:`BUDGET_SECONDS`, and the last state when the run ends (:meth:`flush`).

    ``payload = {"accountants": [entry, ...], "more": n}``, an entry per accountant in order of
    first use (at most :data:`MAX_METERS`; ``more`` counts the others)::

        {"name": "presupuesto" or None,       # the cell's variable bound to it (global, else
                                              # a local of the cell's code seen when it spent)
         "epsilon_spent": 1.0, "epsilon_total": 1.5,
         "delta_spent": 0.0, "delta_total": 0.0,
         "releases": 2,                       # releases recorded so far
         "epsilon_text": "1 de 1,5",          # Spanish, rounded down (dplab.accountant.show_budget)
         "delta_text": "5·10⁻⁶ de 10⁻⁵" or None,   # None where the budget has no delta
         "refused": "La publicación … fue rechazada: …" or None}   # the last refusal of the run
    """

    def __init__(self, emit, show):
        self.emit = emit
        self.show = show  # dplab.accountant.show_budget
        self.accountants: list = []  # in order of first use, at most MAX_METERS
        self.refused: dict = {}  # id(accountant) -> its last refusal's reason, this run
        self.others: set = set()  # ids of the accountants past MAX_METERS
        self.names: dict = {}  # id(accountant) -> the variable of the cell's code bound to it
        self.tries: dict = {}  # id(accountant) -> how many times it was looked for
        self.dirty = False
        self.last = None  # time.monotonic() of the last emit

    def __call__(self, accountant, event, detail) -> None:
        if not any(a is accountant for a in self.accountants):
            if len(self.accountants) >= MAX_METERS:
                if id(accountant) not in self.others:
                    self.others.add(id(accountant))
                    self.dirty = True
                return
            self.accountants.append(accountant)
        if event == "refused":
            self.refused[id(accountant)] = str(detail)
        key = id(accountant)
        if key not in self.names and self.tries.get(key, 0) < 5:  # a function's local variable
            self.tries[key] = self.tries.get(key, 0) + 1
            name = _local_name(accountant)
            if name:
                self.names[key] = name
        self.dirty = True
        now = time.monotonic()
        if self.last is None or now - self.last >= BUDGET_SECONDS:
            self.flush()

    def _name(self, accountant):
        for key, value in list(NAMESPACE.items()):
            if value is accountant and not key.startswith("_"):
                return key
        return self.names.get(id(accountant))

    def entry(self, accountant) -> dict:
        eps_spent, delta_spent = accountant.total_spent
        eps_total, delta_total = accountant.total
        show = self.show
        return {
            "name": self._name(accountant),
            "epsilon_spent": eps_spent,
            "epsilon_total": eps_total,
            "delta_spent": delta_spent,
            "delta_total": delta_total,
            "releases": len(accountant.history),
            "epsilon_text": f"{show(eps_spent)} de {show(eps_total)}",
            "delta_text": (
                f"{show(delta_spent)} de {show(delta_total)}" if delta_total > 0 or delta_spent > 0 else None
            ),
            "refused": self.refused.get(id(accountant)),
        }

    def flush(self) -> None:
        """Send the current state if it changed since the last one sent."""
        if not self.dirty:
            return
        self.dirty = False
        self.last = time.monotonic()
        self.emit(
            "budget", {"accountants": [self.entry(a) for a in self.accountants], "more": len(self.others)}
        )


def _local_name(obj):
    """The name that the cell's code, in the frames running now, binds to ``obj``, or ``None``
    (e.g. ``prueba`` inside a function of the cell)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename.startswith("<celda "):
            for key, value in list(frame.f_locals.items()):
                if value is obj and not key.startswith("_"):
                    return key
        frame = frame.f_back
    return None


def _watch_budgets(emit):
    """A :class:`_BudgetMeter` registered with dplab's accountant for one run, or ``None``
    (no dplab, or a dplab without observers)."""
    try:
        from dplab import accountant

        meter = _BudgetMeter(emit, accountant.show_budget)
        accountant.add_observer(meter)
    except (ImportError, AttributeError):
        return None
    return meter


def _unwatch_budgets(meter) -> None:
    if meter is not None:
        from dplab import accountant

        accountant.remove_observer(meter)


def _display_value(value):
    """What the last expression shows: figures as figures, everything else as its repr."""
    if value is None:
        return None
    module = type(value).__module__ or ""
    if module.startswith("matplotlib"):
        return None  # a Figure, Axes or artist: the figure itself is shown
    text = repr(value)
    if len(text) > MAX_REPR_CHARS:
        text = text[:MAX_REPR_CHARS] + f"\n… (recortado: {len(text):,} caracteres en total)"
    return text


def _noise_session(seed):
    """dplab's noise session for this run: every fresh draw (``rng=None``) comes from one
    generator seeded with ``seed`` (a 128-bit OS-random seed unless the presenter locked one),
    so a locked seed redraws the same figure. Outside the deck, dplab stays fresh per call."""
    try:
        from dplab import _rng

        return _rng.noise_session(seed)
    except (ImportError, AttributeError):
        return None


def _exhausted_memory(exc: BaseException | None) -> bool:
    """Whether ``exc``, or an exception it was raised from or during, is a MemoryError."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, MemoryError):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def _release_memory(before: dict) -> dict:
    """After a run that exhausted memory: undo what it bound in :data:`NAMESPACE` (names it
    added are deleted, names it rebound get their value from before the run), collect, and
    check that :data:`MEMORY_PROBE_BYTES` can be allocated again.

    Returns ``{"released": [names, sorted], "left": bool}``; ``left`` False means the heap is
    still full (e.g. the cell grew an object that existed before it): the worker restarts Python.
    """
    released = []
    for name in list(NAMESPACE):
        if name.startswith("__") and name.endswith("__"):  # the interpreter's (__builtins__ …)
            continue
        if name not in before:
            del NAMESPACE[name]
            released.append(name)
        elif NAMESPACE[name] is not before[name]:
            NAMESPACE[name] = before[name]
            released.append(name)
    before.clear()
    gc.collect()
    try:
        probe = bytearray(MEMORY_PROBE_BYTES)
    except MemoryError:
        left = False
    else:
        del probe
        left = True
    return {"released": sorted(released), "left": left}


def install_sleep(wait) -> None:
    """Make ``time.sleep`` in cells wait on the page's interrupt buffer, so that Stop ends a
    sleeping cell at once, and a sleep uses no CPU.

    ``wait(ms)`` (worker.js, ``Atomics.wait`` on the shared buffer) blocks the thread for at most
    ``ms`` milliseconds, or until the page writes the buffer and notifies, and returns True when
    that was Stop (the worker consumed it): the sleep then raises ``KeyboardInterrupt``. Only where
    the buffer is shared; elsewhere Pyodide's own ``time.sleep`` stays (and Stop restarts Python).
    """

    def sleep(secs) -> None:
        """Sleep ``secs`` seconds (as :func:`time.sleep`), or until Stop: ``KeyboardInterrupt``."""
        if not isinstance(secs, numbers.Real) or isinstance(secs, bool):
            raise TypeError(f"'{type(secs).__name__}' object cannot be interpreted as an integer")
        secs = float(secs)
        if math.isnan(secs):
            raise ValueError("Invalid value NaN (not a number)")
        if secs < 0:
            raise ValueError("sleep length must be non-negative")
        deadline = time.monotonic() + secs
        while (left := deadline - time.monotonic()) > 0:
            if wait(min(left, SLEEP_SLICE_SECONDS) * 1000):
                raise KeyboardInterrupt

    time.sleep = sleep


def run_cell(code: str, cell_id: str, emit, seed=None) -> dict:
    """Run ``code`` in the shared namespace; report output through ``emit``; never raise.

    ``seed``: ``None`` for fresh noise, or a seed (int or decimal string) to redraw the noise of
    an earlier run. The result says whether the cell drew noise and with which seed.
    """
    if seed is None:
        seed = secrets.randbits(128)
    seed = int(seed)
    session = _noise_session(seed)
    filename = _cell_filename(cell_id)
    if cell_id != PAGE_SNIPPET:  # the page's own snippet may hold a true answer: keep no copy
        _register_source(filename, code)
    budget = [MAX_OUTPUT_CHARS]
    out, err = _Stream("stdout", emit, budget), _Stream("stderr", emit, budget)
    figures = _FigureBudget()
    _current_run.append((emit, (out, err), figures))
    result: dict
    started = time.perf_counter()
    meter = _watch_budgets(emit)
    before = dict(NAMESPACE)  # what the run found bound: undone if it exhausts memory
    try:
        with redirect_stdout(out), redirect_stderr(err), session or nullcontext() as noise:
            try:
                body, tail = _compile(code, filename)
                exec(body, NAMESPACE)
                value = eval(tail, NAMESPACE) if tail is not None else None
                result = {"ok": True, "value": _display_value(value)}
            except BaseException as exc:  # noqa: BLE001 - the user's error is our output
                result = {
                    "ok": False,
                    "error": format_error(exc, filename),
                    "exhausted": _exhausted_memory(exc),
                }
            finally:
                out.flush()
                err.flush()
        if result.pop("exhausted", False):  # out of the except: its frames, and what they held, are let go
            result["memory"] = _release_memory(before)
        if meter is not None:
            _unwatch_budgets(meter)
            try:
                meter.flush()  # the last state, whatever the throttle held back
            except Exception:  # noqa: BLE001 - a meter must never break a cell
                pass
        if out.truncated or err.truncated:
            emit(
                "stderr",
                f"\n… salida recortada: se muestran los primeros {MAX_OUTPUT_CHARS:,} caracteres.\n".replace(
                    ",", "."
                ),
            )
        try:
            _emit_figures(emit, figures)
        except Exception as exc:  # noqa: BLE001 - a broken figure is the cell's error
            if result.get("ok"):
                result = {"ok": False, "error": format_error(exc, filename)}
        if figures.dropped:
            emit(
                "stderr",
                f"\n… figuras recortadas: se muestran las primeras {MAX_FIGURES} de "
                f"{MAX_FIGURES + figures.dropped}.\n",
            )
    finally:
        before.clear()
        _unwatch_budgets(meter)
        _current_run.pop()
    result["seconds"] = round(time.perf_counter() - started, 4)
    result["noise"] = bool(noise is not None and noise.draws > 0)
    result["seedUsed"] = str(seed)
    return result
