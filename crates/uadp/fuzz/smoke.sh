#!/usr/bin/env bash
# Bounded fuzz smoke test of the UADP decoder and JSON reader (cargo-fuzz + libFuzzer).
# Works from any cwd. Exits non-zero on a crash / failed assertion.
#   usage: crates/uadp/fuzz/smoke.sh [extra libFuzzer args]
#   env:   FUZZ_RUNS (default 200000), FUZZ_TIME (default 60 s)
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"
# shellcheck source=../../../scripts/cargo-fuzz.sh
source "$here/../../../scripts/cargo-fuzz.sh"
mkdir -p corpus/decode
# Seed corpus: the seed layout (3 fields), two DataSetMessages, RawData, a JSON NetworkMessage.
unhex() { printf '%s' "$1" | sed 's/../\\x&/g' | xargs -0 printf '%b'; }
unhex d10c0b00000045535033322d42656e63689497e7eaf71a964f84014096cd1d890801e8030103000a0000cc410a00507d44062a000000 > corpus/decode/seed_variant_3f
unhex d10c0b00000045535033322d42656e63689497e7eaf71a964f84014096cd1d890802e803e903120008000103000a0000cc410a00507d44062a0000000101000a0000cc41 > corpus/decode/two_dsms
unhex 510101e803030000cc410300000067707304000000ffff0000 > corpus/decode/raw
printf '%s' '{"MessageId":"1","MessageType":"ua-data","PublisherId":"ESP32-Bench","Messages":[{"DataSetWriterId":1000,"SequenceNumber":1,"Payload":{"a":{"UaType":10,"Value":25.5,"SourceTimestamp":"2000-01-01T00:00:15Z"},"b":42}}]}' > corpus/decode/json
exec "${fuzz[@]}" decode corpus/decode -- \
    -runs="${FUZZ_RUNS:-200000}" -max_total_time="${FUZZ_TIME:-60}" -max_len=4096 "$@"
