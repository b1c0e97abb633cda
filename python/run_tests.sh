#!/usr/bin/env bash
# Tests of the device-side Python PSON codec (python/wirebench_device):
#   1. pytest on CPython
#   2. the same test functions under real MicroPython (its WebAssembly port, run by Node.js)
# Works from any directory; installs pytest (pip) and MicroPython (npm ci) when missing.
# Environment: PYTHON (default python3), PSON_VECTORS (another vector file), PSON_SEED
# (the property test's seed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
py="${PYTHON:-python3}"

step() { printf '\n== %s\n' "$*"; }

step "CPython: $("$py" --version 2>&1)"
if ! "$py" -c 'import pytest' >/dev/null 2>&1; then
    "$py" -m pip install --quiet pytest ||
        "$py" -m pip install --quiet --user --break-system-packages pytest
fi
"$py" -m pytest -q -p no:cacheprovider tests

step "MicroPython (WebAssembly port in Node.js $(node --version))"
if [ ! -f node_modules/@micropython/micropython-webassembly-pyscript/micropython.mjs ]; then
    npm ci --prefix "$here" --no-audit --no-fund
fi
node tests/run_micropython.mjs
