"""The CPU time of the pages' own main threads, read from /proc while a test runs.

A frame that comes late on a busy machine (another process on the cores, a shared CI box) waited
on no work of the page's; one that waited on the page's own work (an SVG of 21 MB parsed on the
main thread) had the page's main thread computing for as long as it waited. So a test of
responsiveness asks, of every late frame, how much CPU the page's main thread spent while the
frame waited: that does not depend on how busy the machine was. Where a frame is asked for
once, the sampler also reads how long the page's main thread ran or waited for a core
(schedstat): a page computing its own work wants a core for the whole wait, even when it gets
only part of one; an idle page late on a busy machine does not.
"""

from __future__ import annotations

import bisect
import threading
import time

from bench import procstat
from bench.diagnose.threads import main_thread_cpu, renderer_pids

SAMPLE_S = 0.01  # /proc counts CPU in ticks of 10 ms


SCHEDSTAT = (procstat.PROC / "self" / "schedstat").exists()  # kept by this kernel


def main_thread_demand(pids: list[int]) -> float | None:
    """Seconds so far that the main threads of ``pids`` ran or waited for a core to run on
    (/proc's schedstat: run time plus run-queue wait), or None where the kernel keeps no
    schedstat. A thread that computes wants a core all along, however busy the machine; one
    that waits for an event (a frame, a message) does not."""
    if not SCHEDSTAT:
        return None
    total = 0.0
    for pid in pids:
        try:
            ran, waited = (
                int(v)
                for v in (procstat.PROC / str(pid) / "task" / str(pid) / "schedstat").read_text().split()[:2]
            )
        except (OSError, ValueError):  # it ended meanwhile
            continue
        total += (ran + waited) / 1e9
    return total


class MainThreadSampler:
    """Samples, every SAMPLE_S until ``stop()``, the CPU of the renderers' main threads against
    the wall clock (epoch seconds, as the page's ``performance.timeOrigin + now()``). The pages a
    test does not use are idle and add next to nothing. A sample is (the clock before the
    reading, the clock after it, the CPU seconds read, the demand read: ``main_thread_demand``):
    the readings were made between the two clocks."""

    def __init__(self) -> None:
        self.pids = renderer_pids()
        self.samples: list[tuple[float, float, float, float | None]] = []
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> MainThreadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def _sample(self) -> None:
        before = time.time()
        cpu, demand = main_thread_cpu(self.pids), main_thread_demand(self.pids)
        self.samples.append((before, time.time(), cpu, demand))

    def _run(self) -> None:
        self._sample()
        while not self._done.wait(SAMPLE_S):
            self._sample()
        self._sample()

    def stop(self) -> None:
        self._done.set()
        self._thread.join()

    def _around(self, start: float, end: float) -> tuple[int, int]:
        """The samples around ``start`` to ``end`` (epoch seconds): the last reading done by
        ``start`` and the first begun after ``end``."""
        done = [sample[1] for sample in self.samples]
        begun = [sample[0] for sample in self.samples]
        i = max(0, bisect.bisect_right(done, start) - 1)
        j = min(len(begun) - 1, bisect.bisect_left(begun, end))
        return i, j

    def cpu_between(self, start: float, end: float) -> float:
        """CPU seconds the main threads spent from ``start`` to ``end`` (epoch seconds), from the
        samples around them: never less than spent (more by up to two samples' worth)."""
        i, j = self._around(start, end)
        return self.samples[j][2] - self.samples[i][2]

    def demand_between(self, start: float, end: float) -> float | None:
        """Seconds the main threads ran or waited for a core from ``start`` to ``end``, from the
        samples around them (``main_thread_demand``); None where the kernel keeps no schedstat."""
        i, j = self._around(start, end)
        first, last = self.samples[i][3], self.samples[j][3]
        return None if first is None or last is None else last - first
