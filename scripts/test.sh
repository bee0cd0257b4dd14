#!/usr/bin/env bash
# Set up (first time only) and run every test: package, build, and the deck in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --test
exec .venv/bin/python -m pytest "$@"
