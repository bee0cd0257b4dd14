"""The project's tests: unit (CPython), browser (the built deck in Chromium), js (node); shared helpers in tests.support."""
