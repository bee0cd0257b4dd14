"""dpdeck/build/apiref.py: dplab's API reference for authors, generated from its source."""

from __future__ import annotations

from dpdeck.build import apiref
from tests.support.paths import ROOT

DPLAB = ROOT / "pyodide_pkg" / "dplab"


def test_the_reference_in_docs_is_the_one_the_source_gives():
    """docs/dplab-api.md is stale once dplab's API, docstrings or Spanish docs change."""
    expected = apiref.reference_markdown(DPLAB)
    actual = (ROOT / "docs" / "dplab-api.md").read_text(encoding="utf-8")
    assert actual == expected, "docs/dplab-api.md is stale: run `.venv/bin/python -m dpdeck.build.apiref`"


def test_it_holds_every_public_name_its_spanish_and_its_docstring():
    text = apiref.reference_markdown(DPLAB)
    import dplab

    for name in dplab.__all__:
        assert f"### `{name}" in text, name
    assert "### `laplace_mech(v, sensitivity, epsilon" in text
    assert "**Publica v más ruido de Laplace" in text  # the Spanish summary
    assert "- `epsilon`: presupuesto de privacidad ε" in text  # the parameter's gloss
    assert "#### `Census.without(name)`" in text and "The neighbouring table" in text
    assert "| `census` | El censo sintético" in text  # what the prelude binds beside dplab


def test_the_build_writes_it_as_a_page_beside_the_deck(tmp_path):
    path = apiref.write_reference(DPLAB, tmp_path)
    assert path.name == "dplab-api.html"
    page = path.read_text(encoding="utf-8")
    assert "<h3><code>laplace_mech(" in page and "<script" not in page
