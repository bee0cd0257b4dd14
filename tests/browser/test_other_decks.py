"""The machinery is not this lecture's: decks made by ``build.py new`` build, serve and run.

Two decks, each built into its own folder and served as a static site: the scaffold's output
(which uses dplab), and the scaffold with ``--package`` (a tiny package of the author's own,
loaded in the browser *instead of* dplab). In Chromium every cell runs to its output, the
slider re-runs the cell, the exercise's solution passes and its blank starter does not, and
the download menu names the deck's own package.
"""

from __future__ import annotations

import re

import pytest

from dpdeck.build.scaffold import new_deck
from dpdeck.build.site import Project, build
from dpdeck.serve.server import serve_in_thread
from tests.support.browser import (
    cell_code,
    cell_ids,
    deck_config,
    exercise_ids,
    exercise_solved,
    open_deck,
    own_solution,
    run_cell,
    run_count,
    wait_ran,
    wait_runtime_ready,
    wait_until,
)
from tests.support.paths import ROOT

PUBLISHED = re.compile(r"Conteo publicado: -?\d{1,3}(\.\d{3})*,\d\n")


@pytest.fixture(scope="module", params=[None, "minipkg"], ids=["dplab", "own-package"])
def other_deck(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("lecture") / "clase"
    new_deck(folder, "Una clase nueva", package=request.param)
    dist = folder / "dist"
    with pytest.MonkeyPatch.context() as env:  # only for this build: later builds compress
        env.setenv("DPDECK_NO_COMPRESS", "1")  # a small deck: its copies are not the test
        build(Project(ROOT), deck_file=folder / "deck.yaml", dist=dist)
    server, url = serve_in_thread(dist, isolate=True)
    yield request.param or "dplab", url
    server.shutdown()


def test_a_new_deck_runs_its_cells(other_deck, page):
    package, url = other_deck
    open_deck(page, url)
    wait_runtime_ready(page)
    assert deck_config(page)["packageName"] == package
    assert len(cell_ids(page)) == 2  # the code cell and the exercise
    out = run_cell(page, "un-conteo-con-ruido")
    assert out["error"] == "" and out["state"] != "error", out
    assert PUBLISHED.fullmatch(out["stdout"]), out["stdout"]
    # the deck's own package replaced dplab in the browser, or dplab is there
    probe = "import sys\nprint(sorted(m for m in ('dplab', 'minipkg') if m in sys.modules))"
    loaded = run_cell(page, "un-conteo-con-ruido", probe)["stdout"]
    assert loaded.strip() == repr([package])


def test_the_slider_reruns_and_the_exercise_judges(other_deck, page):
    package, url = other_deck
    open_deck(page, url + "#/un-conteo-con-ruido")
    wait_runtime_ready(page)
    wait_ran(page, 0, 0, 90)
    runs = run_count(page, 0)
    slider = page.locator(".cell[data-cell-id='un-conteo-con-ruido'] input[type=range]")
    slider.focus()
    slider.press("ArrowLeft")
    wait_ran(page, 0, runs, 90)
    assert "epsilon = 1.0\n" not in cell_code(page, 0)
    ex = "ejercicio-la-escala-del-ruido"
    assert ex in exercise_ids(page)
    starter = run_cell(page, "ejercicio-la-escala-del-ruido")
    assert not exercise_solved(page, ex), starter
    # the student's own code (the solution as loaded passes but is not counted: issue 33, 12)
    run_cell(page, "ejercicio-la-escala-del-ruido", own_solution("epsilon = 0.5\nescala = 1 / epsilon"))
    wait_until(page, lambda: exercise_solved(page, ex), 30)
    menu = page.evaluate("document.querySelector('[data-download=wheel]').textContent")
    assert f"Paquete {package}" in menu
