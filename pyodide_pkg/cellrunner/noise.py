"""The run's noise session: every fresh draw of dplab (``rng=None``) comes from one generator
seeded with the run's seed (a 128-bit OS-random seed unless the presenter locked one), so that a
locked seed redraws the same figure. Outside the deck, dplab stays fresh per call."""

from __future__ import annotations

import secrets

from .run import Run, Watcher


class NoiseWatcher(Watcher):
    """Opens dplab's noise session for the run; says whether it drew noise and with which seed."""

    def start(self, run: Run) -> None:
        seed = int(secrets.randbits(128) if run.seed is None else run.seed)
        run.seed_used = str(seed)
        self.context = self.session = None
        try:
            from dplab import noise_session
        except ImportError:  # no dplab, or one without sessions
            return
        self.context = noise_session(seed)
        self.session = self.context.__enter__()

    def finish(self, run: Run) -> None:
        if self.context is None:
            return
        self.context.__exit__(None, None, None)
        run.noise = self.session.draws > 0
