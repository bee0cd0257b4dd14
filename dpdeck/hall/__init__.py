"""The live hall: one small asyncio server (aiohttp) the presenter starts with ``build.py serve --hall``.

It serves ``dist/`` as ``build.py serve`` does (isolation headers, precompressed siblings) and,
under ``/_hall/``, the live channel of docs/live-hall-protocol.md: the presenter's position fanned
out to every device over Server-Sent Events, randomized poll answers and solved exercises sent up
as small POSTs, each admitted by a ticket; all kept in SQLite (one process) or in Redis (several
processes behind one proxy), so that a server killed mid-poll loses nothing.

Modules, one job each (tests/unit/test_import_graph.py checks that this list names every module
of the folder, and only those):

- the server: ``app`` (the aiohttp application and its routes), ``run`` (start, print, serve),
  ``options`` (the command line, declared once for both commands), ``eventloop`` (uvloop where
  installed), ``connections`` (timeouts and bounds on TCP connections), ``logs`` (what the
  terminal gets: never an address, nothing as a client sent it);
- the edge: ``hosts`` (DNS rebinding), ``cors`` (a deck on another origin), ``proxy`` (behind a
  reverse proxy), ``addresses`` (who a client is, IPv6 by /64), ``limits`` (rate limits and
  bounds), ``static`` (dist/ with hostile paths refused), ``net`` (the URLs to print),
  ``token`` (the presenter's secret);
- the hall's memory: ``store`` (the Store protocol and SQLite), ``redis_store`` (Redis),
  ``admission`` (the pool and the tickets), ``state`` (the hall's decisions as pure
  code), ``channel`` (the SSE fan-out), ``release`` (a solved count with noise, and its
  budget), ``messages`` (live.json and every body's validation), ``texts`` (the words of
  every refusal, in Spanish).
"""
