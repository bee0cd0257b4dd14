"""Build a package of pyodide_pkg/ (dplab, the cell runner) into a pure-Python wheel that the
page loads."""

from __future__ import annotations

import base64
import hashlib
import re
import zipfile
from pathlib import Path

from .errors import BuildEnvironmentError

# A fixed timestamp makes the wheel byte-identical for identical sources.
_EPOCH = (2020, 1, 1, 0, 0, 0)


def package_version(pkg_dir: Path) -> str:
    init = (pkg_dir / "__init__.py").read_text(encoding="utf-8")
    match = re.search(r'^__version__\s*=\s*["\']([^"\']+)["\']', init, re.M)
    return match.group(1) if match else "0.0.0"


def _record_hash(data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"sha256={digest}"


def build_wheel(src_root: Path, name: str, out_dir: Path, requires: tuple[str, ...] = ("numpy",)) -> Path:
    """Zip ``src_root/name`` into ``name-VERSION-py3-none-any.whl`` in ``out_dir``; its metadata
    names ``requires`` as its dependencies."""
    pkg_dir = src_root / name
    if not (pkg_dir / "__init__.py").exists():
        raise BuildEnvironmentError(f"{pkg_dir} is not a Python package (no __init__.py)")
    version = package_version(pkg_dir)
    dist_info = f"{name}-{version}.dist-info"
    files: dict[str, bytes] = {}
    for path in sorted(pkg_dir.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        files[path.relative_to(src_root).as_posix()] = path.read_bytes()
    files[f"{dist_info}/METADATA"] = (
        f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        f"Summary: {name}, the Python package of a live deck\n"
        + "".join(f"Requires-Dist: {dep}\n" for dep in requires)
    ).encode()
    files[f"{dist_info}/WHEEL"] = (
        b"Wheel-Version: 1.0\nGenerator: dpdeck\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = "".join(f"{n},{_record_hash(d)},{len(d)}\n" for n, d in files.items())
    files[f"{dist_info}/RECORD"] = (record + f"{dist_info}/RECORD,,\n").encode()
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
        for arcname, data in files.items():
            info = zipfile.ZipInfo(arcname, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            zf.writestr(info, data)
    return wheel
