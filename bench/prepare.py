"""Before the visits: snapshot the project, build the deck, install the bare-Pyodide baseline.

The deck is snapshotted (deck/, static/, templates/, pyodide_pkg/) and built into a temporary
folder, so the browser and CPython run the same code while others edit the tree.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench"
SNAPSHOT = ("deck", "static", "templates", "pyodide_pkg")


def snapshot_project(work: Path) -> Path:
    """Copy what the build and the CPython run read, so both see the same code."""
    snap = work / "project"
    snap.mkdir()
    for name in SNAPSHOT:
        shutil.copytree(ROOT / name, snap / name, ignore=shutil.ignore_patterns("__pycache__"))
    (snap / "node_modules").symlink_to(ROOT / "node_modules")
    return snap


def snapshot_ref(
    work: Path, ref: str | None, paths: tuple[str, ...] = SNAPSHOT, name: str = "project-before"
) -> Path:
    """The same folders as ``snapshot_project`` (or ``paths``), as git commit ``ref`` has them
    (the deck "before", built by the same build code and measured in the same run), in
    ``work/name``; ``ref`` None: as they are on disk now, uncommitted edits included."""
    snap = work / name
    snap.mkdir()
    command = ["tar", "-c", *paths] if ref is None else ["git", "archive", ref, *paths]
    archive = subprocess.run(command, cwd=ROOT, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(snap)], input=archive, check=True)
    (snap / "node_modules").symlink_to(ROOT / "node_modules")
    return snap


def build_site(snap: Path, out: Path, dist: Path | None) -> Path:
    """Build the snapshot into ``out`` (or copy an existing build, ``dist``)."""
    if dist is not None:
        shutil.copytree(dist, out, symlinks=True)
        return out
    from dpdeck.build.site import Project, build

    build(Project(snap), dist=out)
    return out


def read_deck_config(site: Path) -> dict:
    html = (site / "index.html").read_text(encoding="utf-8")
    m = re.search(r'<script type="application/json" id="deck-config">(.*?)</script>', html, re.S)
    if not m:
        raise SystemExit("error: no deck-config in the built index.html")
    return json.loads(m.group(1).replace("<\\/", "</"))


def read_lock(site: Path, config: dict) -> dict:
    return json.loads((site / config["pyodideIndex"] / "pyodide-lock.json").read_text())


def next_pyodide(version: str) -> Path:
    """npm's ``pyodide@version`` in the benchmark's cache (not in the project's package.json):
    its core only (the wheels are not on npm)."""
    from dpdeck.build import pyodide_dist

    prefix = pyodide_dist.cache_dir() / f"bench-pyodide-{version}"
    core = prefix / "node_modules" / "pyodide"
    if not (core / "pyodide.asm.wasm").exists():
        print(f"installing npm pyodide@{version} into {prefix} (the benchmark's cache)…", flush=True)
        prefix.mkdir(parents=True, exist_ok=True)
        npm = [
            "npm",
            "install",
            "--no-save",
            "--no-package-lock",
            "--ignore-scripts",
            "--prefix",
            str(prefix),
        ]
        subprocess.run(
            [*npm, f"pyodide@{version}"], check=True, env=os.environ | {"npm_config_fund": "false"}
        )
    return core


def install_next_pyodide(site: Path, config: dict, version: str, timeout_ms: int) -> str:
    """A newer bare Pyodide (its core, from npm) and the baseline page for it, in
    ``<site>/bench-baseline-<version>/``; its visits time core ready (numpy's wheels are not
    among the files npm ships, so the later steps fail and are not counted)."""
    from dpdeck.build import compress, pyodide_dist

    core = next_pyodide(version)
    index = f"vendor/pyodide-official-{version}/"
    folder = site / index
    folder.mkdir(parents=True)
    for f in core.iterdir():
        if f.suffix in {".mjs", ".js", ".wasm", ".zip", ".json"} and f.name != "package.json":
            shutil.copy2(f, folder / f.name)
    compress.precompress(folder, pyodide_dist.cache_dir())
    return install_baseline(site, config, timeout_ms, index, f"bench-baseline-{version}")


def install_official_pyodide(site: Path) -> str:
    """Bare Pyodide as its release ships it, next to the deck's files: the official core,
    stdlib and lock, and the original wheels (the deck serves them with added bytecode)."""
    from dpdeck.build import compress, pyodide_dist

    core = ROOT / "node_modules" / "pyodide"
    lock = json.loads((core / "pyodide-lock.json").read_text())
    index = f"vendor/pyodide-official-{lock['info']['version']}/"
    folder = site / index
    folder.mkdir(parents=True)
    for name in pyodide_dist.PYODIDE_CORE:
        shutil.copy2(core / name, folder / name)
    for wheel in pyodide_dist.ensure_wheels(lock, pyodide_dist.cache_dir()):
        shutil.copy2(wheel, folder / wheel.name)
    # served compressed where the browser accepts it, as a CDN serves Pyodide's release and as
    # the deck's own files are: the comparison is of what is sent, not of who compresses
    compress.precompress(folder, pyodide_dist.cache_dir())
    return index


def install_baseline(
    site: Path, config: dict, timeout_ms: int, index: str | None = None, name: str = "bench-baseline"
) -> str:
    """bench/baseline.html and its worker into ``<site>/<name>/`` (by default for the official
    Pyodide the deck is built from); returns the folder's name."""
    folder = site / name
    folder.mkdir()
    bench_config = {k: config.get(k) for k in ("wheel", "prelude")}
    bench_config["pyodideIndex"] = index or install_official_pyodide(site)
    bench_config["timeoutMs"] = timeout_ms
    text = json.dumps(bench_config, ensure_ascii=False).replace("</", "<\\/")
    html = (BENCH / "baseline.html").read_text(encoding="utf-8").replace("__BENCH_CONFIG__", text)
    (folder / "index.html").write_text(html, encoding="utf-8")
    for script in ("baseline.js", "baseline-worker.js"):
        shutil.copy2(BENCH / script, folder / script)
    return name


def worker_regex(site: Path, config: dict) -> str | None:
    """The deck worker's NEEDS_MATPLOTLIB test (a regex source), if it still has one."""
    path = site / config["assets"]["static"] / "js" / "worker" / "worker.js"
    try:
        m = re.search(r"NEEDS_MATPLOTLIB\s*=\s*/(.+?)/([a-z]*);", path.read_text(encoding="utf-8"))
    except OSError:
        return None
    if not m:
        return None
    flags = "(?i)" if "i" in m.group(2) else ""
    try:
        return re.compile(flags + m.group(1)).pattern
    except re.error:
        return None
