"""The build: deck/*.yaml + templates/ + static/ + node_modules + wheels -> dist/ (``site.build``), and its checks (``schema``, ``runcheck``)."""
