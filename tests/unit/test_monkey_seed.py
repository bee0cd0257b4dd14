"""The browser monkey's seed (tests/support/monkey_seed.py): CI replays one, a person explores."""

from __future__ import annotations

import pytest

from tests.support.monkey_seed import CI_SEED, monkey_seed


def test_ci_plays_a_fixed_seed_and_a_local_run_a_fresh_one():
    # CI (.ci/run runs with CI=true) drew a fresh seed each run: a red run could not be told
    # from bad luck, nor replayed (issue 48, item 16)
    assert monkey_seed(None, {"CI": "true"}) == (CI_SEED, "CI's fixed seed")
    assert monkey_seed(None, {"CI": "1"})[0] == CI_SEED
    fresh = {
        monkey_seed(None, env)[0] for env in ({}, {"CI": "false"}, {"CI": ""}, {"CI": "0"}) for _ in range(5)
    }
    assert len(fresh) > 1  # 20 draws from a million: equal with a chance below 1e-4


def test_the_option_then_the_environment_choose_the_seed_everywhere():
    assert monkey_seed(7, {"CI": "true", "DPDECK_MONKEY_SEED": "9"}) == (7, "--monkey-seed")
    assert monkey_seed(None, {"CI": "true", "DPDECK_MONKEY_SEED": "9"}) == (9, "$DPDECK_MONKEY_SEED")
    assert monkey_seed(None, {"DPDECK_MONKEY_SEED": " 12 "})[0] == 12
    with pytest.raises(ValueError, match=r"\$DPDECK_MONKEY_SEED must be an integer, got 'x'"):
        monkey_seed(None, {"DPDECK_MONKEY_SEED": "x"})
