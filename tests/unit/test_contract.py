"""The build → page → worker contract is written once, and the copies cannot drift:

- the JSON the build embeds in the page has exactly the fields of ``dpdeck.build.config.DeckConfig``
  (and its nested dataclasses), and ``static/js/shared/types.js``'s typedefs name the same fields;
- every message type of ``types.js``'s unions (page ⇄ worker, main window ⇄ speaker view, page ⇄
  service worker) is in ``static/js/shared/PROTOCOL.md``'s tables, and every documented one is typed; that
  the JS sends only these and handles each one is proved by ``tsc`` (test_js_types.py).
"""

from __future__ import annotations

import dataclasses
import json
import re
import typing
from pathlib import Path

import pytest

from dpdeck.build import config as config_module
from dpdeck.build.config import Assets, DeckConfig, EditorInfo, NotebookInfo, NotebookSlide
from dpdeck.build.site import Project, build
from tests.support.paths import ROOT

JS = ROOT / "static" / "js"
PROTOCOL = JS / "shared" / "PROTOCOL.md"
TYPES = JS / "shared" / "types.js"
RUNNER = ROOT / "pyodide_pkg" / "cellrunner"  # the cell runner: what it emits, the worker sends


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
# The message types are read from types.js's unions. That the code handles each one is `tsc`'s to
# prove, not a scan's: runtime.js, worker.js and mirror.js dispatch with a `switch` over the
# union ending in `assertNever` (test_js_types.py), and what they send is typed by the same
# unions. What remains to check here is that the unions and PROTOCOL.md's tables agree.

# every union of messages that crosses a boundary (PROTOCOL.md has a table for each)
UNIONS = ("ToWorker", "FromWorker", "CopyToMain", "MainToCopies", "OfflineFill", "OfflineProgress")


def _typedefs() -> dict[str, str]:
    """Typedef name → its type text, for every ``@typedef {…} Name`` in types.js."""
    text = re.sub(r"\n\s*\*\s*", " ", TYPES.read_text(encoding="utf-8"))  # one line per comment
    found = {}
    for match in re.finditer(r"@typedef \{", text):
        depth, i = 1, match.end()
        while depth:  # the type runs to its matching brace
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        name = re.match(r"\s*(\w+)", text[i:])
        if name:
            found[name.group(1)] = text[match.end() : i - 1]
    return found


def _message_types(name: str, typedefs: dict[str, str]) -> set[str]:
    """The ``type`` literals of typedef ``name``, through the typedefs its union names."""
    body = typedefs[name]
    kinds = {
        kind
        for union in re.findall(r'\btype: ((?:"[\w-]+"(?: \| )?)+)', body)
        for kind in re.findall(r'"([\w-]+)"', union)
    }
    for member in re.findall(r"\b([A-Z]\w*Message|OfflineFill|OfflineProgress)\b", body):
        if member != name and member in typedefs:
            kinds |= _message_types(member, typedefs)
    return kinds


def _typed() -> dict[str, set[str]]:
    """Union name → the message types it has."""
    typedefs = _typedefs()
    return {name: _message_types(name, typedefs) for name in UNIONS}


def _emitted() -> set[str]:
    """What cellrunner emits, which the worker forwards as messages of that type (runCell)."""
    found = set()
    for path in sorted(RUNNER.glob("*.py")):
        found |= set(re.findall(r'\b(?:emit|_Stream)\("(\w+)"', path.read_text(encoding="utf-8")))
    return found


def _documented() -> set[str]:
    rows = [line for line in PROTOCOL.read_text(encoding="utf-8").splitlines() if line.startswith("|")]
    return {kind for row in rows for kind in re.findall(r'\{type: "([\w-]+)"', row)}


def test_the_unions_have_the_known_messages():
    # a guard on the parse itself: if these go missing, the patterns above no longer match types.js
    typed = _typed()
    assert {"init", "run", "cancel", "ping", "complete", "complete-cancel"} <= typed["ToWorker"]
    assert {
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
        "completion",
    } <= typed["FromWorker"]
    assert typed["CopyToMain"] == {"hello", "try"}
    assert typed["MainToCopies"] == {"status", "cell", "exercises"}
    assert typed["OfflineFill"] == {"offline-fill"} and typed["OfflineProgress"] == {"offline-progress"}


def test_every_message_type_is_in_protocol_md():
    documented = _documented()
    missing = {name: sorted(kinds - documented) for name, kinds in _typed().items() if kinds - documented}
    assert not missing, f"message types not in PROTOCOL.md's tables: {missing}"


def test_every_documented_message_is_typed():
    typed = set().union(*_typed().values())
    assert _documented() <= typed, (
        f"PROTOCOL.md documents message types types.js has not: {_documented() - typed}"
    )


def test_every_output_cellrunner_emits_is_a_message_of_the_worker():
    emitted = _emitted()
    assert {"stdout", "stderr", "figure", "budget", "verdict"} <= emitted, emitted
    assert emitted <= _typed()["FromWorker"], emitted - _typed()["FromWorker"]


def test_the_dispatch_is_a_switch_that_tsc_checks():
    # the exhaustiveness proof is tsc's (test_js_types.py); this checks that it applies: every
    # handler of a union is a switch whose default is assertNever, not an if chain tsc cannot check
    for name in ("worker/worker.js", "page/runtime.js", "page/mirror.js"):
        text = (JS / name).read_text(encoding="utf-8")
        assert not re.search(r'\bmsg\??\.type === "', text), f"{name}: an if chain over msg.type"
        assert re.search(r"switch \(msg\??\.type\)", text) and "assertNever(msg" in text, name
