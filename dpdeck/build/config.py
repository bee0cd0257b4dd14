"""The page's config: what the build tells the page (``deck.js``), the runtime (``runtime.js``)
and the Python worker (``worker.js``), written once.

``site.build`` fills a :class:`DeckConfig` and embeds ``dataclasses.asdict`` of it as JSON in
``<script id="deck-config">``. The JS side's mirror is the ``DeckConfig`` typedef in
``static/js/shared/types.js``, checked by ``tsc``; ``tests/unit/test_contract.py`` checks that the
embedded JSON has exactly these fields and that the typedef names the same ones. The field
names are the JSON keys (camelCase, as the JS reads them).
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Assets:
    """Where the vendored and our own files are, relative to the page (each ends in "/")."""

    reveal: str  # reveal.js, under a folder named after its version
    katex: str  # KaTeX (its stylesheet; the math itself is typeset at build time)
    codemirror: str  # CodeMirror's ES modules (the import map points into it)
    pyodide: str  # the Pyodide distribution: interpreter, stdlib, lock file, wheels
    static: str  # our own static/ (js/, py/, css/, wheels/), named after its content


@dataclass(frozen=True)
class NotebookSlide:
    """A code or exercise slide, as the downloaded notebook introduces its cell."""

    title: str  # the slide's title (a Markdown heading in the notebook)
    body: str  # the slide's text, Markdown ("" when none)
    exercise: bool  # an exercise slide: the notebook says there is no automatic check


@dataclass(frozen=True)
class NotebookInfo:
    """What ``notebook.js`` needs to write the cells as a Jupyter notebook or a script."""

    title: str  # the deck's title: the first heading, the file name
    subtitle: str  # the deck's subtitle ("" when none)
    author: str  # the deck's author ("" when none)
    slides: dict[str, NotebookSlide] = field(default_factory=dict)  # cell id → its slide


@dataclass(frozen=True)
class EditorInfo:
    """The editor's completion (``completion.js``, ``pyodide_pkg/completion.py``): loaded lazily."""

    engine: str  # pyodide_pkg/completion.py, relative to the page: jedi over the cells' namespace
    index: str  # api-index.json: the package's public API with Spanish summaries (editor_assets.py)
    wheels: list[dict]  # jedi's and parso's wheels, [{url, sha256, bytes}]: checked before unpacking


@dataclass(frozen=True)
class DeckConfig:
    """The JSON embedded in the page (``#deck-config``). One field, one fact."""

    version: str  # digest of static/, the package and the runner: names the BroadcastChannel (mirror.js)
    deckId: str  # the deck's title: keys the edits and progress in localStorage
    assets: Assets  # where each group of files is (see Assets)
    pyodideIndex: str  # Pyodide's indexURL, relative to the page (= assets.pyodide)
    packages: list[str]  # Pyodide packages loaded at boot, before the prelude
    deferredPackages: list[str]  # loaded after the prelude, in the background (matplotlib)
    onDemand: dict[str, str]  # import name → Pyodide package, loaded when a cell needs it
    slideSize: dict[str, int]  # {"width", "height"} reveal.js lays slides out at (layout.py)
    wheel: str  # the deck's package's wheel (dplab's, or the deck's own), relative to the page
    packageName: str  # that package's import name ("dplab"): what the download menu calls it
    runner: str  # the cell runner's wheel (pyodide_pkg/cellrunner), relative to the page
    prelude: str  # Python the worker runs once after boot, before any cell
    notebook: NotebookInfo  # titles and text of the code slides, for the download
    editor: EditorInfo  # what the editor's completion loads on the first request
    hall: str  # the live hall's origin (https://hall.example.edu), or "": the deck's own origin
