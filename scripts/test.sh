#!/usr/bin/env bash
# Set up (first time only) and run every test: package, build, and the deck in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
# Two pytest workers where there are two cores or more (pytest-xdist), each given whole files
# (--dist loadfile), so a module's fixtures (a page with Python ready) are built once; a worker's
# tests run one at a time, as before. The files go out longest first (tests/conftest.py), not
# xdist's default of the most tests first. DPDECK_TEST_WORKERS=0 runs them all in this process, as
# does -n 0 (later pytest arguments win).
cores=$(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
workers=${DPDECK_TEST_WORKERS:-$(( cores >= 2 ? 2 : 0 ))}
exec .venv/bin/python -m pytest -n "$workers" --dist loadfile --no-loadscope-reorder "$@"
