#!/usr/bin/env bash
# libfuzzer-run.sh TARGET [CORPUS_DIR ...] -- [libFuzzer flags] - build one fuzz target of the
# fuzz workspace in the current folder with libFuzzer's coverage instrumentation and run it.
# The flags are the ones cargo-fuzz passes by default (a release build with sancov inline 8-bit
# counters, PC table, traced compares and `--cfg fuzzing`), given to cargo directly, so the
# suite needs no cargo-fuzz install and every fuzz workspace shares one target folder
# (FUZZ_TARGET_DIR, default target/fuzz of the checkout): their common dependencies and
# libFuzzer itself are built once. With a nightly toolchain, AddressSanitizer is on too.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
[ $# -ge 1 ] || { echo "usage: libfuzzer-run.sh TARGET [CORPUS ...] -- [libFuzzer flags]" >&2; exit 2; }
target="$1"; shift
corpora=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do corpora+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
host=$(rustc -vV | sed -n 's/^host: //p')
flags="--cfg fuzzing -Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4"
flags+=" -Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table"
flags+=" -Cllvm-args=-sanitizer-coverage-trace-compares"
toolchain=()
if rustup run nightly rustc --version >/dev/null 2>&1; then
    toolchain=(+nightly)
    flags+=" -Zsanitizer=address"
fi
dir="${FUZZ_TARGET_DIR:-$root/target/fuzz}"
# --target: the flags reach the fuzz target and its dependencies, not build scripts or proc macros.
RUSTFLAGS="$flags" cargo "${toolchain[@]}" build --quiet --release --target "$host" \
    --target-dir "$dir" --bin "$target"
exec "$dir/$host/release/$target" "${corpora[@]}" "$@"
