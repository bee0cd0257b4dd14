"""Which Chromium to drive, and how: shared by `build.py pdf`, the tests and the benchmarks.

``$DPDECK_CHROMIUM`` if set, else Debian's ``/usr/bin/chromium``, else the browser that
``playwright install`` downloaded (None lets Playwright pick it).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from dpdeck.build.layout import SLIDE_SIZE

# Quiet, offline-safe flags: no sandbox (we run as root in CI), no background network traffic.
LAUNCH_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-quic",
    "--no-first-run",
    "--disable-sync",
]
# the window of the tests and of `build.py pdf`: one slide at its authored size, unscaled
VIEWPORT = dict(SLIDE_SIZE)


def chromium_path() -> str | None:
    env = os.environ.get("DPDECK_CHROMIUM")
    if env:
        return env
    for candidate in ("/usr/bin/chromium", shutil.which("chromium") or ""):
        if candidate and Path(candidate).exists():
            return candidate
    return None


def launch(playwright):
    return playwright.chromium.launch(executable_path=chromium_path(), args=LAUNCH_ARGS)
