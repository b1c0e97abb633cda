#!/usr/bin/env bash
# Runs every wirebench test: the Rust workspace (unit, vector, property and CLI tests) and a
# bounded fuzz smoke of each decoder. Installs what the tests need first, so it works on a
# fresh machine and in CI (`.ci/run` calls this script).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

step() { printf '\n== %s\n' "$*"; }

step "tools"
if ! command -v cargo-fuzz >/dev/null 2>&1; then
    cargo install --locked cargo-fuzz
fi

step "cargo test (workspace)"
cargo test --workspace --locked

step "fuzz smoke: PSON and Protoson decoders (bounded)"
FUZZ_RUNS="${FUZZ_RUNS:-200000}" FUZZ_TIME="${FUZZ_TIME:-30}" crates/pson/fuzz/smoke.sh

step "all tests passed"
