"""The hall's documented install on a fresh server (issue 46, item 15): deploy.md used to say
``pip install aiohttp segno uvloop``, and the hall then exited with ``No module named 'numpy'``.

The one command is ``bash scripts/setup-hall.sh`` in a checkout: a ``.venv`` with
pyproject.toml's optional dependencies ``hall`` and nothing else. The slow test runs it in a
copy of the checkout (a fresh venv, its packages from the package index as on a VM), starts the
hall with ``--live`` and gets ``/_hall/hello``, and draws a released count (dplab and numpy)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import tomllib
import urllib.request

import pytest
from packaging.requirements import Requirement

from tests.support.checkout import copy_sources
from tests.support.hall_fixtures import make_dist
from tests.support.paths import ROOT

# a clone has them all; these are what the hall and resources.checkout() look for
SOURCES = ("pyproject.toml", "build.py", "dpdeck", "pyodide_pkg", "scripts", "templates")


def _project() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def test_the_hall_extra_is_part_of_the_project_dependencies_with_the_same_bounds():
    """What the hall installs alone is what the whole project installs: no version drifts."""
    project = _project()
    base = {str(Requirement(r)) for r in project["dependencies"]}
    hall = [str(Requirement(r)) for r in project["optional-dependencies"]["hall"]]
    assert set(hall) <= base, set(hall) - base
    assert {Requirement(r).name for r in hall} >= {"aiohttp", "segno", "numpy", "redis"}


def test_the_guides_give_that_one_command_and_not_the_old_list():
    for guide in ("docs/deploy.md", "docs/despliegue.md"):
        text = (ROOT / guide).read_text(encoding="utf-8")
        assert "bash scripts/setup-hall.sh" in text, guide
        assert "pip install aiohttp segno" not in text, guide


def _run(args, cwd, env, timeout=600) -> subprocess.CompletedProcess:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args}\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done


@pytest.mark.slow
def test_setup_hall_on_a_fresh_checkout_gives_a_hall_that_answers_and_releases(tmp_path):
    src = copy_sources(SOURCES, tmp_path / "dpdeck")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PYTHON"] = sys.executable
    out = _run(["bash", "scripts/setup-hall.sh"], src, env).stdout
    python = src / ".venv" / "bin" / "python"
    assert python.exists() and "listo" in out, out

    # only the hall's packages: the build's are not there
    listed = _run([python, "-m", "pip", "list", "--format", "json"], src, env).stdout
    names = {p["name"].lower() for p in json.loads(listed)}
    assert {"aiohttp", "segno", "numpy"} <= names and not names & {"matplotlib", "playwright", "jinja2"}

    # a released count: dplab's discrete Laplace and its accountant, from the fresh venv
    code = "from dpdeck.hall.release import decide; r, row = decide([], 3, 'ex', False); print(r.value)"
    assert re.fullmatch(r"-?\d+\s*", _run([python, "-c", code], src, env).stdout)

    # the hall as deploy.md starts it, from the checkout
    live = make_dist(tmp_path) / "live.json"
    hall = subprocess.Popen(
        [python, "-m", "dpdeck.hall", "--live", str(live), "--port", "0", "--quiet",
         "--hall-db", str(tmp_path / "hall.sqlite3"), "--hall-token-file", str(tmp_path / "token")],
        cwd=src, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    try:
        lines, deadline, base = [], time.monotonic() + 30, None
        while base is None and time.monotonic() < deadline:
            line = hall.stdout.readline()
            if not line:
                break
            lines.append(line)
            found = re.search(r"(http://127\.0\.0\.1:\d+/)#presenter=", line)
            base = found.group(1) if found else None
        assert base, "".join(lines)
        with urllib.request.urlopen(base + "_hall/hello", timeout=10) as response:
            assert response.status == 200 and json.loads(response.read())["hall"] == 1
    finally:
        hall.terminate()
        hall.wait(10)
