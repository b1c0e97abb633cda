#!/usr/bin/env bash
# Tests of the device-side Python codecs (python/wirebench_device: PSON, UADP + JSON):
#   1. pytest on CPython (tests/test_pson.py, tests/test_uadp.py, and
#      tests/test_uadp_vs_rust.py when a wirebench binary with the uadp codec is built)
#   2. the same test functions under real MicroPython 1.27 (its WebAssembly port, run by
#      Node.js; double-precision floats)
#   3. the same again under MicroPython 1.25's unix port built twice from Debian's source
#      package by build-micropython-f32.sh: single-precision floats (MICROPY_FLOAT_IMPL_FLOAT,
#      as on esp32/rp2/esp8266/stm32/samd boards) and double-precision floats
# Works from any directory; installs pytest (pip) and MicroPython (npm ci) when missing, and
# builds the unix ports once into the cache when missing (needs root the first time on a
# machine without a deb-src entry for trixie; see build-micropython-f32.sh).
# Environment: PYTHON (default python3), PSON_VECTORS / UADP_VECTORS (other vector files),
# PSON_SEED / UADP_SEED (the property tests' seeds), WIREBENCH_BIN (the Rust cross-check's binary).
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

step "MicroPython unix port, single and double precision (build-micropython-f32.sh)"
eval "$("$here/build-micropython-f32.sh")"
status=0
for mp in "$MICROPYTHON_F32" "$MICROPYTHON_F64"; do
    label="micropython-${mp##*-}"
    printf -- '-- %s: %s\n' "$label" "$("$mp" -c 'import sys; print(sys.version, sys.implementation._build)')"
    WIREBENCH_FLOAT="${mp##*-}" "$mp" -X heapsize=64M tests/run_micropython.py --label "$label" || status=1
done
exit "$status"
