"""The whole build: deck/ + templates/ + static/ + node_modules + wheels → dist/, atomically."""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from dpdeck import resources

from . import apiref, compress, editor_assets, frontend, pyodide_dist
from .config import Assets, DeckConfig, EditorInfo, NotebookInfo, NotebookSlide
from .jsonschema import write_schemas
from .layout import SLIDE_SIZE
from .live import write_live_manifest
from .offline import write_offline_manifest
from .render import render_page, render_slides
from .schema import Deck, load_deck
from .wheel import build_wheel


@dataclass
class Project:
    """Where the build reads and writes; every path can be overridden (the tests do).

    ``root`` holds the deck (``deck/deck.yaml``) and what is written (``dist/``, ``.hall/``);
    ``assets`` holds what the build ships besides the deck (templates/, static/, pyodide_pkg/,
    node_modules/): ``root`` itself in the repository, the package's own copy when installed
    (:mod:`dpdeck.resources`)."""

    root: Path
    assets: Path | None = None

    @property
    def deck_file(self) -> Path:
        return self.root / "deck" / "deck.yaml"

    @property
    def templates(self) -> Path:
        return (self.assets or self.root) / "templates"

    @property
    def static(self) -> Path:
        return (self.assets or self.root) / "static"

    @property
    def node_modules(self) -> Path:
        return resources.node_modules(self.assets or self.root)

    @property
    def package_src(self) -> Path:
        return (self.assets or self.root) / "pyodide_pkg"

    @property
    def completion_src(self) -> Path:
        """The editor's completion engine, Pyodide-side Python loaded as a source file."""
        return self.package_src / "completion.py"

    @property
    def service_worker(self) -> Path:
        """The Service Worker's source; the build writes it to the deck's root (its scope)."""
        return self.static / "js" / "serviceworker" / "sw.js"

    @property
    def dplab_src(self) -> Path:
        """dplab's sources: ``pyodide_pkg/dplab``, or an installed wheel's ``dplab`` package."""
        return resources.package_dir("dplab", self.package_src)

    @property
    def dist(self) -> Path:
        return self.root / "dist"


def check(project: Project, deck_file: Path | None = None) -> Deck:
    """Validate the deck (schema, Python syntax, math) without writing anything."""
    deck = load_deck(deck_file or project.deck_file)
    render_slides(deck, project.node_modules)
    return deck


def _copy_own_code(project: Project, folder: Path) -> None:
    """``static/`` into ``folder``, but the Service Worker (the build writes it to the deck's
    root: offline.py), and the editor's engine (``pyodide_pkg/completion.py``) as
    ``folder/py/completion.py``, the page's ``config.editor.engine``."""
    shutil.copytree(project.static, folder, ignore=shutil.ignore_patterns("__pycache__", "serviceworker"))
    (folder / "py").mkdir()
    shutil.copy2(project.completion_src, folder / "py" / "completion.py")


def _tree_digest(paths: list[Path]) -> str:
    digest = hashlib.sha256()
    for base in paths:
        files = [base] if base.is_file() else sorted(p for p in base.rglob("*") if p.is_file())
        for path in files:
            if "__pycache__" in path.parts:
                continue
            digest.update(str(path.relative_to(base.parent)).encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:12]


def _served_digest(folder: Path) -> str:
    """12 hex digits naming the served Pyodide files: the served lock (every wheel's sha256)
    and, where the build rewrote files, the manifest that names each one's sha256."""
    digest = hashlib.sha256()
    for name in ("pyodide-lock.json", "derived-manifest.json"):
        if (folder / name).exists():
            digest.update((folder / name).read_bytes())
    return digest.hexdigest()[:12]


