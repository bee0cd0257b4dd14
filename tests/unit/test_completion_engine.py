"""pyodide_pkg/completion.py under CPython: jedi over the cells' shared namespace."""

from __future__ import annotations

import importlib.util
import sys
from types import SimpleNamespace

import pytest
from cellrunner import Session

from tests.support.paths import ROOT


def _load(name: str, patch: pytest.MonkeyPatch):
    """pyodide_pkg/<name>.py as the top-level module ``name``, as the worker imports it (a source
    file, not a wheel), in ``sys.modules`` until ``patch`` is undone."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "pyodide_pkg" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    patch.setitem(sys.modules, name, module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def engine():
    """completion's two calls over a session's namespace, as the worker makes them (completion.py
    in sys.modules only while this module's tests run)."""
    session = Session()
    code = "import numpy as np\nimport dplab\nfrom dplab import *\ncensus = load_census()\nverdad = 42"
    assert session.run(code, "prueba", lambda kind, payload: None)["ok"]
    with pytest.MonkeyPatch.context() as patch:
        completion = _load("completion", patch)
        yield SimpleNamespace(
            answer=lambda *query: completion.answer(*query, session.namespace),
            warm_ups=lambda: completion.warm_ups(session.namespace),
            MAX_WARM_UPS=completion.MAX_WARM_UPS,
        )


def _labels(engine, code, line=None, column=None):
    lines = code.split("\n")
    line = line or len(lines)
    column = len(lines[line - 1]) if column is None else column
    return [item["label"] for item in engine.answer("complete", code, line, column)["items"]]


def test_completes_names_of_the_shared_namespace(engine):
    assert "gaussian_mech" in _labels(engine, "gauss")
    assert "census" in _labels(engine, "cen")
    assert "verdad" in _labels(engine, "verd")


def test_completes_attributes_of_live_objects(engine):
    assert "random" in _labels(engine, "np.ran")
    census_attrs = _labels(engine, "census.")
    assert census_attrs and all(not a.startswith("__") for a in census_attrs)
    assert "normal" in _labels(engine, "np.random.norm")


def test_completes_keyword_arguments_inside_a_call(engine):
    assert "epsilon=" in _labels(engine, "laplace_mech(verdad, sensitivity=1, eps")


def test_signature_names_the_current_parameter(engine):
    sig = engine.answer("signature", "gaussian_mech(verdad, 1, ", 1, 25)
    assert sig["name"] == "gaussian_mech" and sig["module"] == "dplab"
    assert sig["params"][:4] == ["v", "sensitivity", "epsilon", "delta"]
    assert sig["index"] == 2


def test_hover_gives_the_first_paragraph_of_numpy_docs(engine):
    doc = engine.answer("hover", "np.mean(x)", 1, 5)
    assert doc["name"] == "mean" and doc["module"] == "numpy"
    assert "arithmetic mean" in doc["doc"] and "\n\n" not in doc["doc"]


def test_a_broken_request_is_an_empty_answer(engine):
    assert engine.answer("hover", "x = (", 99, 99) is None
    assert engine.answer("nonsense", "x", 1, 1) is None


def test_names_come_from_the_live_namespace_without_inference(engine):
    labels = {i["label"] for i in engine.answer("complete", "x = 1\nlaplace", 2, 7)["items"]}
    assert {"laplace_mech", "laplace_vs_gauss_std"} <= labels and "x" not in labels
    kinds = {i["label"]: (i["type"], i["module"]) for i in engine.answer("complete", "Bud", 1, 3)["items"]}
    assert kinds["BudgetAccountant"] == ("class", "dplab")
    assert ("keyword", "") == next(
        (i["type"], i["module"])
        for i in engine.answer("complete", "whi", 1, 3)["items"]
        if i["label"] == "while"
    )
    assert all(not i["label"].startswith("_") for i in engine.answer("complete", "", 1, 0)["items"])


def test_warm_ups_are_the_session_modules_and_data_objects(engine):
    codes = engine.warm_ups()
    assert "np." in codes and "census." in codes
    assert "verdad." not in codes and "laplace_mech." not in codes and "Census." not in codes
    assert len(codes) <= engine.MAX_WARM_UPS


def test_dplab_completes_after_its_dot_as_the_prelude_binds_it(engine):
    assert "laplace_mech" in _labels(engine, "dplab.lap")


def test_a_builtins_hover_is_in_spanish(engine):
    doc = engine.answer("hover", "float(1)", 1, 1)
    assert doc["fullName"] == "builtins.float" and doc["doc"].startswith("Convierte un número o un texto"), (
        doc
    )
    assert engine.answer("hover", "print(1)", 1, 1)["doc"].startswith("Escribe valores"), doc
    sig = engine.answer("signature", "len(", 1, 4)
    assert sig["doc"] == "El número de elementos de una secuencia, colección o tabla.", sig


def test_a_propertys_hover_names_the_property_not_its_value(engine):
    doc = engine.answer("hover", "census.columns", 1, 7)
    assert doc["fullName"] == "dplab.census.Census.columns" and doc["type"] == "property", doc
    assert doc["module"] == "dplab" and doc["doc"] == "Column names, in order."
