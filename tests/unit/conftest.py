"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

from deckbuild.cellrun import load_runner


@pytest.fixture
def runner():
    """The cell runner (static/py/cellrunner.py) as a fresh module with an empty namespace."""
    module = load_runner()
    module.NAMESPACE.clear()
    module.NAMESPACE["__name__"] = "__main__"
    return module
