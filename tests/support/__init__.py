"""What the tests share that is not a fixture: helpers, fakes and claims, imported as
``from tests.support.<module> import ...`` (fixtures live in the ``conftest.py`` files).

- ``paths``: the project's root and the test fixtures' folder.
- ``browser``: the page test API (see its docstring and docs/contributing.md) and the helpers
  that open and instrument the built deck in Chromium.
- ``layout``: the in-page probes of a slide's layout at 1280×720.
- ``deck_text``: reading what the deck's cells print (numbers the Spanish way, the trade-off
  curves) and running every cell of a deck under CPython.
- ``edit_claims``: what each ``try:`` edit of the deck is meant to show (EDIT_CLAIMS), checked
  under CPython (tests/unit/test_try_edits.py) and in Chromium (tests/browser/test_page_try_edits.py).
- ``dp_checks``: empirical privacy checks of the mechanisms.
- ``hall_fixtures``, ``hall_process``: a live hall in-process and as a real process.
- ``bench_fakes``: made-up visit reports for the benchmark's unit tests.
"""
