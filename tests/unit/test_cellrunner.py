"""The cell runner under CPython: output, last value, tracebacks, caps, figures, noise."""

from __future__ import annotations

import base64
import struct

import pytest
from cellrunner import display, output
from cellrunner.figures import MAX_FIGURES, MAX_SVG_CHARS, MAX_SVG_FIGURES, PNG_MAX_PIXELS, PNG_MAX_SIDE


def run(runner, code, seed=None):
    events = []
    result = runner.run(code, "prueba", lambda kind, payload: events.append((kind, payload)), seed)
    text = "".join(p for k, p in events if k == "stdout")
    return result, text, events


def test_stdout_value_and_shared_namespace(runner):
    result, text, _ = run(runner, "x = 20\nprint('x vale', x)\nx * 2")
    assert result["ok"] and text == "x vale 20\n" and result["value"] == "40"
    result, _, _ = run(runner, "x + 1")
    assert result["value"] == "21"


def test_traceback_points_at_the_users_line(runner):
    result, _, _ = run(runner, "a = 1\n\ndef f():\n    return 1 / 0\nf()")
    tb = result["error"]["traceback"]
    assert result["error"]["type"] == "ZeroDivisionError"
    assert 'File "<celda prueba>", line 5' in tb and "return 1 / 0" in tb
    assert "cellrunner" not in tb and "exec(" not in tb


def test_syntax_error_is_reported_not_raised(runner):
    result, _, _ = run(runner, "print('a'")
    assert not result["ok"] and result["error"]["type"] == "SyntaxError"


def test_error_deep_in_dplab_still_shows_the_users_line(runner):
    result, _, _ = run(runner, "import dplab\ndplab.laplace_mech(1, 1, -1)")
    assert result["error"]["type"] == "ValueError"
    tb = result["error"]["traceback"]
    assert 'File "<celda prueba>", line 2' in tb and "epsilon" in result["error"]["message"]


def test_output_is_capped(runner):
    result, text, events = run(runner, "for i in range(10**6):\n    print(i)")
    assert result["ok"]
    assert len(text) == output.MAX_OUTPUT_CHARS
    assert any(k == "stderr" and "recortada" in p for k, p in events)


def test_long_repr_is_capped(runner):
    result, _, _ = run(runner, "'x' * 10**6")
    assert len(result["value"]) < display.MAX_REPR_CHARS + 200 and "recortado" in result["value"]


def test_figures_come_out_as_svg_with_alt_text(runner):
    runner.prepare_matplotlib()
    code = (
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2], label='real')\n"
        "ax.legend()\n"
        "ax.set_xlabel('ε'); ax.set_ylabel('error')\nprint('antes')\nplt.show()\nprint('después')"
    )
    result, _, events = run(runner, code)
    kinds = [k for i, (k, _) in enumerate(events) if i == 0 or events[i - 1][0] != k]
    assert result["ok"] and kinds == ["stdout", "figure", "stdout"], kinds  # in print order
    figure = next(p for k, p in events if k == "figure")
    assert "series: real" in figure["alt"]
    assert figure["svg"].lstrip().startswith("<?xml") and "<svg" in figure["svg"]
    assert "png" not in figure and "note" not in figure  # a small figure stays SVG
    assert figure["alt"].startswith("Figura: eje x: ε (de ") and ", eje y: error (de " in figure["alt"]
    # nothing stays open for the next cell
    result, _, events = run(runner, "1")
    assert not [k for k, _ in events if k == "figure"]


def _png_size(b64: str) -> tuple[int, int]:
    data = base64.b64decode(b64, validate=True)
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])  # IHDR: width, height


def _figures(events):
    return [p for k, p in events if k == "figure"]


