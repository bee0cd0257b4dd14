"""tests/support/page_cpu.py: the CPU a page's main thread spent in a span, from samples, never
less than it spent (made-up samples)."""

from __future__ import annotations

import pytest

from tests.support.page_cpu import MainThreadSampler


def _sampler(samples):
    sampler = MainThreadSampler.__new__(MainThreadSampler)
    sampler.samples = samples
    return sampler


def test_the_span_runs_from_the_last_reading_done_by_its_start_to_the_first_begun_after_its_end():
    # (clock before the reading, clock after it, CPU seconds read, demand read)
    sampler = _sampler(
        [(0.0, 0.01, 1.0, 2.0), (0.10, 0.12, 1.05, 2.1), (0.20, 0.21, 1.30, 2.4), (0.30, 0.31, 1.32, 2.5)]
    )
    assert sampler.cpu_between(0.11, 0.25) == pytest.approx(1.32 - 1.0)  # 0.10's reading ended after 0.11
    assert sampler.cpu_between(0.125, 0.20) == pytest.approx(1.30 - 1.05)
    assert sampler.cpu_between(0.125, 0.201) == pytest.approx(1.32 - 1.05)
    assert sampler.cpu_between(-1.0, 9.0) == pytest.approx(1.32 - 1.0)  # clamped to what was sampled
    assert sampler.demand_between(0.125, 0.20) == pytest.approx(2.4 - 2.1)  # the same span as the CPU's


def test_without_schedstat_there_is_no_demand():
    sampler = _sampler([(0.0, 0.01, 1.0, None), (0.10, 0.12, 1.05, None)])
    assert sampler.demand_between(0.0, 0.2) is None
    assert sampler.cpu_between(0.0, 0.2) == pytest.approx(0.05)
