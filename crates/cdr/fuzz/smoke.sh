#!/usr/bin/env bash
# Bounded fuzz smoke test of the cdr decoder and IDL reader (cargo-fuzz + libFuzzer).
# Works from any cwd. Exits non-zero on a crash / failed assertion.
#   usage: crates/cdr/fuzz/smoke.sh [target...]      (default: decode idl)
#   env:   FUZZ_RUNS (default 200000), FUZZ_TIME (default 60 s per target)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=../../../scripts/cargo-fuzz.sh
source "$here/../../../scripts/cargo-fuzz.sh"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(decode idl)

mkdir -p corpus/decode corpus/idl
# Seed corpus. decode: one type-selector byte, then a payload with its header.
# 0 = Sensor (XCDR1-LE, the spec vector), 2 = Mut (XCDR2-LE), 4 = Keyed (XCDR1-BE).
printf '\x00\x00\x01\x00\x00\x2a\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf8\x3f\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00\x40\x40\x04\x00\x00\x00imu\x00\x03\x00\x00\x00\xff\xff\x02\x00\x2c\x01\x01' > corpus/decode/seed_sensor
printf '\x02\x00\x0b\x00\x00\x14\x00\x00\x00\x00\x00\x00\x20\x07\x00\x00\x00\x02\x00\x00\x50\x03\x00\x00\x00ab\x00' > corpus/decode/seed_mut
printf '\x04\x00\x00\x00\x00\x00\x00\x00\x02k\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x01\xee' > corpus/decode/seed_keyed
printf '@mutable struct M { @key long k; @optional double d; };\nunion U switch(long) { case 1: long a; default: string s; };\n' > corpus/idl/seed_mut
printf 'module m { enum E { A, @value(5) B }; typedef sequence<E> Es; const long N = 2 * 3; @appendable struct S : Base { Es es; octet raw[N]; }; };\n' > corpus/idl/seed_module

status=0
for t in "${targets[@]}"; do
    echo "smoke.sh: fuzzing $t" >&2
    extra=()
    [ -f "$t.dict" ] && extra=(-dict="$t.dict")
    "${fuzz[@]}" "$t" "corpus/$t" -- \
        -runs="${FUZZ_RUNS:-200000}" -max_total_time="${FUZZ_TIME:-60}" -max_len=4096 "${extra[@]}" || status=$?
    [ "$status" -ne 0 ] && exit "$status"
done
exit 0
