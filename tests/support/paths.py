"""Where things are: the project's root, the test fixtures and the lecture's deck file."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
LECTURE = ROOT / "deck" / "deck.yaml"
