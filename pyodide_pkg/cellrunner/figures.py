"""A run's matplotlib figures: ``emit("figure", {"svg": text, "alt": text})`` for each figure
the cell shows (``plt.show()``) or leaves open, or ``{"png": base64 text, "alt": text, "note":
text}`` once the run's SVG would cost the page too much to draw (the note says so in Spanish);
at most :data:`MAX_FIGURES` a run, the rest closed unseen with a note on stderr. Every figure
is closed once sent: nothing is left for the next cell.
"""

from __future__ import annotations

import base64
import io
import sys

from .run import Run, Watcher

# Figure caps: no output may freeze the page. Chromium parses and lays out an <img> of SVG on the
# page's main thread (a PNG decodes off it), so a run's SVG figures together stay under
# MAX_SVG_CHARS and MAX_SVG_FIGURES and the figures past them are drawn by Agg as PNG. The
# measurements behind the numbers: bench/README.md, "Figure caps".
MAX_SVG_CHARS = 200_000  # per run, all its SVG figures together (matplotlib's SVG is ASCII)
MAX_SVG_FIGURES = 10  # per run
MAX_FIGURES = 20  # per run; the figures after them are closed unseen, with a note
PNG_DPI = 150  # sharp on a projector; lowered for a big figure:
PNG_MAX_SIDE = 2000  # pixels
PNG_MAX_PIXELS = 2_000_000


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


def _mb(chars: int) -> str:
    return f"{chars / 1e6:.1f}".replace(".", ",") + " MB"  # the lecture's decimal comma


def _savefig(fig, out, **kwargs) -> None:
    """``fig.savefig`` with the bounding box the figure needs. A figure whose layout engine
    (constrained or tight) places every artist inside it is saved as it is: the "tight" crop
    of the house style (``savefig.bbox``) would measure every artist's extent once more
    (``Figure.get_tightbbox``) and move the figure into the cropped box, about 12 % of the
    deck's saves under CPython (``bench/diagnose/savefig.py``). A figure without one (a
    student's bare ``plt.plot``) keeps the crop, so a label past its edge is not cut off.
    Such a figure saved as SVG is drawn once (:func:`_svg_in_one_draw`). Either way a log
    axis makes only the minor ticks it can draw (:mod:`cellrunner.ticks`)."""
    import matplotlib as mpl

    from .ticks import minor_ticks_in_view

    fitted = fig.get_layout_engine() is not None
    with minor_ticks_in_view(fig):
        if fitted and kwargs == {"format": "svg"} and _savefig_adds_nothing(fig):
            _svg_in_one_draw(fig, out)
            return
        with mpl.rc_context({"savefig.bbox": "standard" if fitted else "tight"}):
            fig.savefig(out, **kwargs)


def _savefig_adds_nothing(fig) -> bool:
    """Whether ``fig.savefig`` as SVG would draw ``fig`` as it is: the ``savefig.*`` settings
    that change a saved figure (its dpi, colours, transparency) are matplotlib's defaults."""
    import matplotlib as mpl

    rc = mpl.rcParams
    return (
        rc["savefig.dpi"] == "figure"
        and getattr(fig, "_original_dpi", fig.dpi) == fig.dpi
        and rc["savefig.facecolor"] == "auto"
        and rc["savefig.edgecolor"] == "auto"
        and not rc["savefig.transparent"]
    )


def _svg_in_one_draw(fig, out) -> None:
    """``fig`` (which has a layout engine) written to ``out`` as SVG by one draw, in which the
    layout engine runs: the same bytes as ``fig.savefig(out, format="svg")`` without a crop
    (checked on every figure of the deck and in ``tests/unit/test_cellrunner.py``), but
    ``savefig`` draws such a figure twice, once with drawing disabled so that its layout runs,
    then again to write it; the first draw was a quarter of the deck's saves under CPython
    (``bench/diagnose/savefig.py``). The figure keeps its canvas and its dpi."""
    from matplotlib.backends.backend_svg import FigureCanvasSVG

    canvas, dpi = fig.canvas, fig.dpi
    svg = FigureCanvasSVG(fig)  # the figure's canvas until the finally below
    svg._is_saving = True  # as savefig's: an animated artist is drawn into the file
    try:
        svg.print_svg(out)
    finally:
        fig.dpi = dpi  # print_svg leaves it at 72, as savefig undoes too
        fig.set_canvas(canvas)


def _png_base64(fig) -> str:
    """The figure drawn by Agg, at ``PNG_DPI`` unless that makes it too many pixels."""
    width, height = fig.get_size_inches()
    dpi = min(
        PNG_DPI, PNG_MAX_SIDE / max(width, height, 1e-3), (PNG_MAX_PIXELS / max(width * height, 1e-6)) ** 0.5
    )
    buf = io.BytesIO()
    _savefig(fig, buf, format="png", dpi=max(dpi, 1))
    return base64.b64encode(buf.getvalue()).decode("ascii")


class FigureWatcher(Watcher):
    """Sends the figures open at ``plt.show()`` and at the end of the run, within the caps."""

    def start(self, run: Run) -> None:
        self.shown = 0  # figures sent
        self.dropped = 0  # figures past MAX_FIGURES, closed unseen
        self.svg_chars = 0  # the SVG sent so far, which the page will have to draw
        self.svg_figures = 0

    def show(self, run: Run) -> None:
        """Send every open figure (up to the run's cap), then close them all."""
        pyplot = sys.modules.get("matplotlib.pyplot")
        if pyplot is None:
            return
        try:
            for num in pyplot.get_fignums():
                if self.shown >= MAX_FIGURES:
                    self.dropped += 1
                    continue
                run.emit("figure", self._render(pyplot.figure(num)))
                self.shown += 1
        finally:
            pyplot.close("all")

    def finish(self, run: Run) -> None:
        try:
            self.show(run)
        finally:
            if self.dropped:
                run.emit(
                    "stderr",
                    f"\n… figuras recortadas: se muestran las primeras {MAX_FIGURES} de "
                    f"{MAX_FIGURES + self.dropped}.\n",
                )

    def _render(self, fig) -> dict:
        """One figure as SVG while the run's SVG budget lasts, else as PNG with a note."""
        alt = _figure_alt(fig)
        room = MAX_SVG_CHARS - self.svg_chars
        if self.svg_figures < MAX_SVG_FIGURES and room > 0:
            buf = _CappedText(room)
            try:
                _savefig(fig, buf, format="svg")
            except _SvgTooBig:
                pass
            else:
                self.svg_chars += buf.tell()
                self.svg_figures += 1
                return {"svg": buf.getvalue(), "alt": alt}
        if self.svg_figures >= MAX_SVG_FIGURES:
            note = f"(más de {MAX_SVG_FIGURES} figuras en SVG en esta celda: esta se muestra como PNG)"
        elif self.svg_figures:
            note = (
                f"(las figuras de esta celda pasan de {_mb(MAX_SVG_CHARS)} en SVG: esta se muestra como PNG)"
            )
        else:
            note = f"(figura de más de {_mb(MAX_SVG_CHARS)} en SVG: se muestra como PNG)"
        return {"png": _png_base64(fig), "alt": alt, "note": note}
