"""The figure style, and matplotlib imported only by dplab.plots."""

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import dplab  # noqa: E402


def test_import_dplab_does_not_import_matplotlib():
    code = "import sys, dplab; dplab.load_census(); assert 'matplotlib' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True, env=_env())


def _env():
    import os

    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def test_figure_house_style():
    from dplab import plots

    fig, ax = plots.figure("ε", "precisión", title="t")
    rc = matplotlib.rcParams
    assert rc["xtick.labelsize"] >= 16 and rc["axes.labelsize"] >= 18
    assert not rc["axes.spines.top"] and not rc["axes.spines.right"]
    assert ax.get_xlabel() == "ε" and ax.get_title() == "t"
    assert tuple(fig.get_size_inches()) == (10, 5.2)
    assert plots.COLORS["blue"] == "#0072B2" and len(plots.OKABE_ITO) == 8
    ax.plot([0, 0.5, 1], [0, 1, 2])
    plots.decimal_comma(ax, 1)
    fig.canvas.draw()
    assert any("," in t.get_text() for t in ax.get_xticklabels())
    import matplotlib.pyplot as plt

    plt.close(fig)


def test_plots_reachable_as_attribute():
    assert dplab.plots.figure is not None


def test_figure_ticks_are_spanish():
    import matplotlib.pyplot as plt
    from dplab import plots

    fig, ax = plots.figure("x", "y")
    ax.plot([0, 0.5, 1], [0, 2500, 5000])
    fig.canvas.draw()
    xs = [t.get_text() for t in ax.get_xticklabels()]
    ys = [t.get_text() for t in ax.get_yticklabels()]
    assert "0,4" in xs and not any("." in t for t in xs), xs
    assert "5.000" in ys and not any("," in t for t in ys), ys
    plt.close(fig)


def test_fmt_and_pct():
    import numpy as np

    assert dplab.fmt(5164200) == "5.164.200" and dplab.fmt(np.int64(5000)) == "5.000"
    assert dplab.fmt(0.5) == "0,5" and dplab.fmt(-1234.5, 2) == "-1.234,50"
    assert dplab.fmt(np.array([0.25, 1.5]), 2) == "[0,25  1,50]"
    assert dplab.pct(0.237, 1) == "23,7 %"


def test_poll_figure_shows_reports_and_clipped_estimates():
    import matplotlib.pyplot as plt
    import numpy as np
    from dplab import plots

    result = dplab.grr_estimate([2, 20, 40], 1.0)  # the last estimate is above 1
    assert result.estimate[2] > 1
    fig, ax = plots.poll_figure(result, ["a", "b", "c"])
    bars = [p.get_width() for p in ax.patches]
    assert np.allclose(sorted(bars), sorted([*result.share, *np.clip(result.estimate, 0, 1)]))
    texts = [t.get_text() for t in ax.texts]
    assert "100 %\n(recortada)" in texts and any(t.startswith("0 %") for t in texts)
    fig.canvas.draw()
    assert [t.get_text() for t in ax.get_xticklabels()][-1] == "100 %"
    plt.close(fig)
