"""Which asyncio event loop the hall runs on: uvloop where it is installed, else the standard one.

uvloop is a drop-in event loop on libuv with asyncio's API, so the hall's code (aiohttp, redis-py,
the streams) is the same on either. It only makes each wake-up and socket write cheaper, which is
what a hall with thousands of open live channels spends its time on (bench/live_load.py runs both,
side by side: ``--event-loop``). ``--event-loop asyncio`` keeps the standard library's loop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

EVENT_LOOPS = ("auto", "uvloop", "asyncio")  # auto: uvloop if it is installed

T = TypeVar("T")


def loop_factory(name: str = "auto") -> Callable[[], asyncio.AbstractEventLoop]:
    """What makes the loop ``name`` asks for; ``uvloop`` when it is not installed is an error
    that says so (``auto`` then falls back to asyncio's own loop)."""
    if name not in EVENT_LOOPS:
        raise ValueError(f"event loop: one of {', '.join(EVENT_LOOPS)}, got {name!r}")
    if name == "asyncio":
        return asyncio.new_event_loop
    try:
        import uvloop
    except ImportError:
        if name == "uvloop":
            raise SystemExit("--event-loop uvloop: uvloop is not installed (pip install uvloop)") from None
        return asyncio.new_event_loop
    return uvloop.new_event_loop


def loop_name(loop: asyncio.AbstractEventLoop) -> str:
    """``uvloop`` or ``asyncio``: what a running hall reports it runs on."""
    return "uvloop" if type(loop).__module__.startswith("uvloop") else "asyncio"


def run(main: Coroutine[Any, Any, T], name: str = "auto") -> T:
    """``asyncio.run(main)`` on the loop ``name`` asks for."""
    with asyncio.Runner(loop_factory=loop_factory(name)) as runner:
        return runner.run(main)
