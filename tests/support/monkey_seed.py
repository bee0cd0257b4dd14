"""The browser monkey's seed (tests/browser/test_monkey.py): fixed where a run must be repeatable,
fresh where a person explores.

In order: ``--monkey-seed N``; else ``$DPDECK_MONKEY_SEED``; else, under CI (``$CI`` set and not
``false``/``0``, as ``.ci/run`` is run), ``CI_SEED``, so CI replays the same clicks every run and a
red CI is a change of the code, not of the dice; else a fresh seed, so a local run may still find
what CI's seed does not. The test prints the seed and where it came from, and adds it to a failure.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

CI_SEED = 48_048  # CI's monkey: 60 actions from this seed (passed when it was chosen)
ENV = "DPDECK_MONKEY_SEED"


def in_ci(environ: Mapping[str, str]) -> bool:
    """``$CI`` set to anything but empty, ``false`` or ``0`` (CI services set ``CI=true``)."""
    return environ.get("CI", "").strip().lower() not in ("", "false", "0")


def monkey_seed(option: int | None, environ: Mapping[str, str]) -> tuple[int, str]:
    """The seed to play and where it came from (said with the seed, to replay it)."""
    if option is not None:
        return option, "--monkey-seed"
    if environ.get(ENV, "").strip():
        try:
            return int(environ[ENV]), f"${ENV}"
        except ValueError:
            raise ValueError(f"${ENV} must be an integer, got {environ[ENV]!r}") from None
    if in_ci(environ):
        return CI_SEED, "CI's fixed seed"
    return random.SystemRandom().randrange(
        10**6
    ), "fresh (set $DPDECK_MONKEY_SEED or --monkey-seed to replay)"
