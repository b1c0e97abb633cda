#!/usr/bin/env bash
# Builds the MicroPython unix port twice from Debian's source package (micropython 1.25.0+ds-1,
# trixie), into a cache folder, once:
#   micropython-f32   single-precision floats (MICROPY_FLOAT_IMPL_FLOAT), as on esp32, rp2,
#                     esp8266, stm32 and samd boards
#   micropython-f64   double-precision floats (the unix port's default)
#   mpy-cross         the bytecode compiler of the same tree
#   micropython-f32-m32  optional: single precision, 32-bit words (MICROPY_FORCE_32BIT=1), closer
#                     to an ESP32's heap layout; built only when `gcc -m32` links (gcc-multilib)
# Nothing of MicroPython's source is kept in this repository.
#
# Idempotent: when the binaries exist and start, nothing is built. Prints, on stdout,
#   MICROPYTHON_F32=<path>
#   MICROPYTHON_F64=<path>
#   MPY_CROSS=<path>
#   MICROPYTHON_F32_M32=<path, or empty when gcc -m32 cannot link>
# (build output goes to <cache>/build.log; progress to stderr).
#
# Needs: apt-get source (dpkg-dev), gcc, make, python3; as root it installs the missing ones and
# adds a deb-src entry for trixie to /etc/apt/sources.list.d/ when apt has none.
# Environment: WIREBENCH_CACHE (default ${XDG_CACHE_HOME:-$HOME/.cache}/wirebench),
# MAKE_JOBS (default 2).
#
# The build leaves out what would need the source package's stripped submodules or extra
# libraries (libffi, mbedtls, berkeley-db, littlefs, the frozen manifest): the float
# implementation is the only difference between the two interpreters.
set -euo pipefail

MP_VERSION="1.25.0+ds-1"
cache="${WIREBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/wirebench}/micropython-${MP_VERSION}"
jobs="${MAKE_JOBS:-2}"
f32="$cache/micropython-f32"
f64="$cache/micropython-f64"
xc="$cache/mpy-cross"
m32="$cache/micropython-f32-m32"

say() { printf '%s\n' "$*" >&2; }

works() {
    [ -x "$1" ] && "$1" -c 'import sys; sys.exit(0 if sys.implementation.version[:2] == (1, 25) else 1)' >/dev/null 2>&1
}

report() {
    printf 'MICROPYTHON_F32=%s\nMICROPYTHON_F64=%s\nMPY_CROSS=%s\n' "$f32" "$f64" "$xc"
    if works "$m32"; then printf 'MICROPYTHON_F32_M32=%s\n' "$m32"; else printf 'MICROPYTHON_F32_M32=\n'; fi
}

can_m32() {
    printf 'int main(void){return 0;}\n' | gcc -m32 -x c -o /dev/null - >/dev/null 2>&1
}

if works "$f32" && works "$f64" && [ -x "$xc" ] && { works "$m32" || ! can_m32; }; then
    report
    exit 0
fi

mkdir -p "$cache"
log="$cache/build.log"
: >"$log"

as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"; else
        say "error: '$*' needs root (run this script as root once, or do it by hand)"
        exit 1
    fi
}

need_tools=()
command -v gcc >/dev/null || need_tools+=(gcc libc6-dev)
command -v make >/dev/null || need_tools+=(make)
command -v python3 >/dev/null || need_tools+=(python3)
command -v dpkg-source >/dev/null || need_tools+=(dpkg-dev)
if [ "${#need_tools[@]}" -gt 0 ]; then
    say "installing ${need_tools[*]}"
    as_root apt-get update -qq >>"$log" 2>&1
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_tools[@]}" >>"$log" 2>&1
fi

src="$cache/src"
if [ ! -f "$src/ports/unix/Makefile" ]; then
    # apt must know the source package: a deb-src entry for trixie, added when missing
    has_src() { apt-cache showsrc micropython 2>/dev/null | grep -qx "Version: $MP_VERSION"; }
    if ! has_src; then
        as_root apt-get update -qq >>"$log" 2>&1 || true
    fi
    if ! has_src; then
        say "adding a deb-src entry for trixie (/etc/apt/sources.list.d/wirebench-src.sources)"
        as_root tee /etc/apt/sources.list.d/wirebench-src.sources >/dev/null <<'EOF2'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: trixie
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF2
        as_root apt-get update -qq >>"$log" 2>&1
        has_src || { say "error: apt has no source package micropython=$MP_VERSION (see $log)"; exit 1; }
    fi
    dl="$cache/download"
    rm -rf "$dl" "$src"
    mkdir -p "$dl"
    say "downloading the source package micropython=$MP_VERSION"
    (cd "$dl" && apt-get source --download-only "micropython=$MP_VERSION") >>"$log" 2>&1 || {
        say "error: apt-get source micropython=$MP_VERSION failed (see $log)"
        tail -n 5 "$log" >&2
        exit 1
    }
    # unpacks and applies Debian's patches (fixed version string, no submodule checks)
    dpkg-source -x "$dl"/micropython_*.dsc "$src" >>"$log" 2>&1
    rm -rf "$dl" "$cache"/micropython_*.orig.tar.*
fi

opts=(VARIANT=standard FROZEN_MANIFEST= MICROPY_PY_FFI=0 MICROPY_PY_BTREE=0 MICROPY_PY_SSL=0
    MICROPY_SSL_MBEDTLS=0 MICROPY_SSL_AXTLS=0 MICROPY_VFS_LFS1=0 MICROPY_VFS_LFS2=0)

say "building mpy-cross"
make -j"$jobs" -C "$src/mpy-cross" >>"$log" 2>&1 || { tail -n 20 "$log" >&2; exit 1; }
cp "$src/mpy-cross/build/mpy-cross" "$xc"

say "building the unix port, single precision"
make -j"$jobs" -C "$src/ports/unix" "${opts[@]}" BUILD=build-f32 \
    CFLAGS_EXTRA=-DMICROPY_FLOAT_IMPL=MICROPY_FLOAT_IMPL_FLOAT >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; exit 1; }
cp "$src/ports/unix/build-f32/micropython" "$f32"

say "building the unix port, double precision"
make -j"$jobs" -C "$src/ports/unix" "${opts[@]}" BUILD=build-f64 >>"$log" 2>&1 ||
    { tail -n 20 "$log" >&2; exit 1; }
cp "$src/ports/unix/build-f64/micropython" "$f64"

if can_m32; then
    say "building the unix port, single precision, 32-bit"
    make -j"$jobs" -C "$src/ports/unix" "${opts[@]}" BUILD=build-f32-m32 MICROPY_FORCE_32BIT=1 \
        CFLAGS_EXTRA=-DMICROPY_FLOAT_IMPL=MICROPY_FLOAT_IMPL_FLOAT >>"$log" 2>&1 ||
        { tail -n 20 "$log" >&2; exit 1; }
    cp "$src/ports/unix/build-f32-m32/micropython" "$m32"
else
    say "note: gcc -m32 cannot link (install gcc-multilib): no 32-bit build"
fi

# the float implementation is what it says (1 + 2**-40 is 1 in binary32 only)
"$f32" -c 'import sys; sys.exit(0 if 1.0 + 2.0 ** -40 == 1.0 else 1)' ||
    { say "error: $f32 does not use single-precision floats"; exit 1; }
"$f64" -c 'import sys; sys.exit(0 if 1.0 + 2.0 ** -40 != 1.0 else 1)' ||
    { say "error: $f64 does not use double-precision floats"; exit 1; }
works "$f32" && works "$f64" || { say "error: the built interpreters do not start"; exit 1; }
report
