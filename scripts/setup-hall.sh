#!/usr/bin/env bash
# The live hall alone on a server (a VM, docs/deploy.md): a .venv in this checkout with only the
# hall's packages (pyproject.toml's optional dependencies `hall`: aiohttp, segno, numpy, redis,
# uvloop), then a check that the hall imports. Safe to run again. Needs Python >= 3.11 with venv
# (Debian: apt-get install python3-venv). Then: .venv/bin/python -m dpdeck.hall --live live.json …
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  echo "setup-hall: creando .venv"
  "$PY" -m venv .venv
fi
deps=$(.venv/bin/python - <<'PYEOF'
import tomllib
print("\n".join(tomllib.load(open("pyproject.toml", "rb"))["project"]["optional-dependencies"]["hall"]))
PYEOF
)
echo "setup-hall: instalando los paquetes de la sala: $(echo $deps | tr '\n' ' ')"
# one requirement per line, as a requirements file (a requirement may hold spaces: a marker)
.venv/bin/python -m pip install -q --disable-pip-version-check -r /dev/stdin <<< "$deps"
.venv/bin/python -c "import dpdeck.hall.app, dpdeck.hall.redis_store, dpdeck.hall.__main__"
echo "setup-hall: listo. La sala: .venv/bin/python -m dpdeck.hall --live live.json --port 8100 …"
