"""Every suggested live edit of the deck (a code slide's ``try:``) under CPython.

Each edited cell runs the same way the deck's own cells do in test_deck_cells.py (the real cell
runner, after the prelude, in a namespace reset to what the prelude left), and must run without
error or warning, draw a figure when it draws, and print its numbers the Spanish way; then what
each edit is meant to show (tests/support/edit_claims.py's EDIT_CLAIMS) is read back, against
what the authored cell showed in the same session. tests/browser/test_page_try_edits.py checks
the same claims on what Chromium shows.
"""

from __future__ import annotations

import re

import pytest

from tests.support.deck_text import DRAWS, not_spanish_numbers
from tests.support.edit_claims import EDIT_CLAIMS, NOISE_ONLY, run_edits, try_edit_keys


@pytest.fixture(scope="module")
def both(deck):
    return run_edits(deck)


@pytest.fixture(scope="module")
def edited(both):
    return both[0]


@pytest.fixture(scope="module")
def authored(both):
    return both[1]


def test_every_code_slide_suggests_an_edit(deck):
    missing = [f"{s.index} {s.title}" for s in deck.slides if s.code and not s.tries]
    assert not missing, missing


def test_every_edit_runs_without_error(edited):
    failed = {key: o["result"]["error"]["traceback"] for key, o in edited.items() if not o["result"]["ok"]}
    assert not failed, "\n\n".join(f"{key}:\n{tb}" for key, tb in failed.items())


def test_no_edit_warns(edited):
    noisy = {key: o["stderr"] for key, o in edited.items() if o["stderr"].strip()}
    assert not noisy, noisy


def test_edits_show_something_and_draw_when_the_cell_draws(edited):
    for key, o in edited.items():
        assert o["stdout"].strip() or o["figures"] or o["result"].get("value"), key
        if DRAWS.search(o["code"]):
            assert o["figures"], f"{key} drew no figure"


def test_edits_print_numbers_the_spanish_way(edited, authored):
    # the authored output of every cell is checked in test_deck_cells.py too; here again, from
    # the run the claims compare with
    bad = {key: not_spanish_numbers(o["stdout"]) for key, o in edited.items()}
    bad |= {(sid, "(authored)"): not_spanish_numbers(o["stdout"]) for sid, o in authored.items()}
    bad = {key: tokens for key, tokens in bad.items() if tokens}
    assert not bad, bad


def test_edits_change_the_code_and_stay_short(edited):
    for key, o in edited.items():
        assert o["code"] != o["slide"].code, key
        assert len(o["code"].strip().splitlines()) <= 17, key


def test_edits_draw_no_noise_of_their_own(edited):
    for key, o in edited.items():
        assert not re.search(r"\.(laplace|normal|exponential)\(", o["code"]), key


def test_every_try_edit_has_a_claim(deck):
    keys = try_edit_keys(deck)
    unchecked = [key for key in keys if key not in EDIT_CLAIMS]
    assert not unchecked, f"try: edits with no entry in EDIT_CLAIMS: {unchecked}"
    stale = [key for key in EDIT_CLAIMS if key not in keys]
    assert not stale, f"claims for edits the deck does not have: {stale}"
    assert NOISE_ONLY <= set(EDIT_CLAIMS)


def test_edit_claims(edited, authored):
    failed = {}
    for key, check in EDIT_CLAIMS.items():
        try:
            check(edited[key]["shown"], authored[key[0]]["shown"])
        except (AssertionError, LookupError, AttributeError, ValueError) as exc:
            failed[key] = f"{type(exc).__name__}: {exc}\n{edited[key]['stdout']}"
    assert not failed, "\n\n".join(f"{key}: {why}" for key, why in failed.items())


def test_claims_reject_the_authored_output(authored):
    """A claim the authored output passes would not check the edit."""
    passed = []
    for key, check in EDIT_CLAIMS.items():
        if key in NOISE_ONLY:
            continue
        shown = authored[key[0]]["shown"]
        try:
            check(shown, shown)
        except (AssertionError, LookupError, AttributeError, ValueError):
            continue
        passed.append(key)
    assert not passed, f"claims the authored output passes: {passed}"
