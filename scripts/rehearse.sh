#!/usr/bin/env bash
# Rehearse the HTTPS set-up of docs/deploy.md on this machine: the deck on https://localhost:8443/,
# the hall behind Caddy on https://localhost:8444/, Caddy's own CA trusted by Chromium
# (dpdeck/serve/rehearse.py). Needs caddy and certutil (Debian: apt-get install caddy libnss3-tools).
# Ctrl+C stops it. Options: --deck-port, --hall-port, --deck FILE, --dir DIR, --no-build.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m dpdeck.serve.rehearse "$@"