def test_a_huge_scatter_comes_out_as_png_with_a_note(runner):
    """200 000 points are 21 MB of SVG (seconds of a frozen page): the SVG stops at the cap and
    the figure comes as a PNG (base64), with its alt text and a Spanish note under it."""
    runner.prepare_matplotlib()
    code = (
        "import matplotlib.pyplot as plt\nrng = np.random.default_rng(0)\n"
        "plt.scatter(rng.random(200_000), rng.random(200_000))\n"
        "plt.xlabel('x'); plt.ylabel('y')\nplt.show()"
    )
    run(runner, "import numpy as np")
    result, _, events = run(runner, code)
    assert result["ok"], result
    [figure] = _figures(events)
    assert "svg" not in figure
    width, height = _png_size(figure["png"])
    assert 0 < width <= PNG_MAX_SIDE and 0 < height <= PNG_MAX_SIDE
    assert width * height <= PNG_MAX_PIXELS
    assert figure["alt"].startswith("Figura: eje x: x (de ")
    assert figure["note"] == "(figura de más de 0,2 MB en SVG: se muestra como PNG)"
    assert result["seconds"] < 20  # the SVG was cut short, not written in full


def test_a_huge_figure_size_gives_a_capped_png(runner):
    runner.prepare_matplotlib()
    code = (
        "import matplotlib.pyplot as plt\nfig = plt.figure(figsize=(80, 60))\n"
        "plt.scatter(range(5000), range(5000))"
    )
    result, _, events = run(runner, code)
    [figure] = _figures(events)
    width, height = _png_size(figure["png"])
    assert width <= PNG_MAX_SIDE and width * height <= PNG_MAX_PIXELS
    assert width > 1000  # still a useful picture


def test_the_svg_budget_is_per_run(runner):
    """Small figures add up (each costs the page ~15 ms): past MAX_SVG_FIGURES or MAX_SVG_CHARS
    in one run they come as PNG, each with its note; the next run starts afresh."""
    runner.prepare_matplotlib()
    n = MAX_SVG_FIGURES + 2
    result, _, events = run(
        runner,
        f"import matplotlib.pyplot as plt\nfor i in range({n}):\n"
        "    plt.figure(); plt.plot([0, i]); plt.show()",
    )
    figures = _figures(events)
    assert result["ok"] and len(figures) == n
    assert all("svg" in f and "note" not in f for f in figures[:-2])
    assert all("png" in f and "figuras en SVG" in f["note"] for f in figures[-2:])
    assert figures[-1]["note"].startswith(f"(más de {MAX_SVG_FIGURES} figuras")
    # a mid-sized figure after another: together they pass the budget
    code = (
        "import matplotlib.pyplot as plt\nrng = np.random.default_rng(0)\n"
        "for _ in range(2):\n    plt.figure(); plt.scatter(rng.random(1300), rng.random(1300))\n"
        "    plt.show()"
    )
    run(runner, "import numpy as np")
    _, _, events = run(runner, code)
    first, second = _figures(events)
    assert 0.3 * MAX_SVG_CHARS < len(first["svg"]) < MAX_SVG_CHARS
    assert "png" in second and second["note"] == (
        "(las figuras de esta celda pasan de 0,2 MB en SVG: esta se muestra como PNG)"
    )
    _, _, events = run(runner, "import matplotlib.pyplot as plt\nplt.plot([1, 2])")
    assert "svg" in _figures(events)[0]


@pytest.mark.filterwarnings("ignore:More than 20 figures")  # matplotlib's, about the cell's code
@pytest.mark.parametrize("show", [False, True], ids=["left-open", "plt.show-in-a-loop"])
def test_figures_per_run_are_capped(runner, show):
    runner.prepare_matplotlib()
    n = MAX_FIGURES + 15
    code = (
        f"import matplotlib.pyplot as plt\nfor i in range({n}):\n"
        f"    plt.figure(); plt.plot([0, i]){'; plt.show()' if show else ''}\nprint('fin')"
    )
    result, text, events = run(runner, code)
    assert result["ok"] and text == "fin\n"
    assert len(_figures(events)) == MAX_FIGURES
    note = "".join(p for k, p in events if k == "stderr")
    assert f"se muestran las primeras {MAX_FIGURES} de {n}" in note
    import matplotlib.pyplot as plt

    assert plt.get_fignums() == []  # the rest were closed, not left for the next cell
    result, _, events = run(runner, "import matplotlib.pyplot as plt\nplt.plot([1, 2])")
    assert len(_figures(events)) == 1 and not [k for k, _ in events if k == "stderr"]


