"""dpdeck: a live lecture's slides, built to a static deck and served to a hall.

Its layers, lowest first (each imports only from its own layer and those below it;
``tests/unit/test_import_graph.py`` checks it, docs/architecture.md draws it):

- ``origin``, ``resources``: the ground, web origins checked once and where the shipped files are;
- ``wire/``: the declarations of the wires between the page and its servers;
- ``build/``: deck/*.yaml + templates/ + static/ + node_modules → dist/, and its checks;
- ``serve/``: dist/ served (stdlib's http.server), watched, printed to PDF, rehearsed over HTTPS;
- ``hall/``: the live hall's aiohttp server, on SQLite or Redis (``python -m dpdeck.hall``);
- ``cli``: the ``dpdeck`` command (and ``build.py``): new, check, build, serve, pdf.
"""
