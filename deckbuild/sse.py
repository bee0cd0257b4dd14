"""One Server-Sent Events stream fed from a queue: the hall's live channel and the watch channel.

``pump`` opens the response, writes its first bytes (``retry:`` and any greeting), then every
message the queue gives, a comment line (``: ping``) after ``heartbeat`` seconds of silence so
that a closed connection is found, until the queue gives ``None`` (the server ends the stream)
or the client goes away.
"""

from __future__ import annotations

import asyncio


async def pump(request, response, queue: asyncio.Queue, first: bytes, heartbeat: float) -> None:
    """Stream ``first`` then ``queue``'s messages on ``response`` (an unprepared aiohttp
    ``StreamResponse``) until ``None`` or a disconnect; never raises for either."""
    try:
        await response.prepare(request)
        await response.write(first)
        while True:
            try:
                message = await asyncio.wait_for(queue.get(), heartbeat)
            except TimeoutError:
                message = b": ping\n\n"
            if message is None:
                break
            await response.write(message)
    except (ConnectionResetError, asyncio.CancelledError):
        pass
