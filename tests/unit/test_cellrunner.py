"""The cell runner under CPython: output, last value, tracebacks, caps, figures, noise."""
from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def runner():
    spec = importlib.util.spec_from_file_location("cellrunner_test",
                                                  ROOT / "static" / "py" / "cellrunner.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.NAMESPACE.clear()
    module.NAMESPACE["__name__"] = "__main__"
    return module


def run(runner, code, seed=None):
    events = []
    result = runner.run_cell(code, "prueba", lambda kind, payload: events.append((kind, payload)),
                             seed)
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
    assert len(text) == runner.MAX_OUTPUT_CHARS
    assert any(k == "stderr" and "recortada" in p for k, p in events)


def test_long_repr_is_capped(runner):
    result, _, _ = run(runner, "'x' * 10**6")
    assert len(result["value"]) < runner.MAX_REPR_CHARS + 200 and "recortado" in result["value"]


def test_figures_come_out_as_svg_with_alt_text(runner):
    runner.prepare_matplotlib()
    code = ("import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2], label='real')\n"
            "ax.legend()\n"
            "ax.set_xlabel('ε'); ax.set_ylabel('error')\nprint('antes')\nplt.show()\nprint('después')")
    result, _, events = run(runner, code)
    kinds = [k for i, (k, _) in enumerate(events) if i == 0 or events[i - 1][0] != k]
    assert result["ok"] and kinds == ["stdout", "figure", "stdout"], kinds   # in print order
    figure = next(p for k, p in events if k == "figure")
    assert "series: real" in figure["alt"]
    assert figure["svg"].lstrip().startswith("<?xml") and "<svg" in figure["svg"]
    assert figure["alt"].startswith("Figura: eje x: ε (de ") and ", eje y: error (de " in figure["alt"]
    # nothing stays open for the next cell
    result, _, events = run(runner, "1")
    assert not [k for k, _ in events if k == "figure"]


def test_noise_session_reports_and_reproduces(runner):
    code = "laplace_mech(0.0, 1, 1.0)"
    run(runner, "from dplab import laplace_mech")
    first, _, _ = run(runner, code)
    assert first["noise"] is True
    again, _, _ = run(runner, code, seed=first["seedUsed"])
    assert again["value"] == first["value"]                    # locked seed: same figure
    fresh, _, _ = run(runner, code)
    assert fresh["value"] != first["value"] and fresh["seedUsed"] != first["seedUsed"]
    quiet, _, _ = run(runner, "1 + 1")
    assert quiet["noise"] is False


def test_draws_within_a_session_are_independent(runner):
    run(runner, "from dplab import laplace_mech")
    result, _, _ = run(runner, "a = laplace_mech(0.0, 1, 1.0)\nb = laplace_mech(0.0, 1, 1.0)\na != b",
                       seed=12345)
    assert result["value"] == "True"


def test_outside_the_deck_noise_stays_fresh():
    from dplab import laplace_mech
    from dplab._rng import _session
    assert _session is None
    assert laplace_mech(0.0, 1, 1.0) != laplace_mech(0.0, 1, 1.0)
