"""Runs inside Pyodide (under node, at build time): ship each byte once. Rewrite a wheel or
the stdlib zip with bytecode in place of sources and without what the deck never loads; and
build matplotlib's font list (``font_cache``), which its first import otherwise builds in the
browser on every visit.

Each ``x.py`` becomes an *unchecked hash-based* ``x.pyc`` (PEP 552) at the legacy place beside
where ``x.py`` was: the only place Python (and zipimport, for the stdlib zip) imports a module
without source from (PEP 3147 ignores ``__pycache__`` then). The source is kept when it does
not compile (a template: Python would not import it either). Library frames of a traceback
then show no source line; the deck's own code (dplab, the cell runner) is not rewritten.

Dropped (``TRIM``): test packages, matplotlib's sample data, the fonts no default font lookup
or mathtext fontset (dejavusans, cm, stix) uses, and type stubs. The wheel's ``RECORD`` is
rewritten to list what it holds. Members keep their dates and order (reproducible builds).
"""

import csv
import hashlib
import importlib._bootstrap_external as _bootstrap
import importlib.util
import io
import re
import zipfile
from base64 import urlsafe_b64encode

# What a wheel loses: nothing imports it in the browser (the deck's figures use the default
# DejaVu Sans and mathtext's dejavusans set, which needs DejaVu Sans (Mono, Display), STIX and
# the Computer Modern cm*10 fonts; AFM fonts serve only PostScript/PDF core-font output).
TRIM = re.compile(
    r"(^|/)tests?/"
    r"|^matplotlib/mpl-data/sample_data/"
    r"|^matplotlib/mpl-data/fonts/(afm|pdfcorefonts)/"
    r"|^matplotlib/mpl-data/fonts/ttf/(DejaVuSerif|Humor-Sans)"
    r"|\.pyi$"
)
# Sources some code reads as data, kept beside their bytecode (none found in these wheels).
KEEP_SOURCE = re.compile(r"$^")


def _record_hash(data):
    return "sha256=" + urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def precompile(src, dst, prefix, legacy, stored):
    """Rewrite archive ``src`` into ``dst``; return what was done (counts, for the manifest).

    ``legacy``: the stdlib zip (no wheel RECORD, nothing trimmed). ``stored``: members
    uncompressed (the served file is compressed as a whole, brotli/gzip), else deflated.
    """
    method = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    done = {"bytecode": 0, "sourcesDropped": 0, "sourcesKept": 0, "trimmed": 0, "trimmedBytes": 0}
    out = []  # (ZipInfo, data), in the input's order
    record = None
    with zipfile.ZipFile(src) as zin:
        for info in zin.infolist():
            name = info.filename
            if not legacy and TRIM.search(name):
                done["trimmed"] += 1
                done["trimmedBytes"] += info.file_size
                continue
            data = zin.read(info)
            if not legacy and name.endswith(".dist-info/RECORD"):
                record = info
                continue
            if not name.endswith(".py"):
                out.append((info, data))
                continue
            try:
                code = compile(data, prefix + name, "exec", dont_inherit=True)
            except SyntaxError:
                out.append((info, data))  # e.g. a template file: Python would not import it either
                done["sourcesKept"] += 1
                continue
            pyc = _bootstrap._code_to_hash_pyc(code, importlib.util.source_hash(data), False)  # type: ignore[attr-defined]  # importlib's own, not in its stubs
            entry = zipfile.ZipInfo(name[:-3] + ".pyc", date_time=info.date_time)
            entry.external_attr = info.external_attr
            if KEEP_SOURCE.search(name):
                out.append((info, data))
                done["sourcesKept"] += 1
            else:
                done["sourcesDropped"] += 1
            out.append((entry, pyc))
            done["bytecode"] += 1
    if record is not None:
        lines = io.StringIO()
        writer = csv.writer(lines, lineterminator="\n")
        for info, data in out:
            writer.writerow([info.filename, _record_hash(data), len(data)])
        writer.writerow([record.filename, "", ""])
        out.append((record, lines.getvalue().encode()))
    with zipfile.ZipFile(dst, "w") as zout:
        for info, data in out:
            entry = zipfile.ZipInfo(info.filename, date_time=info.date_time)
            entry.external_attr = info.external_attr
            entry.create_system = info.create_system
            entry.compress_type = method
            zout.writestr(entry, data, compresslevel=9 if not stored else None)
    return done


def font_cache():
    """Import matplotlib's font manager, which builds its font list; return the list's path.

    Pyodide's matplotlib keeps that list beside ``font_manager.py`` (``fontlist.json``) and
    builds it on first import when it is missing; shipped inside the wheel, it is read instead.
    The wheel loaded here is the trimmed one, so the list names only the fonts that ship.
    """
    import os

    import matplotlib.font_manager as font_manager

    path = os.path.join(os.path.dirname(font_manager.__file__), "fontlist.json")
    assert os.path.exists(path), "matplotlib did not write its font list"
    return path
