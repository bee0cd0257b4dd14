"""``dist/`` over aiohttp, as ``build.py serve`` sends it: a thin adapter of
:mod:`dpdeck.serve.staticfiles`, which decides every answer (hostile paths, limits, precompressed
siblings, isolation and cache headers) for both servers alike; this module only streams it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiohttp import web

from dpdeck.serve import staticfiles
from dpdeck.serve.staticfiles import ISOLATION_HEADERS  # noqa: F401 - app.py's /_hall/ answers carry them too

CHUNK = 256 * 1024


async def send_file(request: web.Request, root: Path, isolate: bool) -> web.StreamResponse:
    """GET/HEAD of a deck file, as the policy decides, streamed in chunks."""
    accept = ", ".join(request.headers.getall("Accept-Encoding", ())) or None
    verdict = staticfiles.decide(
        root,
        request.raw_path,
        accept_encoding=accept,
        if_modified_since=request.headers.get("If-Modified-Since"),
        if_none_match=request.headers.get("If-None-Match"),
        isolate=isolate,
    )
    verdict, f = staticfiles.open_body(verdict, isolate)
    if f is None:
        return web.Response(status=verdict.status, headers=verdict.headers, body=verdict.body or None)
    try:
        response = web.StreamResponse(status=verdict.status, headers=verdict.headers)
        response.content_length = int(verdict.headers["Content-Length"])
        await response.prepare(request)
        if request.method != "HEAD":
            loop = asyncio.get_running_loop()
            while chunk := await loop.run_in_executor(None, f.read, CHUNK):
                await response.write(chunk)
        await response.write_eof()
        return response
    finally:
        f.close()
