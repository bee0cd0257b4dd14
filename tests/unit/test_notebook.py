"""static/js/page/notebook.js's pure functions under node, fed the real deck: the notebook is valid
nbformat 4, the script compiles, and both hold the prelude first, then each code slide's title,
text and code, in order."""

from __future__ import annotations

import json
import shutil
import subprocess

import nbformat
import pytest

from dpdeck.build.schema import load_deck
from tests.support.paths import ROOT

WHEEL = "dplab-0.1.0-py3-none-any.whl"

DRIVER = """
import { notebook, script, slug, plainMarkdown } from %s;
let text = "";
process.stdin.on("data", (d) => { text += d; });
process.stdin.on("end", () => {
  const doc = JSON.parse(text);
  process.stdout.write(JSON.stringify({ nb: notebook(doc), py: script(doc), slug: slug(doc.title),
                                        md: plainMarkdown("a\\n::: box Título\\nb\\n:::\\nc") }));
});
"""


def _doc(edit: str | None = None) -> dict:
    deck = load_deck(ROOT / "deck" / "deck.yaml")
    cells = [
        {
            "id": s.id,
            "title": s.title,
            "body": s.body or "",
            "code": s.code or s.starter,
            "exercise": s.kind == "exercise",
        }
        for s in deck.slides
        if s.kind in ("code", "exercise")
    ]
    if edit:
        cells[0]["code"] += "\n" + edit
    return {
        "title": deck.title,
        "subtitle": deck.subtitle,
        "author": deck.author,
        "wheelName": WHEEL,
        "prelude": deck.prelude,
        "cells": cells,
    }


def _run(doc: dict) -> dict:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node (Node.js >= 18) is needed")
    module = json.dumps((ROOT / "static" / "js" / "page" / "notebook.js").as_uri())
    done = subprocess.run(
        [node, "--input-type=module", "-e", DRIVER % module],
        input=json.dumps(doc),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def made():
    doc = _doc(edit="print('editado en el navegador')")
    return doc, _run(doc)


def test_notebook_is_valid_nbformat4(made):
    _, out = made
    nb = nbformat.reads(json.dumps(out["nb"]), as_version=4)
    nbformat.validate(nb)
    assert nb.nbformat == 4 and nb.nbformat_minor == 5
    ids = [c.id for c in nb.cells]
    assert len(ids) == len(set(ids))


def test_notebook_order_intro_prelude_titles_code(made):
    doc, out = made
    cells = out["nb"]["cells"]
    intro = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "markdown"
    assert f"pip install {WHEEL}" in intro and "Instalación" in intro
    assert cells[1]["cell_type"] == "code"
    assert "".join(cells[1]["source"]) == doc["prelude"].rstrip()
    rest = cells[2:]
    assert len(rest) == 2 * len(doc["cells"])
    for (md, code), cell in zip(zip(rest[::2], rest[1::2], strict=True), doc["cells"], strict=True):
        assert md["cell_type"] == "markdown" and code["cell_type"] == "code"
        assert "".join(md["source"]).startswith(f"## {cell['title']}")
        assert "".join(code["source"]) == cell["code"].rstrip()
        assert code["outputs"] == [] and code["execution_count"] is None
        # an exercise with its blanks may raise: tagged so (nbclient goes on); no other cell is
        assert (code["metadata"].get("tags") == ["raises-exception"]) == cell["exercise"]
    assert "print('editado en el navegador')" in "".join(rest[1]["source"])
    assert ":::" not in json.dumps(out["nb"])


def test_script_compiles_and_matches(made):
    doc, out = made
    py = out["py"]
    compile(py, "cuaderno.py", "exec")
    assert py.count("\n# %% ") == len(doc["cells"]) + 2  # the prelude, the cells, plt.show()
    assert py.index(doc["prelude"].strip()) < py.index(doc["cells"][0]["code"].strip())
    assert f"# pip install {WHEEL}" in py
    for cell in doc["cells"]:
        assert f"# %% {cell['title']}" in py


def test_slug_and_boxes(made):
    _, out = made
    assert out["slug"] == "privacidad-diferencial"
    assert out["md"] == "a\n**Título**\nb\n\nc"
