"""The live hall: one small asyncio server (aiohttp) the presenter starts with ``build.py serve --hall``.

It serves ``dist/`` as ``build.py serve`` does (isolation headers, precompressed siblings) and,
under ``/_hall/``, the live channel of docs/live-hall-protocol.md: the presenter's position fanned
out to every device over Server-Sent Events, randomized poll answers and solved exercises sent up
as small POSTs, all kept in SQLite so that a server killed mid-poll loses nothing.

Modules, one job each: ``store`` (SQLite), ``messages`` (live.json and validation of every
body), ``limits`` (in-memory rate limits), ``channel`` (the SSE fan-out), ``static`` (dist/ with
hostile paths refused), ``token`` (the presenter's secret), ``net`` (the URLs to print),
``app`` (the aiohttp application), ``run`` (the command line's server), ``cors`` (a deck on
another origin), ``proxy`` (behind a reverse proxy), ``options`` (their command-line options), ``eventloop``
(uvloop where installed).
"""
