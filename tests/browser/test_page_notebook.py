"""⤓ (top right): the cells as the viewer has them, taken home as a Jupyter notebook and a .py,
with the deck's own dplab wheel; the notebook then runs, every cell, in a fresh venv where
that wheel (and numpy, matplotlib, ipykernel from the package index) is all there is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import nbformat
import pytest

from dpdeck.serve.browser import VIEWPORT
from tests.support.browser import (
    cell_code,
    cell_ids,
    cell_index,
    cells,
    deck_config,
    open_deck,
    set_code,
    wait_until,
)

EDIT = "print('editado en el navegador:', 6 * 7)"


def _menu(page):
    page.locator("button[data-action='notebook']").click()
    wait_until(page, "!document.getElementById('notebook-menu').hidden", 5)


def _download(page, kind: str, folder: Path) -> Path:
    _menu(page)
    with page.expect_download() as info:
        page.locator(f"a[data-download='{kind}']").click()
    download = info.value
    target = folder / download.suggested_filename
    download.save_as(target)
    return target


@pytest.fixture(scope="module")
def downloads(browser, deck_url, built_deck, tmp_path_factory):
    """Edit a cell, move a slider, and download the three files (Python need not be up)."""
    folder = tmp_path_factory.mktemp("downloads")
    context = browser.new_context(accept_downloads=True)
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        open_deck(page, deck_url + "?noprerun")
        config = deck_config(page)
        first = cell_ids(page)[0]
        i = cell_index(page, first)
        set_code(page, i, cell_code(page, i) + "\n" + EDIT)
        # a cell with a slider: the line the slider rewrites is exported as shown
        slid = page.evaluate("window.deck.cells.findIndex(c => c.root.querySelector('input[type=range]'))")
        assert slid >= 0
        slid_id = cell_ids(page)[slid]
        page.evaluate(
            """(id) => { const r = document.querySelector(`.cell[data-cell-id='${id}'] input[type=range]`);
                          r.value = String(Number(r.value) > 500 ? 100 : 900);
                          r.dispatchEvent(new Event('input', {bubbles: true})); }""",
            slid_id,
        )
        # exercises (their blanks `...` raise until filled): solved, as a student would
        solved = page.evaluate("""() => window.deck.cells.filter(c => c.root.closest('.exercise')).map(c => {
            c.code = c.slide.querySelector('.exercise-solution-code').textContent.replace(/\\n$/, '');
            return c.id; })""")
        codes = [{k: c[k] for k in ("id", "code", "authored")} for c in cells(page)]
        assert codes[slid]["code"] != codes[slid]["authored"]
        files = {kind: _download(page, kind, folder) for kind in ("ipynb", "py", "wheel")}
        assert not errors, errors
    finally:
        context.close()
    return {
        "files": files,
        "config": config,
        "codes": codes,
        "edited": first,
        "slid": slid_id,
        "built": built_deck,
        "exercises": solved,
    }


def test_notebook_holds_the_cells_as_shown(downloads):
    config, codes = downloads["config"], downloads["codes"]
    path = downloads["files"]["ipynb"]
    assert path.name == "privacidad-diferencial.ipynb"
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    wheel_name = config["wheel"].split("/")[-1]
    assert nb.cells[0].cell_type == "markdown"
    assert f"pip install {wheel_name}" in nb.cells[0].source
    assert nb.cells[1].cell_type == "code" and nb.cells[1].source == config["prelude"].rstrip()
    code_cells = [c for c in nb.cells if c.cell_type == "code"][1:]
    assert [c.source for c in code_cells] == [c["code"].rstrip() for c in codes]
    assert EDIT in code_cells[0].source
    slid = next(c for c in codes if c["id"] == downloads["slid"])
    assert slid["code"].rstrip() in [c.source for c in code_cells]
    for cell, c in zip(code_cells, codes, strict=True):
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        assert tagged == (c["id"] in downloads["exercises"])
    titles = [c.source.splitlines()[0] for c in nb.cells[2::2]]
    slides = config["notebook"]["slides"]
    assert titles == [f"## {slides[c['id']]['title']}" for c in codes]


def test_script_compiles(downloads):
    path = downloads["files"]["py"]
    assert path.suffix == ".py"
    text = path.read_text(encoding="utf-8")
    compile(text, str(path), "exec")
    assert EDIT in text
    assert text.index(downloads["config"]["prelude"].strip()) < text.index(EDIT)
    for c in downloads["codes"]:
        assert c["code"].rstrip() in text


def test_wheel_is_the_decks_own(downloads):
    path = downloads["files"]["wheel"]
    assert path.name == downloads["config"]["wheel"].split("/")[-1]
    assert path.read_bytes() == (downloads["built"] / downloads["config"]["wheel"]).read_bytes()
    assert zipfile.ZipFile(path).testzip() is None


def _venv_with(wheel: Path, where: Path) -> Path:
    """A plain venv (no system site-packages): the wheel and what the notebook needs, from pip."""
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True, timeout=120)
    python = where / "bin" / "python"
    done = subprocess.run(
        [
            str(python),
            "-m",
            "pip",
            "install",
            "--disable-pip-version-check",
            "-q",
            str(wheel),
            "numpy",
            "matplotlib",
            "ipykernel",
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return python


def test_notebook_and_script_run_in_a_fresh_venv_with_the_wheel(downloads, tmp_path):
    from jupyter_client import KernelManager
    from jupyter_client.kernelspec import KernelSpecManager
    from nbclient import NotebookClient

    started = time.monotonic()
    python = _venv_with(downloads["files"]["wheel"], tmp_path / "venv")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env |= {"MPLBACKEND": "Agg", "PYTHONNOUSERSITE": "1"}
    work = tmp_path / "work"
    work.mkdir()
    # dplab comes from the wheel, and its census is there
    probe = subprocess.run(
        [
            str(python),
            "-c",
            "import dplab, sys; c = dplab.load_census(); print(dplab.__file__); print(dplab.__version__)",
        ],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.startswith(str(tmp_path / "venv")), probe.stdout
    set_up = time.monotonic() - started

    kernels = tmp_path / "kernels"
    (kernels / "dplab-venv").mkdir(parents=True)
    (kernels / "dplab-venv" / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [str(python), "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "dplab (venv de prueba)",
                "language": "python",
                "env": {"MPLBACKEND": "Agg", "PYTHONNOUSERSITE": "1", "PYTHONPATH": ""},
            }
        )
    )
    km = KernelManager(
        kernel_name="dplab-venv", kernel_spec_manager=KernelSpecManager(kernel_dirs=[str(kernels)])
    )
    nb = nbformat.read(downloads["files"]["ipynb"], as_version=4)
    ran = time.monotonic()
    try:
        NotebookClient(
            nb,
            km=km,
            timeout=300,
            startup_timeout=120,
            allow_errors=False,
            resources={"metadata": {"path": str(work)}},
        ).execute()
    finally:  # nbclient shuts down only a kernel it started itself, not one of our manager's
        if km.has_kernel:
            km.shutdown_kernel(now=True)
    seconds = time.monotonic() - ran
    print(f"\nvenv + pip: {set_up:.0f} s; the notebook's {len(nb.cells)} cells ran in {seconds:.0f} s")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.execution_count for c in code)
    errors = [o for c in code for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    edited = code[1]
    assert "editado en el navegador: 42" in "".join(o.get("text", "") for o in edited.outputs)
    # the script too, as `python privacidad-diferencial.py`
    ran = time.monotonic()
    script = subprocess.run(
        [str(python), str(downloads["files"]["py"])],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert script.returncode == 0, script.stderr[-3000:]
    assert "editado en el navegador: 42" in script.stdout
    print(f"the script ran in {time.monotonic() - ran:.0f} s")


@pytest.mark.parametrize("viewport", [VIEWPORT, {"width": 390, "height": 844}], ids=["projector", "phone"])
def test_menu_fits_the_screen(browser, deck_url, viewport):
    context = browser.new_context(viewport=viewport, has_touch=viewport["width"] < 500)
    page = context.new_page()
    try:
        open_deck(page, deck_url + "?noprerun")
        _menu(page)
        box = page.locator("#notebook-menu").bounding_box()
        assert box["x"] >= 0 and box["y"] >= 0
        assert box["x"] + box["width"] <= viewport["width"]
        assert box["y"] + box["height"] <= viewport["height"]
        for kind in ("ipynb", "py", "wheel"):
            item = page.locator(f"a[data-download='{kind}']").bounding_box()
            assert item["height"] >= 40  # a finger's worth
        page.keyboard.press("Escape")
        wait_until(page, "document.getElementById('notebook-menu').hidden", 5)
        assert page.evaluate("document.activeElement.dataset.action") == "notebook"
    finally:
        context.close()