def test_noise_session_reports_and_reproduces(runner):
    code = "laplace_mech(0.0, 1, 1.0)"
    run(runner, "from dplab import laplace_mech")
    first, _, _ = run(runner, code)
    assert first["noise"] is True
    again, _, _ = run(runner, code, seed=first["seedUsed"])
    assert again["value"] == first["value"]  # locked seed: same figure
    fresh, _, _ = run(runner, code)
    assert fresh["value"] != first["value"] and fresh["seedUsed"] != first["seedUsed"]
    quiet, _, _ = run(runner, "1 + 1")
    assert quiet["noise"] is False


def test_draws_within_a_session_are_independent(runner):
    run(runner, "from dplab import laplace_mech")
    result, _, _ = run(
        runner, "a = laplace_mech(0.0, 1, 1.0)\nb = laplace_mech(0.0, 1, 1.0)\na != b", seed=12345
    )
    assert result["value"] == "True"


def test_outside_the_deck_noise_stays_fresh():
    from dplab import laplace_mech
    from dplab._rng import _session

    assert _session is None
    assert laplace_mech(0.0, 1, 1.0) != laplace_mech(0.0, 1, 1.0)


# --- the session and its watchers -------------------------------------------------------------


def test_sessions_share_nothing():
    from cellrunner import Session

    a, b = Session(), Session()
    assert a.run("x = 1", "a", lambda kind, payload: None)["ok"]
    result = b.run("x", "b", lambda kind, payload: None)
    assert result["error"]["type"] == "NameError" and "x" not in b.namespace


def test_a_verdict_is_a_message_never_a_value(runner):
    result, _, events = run(runner, "from cellrunner import Verdict\nVerdict(False, 'Todavía no.')")
    assert result["ok"] and result["value"] is None
    assert [p for k, p in events if k == "verdict"] == [{"ok": False, "message": "Todavía no."}]
    result, _, events = run(runner, "raise ValueError('mal')\nVerdict(True, '')")
    assert not result["ok"] and not [k for k, _ in events if k == "verdict"]


def test_a_watcher_that_breaks_is_the_cells_error_and_the_others_still_finish():
    import sys

    from cellrunner import WATCHERS, Session, Watcher

    class Broken(Watcher):
        def finish(self, run):
            raise RuntimeError("roto al terminar")

    session = Session(watchers=(*WATCHERS, Broken))
    stdout = sys.stdout
    events = []
    result = session.run("print('hola')\n1", "p", lambda kind, payload: events.append((kind, payload)))
    assert not result["ok"] and result["error"]["message"] == "roto al terminar"
    assert sys.stdout is stdout  # the output watcher finished
    assert "".join(p for k, p in events if k == "stdout") == "hola\n"


def test_a_seed_that_is_no_number_fails_the_run_without_raising(runner):
    import sys

    stdout = sys.stdout
    result, _, _ = run(runner, "1", seed="no es un número")
    assert not result["ok"] and result["error"]["type"] == "ValueError"
    assert sys.stdout is stdout


