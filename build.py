#!/usr/bin/env python3
"""The deck's command line in the repository: ``python build.py new|build|check|serve|pdf``.

The same code as the installed ``dpdeck`` command (dpdeck/cli.py, where the commands and
their options are described), run on this repository: its deck/, dist/, templates/, static/,
pyodide_pkg/ and node_modules/. ``python build.py --help`` lists the commands and exit codes.
"""

from __future__ import annotations

import sys
from pathlib import Path

from dpdeck import cli
from dpdeck.build.site import Project

ROOT = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    return cli.main(argv, prog="build.py", project=Project(ROOT))


if __name__ == "__main__":
    sys.exit(main())
