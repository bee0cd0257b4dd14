"""Drivers and the in-page scenario of the engine tests (test_engines.py)."""
