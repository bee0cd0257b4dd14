"""``pip install .`` gives a working ``dpdeck``: the wheel carries the tool's own files
(dpdeck and dpdeck/hall, the templates, static files, the sources of the page's wheels,
the watch client and the front-end files from node_modules), and a lecture made, checked, built
and opened in Chromium from a folder outside the repository runs its cells.

The slow test builds the wheel from a copy of the sources, installs it with ``--no-deps`` into a
fresh venv that borrows this venv's site-packages (numpy, aiohttp, playwright … : a .pth file,
so nothing is downloaded), and runs the installed command with its cwd outside the repository
and no PYTHONPATH: the dpdeck it imports is the fresh venv's.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from dpdeck import resources
from dpdeck.build import frontend
from tests.support.checkout import copy_sources
from tests.support.paths import ROOT

SOURCES = ("pyproject.toml", "README.md", "dpdeck", "templates", "static", "pyodide_pkg", "scripts")


def _package_data() -> dict[str, list[str]]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]


def test_the_wheel_carries_every_front_end_package_the_build_reads():
    """pyproject.toml's list of node_modules files names every package of CodeMirror's closure
    (as frontend.py computes it), and reveal.js, KaTeX and Pyodide."""
    globs = _package_data()["dpdeck.share.node_modules"]
    names = {"reveal.js", "katex", "pyodide"}
    pending = list(frontend.CODEMIRROR_ENTRIES)
    while pending:
        name = pending.pop()
        if name not in names:
            names.add(name)
            pending.extend(frontend.package_json(ROOT / "node_modules", name).get("dependencies", {}))
    for name in names:
        scope = name.split("/")[0] + "/*" if name.startswith("@") else name
        assert f"{name}/package.json" in globs or f"{scope}/package.json" in globs, name


def test_a_checkout_finds_its_own_folders():
    assert resources.checkout() == ROOT
    assert resources.asset_root() == ROOT


def _wheel_builder() -> str:
    """An interpreter with setuptools >= 77 (pyproject.toml's build-system): this venv's, else the system's."""
    for python in (sys.executable, shutil.which("python3"), "/usr/bin/python3"):
        if (
            python
            and subprocess.run(
                [
                    python,
                    "-c",
                    "import setuptools; assert int(setuptools.__version__.split('.')[0]) >= 77",
                ],
                capture_output=True,
            ).returncode
            == 0
        ):
            return python
    pytest.fail("no Python here has setuptools >= 77: pip install -e '.[test]'")


def _run(args, cwd, env, timeout=600) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_pip_install_gives_a_dpdeck_that_builds_and_serves_a_lecture_elsewhere(tmp_path, browser):
    # the wheel, from a copy of the sources (no build/ or egg-info left in the work tree)
    src = copy_sources(SOURCES, tmp_path / "src")
    (src / "node_modules").symlink_to((ROOT / "node_modules").resolve())
    _run(
        [
            _wheel_builder(),
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path / "wheels"),
            ".",
        ],
        src,
        None,
    )
    (wheel,) = (tmp_path / "wheels").glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    # dplab once: the top-level package, not again under share/ (issue 48, item 13)
    assert "dplab/__init__.py" in names and not any(
        n.startswith("dpdeck/share/pyodide_pkg/dplab/") for n in names
    )

    # a fresh venv that borrows this one's third-party packages, and the wheel in it
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(
        _run(
            [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], tmp_path, None
        ).stdout.strip()
    )
    (site / "borrowed.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    env = {
        k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "DPDECK_NODE_MODULES", "VIRTUAL_ENV")
    }
    env["DPDECK_NO_COMPRESS"] = "1"  # a small deck: its copies are not the test
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], tmp_path, env)
    dpdeck = venv / "bin" / "dpdeck"

    # a lecture, outside the repository
    work = tmp_path / "work"
    work.mkdir()
    where = _run(
        [python, "-c", "import dpdeck, dplab; print(dpdeck.__file__); print(dplab.__file__)"], work, env
    )
    for line in where.stdout.split():
        assert Path(line).is_relative_to(venv) and not Path(line).is_relative_to(ROOT), where.stdout
    out = _run([dpdeck, "new", "mi-clase", "--title", "Mi clase"], work, env).stdout
    assert "dpdeck check --deck mi-clase/deck.yaml" in out
    _run([dpdeck, "check", "--run", "--deck", "mi-clase/deck.yaml"], work, env)
    _run([dpdeck, "build", "--deck", "mi-clase/deck.yaml"], work, env)
    dist = work / "dist"
    assert (dist / "index.html").is_file() and (dist / "live.json").is_file()
    assert any(dist.glob("static-*/wheels/cellrunner-*.whl")) and any(
        dist.glob("vendor/pyodide-*/pyodide.asm.wasm")
    )
    _open_and_run(dist, browser)


def _open_and_run(dist: Path, browser) -> None:
    """The built lecture in Chromium (the session's browser): Python starts and the code cell
    runs to its output."""
    from dpdeck.serve.browser import VIEWPORT
    from dpdeck.serve.server import serve_in_thread
    from tests.support.browser import cell_ids, instrument, open_deck, run_cell, wait_runtime_ready

    server, url = serve_in_thread(dist, isolate=True)
    try:
        context = browser.new_context(viewport=VIEWPORT)
        try:
            page = instrument(context, context.new_page())
            open_deck(page, url)
            wait_runtime_ready(page)
            assert "un-conteo-con-ruido" in cell_ids(page)
            result = run_cell(page, "un-conteo-con-ruido")
            assert result["error"] == "" and result["state"] != "error", result
            assert result["stdout"].startswith("Conteo publicado: "), result
            assert not page.errors, page.errors
        finally:
            context.close()
    finally:
        server.shutdown()
        server.server_close()
