#!/usr/bin/env bash
# Bounded fuzz smoke test of the pson decoders (cargo-fuzz + libFuzzer).
# Works from any cwd. Exits non-zero on a crash / failed assertion.
#   usage: crates/pson/fuzz/smoke.sh [extra libFuzzer args]
#   env:   FUZZ_RUNS (default 200000), FUZZ_TIME (default 60 s)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=../../../scripts/cargo-fuzz.sh
source "$here/../../../scripts/cargo-fuzz.sh"
mkdir -p corpus/decode
# Seed corpus: a few valid PSON v2 / Protoson v1 items.
printf '\xc3\x86sensor\x83gps\x84time\x1f\xf8\xe5\xcc\x84\x05\x84data\xe2\x40\x00\x00\x43\x42\x41\x66\x66\x66\x66\x66\x66\x02\x40' > corpus/decode/seed_test01
printf '\xc2\x81a\xc1\x81b\xe2\x01\x20\x81e\xe3\xc0\xe0\x80' > corpus/decode/seed_nested
printf '\x6a\x06\x03neg\x10\x02' > corpus/decode/seed_protoson
exec "${fuzz[@]}" decode corpus/decode -- \
    -runs="${FUZZ_RUNS:-200000}" -max_total_time="${FUZZ_TIME:-60}" -max_len=4096 "$@"
