"""The professor's first hour, as the README has it: `bash scripts/serve.sh` sets up (the base
dependencies of pyproject.toml, which scripts/setup.sh installs), then `.venv/bin/python build.py
pdf` prints the handout; and `pip install -e '.[test]'` works in a clean venv (the flat layout's
packages are declared)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import pytest

from dpdeck.build.errors import BuildEnvironmentError
from dpdeck.serve import browser, pdf
from tests.support.paths import ROOT

BASE = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]

# Run a script with only what the plain set-up installs importable: the distributions of the
# base dependencies and theirs (never the test extras), the standard library and the repo.
ONLY_THE_SETUP = textwrap.dedent(
    """
    import importlib.metadata as md, re, runpy, sys
    from packaging.requirements import Requirement

    def norm(name):
        return re.sub(r"[-_.]+", "-", name).lower()

    allowed, todo = set(), [Requirement(r) for r in {base!r}]
    while todo:
        req = todo.pop()
        if req.marker is not None and not req.marker.evaluate({{"extra": ""}}):
            continue
        if norm(req.name) in allowed:
            continue
        allowed.add(norm(req.name))
        todo += [Requirement(r) for r in md.requires(req.name) or []]
    blocked = {{
        top for top, dists in md.packages_distributions().items()
        if not any(norm(d) in allowed for d in dists) and top not in sys.stdlib_module_names
    }}

    class NotInstalledBySetup:
        def find_spec(self, name, path=None, target=None):
            if name.partition(".")[0] in blocked:
                raise ModuleNotFoundError(f"No module named {{name!r}} (not in the set-up)", name=name)

    sys.meta_path.insert(0, NotInstalledBySetup())
    sys.argv = sys.argv[1:]
    runpy.run_path(sys.argv[0], run_name="__main__")
    """
)


def _with_only_the_setup(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    guard = ONLY_THE_SETUP.format(base=BASE)
    return subprocess.run(
        [sys.executable, "-c", guard, *args], cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )


def test_the_guard_blocks_what_the_setup_does_not_install(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "import yaml, brotli\ntry:\n    import pytest\nexcept ImportError:\n    print('blocked')\n"
    )
    done = _with_only_the_setup(str(probe))
    assert done.returncode == 0 and done.stdout == "blocked\n", done.stderr


def test_what_build_py_pdf_imports_is_in_the_base_setup(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text(
        "from playwright.sync_api import sync_playwright\nimport dpdeck.serve.pdf, dpdeck.build.site\nprint('ok')\n"
    )
    done = _with_only_the_setup(str(probe))
    assert done.returncode == 0 and done.stdout == "ok\n", done.stderr


@pytest.mark.browser
@pytest.mark.skipif(browser.chromium_path() is None, reason="needs Debian's chromium or DPDECK_CHROMIUM")
def test_build_py_pdf_after_the_plain_setup(tmp_path):
    out = tmp_path / "handout.pdf"
    deck = ROOT / "tests" / "fixtures" / "good" / "deck.yaml"
    done = _with_only_the_setup("build.py", "pdf", "--deck", str(deck), "--out", str(out))
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.read_bytes().startswith(b"%PDF") and "5 pages, 1 cells run" in done.stdout, done.stdout


class _FakePlaywright:
    def __init__(self, path: Path):
        self.chromium = type("Chromium", (), {"executable_path": str(path)})()


def test_without_any_chromium_the_pdf_fetches_playwrights_once(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(pdf, "chromium_path", lambda: None)
    target = tmp_path / "chrome-linux" / "chrome"
    calls = []

    def fake_install(command):
        calls.append(command)
        target.parent.mkdir(parents=True)
        target.write_text("")
        return subprocess.CompletedProcess(command, 0)

    pdf.ensure_chromium(_FakePlaywright(target), run=fake_install)
    assert calls == [[sys.executable, "-m", "playwright", "install", "chromium"]]
    assert "downloading playwright's" in capsys.readouterr().err
    pdf.ensure_chromium(_FakePlaywright(target), run=fake_install)  # now there: nothing to do
    assert len(calls) == 1


def test_when_fetching_chromium_fails_the_message_says_what_to_do(tmp_path, monkeypatch):
    monkeypatch.setattr(pdf, "chromium_path", lambda: None)
    failing = lambda command: subprocess.CompletedProcess(command, 1)  # noqa: E731 - offline
    with pytest.raises(BuildEnvironmentError) as info:
        pdf.ensure_chromium(_FakePlaywright(tmp_path / "none"), run=failing)
    said = str(info.value)
    assert "apt-get install chromium" in said and "DPDECK_CHROMIUM" in said
    assert "playwright install chromium" in said


class _SettlingPage:
    """A page whose SETTLED reads come from ``reads`` (the last one repeats)."""

    def __init__(self, reads: list[bool]):
        self.reads, self.asked = reads, 0

    def evaluate(self, expression: str) -> bool:
        assert expression == pdf.SETTLED
        self.asked += 1
        return self.reads[min(self.asked, len(self.reads)) - 1]


def test_the_pdf_prints_only_a_page_settled_on_two_reads(monkeypatch):
    """A replay after a restart leaves moments with no run: one settled read is not enough."""
    monkeypatch.setattr(pdf.time, "sleep", lambda s: None)
    page = _SettlingPage([False, True, False, True, True, False])
    pdf.wait_settled(page, deadline=float("inf"), what="after the pre-run")
    assert page.asked == 5


def test_a_page_that_never_settles_is_a_clear_error(monkeypatch):
    clock = iter(range(100))
    monkeypatch.setattr(pdf.time, "sleep", lambda s: None)
    monkeypatch.setattr(pdf.time, "monotonic", lambda: next(clock))
    with pytest.raises(BuildEnvironmentError, match="did not settle after the solutions ran: try --timeout"):
        pdf.wait_settled(_SettlingPage([True, False]), deadline=10, what="after the solutions ran")


class _RecoveringPage:
    """A settled page (``SETTLED`` reads true) whose ``LOST`` reads come from ``lost`` (the
    last one repeats); ``RUN_AGAIN``'s ids are kept in ``ran``; ``FAILED`` reads ``failed``."""

    def __init__(self, lost: list[list[str]], failed: list[str]):
        self.lost, self.failed, self.ran = lost, failed, []

    def evaluate(self, expression: str, arg=None):
        if expression == pdf.SETTLED:
            return True
        if expression == pdf.LOST:
            return self.lost.pop(0) if len(self.lost) > 1 else self.lost[0]
        if expression == pdf.RUN_AGAIN:
            self.ran.append(arg)
            return None
        assert expression == pdf.FAILED, expression
        return self.failed


