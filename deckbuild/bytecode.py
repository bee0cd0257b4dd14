"""Ship bytecode: compile the vendored wheels and the stdlib zip once, at build time.

Measured (bench/): more than half of what Python spends importing numpy and matplotlib in the
browser is compiling ``.py`` files, on every visit, because Pyodide's wheels ship no ``.pyc``.
We compile them with Pyodide's own Python (``precompile.mjs`` under node), cache the result per
input file (by its sha256), and serve the compiled files; the served lock file carries their
new sha256, while the originals are still verified against Pyodide's official lock first.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

from .errors import DeckError

_HERE = Path(__file__).parent
SITE_PACKAGES = "/lib/python3.12/site-packages/"
STDLIB_ZIP = "/lib/python312.zip/"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _tool_version() -> str:
    """Changes when the compiler script changes, so old cached outputs are not reused."""
    data = (_HERE / "precompile.py").read_bytes() + (_HERE / "precompile.mjs").read_bytes()
    return hashlib.sha256(data).hexdigest()[:12]


def enabled() -> bool:
    return os.environ.get("DPDECK_NO_PYC", "") in ("", "0")


def compile_archives(archives: list[tuple[Path, bool]], node_modules: Path,
                     cache: Path) -> dict[Path, Path]:
    """For each (archive, is_stdlib_zip), the path of its compiled twin (cached)."""
    store = cache / f"pyc-{_tool_version()}"
    result: dict[Path, Path] = {}
    jobs = []
    for src, legacy in archives:
        dst = store / _digest(src)[:24] / src.name
        result[src] = dst
        if not dst.exists():
            dst.parent.mkdir(parents=True, exist_ok=True)
            jobs.append({"src": str(src), "dst": str(dst) + ".part",
                         "prefix": STDLIB_ZIP if legacy else SITE_PACKAGES, "legacy": legacy})
    if jobs:
        node = shutil.which("node")
        if node is None:
            raise DeckError("node is needed to precompile Python bytecode (or set DPDECK_NO_PYC=1)")
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
            json.dump(jobs, fh)
        try:
            proc = subprocess.run([node, str(_HERE / "precompile.mjs"), str(node_modules), fh.name],
                                  capture_output=True, text=True, check=False)
        finally:
            os.unlink(fh.name)
        if proc.returncode != 0:
            raise DeckError(f"precompiling bytecode failed: {proc.stderr.strip()[-800:]}")
        for job in jobs:
            Path(job["dst"]).replace(job["dst"][:-len(".part")])
    return result
