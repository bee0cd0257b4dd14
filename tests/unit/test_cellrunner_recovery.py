"""The cell runner's recovery (issue 19) under CPython: after a MemoryError the run's bindings are
undone and the memory checked; a cell's time.sleep, once installed on the worker's waiter,
sleeps in slices and ends with KeyboardInterrupt when the waiter reports a Stop."""

from __future__ import annotations

import math
import time

import pytest
from cellrunner import memory
from cellrunner.sleep import SLEEP_SLICE_SECONDS, install_sleep


def run(runner, code):
    return runner.run(code, "prueba", lambda kind, payload: None)


def test_a_memory_error_undoes_what_the_run_bound(runner):
    assert run(runner, "a = 1\nkeep = 'x'")["ok"]
    result = run(runner, "b = bytearray(10**6)\na = 2\nraise MemoryError('simulada')")
    assert not result["ok"] and result["error"]["type"] == "MemoryError"
    assert result["memory"] == {"released": ["a", "b"], "left": True}
    assert runner.namespace["a"] == 1 and runner.namespace["keep"] == "x" and "b" not in runner.namespace


def test_a_memory_error_raised_from_or_during_another_counts(runner):
    code = "c = 3\ntry:\n    raise MemoryError\nexcept MemoryError:\n    raise ValueError('sin memoria')"
    result = run(runner, code)
    assert result["error"]["type"] == "ValueError" and result["memory"]["released"] == ["c"]
    assert "c" not in runner.namespace


def test_other_errors_keep_the_runs_names(runner):
    result = run(runner, "d = 4\n1 / 0")
    assert "memory" not in result and runner.namespace["d"] == 4


def test_memory_not_back_is_reported(runner, monkeypatch):
    monkeypatch.setattr(memory, "MEMORY_PROBE_BYTES", 2**62)  # more than any machine has
    assert run(runner, "raise MemoryError")["memory"] == {"released": [], "left": False}


@pytest.fixture
def sleep_with(monkeypatch):
    """install_sleep with a fake waiter: (the patched time.sleep, the waits it asked for in ms)."""
    real = time.sleep
    monkeypatch.setattr(time, "sleep", real)  # restored after the test
    waits: list[float] = []

    def install(stop_after=None):
        def wait(ms):
            waits.append(ms)
            if stop_after is not None and len(waits) > stop_after:
                return True
            real(ms / 1000)
            return False

        install_sleep(wait)
        return time.sleep, waits

    return install


def test_sleep_waits_in_slices(sleep_with):
    sleep, waits = sleep_with()
    t0 = time.monotonic()
    sleep(0.6)
    assert time.monotonic() - t0 >= 0.6
    assert len(waits) >= 3 and max(waits) <= SLEEP_SLICE_SECONDS * 1000
    sleep(0)
    assert len(waits) <= 5


def test_stop_ends_a_sleep(sleep_with):
    sleep, waits = sleep_with(stop_after=1)
    with pytest.raises(KeyboardInterrupt):
        sleep(30)
    assert len(waits) == 2  # one slice slept, the next one's wait said stop: no more


@pytest.mark.parametrize(
    "value, error", [(-1, ValueError), (math.nan, ValueError), ("1", TypeError), (None, TypeError)]
)
def test_sleep_refuses_what_time_sleep_refuses(sleep_with, value, error):
    sleep, waits = sleep_with()
    with pytest.raises(error):
        sleep(value)
    assert not waits