def test_cells_a_restart_left_empty_run_again_before_printing(monkeypatch):
    """A second restart during a replay ended the poll cell's run, and its output stayed empty:
    the export runs it again (with the cells in error after it), then settles again."""
    monkeypatch.setattr(pdf.time, "sleep", lambda s: None)
    page = _RecoveringPage(lost=[["poll", "after"], []], failed=[])
    assert pdf.recover_lost(page, deadline=float("inf"), what="after the solutions ran") == []
    assert page.ran == [["poll", "after"]]


def test_a_cell_lost_at_every_round_is_an_error_not_a_loop(monkeypatch):
    monkeypatch.setattr(pdf.time, "sleep", lambda s: None)
    page = _RecoveringPage(lost=[["poll"]], failed=["poll"])
    assert pdf.recover_lost(page, deadline=float("inf"), what="after the pre-run") == ["poll"]
    assert page.ran == [["poll"]] * pdf.RECOVERY_ROUNDS


def test_the_packages_of_the_flat_layout_are_declared(tmp_path):
    """The step of `pip install -e .` that failed ("Multiple top-level packages discovered in
    a flat-layout"), run offline with this venv's setuptools."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import setuptools; setuptools.setup()",
            "egg_info",
            "--egg-base",
            str(tmp_path),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    (info,) = tmp_path.glob("*.egg-info")
    assert (info / "top_level.txt").read_text().split() == ["dpdeck", "dplab"]
    sources = (info / "SOURCES.txt").read_text()
    assert "pyodide_pkg/dplab/mechanisms.py" in sources and "dpdeck/build/katex_render.mjs" in sources


def test_editable_install_in_a_clean_venv(tmp_path, request):
    """`pip install -e '.[test]'` in a fresh venv (--no-deps: the dependencies are the index's
    business; the build backend comes from the index or pip's cache)."""
    venv = tmp_path / "venv"
    egg_info = ROOT / "dpdeck.egg-info"  # setuptools writes it beside the sources
    if not egg_info.exists():
        request.addfinalizer(lambda: shutil.rmtree(egg_info, ignore_errors=True))
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    done = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            "--no-deps",
            "-e",
            f"{ROOT}[test]",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=300,
    )
    if done.returncode != 0 and "setuptools" in done.stderr and "satisfies the requirement" in done.stderr:
        pytest.skip("the package index (for setuptools, the build backend) is unreachable")
    assert done.returncode == 0, done.stderr
    where = subprocess.run(
        [
            python,
            "-c",
            "import importlib.util as u; print(u.find_spec('dpdeck').origin, u.find_spec('dplab').origin)",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )
    assert where.stdout.split() == [
        str(ROOT / "dpdeck/__init__.py"),
        str(ROOT / "pyodide_pkg/dplab/__init__.py"),
    ]
    shutil.rmtree(venv)


def test_the_node_version_is_one_number_everywhere():
    """Issue 33, item 20: setup.sh said Node.js ≥ 18 and the README ≥ 20. package.json's
    "engines" is the one place; setup.sh reads it, and the docs say the same number."""
    import json
    import re

    engines = json.loads((ROOT / "package.json").read_text())["engines"]["node"]
    minimum = re.fullmatch(r">=(\d+)", engines).group(1)
    setup = (ROOT / "scripts" / "setup.sh").read_text()
    assert "≥ 18" not in setup and "$node_min" in setup and '"node"' in setup
    for doc in ("README.md", "docs/contributing.md"):
        said = re.findall(r"Node\.js ≥ (\d+)", (ROOT / doc).read_text())
        assert said and set(said) <= {minimum, "22"}, (doc, said)  # 22.12: what two packages ask for
    assert re.search(rf"Node\.js ≥ {minimum} with npm", (ROOT / "README.md").read_text())


def test_every_front_end_dependency_is_pinned_exactly_as_contributing_says():
    """Issue 48, item 14: docs/contributing.md says «Pinned exactly in package.json», and
    axe-core was ``^4.14.1``. Every dependency, dev ones included, is one exact version, the
    same in package-lock.json's root and in the package it locks."""
    assert "Pinned exactly in `package.json`" in (ROOT / "docs" / "contributing.md").read_text()
    spec = json.loads((ROOT / "package.json").read_text())
    lock = json.loads((ROOT / "package-lock.json").read_text())["packages"]
    pins = {**spec["dependencies"], **spec["devDependencies"]}
    assert len(pins) >= 10
    for name, version in pins.items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name}: {version!r} is a range"
        assert (
            lock[""]["dependencies" if name in spec["dependencies"] else "devDependencies"][name] == version
        )
        assert lock[f"node_modules/{name}"]["version"] == version, name


def test_the_readme_is_at_most_160_lines_and_every_doc_it_links_exists():
    """Issue 48, item 14: the README had grown to 204 lines, one table row naming eight JSON
    files. It stays a first page; what it links is there."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 160
    links = re.findall(r"\]\(((?:docs|bench)/[^)#]+)", readme)
    assert len(links) >= 10 and [link for link in links if not (ROOT / link).exists()] == []
