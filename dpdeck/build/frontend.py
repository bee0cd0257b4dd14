"""The page's front-end files, copied from node_modules into dist/vendor.

reveal.js (with its notes plugin), KaTeX's CSS and fonts, and CodeMirror 6 as ES modules behind
an import map: the page fetches nothing from another host. A missing or changed npm package is
a :class:`~dpdeck.build.errors.BuildEnvironmentError` (run ``npm ci``), never a deck error.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import re
from pathlib import Path

from .errors import BuildEnvironmentError
from .files import copy

# CodeMirror's entry points; their npm dependency closure is vendored with them.
CODEMIRROR_ENTRIES = ("codemirror", "@codemirror/lang-python")
# reveal.js 6 ships its ES modules as dist/*.mjs (5 had dist/reveal.esm.js and
# plugin/notes/notes.esm.js); the import map points at these two.
REVEAL_ESM = "dist/reveal.mjs"
NOTES_PLUGIN = "dist/plugin/notes.mjs"
REVEAL_FILES = (REVEAL_ESM, "dist/reveal.css", "dist/reset.css", NOTES_PLUGIN)
KATEX_FILES = ("dist/katex.min.css",)


# A static import or re-export of a relative module: `import x from "./a.js"`, `import "./a.js"`,
# `export { y } from "./a.js"`; not `import("./a.js")`, which loads when the code asks.
STATIC_IMPORT = re.compile(
    r"""^\s*(?:import|export)\s+(?:[^"';()]*?\s+from\s+)?["'](\.{1,2}/[^"']+)["']""", re.M
)


def static_imports(folder: Path, entry: str) -> list[str]:
    """The modules ``entry`` (a path under ``folder``) imports statically, and theirs, in the
    order a browser finds them (breadth first), as paths under ``folder``; ``entry`` excluded.
    A module script runs only once all of these are fetched, and a browser finds each level only
    after fetching the one before: the page names them all up front (``modulepreload``)."""
    found, queue = [], [entry]
    while queue:
        module = queue.pop(0)
        source = (folder / module).read_text(encoding="utf-8")
        for spec in STATIC_IMPORT.findall(source):
            path = posixpath.normpath(posixpath.join(posixpath.dirname(module), spec))
            if path != entry and path not in found:
                found.append(path)
                queue.append(path)
    return found


def package_json(node_modules: Path, name: str) -> dict:
    """The package.json of npm package ``name``."""
    path = node_modules / name / "package.json"
    if not path.exists():
        raise BuildEnvironmentError(f"npm package {name} is missing from {node_modules}: run `npm ci`")
    return json.loads(path.read_text())


def npm_version(node_modules: Path, name: str) -> str:
    return package_json(node_modules, name)["version"]


# The speaker view (an HTML string in the notes plugin, with its one inline script) in Spanish:
# each English text of reveal.js 6.0's speaker view, as it is written in the bundle, and its
# Spanish; each must be found exactly once, or the build stops (a reveal.js it does not know).
SPEAKER_VIEW_ES = (
    ('lang=\\"en\\"', 'lang=\\"es\\"'),
    ("<title>reveal.js - Speaker View</title>", "<title>Vista del presentador</title>"),
    ("Loading speaker view...", "Cargando la vista del presentador…"),
    (">Upcoming<", ">A continuación<"),
    (">Time <span", ">Tiempo <span"),
    (">Click to Reset<", ">Pulse para reiniciar<"),
    ("0:00 AM", "0:00"),
    ("Pacing – Time to finish current slide", "Ritmo: tiempo para terminar esta diapositiva"),
    (">Notes<", ">Notas<"),
    ("'default': 'Default'", "'default': 'Normal'"),
    ("'wide': 'Wide'", "'wide': 'Ancha'"),
    ("'tall': 'Tall'", "'tall': 'Alta'"),
    ("'notes-only': 'Notes only'", "'notes-only': 'Solo notas'"),
    ("'Layout' +", "'Disposición' +"),
    (
        "Cross origin error.<br>The speaker window can only be opened from the same origin.",
        "Error de origen.<br>La vista del presentador solo se abre desde la misma dirección que la presentación.",
    ),
    (
        "Error connecting to main window.<br>Please try closing and reopening the speaker view.",
        "No se pudo conectar con la ventana principal.<br>Cierre la vista del presentador y ábrala de nuevo (S).",
    ),
    ("toLocaleTimeString( 'en-US', { hour12: true,", "toLocaleTimeString( 'es-ES', { hour12: false,"),
)


