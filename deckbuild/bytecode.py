"""Ship what Python would otherwise redo on every visit: bytecode and matplotlib's font list.

Measured (bench/): more than half of what Python spends importing numpy and matplotlib in the
browser is compiling ``.py`` files, on every visit, because Pyodide's wheels ship no ``.pyc``.
We compile them with Pyodide's own Python (``precompile.mjs`` under node), cache the result per
input file (by its sha256), and serve the compiled files; the served lock file carries their
new sha256, while the originals are still verified against Pyodide's official lock first.
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


def _tool_version() -> str:
    """Changes when the compiler script changes, so old cached outputs are not reused."""
    data = (_HERE / "precompile.py").read_bytes() + (_HERE / "precompile.mjs").read_bytes()
    return hashlib.sha256(data).hexdigest()[:12]


def enabled() -> bool:
    return os.environ.get("DPDECK_NO_PYC", "") in ("", "0")


def _run(jobs: dict, node_modules: Path) -> None:
    purpose = "precompiling Python bytecode for Pyodide"
    hint = "Set DPDECK_NO_PYC=1 to ship the wheels as released."
    node = tools.which("node", purpose, "Install Node.js (>= 18), or " + hint)
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(jobs, fh)
    try:
        tools.run([node, _HERE / "precompile.mjs", node_modules, fh.name], purpose, hint=hint)
    finally:
        os.unlink(fh.name)


def prepare(
    archives: list[tuple[Path, bool]], font_wheels: list[Path], node_modules: Path, cache: Path
) -> tuple[dict[Path, Path], Path]:
    """For each (archive, is_stdlib_zip), the path of its compiled twin; and the font list
    built from ``font_wheels`` (matplotlib and its dependencies). All cached by input sha256."""
    store = cache / f"pyc-{_tool_version()}"
    part = f".part{os.getpid()}"  # two builds at once (tests, a serve) never share a half-written file
    compiled: dict[Path, Path] = {}
    jobs: dict = {"compile": [], "fontCache": None}
    for src, legacy in archives:
        dst = store / sha256(src)[:24] / src.name
        compiled[src] = dst
        if not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            jobs["compile"].append(
                {
                    "src": str(src),
                    "dst": str(dst) + part,
                    "prefix": STDLIB_ZIP if legacy else SITE_PACKAGES,
                    "legacy": legacy,
                }
            )
    fonts_key = hashlib.sha256("".join(sorted(sha256(w) for w in font_wheels)).encode())
    font_list = store / f"fonts-{fonts_key.hexdigest()[:24]}" / "fontlist.json"
    if not font_list.exists():
        font_list.parent.mkdir(parents=True, exist_ok=True)
        jobs["fontCache"] = {"wheels": [str(w) for w in font_wheels], "dst": str(font_list) + part}
    if jobs["compile"] or jobs["fontCache"]:
        _run(jobs, node_modules)
        for job in jobs["compile"] + ([jobs["fontCache"]] if jobs["fontCache"] else []):
            Path(job["dst"]).replace(job["dst"][: -len(part)])
    return compiled, font_list
