"""Unit tests: CPython only, no browser."""