def build(
    project: Project, deck_file: Path | None = None, dist: Path | None = None, hall: str | None = None
) -> Deck:
    """Build the deck into ``dist`` (default: project/dist). A failure leaves dist untouched.
    ``hall``: the live hall's origin (``build --hall``), instead of the deck file's ``hall:``;
    its page probes that hall, and its CSP lets it connect there and nowhere else."""
    dist = Path(dist or project.dist)
    deck = load_deck(deck_file or project.deck_file)
    if hall is not None:
        deck.hall = hall
    images: set[Path] = set()
    views = render_slides(deck, project.node_modules, images)
    nm = project.node_modules
    versions = {name: frontend.npm_version(nm, name) for name in ("reveal.js", "katex", "pyodide")}
    # Vendored files live under versioned folders, so a browser may cache them for good.
    assets = {
        "reveal": f"vendor/reveal-{versions['reveal.js']}/",
        "katex": f"vendor/katex-{versions['katex']}/",
    }
    dist.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=".dist-", dir=dist.parent))
    try:
        frontend.vendor_reveal_katex(nm, staging / "vendor")
        (staging / "vendor" / "reveal").rename(staging / assets["reveal"])
        (staging / "vendor" / "katex").rename(staging / assets["katex"])
        import_map = frontend.vendor_codemirror(nm, staging / "vendor", "./vendor/")
        assets["codemirror"] = frontend.codemirror_folder(import_map)
        import_map["reveal"] = f"./{assets['reveal']}{frontend.REVEAL_ESM}"
        import_map["reveal-notes"] = f"./{assets['reveal']}{frontend.NOTES_PLUGIN}"
        (staging / "vendor" / "pyodide").mkdir(parents=True, exist_ok=True)
        lock = pyodide_dist.vendor_pyodide(nm, staging / "vendor", pyodide_dist.cache_dir())
        # the build rewrites Pyodide's files (bytecode, trimming): the folder is named after
        # what it serves too, not only the release, so a browser never mixes two builds' files
        pyodide_dir = (
            f"vendor/pyodide-{versions['pyodide']}-{_served_digest(staging / 'vendor' / 'pyodide')}/"
        )
        assets["pyodide"] = pyodide_dir
        (staging / "vendor" / "pyodide").rename(staging / pyodide_dir)
        # Our own code: one folder named after its content, so a new version never mixes
        # with an old one a browser cached.
        package = deck.package or project.dplab_src
        runner_src = project.package_src / "cellrunner"  # the cell runner, whichever package
        version = _tree_digest([project.static, package, runner_src, project.completion_src])
        static_dir = f"static-{version}/"
        _copy_own_code(project, staging / static_dir)
        wheel = build_wheel(package.parent, package.name, staging / static_dir / "wheels")
        runner = build_wheel(runner_src.parent, runner_src.name, staging / static_dir / "wheels", requires=())
        assets["static"] = static_dir
        editor = EditorInfo(
            engine=f"{static_dir}py/completion.py",
            index=static_dir + editor_assets.write_api_index(package, staging / static_dir),
            wheels=editor_assets.vendor_engine(pyodide_dist.cache_dir(), staging / static_dir, static_dir),
        )
        config = _page_config(
            deck,
            assets,
            lock,
            version,
            wheel=f"{static_dir}wheels/{wheel.name}",
            runner=f"{static_dir}wheels/{runner.name}",
            package=package,
            editor=editor,
        )
        speaker = (frontend.speaker_view_script(nm),)
        preload = tuple(frontend.static_imports(project.static / "js", "page/deck.js"))
        html = render_page(
            deck, views, project.templates, asdict(config), import_map, speaker, deck.hall, preload
        )
        _write_pages(staging, html, deck)
        for image in sorted(images):
            target = staging / "assets" / image.relative_to(deck.root.resolve())
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(image, target)
        # offline.json, and the Service Worker at the deck's root (its scope: the whole deck)
        write_offline_manifest(staging, version, project.service_worker)
        write_schemas(staging)  # for authors' editors (jsonschema.py): not part of the deck
        apiref.write_reference(package, staging)  # for authors too: <package>-api.html
        compress.precompress(staging, pyodide_dist.cache_dir())
        _swap_into_place(staging, dist)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return deck


def _page_config(
    deck: Deck,
    assets: dict,
    lock: dict,
    version: str,
    wheel: str,
    runner: str,
    package: Path,
    editor: EditorInfo,
) -> DeckConfig:
    """What the page, the runtime and the worker are told (config.py): one fact, one field."""
    return DeckConfig(
        version=version,
        deckId=deck.title,
        assets=Assets(**assets),
        pyodideIndex=assets["pyodide"],
        # what Python loads: before the prelude, after it in the background, when a cell
        # needs it (import name → package); pyodide_dist defines them
        packages=list(pyodide_dist.BOOT_PACKAGES),
        deferredPackages=list(pyodide_dist.DEFERRED_PACKAGES),
        onDemand=pyodide_dist.on_demand_imports(lock),
        slideSize=dict(SLIDE_SIZE),
        wheel=wheel,
        packageName=package.name,
        runner=runner,
        prelude=deck.prelude,
        notebook=NotebookInfo(
            title=deck.title,
            subtitle=deck.subtitle,
            author=deck.author,
            slides={
                s.id: NotebookSlide(title=s.title, body=s.body or "", exercise=s.kind == "exercise")
                for s in deck.slides
                if s.code or s.kind == "exercise"  # every editor: an authored cell or an exercise
            },
        ),
        editor=editor,
        hall=deck.hall,
    )


def _write_pages(site: Path, html: str, deck: Deck) -> None:
    """The page, and live.json: its polls and exercises, for the hall server (live.py)."""
    (site / "index.html").write_text(html, encoding="utf-8")
    write_live_manifest(site, deck)


def _swap_into_place(staging: Path, dist: Path) -> None:
    """Replace dist by staging with two renames, so no reader sees a half-written deck."""
    old = None
    if dist.exists():
        old = dist.with_name(f".{dist.name}-old-{os.getpid()}")
        if old.exists():
            shutil.rmtree(old)
        dist.rename(old)
    staging.rename(dist)
    os.chmod(dist, 0o755)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
