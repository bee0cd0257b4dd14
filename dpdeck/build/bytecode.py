"""Ship what Python would otherwise redo on every visit: bytecode and matplotlib's font list;
and ship each byte once: bytecode *instead of* sources, without what the deck never loads.

Measured (bench/): more than half of what Python spends importing numpy and matplotlib in the
browser is compiling ``.py`` files, on every visit, because Pyodide's wheels ship no ``.pyc``.
We compile them with Pyodide's own Python (``precompile.mjs`` under node), drop the sources and
the unused files (``precompile.py`` says which), cache the result per input file (by its
sha256), and serve the rewritten files; the served lock file carries their new sha256, while
the originals are still verified against Pyodide's official lock first.
The same run builds matplotlib's font list (~200 ms of its first import in the browser), which
ships inside the matplotlib wheel where Pyodide's matplotlib looks for it (``fontlist.json``).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from . import tools
from .files import sha256

_HERE = Path(__file__).parent
SITE_PACKAGES = "/lib/python3.12/site-packages/"
STDLIB_ZIP = "/lib/python312.zip/"
# Zip members stored, not deflated: the served archives are compressed whole (brotli, gzip
# siblings), which finds the redundancy across members that per-member deflate cannot. For a
# host that sends .whl/.zip files as they are (no siblings, no compression on the fly),
# DPDECK_DEFLATE_ARCHIVES=1 deflates each member instead (bench/README.md, "Stored zip members").
STORED = os.environ.get("DPDECK_DEFLATE_ARCHIVES", "") in ("", "0")


def tool_version() -> str:
    """Changes when the compiler script or its options change, so old cached outputs are not reused."""
    data = (_HERE / "precompile.py").read_bytes() + (_HERE / "precompile.mjs").read_bytes()
    data += f"stored={STORED}".encode()
    return hashlib.sha256(data).hexdigest()[:12]


def enabled() -> bool:
    return os.environ.get("DPDECK_NO_PYC", "") in ("", "0")


def _run(jobs: dict, node_modules: Path) -> None:
    purpose = "precompiling Python bytecode for Pyodide"
    hint = "Set DPDECK_NO_PYC=1 to ship the wheels as released."
    node = tools.which("node", purpose, "Install Node.js (>= 20), or " + hint)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(jobs, fh)
    try:
        tools.run([node, _HERE / "precompile.mjs", node_modules, fh.name], purpose, hint=hint)
    finally:
        os.unlink(fh.name)


def _finish(jobs: list[dict], part: str) -> None:
    for job in jobs:
        for suffix in ("", ".json"):
            if Path(job["dst"] + suffix).exists():
                Path(job["dst"] + suffix).replace(job["dst"][: -len(part)] + suffix)


def stats(compiled: Path) -> dict:
    """What the build did to an archive (precompile.py's counts), kept beside it in the cache."""
    return json.loads(compiled.with_name(compiled.name + ".json").read_text())


def prepare(
    archives: list[tuple[Path, bool]], font_wheels: list[Path], node_modules: Path, cache: Path
) -> tuple[dict[Path, Path], Path]:
    """For each (archive, is_stdlib_zip), the path of its rewritten twin (:func:`stats` tells
    what was done to it); and the font list built from the rewritten ``font_wheels``
    (matplotlib and its dependencies), so it names only the fonts that ship. All cached by
    input sha256, under a folder named after the tool's version."""
    store = cache / f"pyc-{tool_version()}"
    part = f".part{os.getpid()}"  # two builds at once (tests, a serve) never share a half-written file
    compiled: dict[Path, Path] = {}
    jobs: dict = {"compile": [], "fontCache": None}
    for src, legacy in archives:
        dst = store / sha256(src)[:24] / src.name
        compiled[src] = dst
        if not (dst.exists() and dst.with_name(dst.name + ".json").exists()):
            dst.parent.mkdir(parents=True, exist_ok=True)
            jobs["compile"].append(
                {
                    "src": str(src),
                    "dst": str(dst) + part,
                    "prefix": STDLIB_ZIP if legacy else SITE_PACKAGES,
                    "legacy": legacy,
                    "stored": STORED,
                }
            )
    if jobs["compile"]:
        _run(jobs, node_modules)
        _finish(jobs["compile"], part)
    # the font list is built from the rewritten wheels: trimmed fonts must not be listed
    rewritten = [compiled.get(w, w) for w in font_wheels]
    fonts_key = hashlib.sha256("".join(sorted(sha256(w) for w in rewritten)).encode())
    font_list = store / f"fonts-{fonts_key.hexdigest()[:24]}" / "fontlist.json"
    if not font_list.exists():
        font_list.parent.mkdir(parents=True, exist_ok=True)
        job = {"wheels": [str(w) for w in rewritten], "dst": str(font_list) + part}
        _run({"compile": [], "fontCache": job}, node_modules)
        _finish([job], part)
    return compiled, font_list
