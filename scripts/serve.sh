#!/usr/bin/env bash
# Set up (first time only), build the deck and serve it on http://127.0.0.1:8000/
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python build.py serve "$@"
