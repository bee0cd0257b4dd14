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