def test_a_math_label_is_parsed_once_per_session_and_drawn_the_same(runner):
    """Every renderer shares one mathtext parser (cellrunner.pyplot.share_mathtext_parser): the
    second figure with the same log ticks and math labels parses nothing again, and its SVG is
    the first one's, but for the ids matplotlib draws at random."""
    import re

    from matplotlib import mathtext

    runner.prepare_matplotlib()
    code = (
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots(layout='constrained')\n"
        "ax.plot([0.01, 1, 100], [1, 2, 3], label='$\\\\sigma^2$'); ax.set_xscale('log')\n"
        "ax.set_xlabel('$\\\\varepsilon$'); ax.legend()\nplt.show()"
    )
    _, _, first = run(runner, code)
    misses = mathtext.MathTextParser._parse_cached.cache_info().misses
    _, _, second = run(runner, code)
    assert mathtext.MathTextParser._parse_cached.cache_info().misses == misses

    def svg(events):
        [figure] = _figures(events)
        return re.sub(r"<dc:date>.*?</dc:date>|\b[pm][0-9a-f]{10}\b", "", figure["svg"])

    assert svg(first) == svg(second) and "<path" in svg(first)


def test_a_figure_with_a_layout_is_saved_uncropped_and_one_without_keeps_the_tight_crop(runner, monkeypatch):
    """A figure whose layout engine fits it (every figure the deck draws: dplab.plots) is saved
    as it is, at its own size, without measuring every artist again for a crop; a bare figure
    keeps the "tight" crop, so a label past its edge still shows."""
    import re

    from matplotlib.figure import Figure

    runner.prepare_matplotlib()
    crops = []
    measure = Figure.get_tightbbox
    monkeypatch.setattr(
        Figure, "get_tightbbox", lambda self, *a, **k: (crops.append(self), measure(self, *a, **k))[1]
    )

    def size(code: str) -> tuple[float, float]:
        crops.clear()
        result, _, events = run(runner, "import matplotlib.pyplot as plt\n" + code + "\nplt.show()")
        assert result["ok"], result
        [figure] = _figures(events)
        width, height = re.search(r'width="([\d.]+)pt" height="([\d.]+)pt"', figure["svg"]).groups()
        return float(width), float(height)

    fitted = size("fig, ax = plt.subplots(figsize=(4, 3), layout='constrained')\nax.plot([1, 2])")
    assert fitted == (288, 216) and not crops  # 4 × 3 in at 72 pt per inch
    bare = size("fig, ax = plt.subplots(figsize=(4, 3))\nax.plot([1, 2])\nax.text(1.3, 0.5, 'fuera del eje')")
    assert bare[0] > 288 and crops  # the crop reaches the text beyond the figure's edge


_KINDS_OF_FIGURE = {
    "a legend placed where it fits, on a log axis with math": (
        "fig, ax = plt.subplots(layout='constrained')\n"
        "ax.plot([0.01, 1, 100], [1, 3, 2], label='$\\\\sigma^2$'); ax.set_xscale('log')\n"
        "ax.set_xlabel('$\\\\varepsilon$'); ax.legend(loc='best')"
    ),
    "an image with a colour bar": (
        "fig, ax = plt.subplots(layout='constrained')\n"
        "im = ax.imshow(np.arange(12.0).reshape(3, 4)); fig.colorbar(im, label='cuenta')"
    ),
    "four panels, a title over them, a twin axis": (
        "fig, axs = plt.subplots(2, 2, figsize=(8, 5), layout='constrained')\n"
        "fig.suptitle('Cuatro paneles')\n"
        "for i, ax in enumerate(axs.flat): ax.bar(['a', 'b'], [i, i + 1]); ax.set_title(f'panel {i}')\n"
        "axs[0, 0].twinx().plot([0, 1], [10, 20], color='C1')"
    ),
    "a tight layout, text and an animated line": (
        "fig, ax = plt.subplots(layout='tight')\n"
        "ax.hist(np.linspace(-2, 2, 50), bins=7); ax.text(0, 1, 'nota', animated=True)\n"
        "ax.plot([0, 1], [0, 5], animated=True)"
    ),
    "log-log over seven decades, no layout engine (cropped), a log colour bar": (
        "fig, ax = plt.subplots()\n"
        "ax.loglog([3e-3, 2e4], [5e1, 7e-2], 'o-'); ax.set_xlim(2e-3, 4e4)\n"
        "sc = ax.scatter([1, 10], [1, 2], c=[1, 1000], norm='log'); fig.colorbar(sc)"
    ),
}


