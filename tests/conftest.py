"""Shared fixtures: the project root and a built deck (built once per test session)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.file_order import longest_first, recorded

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def project_root() -> Path:
    return ROOT


def pytest_addoption(parser):
    group = parser.getgroup("dpdeck")
    group.addoption(
        "--actions",
        type=int,
        default=60,
        help="how many random actions the browser monkey test takes (default 60)",
    )
    group.addoption(
        "--monkey-seed",
        type=int,
        default=None,
        help="the monkey's seed (default: $DPDECK_MONKEY_SEED, else a fixed one under CI, else a fresh one; printed)",
    )


def pytest_collection_modifyitems(config, items):
    """The longest files first (tests/support/file_order.py): the workers finish together."""
    items[:] = longest_first(items, recorded())


@pytest.fixture
def monkey_actions(request) -> int:
    return request.config.getoption("--actions")


@pytest.fixture
def monkey_seed(request):
    return request.config.getoption("--monkey-seed")


def pytest_terminal_summary(terminalreporter):
    """Print what tests asked to show after the run (``request.node.user_properties`` named
    ``summary``; the engines' times): printed from inside a test, it would not reach the terminal
    from pytest-xdist's workers, while a report's properties do."""
    lines = [
        value
        for outcome in ("passed", "failed")
        for report in terminalreporter.stats.get(outcome, [])
        if getattr(report, "when", None) == "call"
        for name, value in getattr(report, "user_properties", ())
        if name == "summary"
    ]
    if lines:
        terminalreporter.section("what the tests measured")
        for line in sorted(lines):
            terminalreporter.write_line(line)
