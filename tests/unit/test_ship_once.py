"""Each byte shipped once: the served stdlib zip and wheels carry bytecode instead of sources,
nothing the deck never loads, and a manifest that ties each rewritten file to its verified
original; two builds give the same bytes."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from dpdeck.build import bytecode, precompile, pyodide_dist
from dpdeck.build.site import Project, build
from tests.support.paths import FIXTURES, ROOT

LOCK = json.loads((ROOT / "node_modules" / "pyodide" / "pyodide-lock.json").read_text())


def _index(site: Path) -> Path:
    (index,) = site.glob("vendor/pyodide-*")
    return index


def _archives(index: Path) -> list[Path]:
    return sorted(index.glob("*.whl")) + [index / "python_stdlib.zip"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_no_source_beside_its_bytecode(built: Path):
    for archive in _archives(_index(built)):
        names = set(zipfile.ZipFile(archive).namelist())
        pycs = {n for n in names if n.endswith(".pyc")}
        assert pycs, f"{archive.name} ships no bytecode"
        both = sorted(n for n in pycs if n[:-1] in names)
        assert not both, f"{archive.name} ships source and bytecode: {both[:5]}"
        # sourceless modules are only found at the legacy place, never in __pycache__
        assert not [n for n in names if "__pycache__/" in n], archive.name
        assert not [n for n in names if n.endswith(".pyi")], archive.name
    stdlib = set(zipfile.ZipFile(_index(built) / "python_stdlib.zip").namelist())
    assert "json/__init__.pyc" in stdlib and "json/__init__.py" not in stdlib


def test_the_deck_own_code_keeps_its_sources(built: Path):
    (wheel,) = built.glob("static-*/wheels/dplab-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "dplab/__init__.py" in names and not [n for n in names if n.endswith(".pyc")]
    (runner,) = built.glob("static-*/wheels/cellrunner-*.whl")
    names = zipfile.ZipFile(runner).namelist()
    assert "cellrunner/session.py" in names and not [n for n in names if n.endswith(".pyc")]


def test_unused_files_are_not_shipped(built: Path):
    index = _index(built)
    for archive in _archives(index):
        names = zipfile.ZipFile(archive).namelist()
        assert not [n for n in names if re.search(r"(^|/)tests?/", n)], archive.name
    mpl = zipfile.ZipFile(index / LOCK["packages"]["matplotlib"]["file_name"])
    names = mpl.namelist()
    assert not [n for n in names if "sample_data" in n or "DejaVuSerif" in n or "/afm/" in n]
    for font in (
        "DejaVuSans.ttf",
        "DejaVuSans-Bold.ttf",
        "DejaVuSansMono.ttf",
        "STIXGeneral.ttf",
        "cmr10.ttf",
    ):
        assert f"matplotlib/mpl-data/fonts/ttf/{font}" in names, font
    # the font list names exactly the fonts that ship
    fonts = json.loads(mpl.read("matplotlib/fontlist.json"))
    # (paths relative to mpl-data, as matplotlib writes those of its own fonts)
    listed = {"matplotlib/mpl-data/" + f["fname"] for f in fonts["ttflist"] + fonts["afmlist"]}
    assert listed and listed <= set(names), sorted(listed - set(names))
    assert any(n.endswith("DejaVuSans.ttf") for n in listed)
    # the wheel's RECORD lists what it holds
    record = mpl.read(next(n for n in names if n.endswith(".dist-info/RECORD"))).decode()
    assert {line.split(",")[0] for line in record.splitlines()} == set(names) - {
        n for n in names if n.endswith("/")
    }


def test_manifest_ties_each_served_file_to_its_verified_original(built: Path):
    index = _index(built)
    manifest = json.loads((index / pyodide_dist.MANIFEST).read_text())
    assert manifest["pyodide"] == LOCK["info"]["version"]
    served = json.loads((index / "pyodide-lock.json").read_text())["packages"]
    official = {e["file_name"]: e["sha256"] for e in LOCK["packages"].values()}
    entries = {e["file"]: e for e in manifest["files"]}
    assert set(entries) == {p.name for p in _archives(index)}
    for name, entry in entries.items():
        assert entry["sha256"] == _sha256(index / name), name
        if name == "python_stdlib.zip":
            assert entry["original"]["sha256"] == _sha256(ROOT / "node_modules" / "pyodide" / name)
        else:
            assert entry["original"]["sha256"] == official[name], name
            assert [p["sha256"] for p in served.values() if p["file_name"] == name] == [entry["sha256"]]
        assert entry["bytecode"] > 0 and entry["sourcesDropped"] > 0, name
    mpl = entries[LOCK["packages"]["matplotlib"]["file_name"]]
    assert mpl["fontlist"] == pyodide_dist.FONT_LIST and mpl["trimmed"] > 0


def test_two_builds_give_the_same_bytes(built: Path, tmp_path: Path):
    again = tmp_path / "dist"
    build(Project(ROOT), deck_file=FIXTURES / "good" / "deck.yaml", dist=again)
    first, second = _index(built), _index(again)
    files = sorted(p.name for p in first.iterdir())
    assert files == sorted(p.name for p in second.iterdir())
    for name in files:
        assert (first / name).read_bytes() == (second / name).read_bytes(), name


def test_rewriting_is_reproducible_uncached(tmp_path: Path):
    """The rewrite itself (not only the cache) gives the same bytes twice."""
    stdlib = ROOT / "node_modules" / "pyodide" / "python_stdlib.zip"
    wheels = {w.name: w for w in pyodide_dist.ensure_wheels(LOCK, pyodide_dist.cache_dir())}
    six = wheels[LOCK["packages"]["six"]["file_name"]]
    outputs = []
    for run in ("a", "b"):
        jobs = {"compile": [], "fontCache": None}
        for src, legacy in ((stdlib, True), (six, False)):
            dst = tmp_path / run / src.name
            dst.parent.mkdir(parents=True, exist_ok=True)
            prefix = bytecode.STDLIB_ZIP if legacy else bytecode.SITE_PACKAGES
            job = {
                "src": str(src),
                "dst": str(dst),
                "prefix": prefix,
                "legacy": legacy,
                "stored": bytecode.STORED,
            }
            jobs["compile"].append(job)
        bytecode._run(jobs, ROOT / "node_modules")
        outputs.append([(tmp_path / run / src.name).read_bytes() for src in (stdlib, six)])
    assert outputs[0] == outputs[1]


def _pyc_zip(tmp_path: Path, legacy: bool) -> Path:
    """A tiny archive with a package, rewritten by precompile.py under this CPython."""
    src = tmp_path / "in.zip"
    with zipfile.ZipFile(src, "w") as z:
        z.writestr("pkg/__init__.py", "from .mod import answer\n")
        z.writestr("pkg/mod.py", "def answer():\n    return 42\n")
        z.writestr("pkg/template.py", "{% if python %}\n")
    dst = tmp_path / "out.zip"
    precompile.precompile(str(src), str(dst), "/x/", legacy, True)
    return dst


def test_sourceless_legacy_bytecode_imports_from_a_zip(tmp_path: Path):
    dst = _pyc_zip(tmp_path, legacy=True)
    assert sorted(zipfile.ZipFile(dst).namelist()) == ["pkg/__init__.pyc", "pkg/mod.pyc", "pkg/template.py"]
    pyc = zipfile.ZipFile(dst).read("pkg/mod.pyc")
    assert pyc[:4] == importlib.util.MAGIC_NUMBER and pyc[4:8] == (0b01).to_bytes(4, "little")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import pkg.mod; print(pkg.answer(), pkg.mod.__file__)"
    )
    out = subprocess.run([sys.executable, "-I", "-c", code, str(dst)], capture_output=True)
    assert out.returncode == 0, out.stderr.decode()
    assert out.stdout.decode().split() == ["42", str(dst / "pkg" / "mod.pyc")]


def test_sourceless_legacy_bytecode_imports_from_a_folder(tmp_path: Path):
    """What an unpacked wheel is: Python finds ``pkg/x.pyc``, but never ``__pycache__`` alone."""
    dst = _pyc_zip(tmp_path, legacy=False)
    site = tmp_path / "site"
    zipfile.ZipFile(dst).extractall(site)
    code = "import sys; sys.path.insert(0, sys.argv[1]); import pkg; print(pkg.answer())"
    out = subprocess.run([sys.executable, "-I", "-c", code, str(site)], capture_output=True)
    assert out.returncode == 0 and out.stdout.strip() == b"42", out.stderr.decode()
    # the same bytecode only in __pycache__ is not imported (PEP 3147): the legacy place matters
    cache = site / "pkg" / "__pycache__"
    cache.mkdir()
    tag = sys.implementation.cache_tag
    for name in ("__init__", "mod"):
        (site / "pkg" / f"{name}.pyc").rename(cache / f"{name}.{tag}.pyc")
    out = subprocess.run([sys.executable, "-I", "-c", code, str(site)], capture_output=True)
    assert out.returncode != 0


@pytest.mark.parametrize(
    "name", ["matplotlib/mpl-data/sample_data/x.npy", "numpy/_core/tests/t.py", "a/b.pyi"]
)
def test_trim_rules(name: str):
    assert precompile.TRIM.search(name)


@pytest.mark.parametrize(
    "name", ["matplotlib/testing/decorators.py", "matplotlib/mpl-data/fonts/ttf/DejaVuSans.ttf"]
)
def test_trim_keeps(name: str):
    assert not precompile.TRIM.search(name)
