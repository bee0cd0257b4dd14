"""The offline manifest: every file the deck may fetch, so its Service Worker can keep them all.

``offline.json`` at the deck's root: ``{"version": ..., "files": [...]}``. ``files``: the URL
paths (relative to the root) of index.html, vendor/**, static-<hash>/** and assets/**, without
the .br/.gz siblings a compress step may add (the browser asks for the plain URL) and without the
benchmark's files. ``version``: the config's version (a digest of static/, dplab and the cell
runner) plus a digest of the list and of every listed file's bytes, so any shipped change (a slide's text, a
vendored package, an image) makes a new version. The same version is stamped into the root's
``sw.js``: its bytes change with every deploy, which is what makes a browser install the new
Service Worker, whose activation deletes the caches of the other versions. (So the build copies
sw.js here, after every other file.)
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

MANIFEST = "offline.json"
SW = "sw.js"
# in static/js/serviceworker/sw.js; replaced in the deck's copy by the version
VERSION_PLACEHOLDER = "__DPDECK_OFFLINE_VERSION__"
_ROOTS = ("vendor", "assets")
_SKIP_SUFFIXES = (".br", ".gz")
_SKIP_PREFIXES = ("bench",)  # bench/startup.py installs its baseline page as bench-baseline/


def offline_files(site: Path) -> list[str]:
    """The URL paths the deck may fetch, sorted, relative to ``site``."""
    files = []
    for path in sorted(p for p in site.rglob("*") if p.is_file()):
        rel = path.relative_to(site).as_posix()
        top = rel.split("/", 1)[0]
        if rel.endswith(_SKIP_SUFFIXES) or top.startswith(_SKIP_PREFIXES) or "__pycache__" in rel:
            continue
        if rel == "index.html" or ("/" in rel and (top in _ROOTS or top.startswith("static-"))):
            files.append(rel)
    return files


def write_offline_manifest(site: Path, config_version: str, sw_source: Path) -> str:
    """Write ``site/offline.json`` and ``site/sw.js`` (``sw_source`` stamped with the version, at
    the root so that its scope is the whole deck); return the version."""
    files = offline_files(site)
    digest = hashlib.sha256()
    for rel in files:
        digest.update(rel.encode() + b"\0")
        digest.update(hashlib.sha256((site / rel).read_bytes()).digest())
    version = f"{config_version}-{digest.hexdigest()[:12]}"
    (site / MANIFEST).write_text(json.dumps({"version": version, "files": files}, indent=0), encoding="utf-8")
    sw = sw_source.read_text(encoding="utf-8")
    (site / SW).write_text(sw.replace(VERSION_PLACEHOLDER, version), encoding="utf-8")
    return version
