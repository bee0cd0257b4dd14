"""Conditions a visit runs under: the network between browser and server, the CPU's speed.

Only "local" exists now (localhost, the machine's own CPU). A throttled profile (a classroom's
Wi-Fi, a slow laptop) is one more entry whose ``throttle`` sets up the page before navigation,
e.g. through a CDP session: Network.emulateNetworkConditions, Emulation.setCPUThrottlingRate.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    throttle: Callable | None = None    # throttle(context, page), before navigation

    def apply(self, context, page) -> None:
        if self.throttle is not None:
            self.throttle(context, page)


PROFILES = {
    "local": Profile("local", "served from localhost, no throttling"),
}
