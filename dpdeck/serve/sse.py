"""One Server-Sent Events stream fed from a queue: the hall's live channel and the watch channel.

``pump`` opens the response, writes its first bytes (``retry:`` and any greeting), then every
message the queue gives, a comment line (``: ping``) within twice ``heartbeat`` seconds of
silence so that a closed connection is found, until the queue gives ``None`` (the server ends the stream)
or the client goes away.
"""

from __future__ import annotations

import asyncio

PING = b": ping\n\n"  # a comment line: the client ignores it, a closed connection fails on it


async def pump(request, response, queue: asyncio.Queue, first: bytes, heartbeat: float) -> None:
    """Stream ``first`` then ``queue``'s messages on ``response`` (an unprepared aiohttp
    ``StreamResponse``) until ``None`` or a disconnect; never raises for either.

    The heartbeat is one timer per stream, every ``heartbeat`` seconds, that queues a ``: ping``
    when nothing was written since the last tick (so a silent stream pings within twice that),
    not a timeout around every message: a delivery is then one queue get and one write, with no
    timer made and cancelled (bench/live_load.py measures it: thousands of streams per process)."""
    loop = asyncio.get_running_loop()
    wrote = False
    timer: asyncio.TimerHandle  # made below, after tick, which makes the next

    def tick() -> None:
        nonlocal wrote, timer
        if not wrote:
            try:
                queue.put_nowait(PING)
            except asyncio.QueueFull:  # a stream that far behind is ended by its channel anyway
                pass
        wrote = False
        timer = loop.call_later(heartbeat, tick)

    timer = loop.call_later(heartbeat, tick)
    try:
        await response.prepare(request)
        await response.write(first)
        while True:
            message = await queue.get()
            if message is None:
                break
            batch = [message]  # what else is queued goes in the same write
            while not queue.empty() and batch[-1] is not None:
                batch.append(queue.get_nowait())
            ended = batch[-1] is None
            await response.write(b"".join(batch[:-1] if ended else batch))
            wrote = True
            if ended:
                break
    except (ConnectionResetError, asyncio.CancelledError):
        pass
    finally:
        timer.cancel()
