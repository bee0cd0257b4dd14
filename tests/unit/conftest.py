"""Fixtures shared by the unit tests."""

from __future__ import annotations

import pytest

from deckbuild.cellrun import new_session


@pytest.fixture
def runner():
    """A fresh ``cellrunner.Session`` (the cell runner, pyodide_pkg/cellrunner): an empty namespace."""
    return new_session()
