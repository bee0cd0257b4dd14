"""Run one deck cell in the shared interpreter and report what it shows.

Loaded by the worker (static/js/worker.js) into Pyodide; also importable under CPython, where
the tests run the whole deck's cells through it. ``emit(kind, payload)`` is the only way out:

- ``emit("stdout", text)`` / ``emit("stderr", text)``: printed text, in chunks, capped per run;
- ``emit("figure", {"svg": text, "alt": text})``: each matplotlib figure the cell left open;
- the return value of :func:`run_cell`: ``{"ok": True, "value": repr-or-None}`` or
  ``{"ok": False, "error": {"type", "message", "traceback"}}``.
"""
from __future__ import annotations

import ast
import io
import linecache
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

NAMESPACE: dict = {"__name__": "__main__"}


class _Stream(io.TextIOBase):
    """A text stream that forwards to ``emit`` in batches and stops at the cap."""

    def __init__(self, kind: str, emit, budget: list[int]):
        self.kind = kind
        self.emit = emit
        self.budget = budget          # shared by stdout and stderr: chars left
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


def format_error(exc: BaseException, filename: str) -> dict:
    """The error as the user should read it: frames from the cell on, runner frames dropped."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != filename:
        tb = tb.tb_next
    if isinstance(exc, SyntaxError) or tb is None:
        tb = None
    te = traceback.TracebackException(type(exc), exc, tb, compact=True)
    text = "".join(te.format())
    if len(text) > MAX_TRACEBACK_CHARS:   # a runaway recursion: keep the start and the end
        half = MAX_TRACEBACK_CHARS // 2
        text = f"{text[:half]}\n… (traceback recortado) …\n{text[-half:]}"
    if isinstance(exc, KeyboardInterrupt):
        message = "ejecución interrumpida"
    else:
        message = str(exc)
    error = {"type": type(exc).__name__, "message": message, "traceback": text}
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        error["missing"] = exc.name.split(".")[0]   # the worker may load it and run again
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


def _emit_figures(emit) -> None:
    """Send every open matplotlib figure as SVG, then close them all."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return
    for num in pyplot.get_fignums():
        fig = pyplot.figure(num)
        buf = io.StringIO()
        fig.savefig(buf, format="svg", bbox_inches="tight")
        emit("figure", {"svg": buf.getvalue(), "alt": _figure_alt(fig)})
    pyplot.close("all")


# pyplot's import, cut into steps the worker takes one at a time, so that a cell the presenter
# runs meanwhile waits for one step (the longest is ~0.3 s in Pyodide), never for all (~1.5 s).
MATPLOTLIB_STEPS = (
    "pyparsing", "PIL.Image", "matplotlib", "matplotlib.colors", "matplotlib.font_manager",
    "matplotlib.ticker", "matplotlib.transforms", "matplotlib.path", "matplotlib.artist",
    "matplotlib.lines", "matplotlib.patches", "matplotlib.text", "matplotlib.collections",
    "matplotlib.image", "matplotlib.axis", "matplotlib.axes", "matplotlib.figure",
    "matplotlib.backends.backend_agg", "matplotlib.pyplot",
)


def import_step(name: str) -> None:
    """One step of :data:`MATPLOTLIB_STEPS` (with the Agg backend, never a GUI one)."""
    import importlib
    import os
    os.environ.setdefault("MPLBACKEND", "agg")
    importlib.import_module(name)


def prepare_matplotlib() -> None:
    """Import pyplot with the Agg backend; ``plt.show()`` shows the figures under the cell."""
    import os
    os.environ.setdefault("MPLBACKEND", "agg")
    import matplotlib
    matplotlib.use("agg")
    import matplotlib.pyplot as plt
    try:
        from dplab import plots
        plots.apply_style()
    except ImportError:
        pass

    def show(*args, **kwargs):
        if _current_run:
            emit, streams = _current_run[-1]
            for stream in streams:   # what was printed before the figure comes before it
                stream.flush()
            _emit_figures(emit)

    plt.show = show


_current_run: list = []   # (emit, streams) of the cell being run, for plt.show()


def _display_value(value):
    """What the last expression shows: figures as figures, everything else as its repr."""
    if value is None:
        return None
    module = type(value).__module__ or ""
    if module.startswith("matplotlib"):
        return None   # a Figure, Axes or artist: the figure itself is shown
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
    _register_source(filename, code)
    budget = [MAX_OUTPUT_CHARS]
    out, err = _Stream("stdout", emit, budget), _Stream("stderr", emit, budget)
    _current_run.append((emit, (out, err)))
    result: dict
    started = time.perf_counter()
    try:
        with redirect_stdout(out), redirect_stderr(err), (session or nullcontext()) as noise:
            try:
                body, tail = _compile(code, filename)
                exec(body, NAMESPACE)
                value = eval(tail, NAMESPACE) if tail is not None else None
                result = {"ok": True, "value": _display_value(value)}
            except BaseException as exc:  # noqa: BLE001 - the user's error is our output
                result = {"ok": False, "error": format_error(exc, filename)}
            finally:
                out.flush()
                err.flush()
        if out.truncated or err.truncated:
            emit("stderr", f"\n… salida recortada: se muestran los primeros "
                           f"{MAX_OUTPUT_CHARS:,} caracteres.\n".replace(",", "."))
        try:
            _emit_figures(emit)
        except Exception as exc:  # noqa: BLE001 - a broken figure is the cell's error
            if result.get("ok"):
                result = {"ok": False, "error": format_error(exc, filename)}
    finally:
        _current_run.pop()
    result["seconds"] = round(time.perf_counter() - started, 4)
    result["noise"] = bool(noise is not None and noise.draws > 0)
    result["seedUsed"] = str(seed)
    return result
