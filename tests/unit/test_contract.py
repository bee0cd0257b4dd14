"""The build → page → worker contract is written once, and the copies cannot drift:

- the JSON the build embeds in the page has exactly the fields of ``deckbuild.config.DeckConfig``
  (and its nested dataclasses), and ``static/js/types.js``'s typedefs name the same fields;
- every message type the JS sends or handles (page ⇄ worker, main window ⇄ speaker view) is in
  ``static/js/PROTOCOL.md``'s tables and in ``types.js``, and every documented one is used.
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from pathlib import Path

import pytest

from deckbuild import config as config_module
from deckbuild.config import Assets, DeckConfig, EditorInfo, NotebookInfo, NotebookSlide
from deckbuild.site import Project, build

ROOT = Path(__file__).resolve().parents[2]
JS = ROOT / "static" / "js"
PROTOCOL = JS / "PROTOCOL.md"
TYPES = JS / "types.js"
RUNNER = ROOT / "pyodide_pkg" / "cellrunner"  # the cell runner: what it emits, the worker sends
# the modules that talk across a boundary: to/from the worker, and over the mirror's channel
TALKERS = ("worker.js", "runtime.js", "mirror.js")


def _fields(cls) -> set[str]:
    return {f.name for f in dataclasses.fields(cls)}


@pytest.fixture(scope="module")
def embedded(tmp_path_factory) -> dict:
    out = tmp_path_factory.mktemp("contract") / "dist"
    build(Project(ROOT), deck_file=ROOT / "tests" / "fixtures" / "good" / "deck.yaml", dist=out)
    html = (out / "index.html").read_text(encoding="utf-8")
    return json.loads(re.search(r'id="deck-config">(.*?)</script>', html, re.S).group(1))


def test_embedded_config_has_exactly_the_dataclass_fields(embedded: dict):
    assert set(embedded) == _fields(DeckConfig)
    assert set(embedded["assets"]) == _fields(Assets)
    assert set(embedded["notebook"]) == _fields(NotebookInfo)
    assert set(embedded["editor"]) == _fields(EditorInfo)
    assert embedded["notebook"]["slides"], "the fixture deck has code slides"
    for slide in embedded["notebook"]["slides"].values():
        assert set(slide) == _fields(NotebookSlide)
    assert set(embedded["slideSize"]) == {"width", "height"}


def test_every_config_field_has_a_type_and_a_meaning():
    source = Path(config_module.__file__).read_text(encoding="utf-8")
    hints = typing.get_type_hints(DeckConfig)
    for cls in (DeckConfig, Assets, NotebookInfo, NotebookSlide, EditorInfo):
        for f in dataclasses.fields(cls):
            assert f.name in typing.get_type_hints(cls), f"{cls.__name__}.{f.name} has no type"
            line = re.search(rf"^    {f.name}: .*$", source, re.M)
            assert line and "#" in line.group(0), f"{cls.__name__}.{f.name}: no one-line meaning"
    assert hints["packages"] == list[str]


def _typedef_properties(name: str) -> set[str]:
    """The @property names of the JSDoc ``@typedef {object} name`` in types.js."""
    text = TYPES.read_text(encoding="utf-8")
    block = re.search(rf"/\*\*((?:(?!\*/).)*?@typedef \{{object\}} {name}\b(?:(?!\*/).)*)\*/", text, re.S)
    assert block, f"types.js has no @typedef {{object}} {name}"
    return set(re.findall(r"@property \{[^}]*(?:\}[^}]*)*?\} \[?(\w+)", block.group(1)))


@pytest.mark.parametrize(
    "cls", [DeckConfig, Assets, NotebookInfo, NotebookSlide, EditorInfo], ids=lambda c: c.__name__
)
def test_js_typedefs_name_the_dataclass_fields(cls):
    assert _typedef_properties(cls.__name__) == _fields(cls)


def test_protocol_documents_the_config_fields():
    text = PROTOCOL.read_text(encoding="utf-8")
    section = text.split("## The build's config", 1)[1].split("\n## ", 1)[0]
    documented = set(re.findall(r"^\| `(\w+)` \|", section, re.M))
    assert documented == _fields(DeckConfig)


# --- message types ----------------------------------------------------------------------------


def _sent_and_handled() -> dict[str, set[str]]:
    """Message type → the files that send or handle it."""
    found: dict[str, set[str]] = {}
    for name in TALKERS:
        text = (JS / name).read_text(encoding="utf-8")
        text = re.sub(r"new Worker\([^)]*\)", "", text)  # {type: "module"}: an option, no message
        patterns = (
            r'\btype: "(\w+)"',  # a message literal it sends
            r'\bmsg\??\.type === "(\w+)"',  # a message it handles
            r'\bcase "(\w+)"',
        )
        for pattern in patterns:
            for kind in re.findall(pattern, text):
                found.setdefault(kind, set()).add(name)
    # the worker forwards what the cell runner emits as messages of that type (worker.js, runCell)
    for path in sorted(RUNNER.glob("*.py")):
        for kind in re.findall(r'\b(?:emit|_Stream)\("(\w+)"', path.read_text(encoding="utf-8")):
            found.setdefault(kind, set()).add(f"cellrunner/{path.name}")
    return found


def _documented() -> set[str]:
    rows = [line for line in PROTOCOL.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    return {kind for row in rows for kind in re.findall(r'\{type: "(\w+)"', row)}


def test_the_scan_finds_the_known_messages():
    # a guard on the scan itself: if these go missing, the patterns above no longer match the code
    found = _sent_and_handled()
    for kind in (
        "init",
        "run",
        "cancel",
        "ping",
        "status",
        "stdout",
        "stderr",
        "figure",
        "budget",
        "verdict",
        "result",
        "started",
        "rerun",
        "crashed",
        "fatal",
        "pong",
        "hello",
        "cell",
        "try",
        "exercises",
    ):
        assert kind in found, kind


def test_every_message_the_js_uses_is_in_protocol_md():
    found, documented = _sent_and_handled(), _documented()
    missing = {kind: sorted(files) for kind, files in found.items() if kind not in documented}
    assert not missing, f"message types not in PROTOCOL.md's tables: {missing}"


def test_every_documented_message_is_used():
    unused = _documented() - set(_sent_and_handled())
    assert not unused, f"PROTOCOL.md documents message types nothing sends or handles: {unused}"


def test_every_message_has_a_typedef():
    text = TYPES.read_text(encoding="utf-8")
    typed = {
        kind
        for union in re.findall(r'\btype: ((?:"\w+"(?: \| )?)+)', text)
        for kind in re.findall(r'"(\w+)"', union)
    }
    assert set(_sent_and_handled()) <= typed, set(_sent_and_handled()) - typed
