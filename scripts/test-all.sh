#!/usr/bin/env bash
# Runs every wirebench test: the Rust workspace (unit, vector, property, CLI tests), the C
# device codecs (strict and sanitizer builds, nm check, Cortex-M size build, libFuzzer smoke),
# the Python device codecs (CPython and MicroPython), the cross-language differential test, and
# a bounded fuzz smoke of the Rust PSON decoders. Installs what the tests need first, so it
# works on a fresh machine and in CI (`.ci/run` calls this script).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

# Each step prints how long the one before it took, so the suite's time (≤ ~40 min on 2 cores
# is the aim) can be read off any log.
step_start=$SECONDS
step() {
    printf '\n== %s   [last step %d s, total %d s]\n' "$*" $((SECONDS - step_start)) "$SECONDS"
    step_start=$SECONDS
}

step "system packages"
need=()
command -v valgrind >/dev/null 2>&1 || need+=(valgrind)
command -v clang >/dev/null 2>&1 || need+=(clang)
command -v arm-none-eabi-gcc >/dev/null 2>&1 || need+=(gcc-arm-none-eabi libnewlib-arm-none-eabi)
command -v cc >/dev/null 2>&1 || need+=(build-essential)
command -v node >/dev/null 2>&1 || need+=(nodejs npm)
dpkg -s libclang-dev >/dev/null 2>&1 || need+=(libclang-dev)
command -v cmake >/dev/null 2>&1 || need+=(cmake)
command -v wrk >/dev/null 2>&1 || need+=(wrk)
command -v nft >/dev/null 2>&1 || need+=(nftables)
command -v mosquitto >/dev/null 2>&1 && command -v mosquitto_passwd >/dev/null 2>&1 || need+=(mosquitto)
# The MQTT TLS tests make their certificates with the openssl command.
command -v openssl >/dev/null 2>&1 || need+=(openssl)
dpkg -s cyclonedds-dev >/dev/null 2>&1 || need+=(cyclonedds-dev)
command -v ddsperf >/dev/null 2>&1 && command -v idlc >/dev/null 2>&1 || need+=(cyclonedds-tools)
command -v chromium >/dev/null 2>&1 || need+=(chromium)
# The netns lab: ip and tc (iproute2), setpriv and unshare (util-linux).
command -v ip >/dev/null 2>&1 && command -v tc >/dev/null 2>&1 || need+=(iproute2)
command -v setpriv >/dev/null 2>&1 || need+=(util-linux)
# The device lab: avr-gcc + avr-libc and simavr (AVR), nanopb's generator; the peer libraries'
# sources come from Debian's archive at run time (c/lab/libs/fetch.py, pinned SHA-256).
command -v avr-gcc >/dev/null 2>&1 || need+=(gcc-avr avr-libc binutils-avr)
dpkg -s libsimavr-dev >/dev/null 2>&1 || need+=(libsimavr-dev simavr)
command -v nanopb_generator >/dev/null 2>&1 || command -v nanopb_generator.py >/dev/null 2>&1 || need+=(nanopb)
command -v xtensa-lx106-elf-gcc >/dev/null 2>&1 || need+=(gcc-xtensa-lx106 binutils-xtensa-lx106)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# The single- and double-precision MicroPython unix ports are built from Debian's source package.
command -v dpkg-source >/dev/null 2>&1 || need+=(dpkg-dev)
# A 32-bit MicroPython build, the closest to an ESP32's heap objects (seed 000's figures).
dpkg -s gcc-multilib >/dev/null 2>&1 || need+=(gcc-multilib)
python3 -m pip --version >/dev/null 2>&1 || need+=(python3-pip)
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "missing packages (install as root): ${need[*]}" >&2
        exit 1
    fi
fi
step "Python packages: the CDR oracle (cyclonedds) and pytest"
pip_install() {
    # A Debian system Python refuses plain pip installs (PEP 668); fall back to --user.
    python3 -m pip install --quiet "$@" || python3 -m pip install --quiet --user --break-system-packages "$@"
}
python3 -c 'import cyclonedds' >/dev/null 2>&1 || pip_install cyclonedds==11.0.1
python3 -c 'import pytest' >/dev/null 2>&1 || pip_install pytest
# Reading results as users do: the JSON Schema validator and pandas (scripts/check-results.py).
python3 -c 'import jsonschema, pandas' >/dev/null 2>&1 || pip_install jsonschema pandas
# The Cortex-M simulator of the device lab (unicorn, capstone, pyelftools; pinned).
python3 -c 'import unicorn, capstone, elftools' >/dev/null 2>&1 || pip_install -r c/lab/arm/requirements.txt
# The Kubernetes schemas, offline, for the fleet manifests (scripts/check-deploy.py).
python3 -c 'import kubernetes_validate' >/dev/null 2>&1 || pip_install kubernetes-validate==1.37.0
export CDR_ORACLE_REQUIRED=1
# The normal build must have DDS (Cyclone is installed above): a build that silently left it out
# would skip every DDS test.
export WIREBENCH_DDS=require

if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi

step "cargo test (workspace)"
cargo test --workspace --locked

step "C device codecs: tests (strict + ASan/UBSan), nm check, Cortex-M sizes, libFuzzer smoke"
make -C c check

step "C device codecs on AVR (simavr) and the device lab's simulators (hand-counted cycle tests)"
make -C c test-avr test-arm-sim

step "Python device codecs: CPython and MicroPython (WebAssembly; unix port in single and double precision)"
python/run_tests.sh

step "cross-language differential test (Rust, C, Python)"
cargo build --locked -q -p wirebench
python3 scripts/differential.py --wirebench target/debug/wirebench --pson-tool c/build/pson_tool --count 200

step "fleet on Kubernetes: manifests valid against the Kubernetes schema, shard arguments accepted"
# No container engine runs here (Docker's client only), so the image is not built: see docs/scale-out.md.
python3 scripts/check-deploy.py --wirebench target/debug/wirebench

step "HTML report in headless Chromium: no console errors, charts visible, not blank"
report_dir=$(mktemp -d)
trap 'rm -rf "$report_dir"' EXIT
target/debug/wirebench run studies/quickstart.toml --out "$report_dir" >/dev/null
target/debug/wirebench report "$report_dir/results.json" -o html > "$report_dir/again.html"
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

step "every built-in study: results valid against docs/results.schema.json, every CSV loads in pandas"
# The release binary (with DDS): seed 004's 64 KB JSON marshalling takes 18 minutes in a debug build.
cargo build --release --locked -q -p wirebench
# A small fleet (two sizes, three formats) through the embedded broker, checked the same way.
target/release/wirebench fleet --devices 100,300 --every 1s --duration 4s -f json,pson,protobuf \
    --out "$report_dir/fleet.json" >/dev/null
python3 scripts/check-results.py --wirebench target/release/wirebench --keep "$report_dir/studies" \
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

step "fresh machine: release binary without Cyclone DDS, the main job from outside the checkout"
scripts/fresh-machine-check.sh

step "all tests passed"
