"""Runs inside Pyodide (under node, at build time): add bytecode to a wheel or a zip, and
build matplotlib's font list (``font_cache``), which its first import otherwise builds in the
browser on every visit.

Each ``x.py`` gets an *unchecked hash-based* ``.pyc`` (PEP 552): Python uses it without
looking at the source's timestamp, which unpacking in the browser would change. Sources stay,
so tracebacks still quote library lines. Wheels get ``__pycache__/x.cpython-312.pyc``; the
stdlib zip (read by zipimport) gets ``x.pyc`` beside ``x.py``.
"""

import importlib._bootstrap_external as _bootstrap
import importlib.util
import posixpath
import sys
import zipfile


def precompile(src, dst, prefix, legacy):
    tag = sys.implementation.cache_tag
    compiled = 0
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w", zipfile.ZIP_DEFLATED) as zout:
        for info in zin.infolist():
            data = zin.read(info)
            zout.writestr(info, data)
            if not info.filename.endswith(".py"):
                continue
            try:
                code = compile(data, prefix + info.filename, "exec", dont_inherit=True)
            except SyntaxError:
                continue  # e.g. a template file: Python would not import it either
            pyc = _bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), False)
            folder, name = posixpath.split(info.filename)
            target = (
                info.filename[:-3] + ".pyc"
                if legacy
                else posixpath.join(folder, "__pycache__", f"{name[:-3]}.{tag}.pyc")
            )
            entry = zipfile.ZipInfo(target, date_time=info.date_time)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = info.external_attr
            zout.writestr(entry, pyc)
            compiled += 1
    return compiled


def font_cache():
    """Import matplotlib's font manager, which builds its font list; return the list's path.

    Pyodide's matplotlib keeps that list beside ``font_manager.py`` (``fontlist.json``) and
    builds it on first import when it is missing; shipped inside the wheel, it is read instead.
    """
    import os

    import matplotlib.font_manager as font_manager

    path = os.path.join(os.path.dirname(font_manager.__file__), "fontlist.json")
    assert os.path.exists(path), "matplotlib did not write its font list"
    return path
