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
                # a timeout on the running task, not wait_for's task per message: a stream's
                # delivery is then one queue get and one write (bench/live_load.py measures it)
                async with asyncio.timeout(heartbeat):
                    message = await queue.get()
            except TimeoutError:
                message = b": ping\n\n"
            if message is None:
                break
            batch = [message]  # what else is queued goes in the same write
            while not queue.empty() and batch[-1] is not None:
                batch.append(queue.get_nowait())
            ended = batch[-1] is None
            await response.write(b"".join(batch[:-1] if ended else batch))
            if ended:
                break
    except (ConnectionResetError, asyncio.CancelledError):
        pass
