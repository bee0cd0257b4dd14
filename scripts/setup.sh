#!/usr/bin/env bash
# Set up everything the deck needs on a fresh machine; safe to run again (it skips what is done).
#   - a Python virtual environment in .venv with the project's dependencies (pyproject.toml;
#     playwright among them, so `build.py pdf` works after this set-up)
#   - the front-end packages from package-lock.json (npm ci)
#   - with --test: the test dependencies, and Debian's chromium, firefox-esr and WebKitGTK's
#     WebDriver with xvfb, caddy, redis-server and certutil (installed with apt-get when
#     missing and running as root; otherwise it says what to install)
set -euo pipefail
cd "$(dirname "$0")/.."

want_test=0
[[ "${1:-}" == "--test" ]] && want_test=1

PY=${PYTHON:-python3}
if [[ ! -x .venv/bin/python ]]; then
  echo "setup: creating .venv"
  "$PY" -m venv .venv
fi
extras=""
[[ $want_test == 1 ]] && extras="test"
deps=$(.venv/bin/python - "$extras" <<'PYEOF'
import sys, tomllib
project = tomllib.load(open("pyproject.toml", "rb"))["project"]
deps = list(project["dependencies"])
for extra in filter(None, sys.argv[1].split(",")):
    deps += project["optional-dependencies"][extra]
print("\n".join(deps))
PYEOF
)
stamp=".venv/.deps-$(echo "$deps" | sha256sum | cut -c1-16)"
if [[ ! -e "$stamp" ]]; then
  echo "setup: installing Python dependencies (the first time ~100 MB: numpy, matplotlib, playwright, ...)"
  # one requirement per line, as a requirements file (a requirement may hold spaces: a marker)
  .venv/bin/python -m pip install -q --disable-pip-version-check -r /dev/stdin <<< "$deps"
  touch "$stamp"
fi

if [[ ! -e node_modules/.package-lock.json ]] || [[ package-lock.json -nt node_modules/.package-lock.json ]]; then
  # the Node.js this needs is package.json's "engines" (README.md and docs/contributing.md say the same)
  node_min=$(sed -n 's/.*"node": *">= *\([0-9][0-9]*\).*/\1/p' package.json)
  command -v npm >/dev/null || { echo "setup: npm (Node.js ≥ $node_min) is needed: apt-get install nodejs npm" >&2; exit 1; }
  node_major=$(node -p 'process.versions.node.split(".")[0]')
  (( node_major >= node_min )) || { echo "setup: Node.js ≥ $node_min is needed, this one is $(node --version)" >&2; exit 1; }
  echo "setup: installing front-end packages (npm ci)"
  npm ci --no-audit --no-fund --loglevel=error
fi

if [[ $want_test == 1 ]]; then
  need=()
  [[ -n "${DPDECK_CHROMIUM:-}" || -x /usr/bin/chromium ]] || need+=(chromium)
  command -v pdftoppm >/dev/null || need+=(poppler-utils)
  fc-list 2>/dev/null | grep -qi dejavu || need+=(fonts-dejavu-core)
  # the other two engines students use: Firefox (driven over WebDriver BiDi by puppeteer-core)
  # and WebKit (WebKitGTK's MiniBrowser over W3C WebDriver), which needs a virtual display
  # puppeteer-core drives only a Firefox recent enough (FIREFOX_MIN, tests/browser/engines/drivers.py):
  # an older firefox-esr is upgraded, as a missing one is installed
  firefox=${DPDECK_FIREFOX:-/usr/bin/firefox-esr}
  firefox_min=$(sed -n 's/^FIREFOX_MIN = \([0-9][0-9]*\).*/\1/p' tests/browser/engines/drivers.py)
  firefox_major() {  # 0 when absent or unreadable
    local v
    v=$("$firefox" --version 2>/dev/null | grep -o '[0-9][0-9]*\.' | head -1 | tr -d .) || true
    echo "${v:-0}"
  }
  if (( $(firefox_major) < firefox_min )); then
    if [[ -n "${DPDECK_FIREFOX:-}" ]]; then
      echo "setup: DPDECK_FIREFOX=$firefox is Firefox $(firefox_major); the pinned puppeteer-core needs ≥ $firefox_min" >&2
      exit 1
    fi
    need+=(firefox-esr)  # apt-get install upgrades an older one
  fi
  [[ -x /usr/bin/WebKitWebDriver ]] || need+=(webkit2gtk-driver)
  command -v xvfb-run >/dev/null || need+=(xvfb xauth)
  # the hall beyond one laptop (tests/browser/test_proxy.py, the Redis store's tests): Caddy as
  # the TLS reverse proxy, Redis for several hall processes, certutil to make Chromium trust
  # Caddy's test CA
  command -v caddy >/dev/null || need+=(caddy)
  command -v redis-server >/dev/null || need+=(redis-server)
  command -v certutil >/dev/null || need+=(libnss3-tools)
  if (( ${#need[@]} )); then
    if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
      echo "setup: installing ${need[*]} with apt-get"
      apt-get update -qq
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
      if (( $(firefox_major) < firefox_min )); then
        echo "setup: $firefox is Firefox $(firefox_major); the pinned puppeteer-core needs ≥ $firefox_min:" \
          "add a source with a newer firefox-esr and run apt-get install firefox-esr, or set DPDECK_FIREFOX" >&2
        exit 1
      fi
    else
      echo "setup: please install ${need[*]} (Debian: sudo apt-get install ${need[*]}), or set DPDECK_CHROMIUM to a Chromium binary" >&2
      exit 1
    fi
  fi
fi
