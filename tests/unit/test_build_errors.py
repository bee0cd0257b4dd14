"""Build errors are not deck errors: a failing node, npm, pip or a checksum is a
BuildEnvironmentError (exit code 3), a problem in deck/ a DeckError (exit code 1)."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dpdeck.build import bytecode, math, pyodide_dist, tools
from dpdeck.build.errors import (
    BuildEnvironmentError,
    ChecksumError,
    DeckError,
    ToolError,
    field_words,
    ordinal,
)
from dpdeck.build.schema import SLIDE_DEFAULTS, TRY_DEFAULTS, load_deck, unknown_key
from tests.support.paths import ROOT

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

    from dpdeck.build.layout import SLIDE_SIZE
    from dpdeck.build.site import Project, build
    from dpdeck.serve.browser import VIEWPORT

    build(Project(ROOT), deck_file=GOOD_DECK, dist=tmp_path / "dist")
    html = (tmp_path / "dist" / "index.html").read_text(encoding="utf-8")
    config = json.loads(re.search(r'id="deck-config">(.*?)</script>', html, re.S).group(1))
    assert config["packages"] == list(pyodide_dist.BOOT_PACKAGES)
    assert config["deferredPackages"] == list(pyodide_dist.DEFERRED_PACKAGES)
    assert set(config["onDemand"].values()) == set(pyodide_dist.ON_DEMAND)
    assert config["slideSize"] == SLIDE_SIZE == VIEWPORT


def test_missing_or_changed_npm_packages_are_not_deck_errors(tmp_path):
    from dpdeck.build import frontend

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
    from dpdeck.build.wheel import build_wheel

    (tmp_path / "dplab").mkdir()
    with pytest.raises(BuildEnvironmentError, match="not a Python package"):
        build_wheel(tmp_path, "dplab", tmp_path / "out")


# --- mistakes while writing slides: the author's words, the line to fix ----------------------

BAD_CHAPTERS = ROOT / "tests" / "fixtures" / "bad_chapters"
YAML_MISTAKES = sorted(BAD_CHAPTERS.glob("yaml_*.yaml"))
PYYAML_WORDS = (
    "while parsing",
    "while scanning",
    "<block end>",
    "not allowed here",
    "could not find",
    "token",
)


def _load_chapter(chapter: Path, tmp_path: Path) -> DeckError:
    (tmp_path / chapter.name).write_bytes(chapter.read_bytes())
    (tmp_path / "deck.yaml").write_text(f"title: Prueba\nchapters: [{chapter.name}]\n")
    with pytest.raises(DeckError) as info:
        load_deck(tmp_path / "deck.yaml")
    return info.value


@pytest.mark.parametrize("chapter", YAML_MISTAKES, ids=[p.stem for p in YAML_MISTAKES])
def test_a_yaml_mistake_is_said_in_the_authors_words_at_its_line(chapter, tmp_path):
    error = _load_chapter(chapter, tmp_path)
    message = str(error)
    assert not [w for w in PYYAML_WORDS if w in message], message
    lines = chapter.read_text(encoding="utf-8").splitlines()
    # the line named is the one quoted, and it is the line the fixture's comment expects
    assert message.endswith(f"the line reads: {lines[error.line - 1].strip()}"), message
    assert f"{chapter.name}:{error.line}:" in lines[0], (lines[0], error.line)


def test_an_indentation_slip_names_the_line_out_of_step_not_the_start_of_the_list(tmp_path):
    # PyYAML's first mark is the list's start (line 3 here): the old message pointed there
    error = _load_chapter(BAD_CHAPTERS / "yaml_indent.yaml", tmp_path)
    assert error.line == 6 and "notes: una nota corrida" in error.message


def test_yaml_errors_the_explainer_does_not_know_keep_pyyamls_words(tmp_path):
    chapter = tmp_path / "c.yaml"
    chapter.write_text("slides:\n  - title: Uno\n    body: !!python/name:os.system x\n")
    (tmp_path / "deck.yaml").write_text("title: P\nchapters: [c.yaml]\n")
    with pytest.raises(
        DeckError, match=r"c\.yaml:3: malformed YAML: YAML cannot read this \(.*python/name"
    ) as info:
        load_deck(tmp_path / "deck.yaml")
    assert info.value.line == 3


@pytest.mark.parametrize(
    "key,known,likely",
    [
        ("nots", SLIDE_DEFAULTS, "notes"),
        ("tilte", SLIDE_DEFAULTS, "title"),
        ("sliders", SLIDE_DEFAULTS, None),  # nothing close: no guess, the list only
        ("replce", TRY_DEFAULTS, "replace"),
        ("lable", TRY_DEFAULTS, "label"),
        ("slide", ("chapter", "slides"), "slides"),
    ],
)
def test_an_unknown_key_suggests_the_likely_one(key, known, likely):
    said = unknown_key(key, known)
    assert said.startswith(f"unknown key '{key}'") and "known keys: " in said
    if likely:
        assert f": did you mean '{likely}'?" in said
    else:
        assert "did you mean" not in said


def test_unknown_keys_are_placed_on_their_own_line(tmp_path):
    (tmp_path / "c.yaml").write_text("slide:\n  - title: Uno\n")
    (tmp_path / "deck.yaml").write_text("title: P\nchapters: [c.yaml]\nprelud: x = 1\n")
    with pytest.raises(
        DeckError, match=r"deck\.yaml:3, field 'prelud': unknown key 'prelud': did you mean 'prelude'"
    ):
        load_deck(tmp_path / "deck.yaml")
    (tmp_path / "deck.yaml").write_text("title: P\nchapters: [c.yaml]\n")
    with pytest.raises(
        DeckError, match=r"c\.yaml:1, field 'slide': unknown key 'slide': did you mean 'slides'"
    ):
        load_deck(tmp_path / "deck.yaml")


def test_entries_are_counted_the_way_an_author_reads_the_file():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th",
    ]  # fmt: skip
    error = DeckError(
        "x", file="c.yaml", line=9, slide=1, title="Celda", field="try[1].replace", entry_label="ε = 2"
    )
    assert str(error) == "c.yaml:9, slide 1 «Celda», field 'try', 1st entry «ε = 2», key 'replace': x"
    assert error.field == "try[1].replace"  # the path stays, for programs
    assert "[1]" not in str(DeckError("x", field="hints[1]")) and "1st entry" in str(
        DeckError("x", field="hints[1]")
    )
    assert field_words("notes") == "field 'notes'"


def test_a_code_block_knows_the_file_line_of_its_first_line(tmp_path):
    (tmp_path / "c.yaml").write_text(
        "slides:\n  - kind: code\n    title: Uno\n    code: |\n      a = 1\n      print(a)\n"
        "  - {kind: code, title: Dos, code: 'b = 2'}\n"
        '  - kind: code\n    title: Tres\n    code: "c = 3\\nprint(c)"\n'
    )
    (tmp_path / "deck.yaml").write_text("title: P\nchapters: [c.yaml]\n")
    one, two, three = load_deck(tmp_path / "deck.yaml").slides
    assert (one.code_line, two.code_line, three.code_line) == (5, 7, None)  # "\n" in quotes: no map
