"""Every path that docs/architecture.md names exists (issue 48: "a test checks that every
module it names exists"): a renamed or removed module fails here, not in a newcomer's hands.

A path is a backquoted word with a ``/`` or a file suffix, whether it names a file or a folder;
``dist/…``, globs and URLs are not paths of the repository."""

from __future__ import annotations

import re

import pytest

from tests.support.paths import ROOT

DOC = ROOT / "docs" / "architecture.md"
SUFFIXES = (".py", ".js", ".mjs", ".md", ".json", ".toml", ".caddy", ".sh", ".j2", ".ts", ".yaml")
NOT_IN_REPO = (
    "text/",
    "application/",
    "image/",
    "dist/",
    "/_hall",
    "/_watch",
    "http",
    "~",
    "$",
    "node_modules/",
    ".hall/",
    "bench/results/",
)


def _named_paths(text: str) -> set[str]:
    """Every repository path in backquotes in ``text`` (see the module's docstring)."""
    found = set()
    for token in re.findall(r"`([^`\s]+)`", text):
        token = token.rstrip(".,:;")
        if any(token.startswith(p) for p in NOT_IN_REPO) or "*" in token or "<" in token:
            continue
        if "/" in token or token.endswith(SUFFIXES):
            found.add(token)
    return found


def _exists(token: str) -> bool:
    """``token`` as a path from the root, or as a file or folder of the package's tree."""
    if (ROOT / token).exists():
        return True
    name = token.rstrip("/")
    return any(True for _ in ROOT.glob(f"**/{name}") if "node_modules" not in _.parts)


def test_the_paths_are_found():
    paths = _named_paths(DOC.read_text(encoding="utf-8"))
    assert {"dpdeck/hall/", "dpdeck/build/fields.py", "dpdeck/serve/staticfiles.py"} <= paths
    assert len(paths) > 40


@pytest.mark.parametrize("path", sorted(_named_paths(DOC.read_text(encoding="utf-8"))))
def test_every_path_the_architecture_names_exists(path):
    assert _exists(path), f"docs/architecture.md names {path}, which does not exist"


def test_a_missing_module_would_fail():
    assert not _exists("dpdeck/hall/nowhere.py")
    assert _named_paths("see `dpdeck/build/site.py` and `dist/index.html`") == {"dpdeck/build/site.py"}