@pytest.mark.parametrize("kind", sorted(_KINDS_OF_FIGURE))
def test_the_runners_svg_is_the_one_savefig_writes(kind, monkeypatch):
    """The runner's save (cellrunner.figures._savefig: a figure that has a layout engine drawn
    once, ``savefig`` draws it twice; a log axis making only the minor ticks in its view) writes
    the bytes ``fig.savefig`` writes (without a crop where a layout engine fits the figure), for
    each kind of figure a cell may make; and the figure keeps its canvas and its dpi."""
    import io
    import pickle

    import matplotlib as mpl
    import matplotlib.pyplot as plt
    import numpy as np
    from cellrunner.figures import _savefig

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")  # the file's date, and the ids, fixed
    monkeypatch.setitem(mpl.rcParams, "svg.hashsalt", "prueba")
    exec(_KINDS_OF_FIGURE[kind], {"plt": plt, "np": np})
    made = pickle.dumps(plt.gcf())
    plt.close("all")
    # matplotlib's own SVG of two copies of one figure differs about once in 100 saves here (a
    # clip path's id, or two clips merged into one), savefig against savefig too; so up to three
    # fresh pairs of copies, of which one must match. A difference of the runner's fails all three.
    for _ in range(3):
        saved, ours = pickle.loads(made), pickle.loads(made)  # two copies, each saved once
        expected, got = io.StringIO(), io.StringIO()
        with mpl.rc_context({"savefig.bbox": "standard" if saved.get_layout_engine() else "tight"}):
            saved.savefig(expected, format="svg")
        canvas, dpi = ours.canvas, ours.dpi
        _savefig(ours, got, format="svg")
        assert ours.canvas is canvas and ours.dpi == dpi
        if got.getvalue() == expected.getvalue():
            break
    assert got.getvalue() == expected.getvalue() and "<path" in got.getvalue()
    plt.close("all")


def test_a_savefig_setting_that_changes_the_file_is_kept(monkeypatch):
    """Where a cell set a ``savefig.*`` colour, the figure is saved by ``savefig`` itself, so
    the setting reaches the file (the one-draw way would not apply it)."""
    import io

    import matplotlib as mpl
    import matplotlib.pyplot as plt
    from cellrunner.figures import _savefig

    monkeypatch.setitem(mpl.rcParams, "savefig.facecolor", "#123456")
    fig, ax = plt.subplots(layout="constrained")
    ax.plot([1, 2])
    out = io.StringIO()
    _savefig(fig, out, format="svg")
    plt.close(fig)
    assert "#123456" in out.getvalue()


def test_a_log_axis_makes_only_the_minor_ticks_it_draws_and_keeps_its_locator():
    """While a figure is saved, a log axis asks only for the minor ticks in its view
    (cellrunner.ticks): fewer ticks are made than ``savefig`` makes, and afterwards the axis has
    its own locator again."""
    import io
    import pickle

    import matplotlib.pyplot as plt
    from cellrunner.figures import _savefig

    fig, ax = plt.subplots(layout="constrained")
    ax.loglog([60, 2e7], [80, 2.5e7])
    made = pickle.dumps(fig)
    plt.close("all")
    saved, ours = pickle.loads(made), pickle.loads(made)
    locator = ours.axes[0].xaxis.get_minor_locator()
    saved.savefig(io.StringIO(), format="svg")
    _savefig(ours, io.StringIO(), format="svg")
    made_by = {
        name: len(copy.axes[0].xaxis.minorTicks) for name, copy in (("savefig", saved), ("runner", ours))
    }
    assert made_by["runner"] < made_by["savefig"], made_by
    assert ours.axes[0].xaxis.get_minor_locator() is locator
    plt.close("all")
