"""Conditions a visit runs under: the network between browser and server, the CPU's speed.

- ``local``: localhost, the machine's own CPU (the first benchmark's conditions).
- ``aula``: a lecture hall's shared Wi-Fi and a student's slower laptop: 20 Mbit/s down,
  5 Mbit/s up, 40 ms round trip, the CPU slowed 4×.

A profile's ``throttle(context, page)`` runs before navigation. ``aula`` uses Chromium's own
emulation through a CDP session on the page (``Network.emulateNetworkConditions``,
``Emulation.setCPUThrottlingRate``). Chromium applies a page's network conditions to the
requests of its dedicated workers too (they load through the page's frame): the deck's Python
worker fetches the wasm, the stdlib and the wheels, so ``bench/diagnose/throttle.py`` checks
it (the worker's own Resource Timing of the 10 MB wasm against what 20 Mbit/s allows).

The CPU emulation is not a slower machine. Chromium's ``ThreadCPUThrottler`` slows the page's
main thread alone, by a signal every 200 µs whose handler busy-waits: ``bench/diagnose/
cpu_throttle.py`` measured here the main thread 4.1–4.2× slower, a dedicated worker (the deck's
Python, bare Pyodide's too) 1.1× (only from sharing the cores), and an idle page's main thread
taking 0.8 of the 2 cores. So under ``aula`` the page's own work counts four times and the
Python work once, and both sides of a comparison run beside a spinning core.

- ``phone``: a mid-range phone on a hall's mobile data (issue 49): Chromium's mobile emulation
  at 390×844 CSS px, device pixel ratio 3, touch (``is_mobile``, ``has_touch``: a coarse
  pointer); 9 Mbit/s down, 1.5 up, 150 ms round trip; the CPU slowed 6×;
  ``navigator.deviceMemory`` 4 (an init script: Chromium's own value is the machine's, capped
  at 8). The same caveat: the 6× slows the page's main thread, not the Python worker.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

MBIT = 1_000_000 / 8  # bytes per second in one Mbit/s


@dataclass(frozen=True)
class Profile:
    name: str
    description: str
    throttle: Callable | None = None  # throttle(context, page), before navigation
    down_bytes_per_s: float | None = None  # None: not throttled
    cpu_slowdown: float = 1.0
    context_options: dict = field(default_factory=dict)  # Playwright's: viewport, is_mobile, …
    init_script: str | None = None  # run in every page before its own scripts
    sample_memory: bool = False  # bench/browser.py's MemoryWatch during each visit
    launch_args: tuple[str, ...] = ()  # Chromium's, beside dpdeck.serve.browser's LAUNCH_ARGS

    def apply(self, context, page) -> None:
        if self.throttle is not None:
            self.throttle(context, page)

    def options(self, default_viewport: dict) -> dict:
        """The browser context's options under this profile (the viewport ``default_viewport``
        unless the profile has its own)."""
        return {"viewport": default_viewport} | self.context_options


def cdp_throttle(down_mbit: float, up_mbit: float, rtt_ms: float, cpu_rate: float) -> Callable:
    """A throttle that sets Chromium's network and CPU emulation on the page's CDP session."""

    def throttle(context, page) -> None:
        cdp = context.new_cdp_session(page)
        cdp.send("Network.enable")
        cdp.send(
            "Network.emulateNetworkConditions",
            {
                "offline": False,
                "latency": rtt_ms,
                "downloadThroughput": down_mbit * MBIT,
                "uploadThroughput": up_mbit * MBIT,
            },
        )
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": cpu_rate})
        page._bench_cdp = cdp  # keep the session (and its emulation) alive for the visit

    return throttle


PHONE_CONTEXT = {
    "viewport": {"width": 390, "height": 844},
    "device_scale_factor": 3,
    "is_mobile": True,
    "has_touch": True,
}
# navigator.deviceMemory as a 4 GB phone reports it (a getter on the prototype, as Chromium's own)
PHONE_MEMORY = (
    "Object.defineProperty(Navigator.prototype, 'deviceMemory', {get: () => 4, configurable: true});"
)

PROFILES = {
    "local": Profile("local", "served from localhost, no throttling"),
    "aula": Profile(
        "aula",
        "shared Wi-Fi and a slow laptop: 20 Mbit/s down, 5 up, 40 ms RTT, CPU 4× slower",
        cdp_throttle(20, 5, 40, 4),
        down_bytes_per_s=20 * MBIT,
        cpu_slowdown=4,
    ),
    "phone": Profile(
        "phone",
        "a phone on mobile data: 390×844 DPR 3 touch, 9 Mbit/s down, 1.5 up, 150 ms RTT, CPU 6× slower, deviceMemory 4",
        cdp_throttle(9, 1.5, 150, 6),
        down_bytes_per_s=9 * MBIT,
        cpu_slowdown=6,
        context_options=PHONE_CONTEXT,
        init_script=PHONE_MEMORY,
        sample_memory=True,
        # measureUserAgentSpecificMemory answers at once (else at the next GC: bench/memory.py)
        launch_args=("--enable-blink-features=ForceEagerMeasureMemory",),
    ),
}