def notes_plugin(node_modules: Path) -> str:
    """reveal.js's notes plugin with its speaker view in Spanish (SPEAKER_VIEW_ES)."""
    bundle = node_modules / "reveal.js" / NOTES_PLUGIN
    if not bundle.exists():
        raise BuildEnvironmentError(f"{bundle} is missing: run `npm ci`")
    text = bundle.read_text(encoding="utf-8")
    _speaker_view_html(text)  # the shape this build knows, or a BuildEnvironmentError
    for english, spanish in SPEAKER_VIEW_ES:
        if text.count(english) != 1:
            raise _notes_plugin_error(f"{english!r} found {text.count(english)} times, not once")
        text = text.replace(english, spanish)
    return text


def vendor_reveal_katex(node_modules: Path, out: Path) -> None:
    """reveal.js into ``out/reveal`` (its speaker view in Spanish), KaTeX's stylesheet and woff2
    fonts into ``out/katex``."""
    for rel in REVEAL_FILES:
        copy(node_modules / "reveal.js" / rel, out / "reveal" / rel)
    (out / "reveal" / NOTES_PLUGIN).write_text(notes_plugin(node_modules), encoding="utf-8")
    for rel in KATEX_FILES:
        copy(node_modules / "katex" / rel, out / "katex" / rel)
    fonts = node_modules / "katex" / "dist" / "fonts"
    for font in fonts.glob("*.woff2"):  # every browser we target reads woff2
        copy(font, out / "katex" / "dist" / "fonts" / font.name)


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
    raise BuildEnvironmentError(f"npm package {pkg.get('name')} has no ES module entry point")


def vendor_codemirror(node_modules: Path, out: Path, url_prefix: str) -> dict[str, str]:
    """Copy CodeMirror's ESM closure into ``codemirror-<digest of its packages' versions>/``
    (served as immutable: an upgrade must change the URL); return the import map entries
    (bare name → URL)."""
    entries: dict[str, str] = {}
    versions: list[str] = []
    pending = list(CODEMIRROR_ENTRIES)
    while pending:
        name = pending.pop()
        if name in entries:
            continue
        pkg = package_json(node_modules, name)
        entries[name] = _esm_entry(pkg)
        versions.append(f"{name}@{pkg.get('version')}")
        pending.extend(pkg.get("dependencies", {}))
    folder = "codemirror-" + hashlib.sha256(" ".join(sorted(versions)).encode()).hexdigest()[:10]
    for name, entry in entries.items():
        copy((node_modules / name / entry).parent, out / folder / name / Path(entry).parent)
    # ESM only: drop the CommonJS twins and type declarations copied with the folders
    for junk in (out / folder).rglob("*"):
        if junk.suffix in {".cjs", ".ts", ".cts", ".map"} and junk.is_file():
            junk.unlink()
    return {name: f"{url_prefix}{folder}/{name}/{entries[name]}" for name in sorted(entries)}


def codemirror_folder(import_map: dict[str, str]) -> str:
    """The vendored CodeMirror folder (``vendor/codemirror-<digest>/``) the import map points into."""
    return "vendor/" + import_map["codemirror"].removeprefix("./vendor/").split("/")[0] + "/"


def _notes_plugin_error(problem: str) -> BuildEnvironmentError:
    return BuildEnvironmentError(
        f"reveal.js notes plugin ({NOTES_PLUGIN}): {problem}; a "
        "reveal.js version this build does not know? (see package.json)"
    )


def _speaker_view_html(bundle: str) -> str:
    """The HTML string the notes plugin writes into the speaker view's window."""
    marker = ".document.write("
    start = bundle.find(marker)
    if start < 0:
        raise _notes_plugin_error("speaker view HTML not found")
    i = start + len(marker)
    if bundle[i] != '"':
        raise _notes_plugin_error("unexpected speaker view format")
    j = i + 1
    while bundle[j] != '"':
        j += 2 if bundle[j] == "\\" else 1
    # a JS string literal: \xNN escapes become \u00NN; reveal.js 6's bundler leaves raw tabs in it
    return json.loads(re.sub(r"\\x([0-9a-fA-F]{2})", r"\\u00\1", bundle[i : j + 1]), strict=False)


def speaker_view_script(node_modules: Path) -> str:
    """The inline script of reveal.js's speaker view, as the notes plugin writes it.

    The speaker view is an about:blank window that inherits the deck's Content-Security-Policy,
    so its one inline script must be allowed by hash; we read it out of the plugin's bundle.
    """
    scripts = re.findall(r"<script>(.*?)</script>", _speaker_view_html(notes_plugin(node_modules)), re.S)
    if len(scripts) != 1:
        raise _notes_plugin_error(f"expected one inline script, found {len(scripts)}")
    return scripts[0]
